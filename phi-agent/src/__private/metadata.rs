//! The metadata of a `#[phi_tool]`.

use crate::tool::ToolMetadata;

/// The metadata of a `#[phi_tool]`: one shared function instead of a struct literal per tool,
/// so each tool expands to less code to type-check and compile.
pub fn tool_metadata(
    name: &str,
    description: &str,
    origin: &str,
    version: &str,
    requirements: &[&str],
) -> ToolMetadata {
    ToolMetadata {
        origin: origin.to_string(),
        version: version.to_string(),
        requirements: requirements.iter().map(|r| r.to_string()).collect(),
        ..ToolMetadata::new(name, description)
    }
}
