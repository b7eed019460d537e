//! Names made at run time, as the `&'static str` that [`Tool::name`](crate::Tool::name) returns.
//!
//! A renamed or prefixed tool needs a `'static` name that no source file holds. Each distinct
//! name is leaked once per process and shared from then on: building the same toolset again (per
//! session, per request) costs a lookup, not new memory, and a call costs nothing at all, since
//! the wrapper stores the interned name. What stays allocated is bounded by the number of distinct
//! names the program ever makes, as for any tool name in its binary.

use std::collections::HashSet;
use std::sync::{Mutex, OnceLock};

/// `name` as a `'static` string, leaked the first time it is seen (through
/// [`static_text`](crate::tool::static_text), so a toolset's names and a user's share one set).
pub(super) fn intern(name: &str) -> &'static str {
    crate::tool::static_text(name)
}

/// `names` as a `'static` slice, leaked the first time the same list is seen.
pub(super) fn intern_list(names: Vec<&'static str>) -> &'static [&'static str] {
    static LISTS: OnceLock<Mutex<HashSet<&'static [&'static str]>>> = OnceLock::new();
    if names.is_empty() {
        return &[];
    }
    let lists = LISTS.get_or_init(Mutex::default);
    let mut lists = lists
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(&known) = lists.get(names.as_slice()) {
        return known;
    }
    let leaked: &'static [&'static str] = Box::leak(names.into_boxed_slice());
    lists.insert(leaked);
    leaked
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_name_is_leaked_once() {
        let first = intern(&format!("{}_{}", "docs", "search"));
        let second = intern(&String::from("docs_search"));
        assert_eq!(first, "docs_search");
        assert!(
            std::ptr::eq(first, second),
            "the second lookup reuses the first leak"
        );
        let list = intern_list(vec![first]);
        assert!(std::ptr::eq(list, intern_list(vec![second])));
    }
}
