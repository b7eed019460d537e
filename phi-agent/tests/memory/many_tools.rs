//! A large registry for the memory target: 10,000 tools, each with its own name and its own,
//! distinct ~15-node schema, like the tools of a large MCP server. Shared by the memory test
//! (which asserts the bound) and the memory bench (which reports it).

use async_trait::async_trait;
use phi_agent::registry::ToolRegistry;
use phi_agent::{AgentResult, Content, Tool, ToolContext};
use serde_json::{Value, json};
use stats_alloc::{Region, StatsAlloc};

/// How many tools the target is about.
pub const TOOLS: usize = 10_000;

/// A hand-written tool holding its own schema.
pub struct Generated {
    name: &'static str,
    description: &'static str,
    schema: Value,
}

#[async_trait]
impl Tool for Generated {
    fn name(&self) -> &'static str {
        self.name
    }
    fn description(&self) -> &'static str {
        self.description
    }
    fn schema(&self) -> Value {
        self.schema.clone()
    }
    async fn call(&self, _: &Value, _: &ToolContext) -> AgentResult<Vec<Content>> {
        Ok(vec![Content::text(self.name)])
    }
}

/// The tool numbered `index`.
pub fn generated(index: usize) -> Generated {
    let schema = json!({
        "type": "object",
        "properties": {
            format!("query_{index}"): {"type": "string", "description": "What to look for"},
            "limit": {"type": "integer", "minimum": 1, "maximum": 100, "description": "Most results to return"},
            "filters": {
                "type": "object",
                "properties": {
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "since": {"type": "string", "format": "date"}
                }
            }
        },
        "required": [format!("query_{index}")]
    });
    Generated {
        name: String::leak(format!("tool_{index}")),
        description: String::leak(format!(
            "Search collection number {index} for matching records"
        )),
        schema,
    }
}

/// Bytes still allocated since `region` began (a reallocation is already counted in both).
pub fn live_bytes(region: &Region<'_, std::alloc::System>) -> isize {
    let change = region.change();
    change.bytes_allocated as isize - change.bytes_deallocated as isize
}

/// Registers [`TOOLS`] tools, built beforehand, and returns the registry with the bytes it holds.
/// The tools' own fields (leaked names, the schemas they hold) are allocated before counting
/// starts: they belong to the tools, not to the registry.
pub fn registry_bytes(allocator: &'static StatsAlloc<std::alloc::System>) -> (ToolRegistry, isize) {
    let tools: Vec<Generated> = (0..TOOLS).map(generated).collect();
    let region = Region::new(allocator);
    let mut registry = ToolRegistry::default();
    for tool in tools {
        registry.register(tool).expect("valid tool");
    }
    let bytes = live_bytes(&region);
    (registry, bytes)
}
