//! Cache busts: what changed in a session's request prefix (the system prompt and the tools,
//! which every provider's prompt cache serves first) between one model request and the next.
//!
//! A change re-sends everything after it at the full input price (Anthropic: plus the cache
//! write). Some are the price of a feature (a deferred tool activated, a tool found by the local
//! search: the tool list grows), others are mistakes (a system prompt with the time in it); the
//! report says which part changed so that a person can tell. The deferred definitions of a
//! native tool search are not compared: a found tool stays deferred, so the prefix holds.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use crate::llm::ToolSpec;

/// One part of a session's request prefix that changed since its previous model request: the
/// provider's prompt cache cannot serve what follows it
/// ([`AgentEvent::PrefixChanged`](crate::AgentEvent::PrefixChanged)).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PrefixChange {
    /// The system prompt is not the previous request's.
    SystemPrompt,
    /// These tools were added to the list, in list order (a deferred tool activated, a tool
    /// found by the local `search_tools`, a live source's new tool, a typed run's answer tool).
    ToolsAdded(Vec<String>),
    /// These tools left the list.
    ToolsRemoved(Vec<String>),
    /// These tools kept their name but not their definition (description, schema, examples).
    ToolsChanged(Vec<String>),
    /// The same tools, in another order.
    ToolsReordered,
}

impl fmt::Display for PrefixChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PrefixChange::SystemPrompt => f.write_str("the system prompt changed"),
            PrefixChange::ToolsAdded(names) => write!(f, "tools added: {}", names.join(", ")),
            PrefixChange::ToolsRemoved(names) => write!(f, "tools removed: {}", names.join(", ")),
            PrefixChange::ToolsChanged(names) => {
                write!(f, "tool definitions changed: {}", names.join(", "))
            }
            PrefixChange::ToolsReordered => f.write_str("the tools were reordered"),
        }
    }
}

/// The prefix of a session's last model request.
#[derive(Debug, Default)]
pub(crate) struct Prefix {
    last: Option<(Option<String>, Arc<[ToolSpec]>)>,
}

impl Prefix {
    /// Records `system` and `tools` as the prefix of the request about to go, and says what
    /// changed since the previous one (nothing before the first).
    pub(crate) fn update(
        &mut self,
        system: Option<&str>,
        tools: &Arc<[ToolSpec]>,
    ) -> Vec<PrefixChange> {
        let Some((last_system, last_tools)) = &self.last else {
            self.last = Some((system.map(str::to_string), tools.clone()));
            return Vec::new();
        };
        let mut changes = Vec::new();
        if last_system.as_deref() != system {
            changes.push(PrefixChange::SystemPrompt);
        }
        // The same list (the usual case: an unchanged set keeps its `Arc`) needs no comparing.
        if !Arc::ptr_eq(last_tools, tools) {
            changes.extend(tool_changes(last_tools, tools));
        }
        // Kept as the latest, so that the next request compares against it (and an equal list
        // in a new allocation is compared once, not every turn).
        if !changes.is_empty() || !Arc::ptr_eq(last_tools, tools) {
            self.last = Some((system.map(str::to_string), tools.clone()));
        }
        changes
    }
}

/// What differs between the tool lists `before` and `now`. Linear in the lists' lengths: a
/// list of thousands of tools changes whenever a deferred one is activated.
fn tool_changes(before: &[ToolSpec], now: &[ToolSpec]) -> Vec<PrefixChange> {
    let positions = |list: &[ToolSpec]| -> HashMap<&str, usize> {
        list.iter()
            .enumerate()
            .map(|(at, tool)| (tool.name, at))
            .collect()
    };
    let (was, is) = (positions(before), positions(now));
    let names = |list: &[ToolSpec], keep: &dyn Fn(&ToolSpec) -> bool| -> Vec<String> {
        list.iter()
            .filter(|tool| keep(tool))
            .map(|tool| tool.name.to_string())
            .collect()
    };
    let added = names(now, &|tool| !was.contains_key(tool.name));
    let removed = names(before, &|tool| !is.contains_key(tool.name));
    let changed = names(now, &|tool| {
        was.get(tool.name).is_some_and(|&at| before[at] != *tool)
    });
    // The tools both lists hold, in each list's order.
    let kept = |list: &[ToolSpec], other: &HashMap<&str, usize>| -> Vec<&'static str> {
        list.iter()
            .filter(|tool| other.contains_key(tool.name))
            .map(|tool| tool.name)
            .collect()
    };
    let mut changes = Vec::new();
    if !added.is_empty() {
        changes.push(PrefixChange::ToolsAdded(added));
    }
    if !removed.is_empty() {
        changes.push(PrefixChange::ToolsRemoved(removed));
    }
    if !changed.is_empty() {
        changes.push(PrefixChange::ToolsChanged(changed));
    }
    if kept(before, &is) != kept(now, &was) {
        changes.push(PrefixChange::ToolsReordered);
    }
    changes
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(name: &'static str, description: &'static str) -> ToolSpec {
        ToolSpec::new(
            name,
            description,
            json!({"type": "object", "properties": {}}),
        )
    }

    fn list(tools: Vec<ToolSpec>) -> Arc<[ToolSpec]> {
        Arc::from(tools)
    }

    #[test]
    fn the_first_request_and_an_unchanged_prefix_report_nothing() {
        let mut prefix = Prefix::default();
        let tools = list(vec![tool("a", "A"), tool("b", "B")]);
        assert!(prefix.update(Some("sys"), &tools).is_empty());
        assert!(prefix.update(Some("sys"), &tools).is_empty());
        // An equal list in a new allocation is no change either.
        let copy = list(vec![tool("a", "A"), tool("b", "B")]);
        assert!(prefix.update(Some("sys"), &copy).is_empty());
    }

    #[test]
    fn each_kind_of_change_is_named() {
        let mut prefix = Prefix::default();
        prefix.update(
            Some("sys"),
            &list(vec![tool("a", "A"), tool("b", "B"), tool("c", "C")]),
        );
        let changes = prefix.update(
            None,
            &list(vec![tool("c", "C"), tool("a", "A2"), tool("d", "D")]),
        );
        assert_eq!(
            changes,
            [
                PrefixChange::SystemPrompt,
                PrefixChange::ToolsAdded(vec!["d".into()]),
                PrefixChange::ToolsRemoved(vec!["b".into()]),
                PrefixChange::ToolsChanged(vec!["a".into()]),
                PrefixChange::ToolsReordered,
            ]
        );
        assert_eq!(changes[1].to_string(), "tools added: d");
        // Compared with the latest request, not the first.
        assert!(
            prefix
                .update(
                    None,
                    &list(vec![tool("c", "C"), tool("a", "A2"), tool("d", "D")])
                )
                .is_empty()
        );
    }
}
