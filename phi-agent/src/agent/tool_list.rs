//! The tools offered to the model, rebuilt only when the active set changes.

use std::sync::Arc;

use crate::llm::ToolSpec;
use crate::registry::{ActiveTools, ToolRegistry};
use crate::search::search_tool_spec;

/// The per-turn tool list of a session, keyed on [`ActiveTools::generation`]: an unchanged set
/// costs one `Arc` clone per turn, and sessions showing just the Direct tools share one list.
#[derive(Debug, Default)]
pub(crate) struct ToolListCache {
    generation: Option<u64>,
    tools: Arc<[ToolSpec]>,
    search: bool,
}

impl ToolListCache {
    /// The list for `active`; with `search`, `search_tools` follows the tools not found by a
    /// search, and the found ones follow it.
    pub(crate) fn get(
        &mut self,
        registry: &ToolRegistry,
        active: &ActiveTools,
        search: bool,
    ) -> Arc<[ToolSpec]> {
        if self.generation != Some(active.generation()) || self.search != search {
            self.tools = if search {
                registry.tool_specs_with(active, Some(search_tool_spec()))
            } else {
                registry.tool_specs(active)
            };
            self.search = search;
            self.generation = Some(active.generation());
        }
        self.tools.clone()
    }
}
