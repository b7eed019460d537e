//! The portable tool-name rule: `^[a-zA-Z0-9_-]{1,64}$`, what OpenAI, Anthropic, Gemini and MCP
//! all accept.

use crate::error::{AgentError, AgentResult};

/// Longest name every provider accepts.
pub const MAX_TOOL_NAME_LEN: usize = 64;

/// Checks `name` against `^[a-zA-Z0-9_-]{1,64}$`.
///
/// ```
/// use phi_agent::registry::validate_tool_name;
/// assert!(validate_tool_name("get_weather").is_ok());
/// assert!(validate_tool_name("fs.read").is_err());
/// ```
pub fn validate_tool_name(name: &str) -> AgentResult<()> {
    let reason = if name.is_empty() {
        "it is empty"
    } else if name.len() > MAX_TOOL_NAME_LEN {
        "it is longer than 64 characters"
    } else if !name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    {
        "it contains a character other than ASCII letters, digits, `_` and `-`"
    } else {
        return Ok(());
    };
    Err(AgentError::InvalidToolName {
        name: name.to_string(),
        reason,
    })
}
