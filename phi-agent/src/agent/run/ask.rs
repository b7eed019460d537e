//! Asking the model, one turn: the request (the tools the plan's search mode shows, the answer
//! tool of a typed run, the session's system prompt, its history under the context policy, its
//! id as the cache key; a changed prefix reported as a cache bust), its `chat` span and its step
//! `turn/<n>/model`, the reply streamed or complete. The reply's calls enter the run here (defused), the provider's searches are
//! revealed before any call runs, and every call not yet announced ready is.

use tracing::Instrument;

use super::calls::enter_call;
use super::early::Early;
use super::reply::{self, Readied};
use super::search::{Report, reveal_native};
use super::spans::{chat_span, error_type, record_usage};
use super::state::RunState;
use crate::agent::conversation::Conversation;
use crate::agent::events::{AgentEvent, Observer};
use crate::agent::phi::AgentInner;
use crate::agent::plan::{Plan, Search};
use crate::agent::prefix::PrefixChange;
use crate::agent::step::{self, StepOutput};
use crate::agent::stream::{Sink, StreamEvent};
use crate::error::AgentResult;
use crate::llm::{LlmRequest, LlmResponse};

/// What a turn's model step needs beside the conversation.
pub(in crate::agent) struct Asking<'a> {
    pub(in crate::agent) agent: &'a AgentInner,
    pub(in crate::agent) sink: &'a Sink,
}

/// Asks the model for turn `state.turn`'s reply. The turn's calls that are shown whole while
/// the reply streams are offered to `early`.
pub(in crate::agent) async fn ask_model(
    asking: &Asking<'_>,
    conv: &mut Conversation,
    plan: &mut Plan<'_>,
    state: &mut RunState,
    early: &mut Early<'_, '_>,
) -> AgentResult<LlmResponse> {
    let Asking { agent, sink } = *asking;
    let turn = state.turn;
    let observer = Observer(agent.observer.as_deref());
    let request = request(agent, conv, plan, state);
    let span = chat_span(&*agent.llm);
    let mut readied = Readied::new();
    let model_step = async {
        let reply = if sink.is_on() {
            reply::stream_reply(
                &*agent.llm,
                &request,
                sink,
                turn,
                &mut readied,
                early,
                agent.config.argument_repair,
            )
            .instrument(span.clone())
            .await
        } else {
            agent.llm.complete(&request).instrument(span.clone()).await
        };
        if let Err(error) = &reply {
            span.record("error.type", error_type(error));
        }
        reply.map(StepOutput::Model)
    };
    let key = || format!("turn/{turn}/model");
    let reply = step::run(&*agent.steps, key, model_step).await;
    state.take_back(request.messages);
    let mut response = match reply? {
        StepOutput::Model(response) => response,
        other => return Err(step::mismatch(&key(), "model reply", &other)),
    };
    for call in &mut response.tool_calls {
        enter_call(call, agent.config.argument_repair);
    }
    record_usage(&span, &response.usage);
    // One line per reply at INFO, so a plain `fmt` subscriber shows the run's progress without
    // span-close events.
    tracing::info!(
        turn,
        tool_calls = response.tool_calls.len(),
        text_bytes = response.text.len(),
        input_tokens = response.usage.input_tokens,
        output_tokens = response.usage.output_tokens,
        cache_read_input_tokens = response.usage.cache_read_input_tokens,
        cache_creation_input_tokens = response.usage.cache_creation_input_tokens,
        stop_reason = ?response.stop_reason,
        "model replied"
    );
    observer.emit(AgentEvent::ModelReplied {
        turn,
        response: &response,
    });
    if plan.search == Search::Native {
        let registry = &agent.registry;
        let report = Report { observer, sink };
        reveal_native(
            registry,
            &mut conv.active,
            report,
            turn,
            &response.tool_searches,
        )
        .await;
    }
    state.replied(response.usage, std::mem::take(&mut response.tool_searches));
    for (index, call) in response.tool_calls.iter().enumerate() {
        if !reply::was_readied(&readied, index) {
            let call = || StreamEvent::ToolCallReady {
                turn,
                call: call.clone(),
            };
            sink.send(call).await;
        }
    }
    Ok(response)
}

/// The request of turn `state.turn`, the transcript lent to it; reports the turn as started.
fn request(
    agent: &AgentInner,
    conv: &mut Conversation,
    plan: &mut Plan<'_>,
    state: &mut RunState,
) -> LlmRequest {
    let registry = &agent.registry;
    let (tools, deferred_tools) = match plan.search {
        Search::Native => conv
            .tool_list
            .get_native(registry, &conv.active, &agent.deferred_list),
        Search::Local | Search::Off => {
            let search = (plan.search == Search::Local).then_some(&agent.search_list);
            let tools = conv.tool_list.get(registry, &conv.active, search);
            (tools, Default::default())
        }
    };
    let (tools, response_format) = match plan.answer.as_deref_mut() {
        Some(answer) => answer.offer(tools),
        None => (tools, None),
    };
    let observer = Observer(agent.observer.as_deref());
    observer.emit(AgentEvent::TurnStarted {
        session_id: &conv.id,
        turn: state.turn,
        tools: &tools,
    });
    let system = match &conv.system {
        Some(own) => Some(own.to_string()),
        None => agent.system_prompt.clone(),
    };
    let changes = conv.prefix.update(system.as_deref(), &tools);
    report_changes(observer, state.turn, &changes);
    let mut messages = state.lend();
    if let Some(policy) = &agent.config.context_policy {
        let cleared = policy.apply(&conv.id, &mut messages);
        if cleared > 0 {
            tracing::debug!(turn = state.turn, cleared, "old tool results cleared");
        }
    }
    LlmRequest {
        system,
        messages,
        tools,
        deferred_tools,
        response_format,
        cache_key: Some(conv.id.to_string()),
    }
}

/// Reports `changes` (none: nothing to report) as [`AgentEvent::PrefixChanged`] and a log line:
/// a warning, or INFO when tools were only added (a deferred tool activated, a tool found by the
/// local search: the price of a feature the agent was configured with, paid once per tool).
fn report_changes(observer: Observer<'_>, turn: usize, changes: &[PrefixChange]) {
    if changes.is_empty() {
        return;
    }
    let what: Vec<String> = changes.iter().map(ToString::to_string).collect();
    let what = what.join("; ");
    let message = "prompt cache bust: the request prefix changed since the previous request";
    if changes
        .iter()
        .all(|change| matches!(change, PrefixChange::ToolsAdded(_)))
    {
        tracing::info!(turn, changes = %what, "{message}");
    } else {
        tracing::warn!(turn, changes = %what, "{message}");
    }
    observer.emit(AgentEvent::PrefixChanged { turn, changes });
}
