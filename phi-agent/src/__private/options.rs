//! The options of a `#[phi_tool]`.

use std::sync::Arc;

use serde_json::Value;

use crate::tool::ToolOptions;

/// The options every `#[phi_tool]` starts from: the defaults with the output schema its probe
/// found, shared by every tool with the same output type. One call of a shared helper rather
/// than a binding and an assignment in each tool: less code per tool to expand and compile.
pub fn tool_options(output_schema: Option<Arc<Value>>) -> ToolOptions {
    ToolOptions {
        output_schema,
        ..ToolOptions::default()
    }
}
