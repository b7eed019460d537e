//! Tool search inside a run: the model's `search_tools` calls, answered from the agent's index,
//! and the tools a search found made callable (by the run's search step, or the provider's).

use crate::agent::events::{AgentEvent, Observer};
use crate::agent::phi::AgentInner;
use crate::content::Content;
use crate::llm::{ToolCall, ToolSearchCall};
use crate::registry::{ActiveTools, ToolCallResult, ToolRegistry};
use crate::search::{SearchArguments, found_text};

use tracing::Instrument;

use super::spans::{execute_tool_span, record_result};
use crate::agent::stream::{Sink, StreamEvent};

/// What one `search_tools` call found: the tools to reveal once the turn's calls are done.
pub(in crate::agent) struct Found {
    query: String,
    /// Registration index and name of each tool, best first.
    hits: Vec<(usize, &'static str)>,
}

/// Where a run reports what its searches found: the observer and the stream.
#[derive(Clone, Copy)]
pub(in crate::agent) struct Report<'a> {
    pub(in crate::agent) observer: Observer<'a>,
    pub(in crate::agent) sink: &'a Sink,
}

/// Makes the tools a search found callable from the next request on, and reports the search.
async fn reveal(
    registry: &ToolRegistry,
    active: &mut ActiveTools,
    report: Report<'_>,
    turn: usize,
    query: &str,
    hits: &[(usize, &'static str)],
) {
    let names: Vec<&'static str> = hits.iter().map(|&(_, name)| name).collect();
    tracing::info!(query = %query, tools = ?names, "tool search");
    report.observer.emit(AgentEvent::ToolsFound {
        turn,
        query,
        names: &names,
    });
    registry.reveal(active, hits.iter().map(|&(index, _)| index));
    report
        .sink
        .send(|| StreamEvent::ToolsFound {
            turn,
            query: query.to_string(),
            names,
        })
        .await;
}

/// Reveals what each of a turn's searches found, in call order.
pub(in crate::agent) async fn reveal_found(
    registry: &ToolRegistry,
    active: &mut ActiveTools,
    report: Report<'_>,
    turn: usize,
    found: &[Found],
) {
    for found in found {
        reveal(registry, active, report, turn, &found.query, &found.hits).await;
    }
}

/// Reveals the tools the provider's own search found while it wrote this reply (which may
/// already call them): before the calls run.
pub(in crate::agent) async fn reveal_native(
    registry: &ToolRegistry,
    active: &mut ActiveTools,
    report: Report<'_>,
    turn: usize,
    searches: &[ToolSearchCall],
) {
    for search in searches {
        let found: Vec<(usize, &'static str)> = search
            .tools
            .iter()
            .filter_map(|name| {
                let index = registry.position(name)?;
                let tool = registry.get(name)?;
                active
                    .is_discoverable(index)
                    .then_some((index, tool.name()))
            })
            .collect();
        reveal(registry, active, report, turn, search.query(), &found).await;
    }
}

/// The model's call of `search_tools`: searches the session's discoverable tools (found ones
/// included, so a repeated search answers the same).
pub(in crate::agent) async fn search(
    agent: &AgentInner,
    active: &ActiveTools,
    call: &ToolCall,
    arguments: &serde_json::Value,
) -> (ToolCallResult, Option<Found>) {
    let spec = crate::search::search_tool_spec();
    let content = agent.config.trace_tool_content.then(|| &*spec.schema);
    let span = execute_tool_span(call, spec.description, content);
    search_in(agent, active, arguments, &span, content.is_some())
        .instrument(span.clone())
        .await
}

/// [`search`] inside its span; `trace_content`: record the result on it.
async fn search_in(
    agent: &AgentInner,
    active: &ActiveTools,
    arguments: &serde_json::Value,
    span: &tracing::Span,
    trace_content: bool,
) -> (ToolCallResult, Option<Found>) {
    let arguments = match SearchArguments::parse(arguments) {
        Ok(arguments) => arguments,
        Err(message) => {
            span.record("error.type", "tool_error");
            let result = ToolCallResult {
                content: vec![Content::text(message)],
                is_error: true,
            };
            if trace_content {
                record_result(span, &result, None);
            }
            return (result, None);
        }
    };
    // With `skip_found`, the tools earlier searches found are left out (a mask: the found list
    // is read once, not once per candidate).
    let mut found_before = Vec::new();
    if arguments.skip_found {
        for &index in active.found() {
            if found_before.len() <= index {
                found_before.resize(index + 1, false);
            }
            found_before[index] = true;
        }
    }
    let accept = |index: usize| {
        active.is_discoverable(index) && !found_before.get(index).copied().unwrap_or(false)
    };
    let (query, limit) = (&arguments.query, arguments.limit());
    let hits = match agent.hybrid_index().await {
        Some(index) => match index.search_where(query, limit, accept).await {
            Ok(hits) => hits,
            Err(error) => {
                tracing::warn!(%error, "query embedding failed; searching by words only");
                index.lexical().search_where(query, limit, accept)
            }
        },
        None => agent.tool_index().search_where(query, limit, accept),
    };
    let mut text = found_text(&arguments.query, &hits);
    if let Some(skills) = agent.skills.as_ref().and_then(|s| s.found_text(query)) {
        text.push_str("\n\n");
        text.push_str(&skills);
    }
    let result = ToolCallResult::success(vec![Content::text(text)]);
    if trace_content {
        record_result(span, &result, None);
    }
    let found = Found {
        query: arguments.query,
        hits: hits.iter().map(|hit| (hit.index, hit.name)).collect(),
    };
    (result, Some(found))
}
