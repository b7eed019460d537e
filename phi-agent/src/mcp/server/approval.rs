//! A call that needs a person's approval, served over MCP: the client's user is asked through
//! elicitation (a form showing the call's arguments, with one yes/no field) when the client
//! declared the capability; otherwise the call is refused with a result that says what would let
//! it run. The question goes where every question of the call goes (a request to the client up
//! to 2025-11-25, an input request of the call's `input_required` result at 2026-07-28), under
//! the key [`KEY`].

use serde_json::{Value, json};

use crate::context::{Elicitation, ToolContext};
use crate::error::AgentError;
use crate::registry::ToolCallResult;

/// The input-request key of the approval question.
pub(crate) const KEY: &str = "approval";

/// Asks the client's user to approve the call of `tool` with `arguments`; `None` when they
/// approved, else the call's refusal. `can_ask`: whether the client declared elicitation.
pub(super) async fn ask(
    ctx: &ToolContext,
    tool: &str,
    arguments: &Value,
    can_ask: bool,
) -> Option<ToolCallResult> {
    if !can_ask {
        return Some(ToolCallResult::error(&AgentError::tool(format!(
            "tool `{tool}` needs a person's approval for this call, and this MCP client cannot \
             ask its user (it declared no elicitation capability); do not retry it here: tell the \
             user what you meant to do, and have them approve it from a client that supports \
             elicitation, or call it from an agent whose approver can decide"
        ))));
    }
    let shown = serde_json::to_string_pretty(arguments).unwrap_or_else(|_| arguments.to_string());
    let message = format!("Approve this call of tool `{tool}`?\n\nArguments:\n{shown}");
    let form = json!({
        "type": "object",
        "properties": {
            "approve": {
                "type": "boolean",
                "title": "Approve",
                "description": format!("Run `{tool}` with the arguments shown"),
            },
            "reason": {
                "type": "string",
                "title": "Reason",
                "description": "Why not, for the model to read (optional)",
            },
        },
        "required": ["approve"],
    });
    let denied = |message: String| {
        Some(ToolCallResult::error(&AgentError::ApprovalDenied {
            tool: tool.to_string(),
            message,
        }))
    };
    match ctx.elicit_with_schema_as(KEY, &message, form).await {
        Ok(Elicitation::Accept(answer)) if answer["approve"] == Value::Bool(true) => None,
        Ok(Elicitation::Accept(answer)) => denied(
            answer["reason"]
                .as_str()
                .filter(|reason| !reason.is_empty())
                .unwrap_or("the user did not approve it")
                .to_string(),
        ),
        Ok(Elicitation::Decline) => denied("the user declined it".to_string()),
        Ok(Elicitation::Cancel) => denied("the user dismissed the question".to_string()),
        Err(error) => Some(ToolCallResult::error(&error)),
    }
}
