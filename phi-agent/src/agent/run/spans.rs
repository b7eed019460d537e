//! The run's tracing spans and their attribute values, named after the OpenTelemetry GenAI
//! conventions: `invoke_agent` per run, `chat` per model request, `execute_tool` per call.

use tracing::field::Empty;

use super::redact;
use crate::agent::approval::Approval;
use crate::content::Content;
use crate::error::AgentError;
use crate::llm::{LlmClient, ToolCall, Usage};
use crate::registry::ToolCallResult;

/// The span of one run of the conversation `id`; the run's summed usage is recorded on it when
/// it finishes ([`record_usage`]).
pub(in crate::agent) fn invoke_span(id: &str) -> tracing::Span {
    tracing::info_span!(
        "invoke_agent",
        "gen_ai.operation.name" = "invoke_agent",
        "gen_ai.conversation.id" = id,
        "gen_ai.usage.input_tokens" = Empty,
        "gen_ai.usage.output_tokens" = Empty,
        "gen_ai.usage.cache_read.input_tokens" = Empty,
        "gen_ai.usage.cache_creation.input_tokens" = Empty,
    )
}

/// Records `usage` on `span` (a `chat` or an `invoke_agent` span) under the OTel GenAI names.
pub(in crate::agent) fn record_usage(span: &tracing::Span, usage: &Usage) {
    span.record("gen_ai.usage.input_tokens", usage.input_tokens);
    span.record("gen_ai.usage.output_tokens", usage.output_tokens);
    span.record(
        "gen_ai.usage.cache_read.input_tokens",
        usage.cache_read_input_tokens,
    );
    span.record(
        "gen_ai.usage.cache_creation.input_tokens",
        usage.cache_creation_input_tokens,
    );
}

/// The span of one model request.
pub(in crate::agent) fn chat_span(llm: &dyn LlmClient) -> tracing::Span {
    tracing::info_span!(
        "chat",
        "otel.name" = format!("chat {}", llm.model()),
        "gen_ai.operation.name" = "chat",
        "gen_ai.provider.name" = llm.provider(),
        "gen_ai.request.model" = llm.model(),
        "gen_ai.usage.input_tokens" = Empty,
        "gen_ai.usage.output_tokens" = Empty,
        "gen_ai.usage.cache_read.input_tokens" = Empty,
        "gen_ai.usage.cache_creation.input_tokens" = Empty,
        "error.type" = Empty,
    )
}

/// The `execute_tool` span of one call, for registry tools and the search tool alike; a call
/// whose arguments were repaired says which repairs (`phi.tool.arguments.repaired`).
///
/// `gen_ai.tool.type` is `function` for every tool: each runs in this process, on the client
/// side in the conventions' words, with the arguments the model chose (an MCP-imported tool
/// too: our client calls it). With `content` (see [`AgentConfig::trace_tool_content`]) the
/// arguments are recorded, their `writeOnly` values redacted by `schema`;
/// [`record_result`] adds the result.
///
/// [`AgentConfig::trace_tool_content`]: crate::AgentConfig::trace_tool_content
pub(in crate::agent) fn execute_tool_span(
    call: &ToolCall,
    description: &str,
    content: Option<&serde_json::Value>,
) -> tracing::Span {
    let span = tracing::info_span!(
        "execute_tool",
        "otel.name" = format!("execute_tool {}", call.name),
        "gen_ai.operation.name" = "execute_tool",
        "gen_ai.tool.name" = call.name.as_str(),
        "gen_ai.tool.call.id" = call.id.as_str(),
        "gen_ai.tool.type" = "function",
        "gen_ai.tool.description" = description,
        "gen_ai.tool.call.arguments" = Empty,
        "gen_ai.tool.call.result" = Empty,
        "phi.tool.arguments.repaired" = Empty,
        "error.type" = Empty,
    );
    if !call.repaired.is_empty() {
        let repairs: Vec<&str> = call.repaired.iter().map(|repair| repair.as_str()).collect();
        span.record("phi.tool.arguments.repaired", repairs.join(",").as_str());
    }
    if let Some(schema) = content
        && !span.is_disabled()
    {
        let mut arguments = call.arguments.clone();
        redact::write_only(&mut arguments, schema);
        span.record(
            "gen_ai.tool.call.arguments",
            serde_json::to_string(&arguments)
                .unwrap_or_default()
                .as_str(),
        );
    }
    span
}

/// Records `result` on `span` as `gen_ai.tool.call.result`: its text as the model reads it, a
/// JSON part with the `writeOnly` values of `output_schema` redacted.
pub(in crate::agent) fn record_result(
    span: &tracing::Span,
    result: &ToolCallResult,
    output_schema: Option<&serde_json::Value>,
) {
    if span.is_disabled() {
        return;
    }
    let parts: Vec<String> = result
        .content
        .iter()
        .map(|part| match (part, output_schema) {
            (Content::Json { value }, Some(schema)) => {
                let mut value = value.clone();
                redact::write_only(&mut value, schema);
                serde_json::to_string(&value).unwrap_or_default()
            }
            (part, _) => part.to_model_text(),
        })
        .collect();
    span.record("gen_ai.tool.call.result", parts.join("\n").as_str());
}

/// The span of one approver's decision.
pub(in crate::agent) fn approve_span(call: &ToolCall) -> tracing::Span {
    tracing::info_span!(
        "approve_tool",
        "gen_ai.tool.name" = call.name.as_str(),
        "gen_ai.tool.call.id" = call.id.as_str(),
        "approval.decision" = Empty,
    )
}

/// The decision's name for telemetry.
pub(in crate::agent) fn decision_name(approval: &Approval) -> &'static str {
    match approval {
        Approval::Approve => "approve",
        Approval::ApproveWith { .. } => "approve_with",
        Approval::Deny { .. } => "deny",
    }
}

/// A short, stable name of a model-call failure for the `error.type` attribute.
pub(in crate::agent) fn error_type(error: &AgentError) -> &'static str {
    match error {
        AgentError::Provider { .. } => "provider_error",
        AgentError::Http { .. } => "http_error",
        AgentError::InvalidResponse { .. } => "invalid_response",
        _ => "_OTHER",
    }
}
