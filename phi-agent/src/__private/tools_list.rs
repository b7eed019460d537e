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

/// Fails compilation (const evaluation) when the tool at `index` has the name of an earlier one;
/// the message names both fns and the shared name.
pub const fn check_unique_name(names: &[&str], labels: &[&str], index: usize) {
    if let Some(earlier) = earlier_duplicate(names, index) {
        let message = ConstMessage::new()
            .push("tools `")
            .push(labels[earlier])
            .push("` and `")
            .push(labels[index])
            .push("` in `tools![]` share the name `")
            .push(names[index])
            .push("`; give one of them another name with `#[phi_tool(name = \"...\")]`");
        panic!("{}", message.as_str());
    }
}

/// The index of the first item before `index` whose name equals `names[index]`, if any.
const fn earlier_duplicate(names: &[&str], index: usize) -> Option<usize> {
    let mut earlier = 0;
    while earlier < index {
        if str_eq(names[earlier], names[index]) {
            return Some(earlier);
        }
        earlier += 1;
    }
    None
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
        let names = ["a", "b", "a", "c"];
        assert_eq!(earlier_duplicate(&names, 0), None);
        assert_eq!(earlier_duplicate(&names, 1), None);
        assert_eq!(earlier_duplicate(&names, 2), Some(0));
        assert_eq!(earlier_duplicate(&names, 3), None);
        let labels = ["x", "y", "z", "w"];
        let clash = std::panic::catch_unwind(|| check_unique_name(&names, &labels, 2))
            .expect_err("a clash fails");
        let message = clash.downcast_ref::<String>().expect("a formatted message");
        assert!(
            message.contains("`x` and `z`") && message.contains("name `a`"),
            "{message}"
        );
        check_unique_name(&names, &labels, 3);
    }
}
