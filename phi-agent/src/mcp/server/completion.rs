//! `completion/complete`: suggestions for an argument of a prompt or a variable of a resource
//! template, from the function given to
//! [`McpServer::with_completion`](super::McpServer::with_completion).

use std::sync::Arc;

use rmcp::ErrorData;
use rmcp::model::{CompleteRequestParams, CompleteResult, CompletionInfo, Reference};

use super::prompts::Prompt;

/// What completes an argument of a prompt or a resource template (`completion/complete`).
pub(super) type Complete =
    Arc<dyn Fn(CompletionTarget<'_>, &str, &str) -> Vec<String> + Send + Sync>;

/// What `completion/complete` asks to complete an argument of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum CompletionTarget<'a> {
    /// An argument of the prompt with this name.
    Prompt(&'a str),
    /// A variable of the resource template with this URI template.
    ResourceTemplate(&'a str),
}

/// Answers `request` with at most [`CompletionInfo::MAX_VALUES`] of `complete`'s suggestions
/// (none without it); a prompt that is not among `prompts` is refused.
pub(super) fn complete(
    prompts: &[Prompt],
    complete: Option<&Complete>,
    request: &CompleteRequestParams,
) -> Result<CompleteResult, ErrorData> {
    let target = match &request.r#ref {
        Reference::Prompt(prompt) => {
            if !prompts.iter().any(|p| p.name == prompt.name) {
                return Err(ErrorData::invalid_params(
                    format!("no prompt named `{}`", prompt.name),
                    None,
                ));
            }
            CompletionTarget::Prompt(&prompt.name)
        }
        Reference::Resource(template) => CompletionTarget::ResourceTemplate(&template.uri),
        _ => {
            return Err(ErrorData::invalid_params(
                "unknown completion reference",
                None,
            ));
        }
    };
    let mut values = match complete {
        Some(complete) => complete(target, &request.argument.name, &request.argument.value),
        None => Vec::new(),
    };
    let total = values.len();
    values.truncate(CompletionInfo::MAX_VALUES);
    // rmcp's constructor sets `resultType` (required from protocol 2026-07-28 on), which a
    // result read with `serde_json::from_value` would leave out.
    let has_more = total > CompletionInfo::MAX_VALUES;
    let total = u32::try_from(total).unwrap_or(u32::MAX);
    let completion = CompletionInfo::with_pagination(values, Some(total), has_more)
        .map_err(|error| ErrorData::internal_error(error, None))?;
    Ok(CompleteResult::new(completion))
}
