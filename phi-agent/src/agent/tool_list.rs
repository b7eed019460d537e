//! The tools offered to the model, rebuilt only when the active set changes.

use std::sync::{Arc, OnceLock};

use crate::llm::ToolSpec;
use crate::registry::{ActiveTools, ToolRegistry};
use crate::search::search_tool_spec;
use crate::tool::ToolExposure;

/// The per-turn tool list of a session, keyed on [`ActiveTools::generation`]: an unchanged set
/// costs one `Arc` clone per turn, and sessions showing just the Direct tools share one list.
#[derive(Debug, Default)]
pub(crate) struct ToolListCache {
    generation: Option<u64>,
    tools: Arc<[ToolSpec]>,
    search: bool,
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
        if self.generation != Some(active.generation()) || self.search != search.is_some() {
            self.tools = match search {
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
            self.search = search.is_some();
            self.generation = Some(active.generation());
        }
        self.tools.clone()
    }
}
