//! The tools offered to the model, rebuilt only when the active set changes.

use std::sync::Arc;

use crate::llm::ToolSpec;
use crate::registry::{ActiveTools, ToolRegistry};

/// The per-turn tool list of a session, keyed on [`ActiveTools::generation`]: an unchanged set
/// costs one `Arc` clone per turn, and sessions showing just the Direct tools share one list.
#[derive(Debug, Default)]
pub(crate) struct ToolListCache {
    generation: Option<u64>,
    tools: Arc<[ToolSpec]>,
}

impl ToolListCache {
    pub(crate) fn get(&mut self, registry: &ToolRegistry, active: &ActiveTools) -> Arc<[ToolSpec]> {
        if self.generation != Some(active.generation()) {
            self.tools = registry.tool_specs(active);
            self.generation = Some(active.generation());
        }
        self.tools.clone()
    }
}
