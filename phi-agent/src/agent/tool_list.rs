//! The tools offered to the model, rebuilt only when the active set changes.

use std::sync::{Arc, OnceLock};

use crate::llm::ToolSpec;
use crate::registry::{ActiveTools, ToolRegistry};
use crate::search::search_tool_spec;
use crate::tool::ToolExposure;

/// The deferred tools of native tool search, with the discoverable set they were built for
/// (registration indices), shared by the agent's sessions.
pub(crate) type SharedDeferred = std::sync::Mutex<Option<(Vec<bool>, Arc<[ToolSpec]>)>>;

/// The per-turn tool list of a session, keyed on [`ActiveTools::generation`] and the generations
/// of the registry's live sources: an unchanged set costs one `Arc` clone per turn (and one
/// generation read per live source), and sessions showing just the Direct tools share one list.
/// Live tools ([`ToolSource`](crate::registry::ToolSource)) follow the registry's own.
#[derive(Debug, Default)]
pub(crate) struct ToolListCache {
    generation: Option<u64>,
    tools: Arc<[ToolSpec]>,
    search: bool,
    /// Native tool search: the deferred tools, for this many discoverable tools.
    deferred: Option<(usize, Arc<[ToolSpec]>)>,
    /// The generations of the registry's live sources that `tools` was built with.
    live: Vec<u64>,
}

impl ToolListCache {
    /// The list for `active`. With `search` (the agent's list of its Direct tools and
    /// `search_tools`, shared by its sessions), `search_tools` follows the tools not found by a
    /// search, and the found ones follow it.
    pub(crate) fn get(
        &mut self,
        registry: &ToolRegistry,
        active: &ActiveTools,
        search: Option<&OnceLock<Arc<[ToolSpec]>>>,
    ) -> Arc<[ToolSpec]> {
        if self.generation != Some(active.generation())
            || self.search != search.is_some()
            || registry.live_changed(&self.live)
        {
            let own = match search {
                // A session that has found nothing yet shows exactly the Direct tools and the
                // search tool: one list for all such sessions, so that the adapter's serialized
                // copy serves each one's first turn (as the registry's Direct list does).
                Some(shared)
                    if registry
                        .visible(active)
                        .all(|tool| tool.exposure() == ToolExposure::Direct) =>
                {
                    shared
                        .get_or_init(|| registry.tool_specs_with(active, Some(search_tool_spec())))
                        .clone()
                }
                Some(_) => registry.tool_specs_with(active, Some(search_tool_spec())),
                None => registry.tool_specs(active),
            };
            self.tools = registry.with_live(own, &mut self.live);
            self.search = search.is_some();
            self.generation = Some(active.generation());
        }
        self.tools.clone()
    }

    /// Native tool search: the tools shown (the active ones that no search found: found tools
    /// stay deferred, so the tools array never changes when one is found) and the deferred ones
    /// (every discoverable tool), shared by sessions that can discover the same tools.
    pub(crate) fn get_native(
        &mut self,
        registry: &ToolRegistry,
        active: &ActiveTools,
        shared: &SharedDeferred,
    ) -> (Arc<[ToolSpec]>, Arc<[ToolSpec]>) {
        if self.generation != Some(active.generation()) || registry.live_changed(&self.live) {
            let own = if active.found().is_empty() {
                registry.tool_specs(active)
            } else {
                // Found by the provider's search, a tool stays deferred; loaded by a skill (not
                // discoverable), it is shown, after the others.
                let searched: Vec<&str> = active
                    .found()
                    .iter()
                    .filter(|&&index| active.is_discoverable(index))
                    .filter_map(|&index| registry.iter().nth(index).map(|tool| tool.name()))
                    .collect();
                let all = registry.tool_specs_with(active, None);
                all.iter()
                    .filter(|spec| !searched.contains(&spec.name))
                    .cloned()
                    .collect()
            };
            let shown = registry.with_live(own, &mut self.live);
            let same = shown.len() == self.tools.len()
                && shown
                    .iter()
                    .zip(self.tools.iter())
                    .all(|(a, b)| a.name == b.name);
            // An unchanged list keeps its `Arc`, which the adapter's cache is keyed on.
            if !same || self.generation.is_none() {
                self.tools = shown;
            }
            self.generation = Some(active.generation());
        }
        let count = active.discoverable_count();
        if self.deferred.as_ref().map(|(c, _)| *c) != Some(count) {
            let mut shared = shared
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            let list = match shared.as_ref() {
                Some((mask, list)) if mask.as_slice() == active.discoverable_mask() => list.clone(),
                _ => {
                    let list = registry.discoverable_specs(active);
                    *shared = Some((active.discoverable_mask().to_vec(), list.clone()));
                    list
                }
            };
            self.deferred = Some((count, list));
        }
        let deferred = self
            .deferred
            .as_ref()
            .map(|(_, list)| list.clone())
            .unwrap_or_default();
        (self.tools.clone(), deferred)
    }
}
