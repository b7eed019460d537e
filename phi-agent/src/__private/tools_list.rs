//! Support for `tools![..]`: boxing each item, and the compile-time check that the listed
//! `#[phi_tool]` fns have distinct names.
//!
//! The `tools!` macro is defined here because a `macro_rules!` macro needs `$crate` to name this
//! crate wherever it is used (a renamed dependency included); its documentation is on its
//! re-export in the crate root, next to `phi_tool`.

use std::sync::Arc;

use super::const_str::{ConstMessage, str_eq};
use crate::tool::Tool;

/// Implemented by everything `tools![]` accepts.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tool",
    label = "`tools![]` expects a `#[phi_tool]` fn or a value that implements `phi_agent::Tool`",
    note = "name a `#[phi_tool]` fn by its path (`get_weather`, `weather::forecast`), or give a value whose type implements `Tool` or `TypedTool`"
)]
pub trait IntoTool {
    /// The tool, shared.
    fn into_tool(self) -> Arc<dyn Tool>;
}

impl<T: Tool + 'static> IntoTool for T {
    fn into_tool(self) -> Arc<dyn Tool> {
        Arc::new(self)
    }
}

/// Boxes one `tools![]` item; the call is spanned on the item.
pub fn into_tool<T: IntoTool>(tool: T) -> Arc<dyn Tool> {
    tool.into_tool()
}

/// The `NAME` of a `#[phi_tool]` fn's tool type, as a trait constant so that a `const fn` can read
/// it from a value of the type.
pub trait ToolFnName {
    /// The tool's name, as the model sees it.
    const NAME: &'static str;
}

/// The name of the tool `tool` is, for the name check of `tools![]`. It takes the tool as a value
/// (the same path `into_tool` gets, with the same span), so that a path naming no tool, such as a
/// plain fn, is one error rather than one per use.
pub const fn tool_fn_name<T: ToolFnName>(_tool: &T) -> &'static str {
    T::NAME
}

/// No earlier tool has this one's name.
const NONE: usize = usize::MAX;

/// For each tool, the index of the first earlier one with the same name, or `usize::MAX`. One pass
/// over an open-addressing table of `SLOTS` slots (a power of two, more than `N`): const
/// evaluation is an interpreter, and comparing every pair of 100 names cost it a sixth of a
/// second per `tools![]`; hashing each name once costs a few milliseconds.
pub const fn earlier_duplicates<const N: usize, const SLOTS: usize>(
    names: &[&str; N],
) -> [usize; N] {
    assert!(SLOTS.is_power_of_two() && SLOTS > N);
    let mut earlier = [NONE; N];
    // The index of the first tool whose name hashed to the slot (or probed on to it).
    let mut table = [NONE; SLOTS];
    let mut index = 0;
    while index < N {
        let mut slot = (hash(names[index]) as usize) & (SLOTS - 1);
        loop {
            let held = table[slot];
            if held == NONE {
                table[slot] = index;
                break;
            }
            if str_eq(names[held], names[index]) {
                earlier[index] = held;
                break;
            }
            slot = (slot + 1) & (SLOTS - 1);
        }
        index += 1;
    }
    earlier
}

/// FNV-1a, which a `const fn` can compute.
const fn hash(name: &str) -> u64 {
    let bytes = name.as_bytes();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut i = 0;
    while i < bytes.len() {
        hash = (hash ^ bytes[i] as u64).wrapping_mul(0x0100_0000_01b3);
        i += 1;
    }
    hash
}

/// The error when the tool at `index` has the name of an earlier one (`earlier`, from
/// [`earlier_duplicates`]): the message names both fns and the shared name. `tools![]` panics
/// with it in a `const` of its own expansion, so that the error points at the user's list and at
/// nothing in this crate.
pub const fn duplicate_name(
    names: &[&str],
    labels: &[&str],
    earlier: &[usize],
    index: usize,
) -> Option<ConstMessage> {
    let first = earlier[index];
    if first == NONE {
        return None;
    }
    Some(
        ConstMessage::new()
            .push("tools `")
            .push(labels[first])
            .push("` and `")
            .push(labels[index])
            .push("` in `tools![]` share the name `")
            .push(names[index])
            .push("`; give one of them another name with `#[phi_tool(name = \"...\")]`"),
    )
}

// The implementation of `phi_agent::tools!`, documented at its re-export in the crate root. It
// passes `$crate` to the proc macro so that the expansion names this crate however the user
// depends on it. Hidden under a name users will not write; `phi_agent::tools` is the one to use.
#[doc(hidden)]
#[macro_export]
macro_rules! __phi_tools {
    ($($items:tt)*) => {
        $crate::__private::tools_with_crate!($crate; $($items)*)
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earlier_duplicates_are_found() {
        const NAMES: [&str; 5] = ["a", "b", "a", "c", "a"];
        const EARLIER: [usize; 5] = earlier_duplicates::<5, 8>(&NAMES);
        assert_eq!(EARLIER, [NONE, NONE, 0, NONE, 0]);
        // A table barely larger than the list: every name probes past the others.
        let many: Vec<String> = (0..63).map(|i| format!("tool_{}", i % 40)).collect();
        let names: Vec<&str> = many.iter().map(String::as_str).collect();
        let names: [&str; 63] = names.try_into().unwrap();
        let earlier = earlier_duplicates::<63, 64>(&names);
        for (index, first) in earlier.iter().enumerate() {
            let expected = if index < 40 { NONE } else { index - 40 };
            assert_eq!(*first, expected, "{index}");
        }
        let labels = ["x", "y", "z", "w", "v"];
        let clash = duplicate_name(&NAMES, &labels, &EARLIER, 2).expect("a clash is reported");
        let message = clash.as_str();
        assert!(
            message.contains("`x` and `z`") && message.contains("name `a`"),
            "{message}"
        );
        assert!(duplicate_name(&NAMES, &labels, &EARLIER, 3).is_none());
    }
}
