//! The run's tracing spans and their attribute values, named after the OpenTelemetry GenAI
//! conventions: `invoke_agent` per run, `chat` per model request, `execute_tool` per call.

use tracing::field::Empty;

use crate::agent::approval::Approval;
use crate::error::AgentError;
use crate::llm::{LlmClient, ToolCall};

/// The span of one run of the conversation `id`.
pub(in crate::agent) fn invoke_span(id: &str) -> tracing::Span {
    tracing::info_span!(
        "invoke_agent",
        "gen_ai.operation.name" = "invoke_agent",
        "gen_ai.conversation.id" = id,
    )
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
        "error.type" = Empty,
    )
}

/// The `execute_tool` span of one call, for registry tools and the search tool alike; a call
/// whose arguments were repaired says which repairs (`phi.tool.arguments.repaired`).
pub(in crate::agent) fn execute_tool_span(call: &ToolCall) -> tracing::Span {
    let span = tracing::info_span!(
        "execute_tool",
        "otel.name" = format!("execute_tool {}", call.name),
        "gen_ai.operation.name" = "execute_tool",
        "gen_ai.tool.name" = call.name.as_str(),
        "gen_ai.tool.call.id" = call.id.as_str(),
        "phi.tool.arguments.repaired" = Empty,
        "error.type" = Empty,
    );
    if !call.repaired.is_empty() {
        let repairs: Vec<&str> = call.repaired.iter().map(|repair| repair.as_str()).collect();
        span.record("phi.tool.arguments.repaired", repairs.join(",").as_str());
    }
    span
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
