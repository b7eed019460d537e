//! Tools from live sources: sets that change while an agent runs (an MCP server's tools, which
//! follow its `tools/list_changed`).
//!
//! A registry's own tools are fixed once it is built; a [`ToolSource`] is asked, each turn, only
//! whether it changed: one [`generation`](ToolSource::generation) call per source, one atomic
//! load for a well-made source. When one changed, the registry takes the source's tools once
//! (for all sessions), keeps the tools it already offered in their places, appends the new ones
//! after them and drops the removed ones, so that every definition before the first change stays
//! byte-identical and a provider's prompt cache of the tool list holds. Live tools come after
//! the registry's own in every turn's list, and are always active (a source decides what it
//! offers; exposure and activation are for the registry's own tools).
//!
//! A new tool's name is checked when it appears: a name that is invalid, or that a registered
//! or live tool already has, is not offered; the registry says so with a warning and tells the
//! source ([`ToolSource::refused`]), and never fails the turn.

use std::sync::{Arc, PoisonError};

use super::live_set::{LiveSet, ToolSource};
use super::name::validate_tool_name;
use super::registered::RegisteredTool;
use super::spec::ToolSpec;
use super::tool_registry::ToolRegistry;
use crate::tool::Tool;

impl ToolRegistry {
    /// Adds `source`, whose tools follow the registry's own in every turn's list and change as
    /// it changes (see [`ToolSource`]).
    pub fn register_source(&mut self, source: Arc<dyn ToolSource>) {
        self.live.sources.push(source);
        self.forget_live();
    }

    /// The tools of the live sources as offered now, in the order they appeared.
    pub fn live_tools(&self) -> Vec<RegisteredTool> {
        self.live_set()
            .map(|set| set.tools.clone())
            .unwrap_or_default()
    }

    /// Whether `name` is a registered tool or a live tool offered now.
    pub(crate) fn knows(&self, name: &str) -> bool {
        self.get(name).is_some() || self.live_set().is_some_and(|set| set.get(name).is_some())
    }

    /// Whether a source changed since the generations `seen` (one per source): one
    /// [`ToolSource::generation`] call per source; `false` at once without sources.
    pub(crate) fn live_changed(&self, seen: &[u64]) -> bool {
        let sources = &self.live.sources;
        !sources.is_empty()
            && (seen.len() != sources.len()
                || sources
                    .iter()
                    .zip(seen)
                    .any(|(source, &seen)| source.generation() != seen))
    }

    /// The live set, taken again first if a source changed; `None` without sources.
    pub(crate) fn live_set(&self) -> Option<Arc<LiveSet>> {
        if self.live.sources.is_empty() {
            return None;
        }
        let current = self
            .live
            .current
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        if !self.live_changed(&current.seen) {
            return Some(current);
        }
        let mut slot = self
            .live
            .current
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        // Another caller may have taken it while this one waited.
        if self.live_changed(&slot.seen) {
            *slot = Arc::new(self.take_live(&slot));
        }
        Some(slot.clone())
    }

    /// `own` with the live tools appended; `seen` is set to the generations they were taken at.
    pub(crate) fn with_live(&self, own: Arc<[ToolSpec]>, seen: &mut Vec<u64>) -> Arc<[ToolSpec]> {
        match self.live_set() {
            None => own,
            Some(set) => {
                seen.clone_from(&set.seen);
                set.join(own)
            }
        }
    }

    /// The live set after `before`: the tools still offered keep their places, new ones are
    /// appended once their names are checked, removed ones are dropped.
    fn take_live(&self, before: &LiveSet) -> LiveSet {
        // Generations first: a change while the tools are read is seen on the next turn.
        let seen: Vec<u64> = self.live.sources.iter().map(|s| s.generation()).collect();
        let offered: Vec<(usize, Arc<dyn Tool>)> = self
            .live
            .sources
            .iter()
            .enumerate()
            .flat_map(|(index, source)| source.tools().into_iter().map(move |t| (index, t)))
            .collect();
        let still = |tool: &Arc<dyn Tool>| offered.iter().any(|(_, t)| Arc::ptr_eq(t, tool));
        let mut set = LiveSet {
            seen,
            refused: before
                .refused
                .iter()
                .filter(|t| still(t))
                .cloned()
                .collect(),
            ..LiveSet::default()
        };
        let kept = before.tools.iter().filter(|entry| still(&entry.tool));
        let removed: Vec<&str> = before
            .tools
            .iter()
            .filter(|entry| !still(&entry.tool))
            .map(|entry| entry.name)
            .collect();
        for entry in kept {
            set.by_name.insert(entry.name, set.tools.len());
            set.tools.push(entry.clone());
        }
        let mut added = Vec::new();
        for (source, tool) in offered {
            let known = |t: &Arc<dyn Tool>| Arc::ptr_eq(t, &tool);
            if set.tools.iter().any(|entry| known(&entry.tool)) || set.refused.iter().any(known) {
                continue;
            }
            match self.live_entry(&set, tool.clone()) {
                Ok(entry) => {
                    added.push(entry.name);
                    set.by_name.insert(entry.name, set.tools.len());
                    set.tools.push(entry);
                }
                Err(reason) => {
                    tracing::warn!(tool = tool.name(), %reason, "live tool not offered");
                    self.live.sources[source].refused(tool.name(), &reason);
                    set.refused.push(tool);
                }
            }
        }
        if !added.is_empty() || !removed.is_empty() {
            tracing::info!(?added, ?removed, "live tools changed");
        }
        set.specs = set.tools.iter().map(RegisteredTool::spec).collect();
        set
    }

    /// `tool` registered as a live tool of `set`, or why it is not offered.
    fn live_entry(&self, set: &LiveSet, tool: Arc<dyn Tool>) -> Result<RegisteredTool, String> {
        let name = tool.name();
        validate_tool_name(name).map_err(|error| error.to_string())?;
        if let Some(first) = self.get(name).or_else(|| set.get(name)) {
            return Err(format!(
                "the name `{name}` is taken by {}; give the source a name prefix",
                first.describe()
            ));
        }
        self.read_tool(tool).map_err(|error| error.to_string())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicU64, Ordering};

    use serde_json::json;

    use super::*;
    use crate::{ActivationContext, ToolContext};

    use crate::registry::test_tool::Named;

    #[derive(Default)]
    struct Source {
        generation: AtomicU64,
        tools: Mutex<Vec<Arc<dyn Tool>>>,
        refused: Mutex<Vec<(String, String)>>,
    }

    impl Source {
        fn set(&self, tools: Vec<Arc<dyn Tool>>) {
            *self.tools.lock().unwrap() = tools;
            self.generation.fetch_add(1, Ordering::AcqRel);
        }
    }

    impl ToolSource for Source {
        fn generation(&self) -> u64 {
            self.generation.load(Ordering::Acquire)
        }
        fn tools(&self) -> Vec<Arc<dyn Tool>> {
            self.tools.lock().unwrap().clone()
        }
        fn refused(&self, name: &str, reason: &str) {
            self.refused
                .lock()
                .unwrap()
                .push((name.to_string(), reason.to_string()));
        }
    }

    fn names(registry: &ToolRegistry) -> Vec<&'static str> {
        registry.live_tools().iter().map(|t| t.name()).collect()
    }

    #[tokio::test]
    async fn a_live_tool_whose_name_is_taken_is_not_offered_and_the_source_is_told_once() {
        let mut registry = ToolRegistry::default();
        registry.register(Named::direct("search")).unwrap();
        let first = Arc::new(Source::default());
        let second = Arc::new(Source::default());
        registry.register_source(first.clone());
        registry.register_source(second.clone());
        let lookup: Arc<dyn Tool> = Arc::new(Named::direct("lookup"));
        first.set(vec![Arc::new(Named::direct("search")), lookup.clone()]);
        second.set(vec![
            Arc::new(Named::direct("lookup")),
            Arc::new(Named::direct("bad name!")),
        ]);

        assert_eq!(names(&registry), ["lookup"]);
        let refused = second.refused.lock().unwrap().clone();
        assert_eq!(refused.len(), 2, "{refused:?}");
        assert_eq!(refused[0].0, "lookup");
        assert!(refused[0].1.contains("is taken by"), "{}", refused[0].1);
        assert_eq!(refused[1].0, "bad name!");
        let refused = first.refused.lock().unwrap().clone();
        assert_eq!(refused.len(), 1);
        assert!(
            refused[0].1.contains("`search` is taken"),
            "{}",
            refused[0].1
        );

        // Taken again after a change elsewhere: refused tools are not reported twice, and the
        // registry's own `search` still answers its calls.
        first.set(vec![
            Arc::new(Named::direct("search")),
            lookup.clone(),
            Arc::new(Named::direct("fetch")),
        ]);
        assert_eq!(names(&registry), ["lookup", "fetch"]);
        assert_eq!(first.refused.lock().unwrap().len(), 2, "a new `search` Arc");
        assert_eq!(second.refused.lock().unwrap().len(), 2);
        let active = registry.visible_tools(&ActivationContext::default()).await;
        let ctx = ToolContext::default();
        let result = registry.dispatch(&active, "fetch", &json!({}), &ctx).await;
        assert_eq!(result.to_model_text(), "fetch");
        assert!(!result.is_error);

        // `lookup` leaves: the second source's `lookup` is still refused (it was refused
        // once), and calls of the first one's answer "not available".
        first.set(vec![Arc::new(Named::direct("fetch2"))]);
        assert_eq!(names(&registry), ["fetch2"]);
        let result = registry.dispatch(&active, "lookup", &json!({}), &ctx).await;
        assert!(result.is_error);
        assert!(
            result.to_model_text().contains("not available"),
            "{}",
            result.to_model_text()
        );
    }

    #[test]
    fn an_unchanged_source_keeps_the_joined_list() {
        let mut registry = ToolRegistry::default();
        registry.register(Named::direct("own")).unwrap();
        let source = Arc::new(Source::default());
        registry.register_source(source.clone());
        source.set(vec![Arc::new(Named::direct("a"))]);
        let own = registry.tool_specs(&registry.active_tools(&ActivationContext::default()));
        let mut seen = Vec::new();
        let first = registry.with_live(own.clone(), &mut seen);
        assert!(!registry.live_changed(&seen));
        let again = registry.with_live(own.clone(), &mut seen);
        assert!(Arc::ptr_eq(&first, &again), "one joined list, shared");
        let tools = source.tools();
        source.set(
            tools
                .into_iter()
                .chain([Arc::new(Named::direct("b")) as _])
                .collect(),
        );
        assert!(registry.live_changed(&seen));
        let later = registry.with_live(own, &mut seen);
        let names: Vec<&str> = later.iter().map(|spec| spec.name).collect();
        assert_eq!(names, ["own", "a", "b"]);
        assert_eq!(later[..2], first[..], "earlier definitions unchanged");
    }
}
