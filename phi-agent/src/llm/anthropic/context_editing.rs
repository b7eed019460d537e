//! Anthropic's server-side context editing: old tool results cleared by the API itself, before
//! the prompt reaches the model, while the client keeps and sends its whole history.

use serde::Serialize;

/// The beta context editing needs (`anthropic-beta` header).
pub(super) const CONTEXT_MANAGEMENT_BETA: &str = "context-management-2025-06-27";

/// Anthropic's context editing, sent with every request of an
/// [`AnthropicClient`](crate::llm::AnthropicClient) that has one
/// ([`with_context_editing`](crate::llm::AnthropicClient::with_context_editing)): once a
/// request's input passes a threshold, the API clears the oldest tool results (the
/// `clear_tool_uses_20250919` strategy) and puts a placeholder in their place; the client's own
/// history stays whole.
///
/// The alternative to a [`ContextPolicy`](crate::ContextPolicy), which clears results on the
/// client for every provider and can keep them in a store to read back. The two can be combined.
/// Clearing changes bytes early in the prompt, so the prompt cache serves less after each
/// clearing: [`with_clear_at_least`](Self::with_clear_at_least) makes clearings rarer and larger.
///
/// Unset fields are left to the API's defaults (at the time of writing: clear from 100,000 input
/// tokens, keep the last 3 tool uses).
///
/// ```
/// use phi_agent::llm::{AnthropicClient, ContextEditing};
/// let editing = ContextEditing::clear_tool_uses()
///     .with_trigger_tokens(60_000)
///     .with_keep_tool_uses(4)
///     .with_excluded_tools(["read_plan"]);
/// let client = AnthropicClient::new("sk-ant-not-real", "claude-sonnet-4-5")?
///     .with_context_editing(editing.clone());
/// assert_eq!(client.context_editing(), Some(&editing));
/// # Ok::<(), phi_agent::AgentError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ContextEditing {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    trigger: Option<Amount>,
    #[serde(skip_serializing_if = "Option::is_none")]
    keep: Option<Amount>,
    #[serde(skip_serializing_if = "Option::is_none")]
    clear_at_least: Option<Amount>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    exclude_tools: Vec<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    clear_tool_inputs: bool,
}

/// A count with its unit, as the API writes one (`{"type": "input_tokens", "value": 60000}`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
struct Amount {
    #[serde(rename = "type")]
    unit: &'static str,
    value: u32,
}

impl ContextEditing {
    /// Clearing old tool results (`clear_tool_uses_20250919`), with the API's defaults.
    pub fn clear_tool_uses() -> Self {
        Self {
            kind: "clear_tool_uses_20250919",
            trigger: None,
            keep: None,
            clear_at_least: None,
            exclude_tools: Vec::new(),
            clear_tool_inputs: false,
        }
    }

    /// This setting clearing once a request's input reaches `tokens`.
    pub fn with_trigger_tokens(mut self, tokens: u32) -> Self {
        self.trigger = Some(Amount {
            unit: "input_tokens",
            value: tokens,
        });
        self
    }

    /// This setting keeping the last `uses` tool uses with their results.
    pub fn with_keep_tool_uses(mut self, uses: u32) -> Self {
        self.keep = Some(Amount {
            unit: "tool_uses",
            value: uses,
        });
        self
    }

    /// This setting clearing at least `tokens` when it clears at all, so that the prompt cache
    /// is broken less often.
    pub fn with_clear_at_least(mut self, tokens: u32) -> Self {
        self.clear_at_least = Some(Amount {
            unit: "input_tokens",
            value: tokens,
        });
        self
    }

    /// This setting never clearing the results of the tools named in `names`.
    pub fn with_excluded_tools<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.exclude_tools = names.into_iter().map(Into::into).collect();
        self
    }

    /// This setting clearing the calls' arguments too, not only their results.
    pub fn with_clear_tool_inputs(mut self, on: bool) -> Self {
        self.clear_tool_inputs = on;
        self
    }
}

/// The request's `context_management` field: the one edit.
#[derive(Serialize)]
pub(super) struct ContextManagement<'a> {
    pub(super) edits: [&'a ContextEditing; 1],
}
