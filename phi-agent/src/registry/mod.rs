//! The tool registry: names, exposure, activation and dispatch.
//!
//! Everything a tool costs is paid at registration: the name is checked, the schema read once and
//! shared, the timeout resolved. Dispatch then only looks up, decodes and runs.
//!
//! The files name each other in the order data flows: the data (a registered tool, the live set,
//! the shared Direct list) names no registry; the registry's struct (`tool_registry`) holds them;
//! each concern's `impl ToolRegistry` (activation, the tool lists, live tools, dispatch) names
//! the struct.

mod activation;
mod deadline;
mod direct_list;
mod dispatch;
mod examples;
mod limiter;
mod live;
mod live_set;
mod name;
mod registered;
mod schema_text;
mod shared_list;
mod spec;
mod stored_schema;
#[cfg(test)]
mod test_tool;
mod tool_registry;

pub use activation::ActiveTools;
#[cfg(feature = "mcp-server")]
pub(crate) use dispatch::Ended;
pub use dispatch::ToolCallResult;
pub use live_set::ToolSource;
pub use name::{MAX_TOOL_NAME_LEN, validate_tool_name};
pub use registered::RegisteredTool;
pub use spec::ToolSpec;
pub use tool_registry::ToolRegistry;
