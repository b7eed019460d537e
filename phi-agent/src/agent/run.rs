//! The loop of one run: ask the model, run the tools it calls (concurrently, bounded, results in
//! call order), re-evaluate activation, repeat until it answers or the turn budget is spent.

use futures_util::StreamExt;
use futures_util::stream;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;
use tracing::field::Empty;

use super::AgentInner;
use super::events::AgentEvent;
use super::output::{RunOutput, ToolCallRecord};
use super::retry_budget::{RetryBudget, Verdict};
use super::session::{AgentSession, SessionSearch};
use crate::context::ToolContext;
use crate::error::{AgentError, AgentResult};
use crate::llm::{LlmRequest, Message, ToolCall, Usage};
use crate::registry::{ActiveTools, ToolCallResult, ToolRegistry};
use crate::search::{SEARCH_TOOL_NAME, SearchArguments, found_text};

impl AgentSession {
    pub(super) async fn run_input(&mut self, input: String) -> AgentResult<RunOutput> {
        let span = tracing::info_span!(
            "invoke_agent",
            "gen_ai.operation.name" = "invoke_agent",
            "gen_ai.conversation.id" = &*self.id,
        );
        // The run works on its own copy of the conversation and commits it only when it
        // answers, so a failed or dropped run leaves the session's history as it was.
        let start = self.history.len();
        let mut transcript = Vec::with_capacity(start + 8);
        transcript.extend_from_slice(&self.history);
        transcript.push(Message::user(input));
        let output = self.turns(&mut transcript, start).instrument(span).await?;
        self.history = transcript;
        Ok(output)
    }

    async fn turns(
        &mut self,
        transcript: &mut Vec<Message>,
        start: usize,
    ) -> AgentResult<RunOutput> {
        let agent = self.agent.inner.clone();
        let registry = &*agent.registry;
        let emit = |event: AgentEvent<'_>| {
            if let Some(observer) = &agent.observer {
                observer.on_event(&event);
            }
        };
        // Cancelled when this future completes or is dropped, so every tool's token fires.
        let run_token = CancellationToken::new();
        let _cancel_on_drop = run_token.clone().drop_guard();
        let base_ctx = ToolContext::new(
            self.id.clone(),
            agent.workspace.clone(),
            agent.state.clone(),
        );
        let mut usage = Usage::default();
        let mut records = Vec::new();
        let mut budget = RetryBudget::new(agent.config.max_repeated_failures);

        let mut activated = registry.activate(&mut self.active).await;
        if let SessionSearch::Undecided { threshold } = self.search {
            // Automatic mode decides here, once: the first round has just told how many
            // Deferred tools are ready.
            let ready = self.active.discoverable_count();
            if ready > threshold {
                self.search = SessionSearch::on(&self.agent);
            } else {
                self.search = SessionSearch::Off;
                activated.extend(registry.end_discovery(&mut self.active).await);
            }
            tracing::debug!(
                ready,
                threshold,
                search = ready > threshold,
                "tool search decided"
            );
        }
        if !activated.is_empty() {
            emit(AgentEvent::ToolsActivated {
                turn: 0,
                names: &activated,
            });
        }
        let searching = self.search == SessionSearch::On;
        let native = self.search == SessionSearch::Native;
        for turn in 1..=agent.config.max_turns {
            let (tools, deferred_tools) = if native {
                self.tool_list
                    .get_native(registry, &self.active, &agent.deferred_list)
            } else {
                let tools = self.tool_list.get(
                    registry,
                    &self.active,
                    searching.then_some(&agent.search_list),
                );
                (tools, Default::default())
            };
            emit(AgentEvent::TurnStarted {
                session_id: &self.id,
                turn,
                tools: &tools,
            });
            let request = LlmRequest {
                system: agent.system_prompt.clone(),
                // Lent to the request and taken back, so the transcript is not copied per turn.
                messages: std::mem::take(transcript),
                tools,
                deferred_tools,
            };
            let chat_span = tracing::info_span!(
                "chat",
                "otel.name" = format!("chat {}", agent.llm.model()),
                "gen_ai.operation.name" = "chat",
                "gen_ai.provider.name" = agent.llm.provider(),
                "gen_ai.request.model" = agent.llm.model(),
                "gen_ai.usage.input_tokens" = Empty,
                "gen_ai.usage.output_tokens" = Empty,
                "error.type" = Empty,
            );
            let reply = agent
                .llm
                .complete(&request)
                .instrument(chat_span.clone())
                .await;
            *transcript = request.messages;
            if let Err(error) = &reply {
                chat_span.record("error.type", error_type(error));
            }
            let mut response = reply?;
            for call in &mut response.tool_calls {
                crate::limits::defuse_deep_arguments(&mut call.arguments);
            }
            chat_span.record("gen_ai.usage.input_tokens", response.usage.input_tokens);
            chat_span.record("gen_ai.usage.output_tokens", response.usage.output_tokens);
            usage += response.usage;
            emit(AgentEvent::ModelReplied {
                turn,
                response: &response,
            });
            if native {
                // Found on the provider's side while it wrote this reply, which may already
                // call them: revealed before the calls run.
                for search in &response.tool_searches {
                    let found: Vec<(usize, &'static str)> = search
                        .tools
                        .iter()
                        .filter_map(|name| {
                            let index = registry.position(name)?;
                            let tool = registry.get(name)?;
                            self.active
                                .is_discoverable(index)
                                .then_some((index, tool.name()))
                        })
                        .collect();
                    let names: Vec<&'static str> = found.iter().map(|&(_, name)| name).collect();
                    tracing::info!(query = %search.query(), tools = ?names, "tool search");
                    emit(AgentEvent::ToolsFound {
                        turn,
                        query: search.query(),
                        names: &names,
                    });
                    registry.reveal(&mut self.active, found.iter().map(|&(index, _)| index));
                }
            }
            transcript.extend(response.tool_searches.drain(..).map(Message::ToolSearch));

            if response.tool_calls.is_empty() {
                transcript.push(Message::assistant(response.text.clone()));
                emit(AgentEvent::Finished {
                    turns: turn,
                    text: &response.text,
                    usage,
                });
                return Ok(RunOutput {
                    text: response.text,
                    messages: transcript[start..].to_vec(),
                    tool_calls: records,
                    turns: turn,
                    usage,
                });
            }

            let calls = response.tool_calls;
            let active = &self.active;
            let emit = &emit;
            let (base_ctx, run_token) = (&base_ctx, &run_token);
            let inner = &*agent;
            // Indices rather than `&ToolCall` items keep the stream's closure free of a
            // higher-ranked lifetime, so the run future stays `Send`.
            let mut results: Vec<_> = stream::iter(0..calls.len())
                .map(|index| {
                    let call = &calls[index];
                    async move {
                        emit(AgentEvent::ToolStarted { turn, call });
                        let started = Instant::now();
                        let (result, found) = if searching && call.name == SEARCH_TOOL_NAME {
                            search(inner, active, call)
                        } else {
                            let ctx = base_ctx.for_call(call.id.as_str(), run_token.child_token());
                            (execute(registry, active, call, &ctx).await, None)
                        };
                        let duration = started.elapsed();
                        emit(AgentEvent::ToolFinished {
                            turn,
                            call,
                            result: &result,
                            duration,
                        });
                        (result, duration, found)
                    }
                })
                .buffered(agent.config.max_parallel_tools)
                .collect()
                .await;

            let mut exhausted = None;
            for (call, (result, _, _)) in calls.iter().zip(results.iter_mut()) {
                if let Verdict::Exhausted { failures } = budget.record(call, result) {
                    exhausted.get_or_insert_with(|| {
                        (call.name.clone(), failures, result.to_model_text())
                    });
                }
            }

            transcript.push(Message::Assistant {
                text: response.text,
                tool_calls: calls.clone(),
            });
            let mut searches = Vec::new();
            for (call, (result, duration, found)) in calls.into_iter().zip(results) {
                searches.extend(found);
                transcript.push(Message::Tool {
                    tool_call_id: call.id.clone(),
                    name: call.name.clone(),
                    content: result.content.clone(),
                    is_error: result.is_error,
                });
                records.push(ToolCallRecord {
                    id: call.id,
                    name: call.name,
                    arguments: call.arguments,
                    result: result.content,
                    is_error: result.is_error,
                    duration,
                    turn,
                });
            }
            if let Some((tool, failures, last_error)) = exhausted {
                tracing::warn!(tool = %tool, failures, "the model repeats a failing tool call; run stopped");
                return Err(AgentError::RepeatedToolFailure {
                    tool,
                    failures,
                    limit: agent.config.max_repeated_failures,
                    last_error,
                    transcript: std::mem::take(transcript),
                });
            }

            for found in &searches {
                let names: Vec<&'static str> = found.hits.iter().map(|&(_, name)| name).collect();
                tracing::info!(query = %found.query, tools = ?names, "tool search");
                emit(AgentEvent::ToolsFound {
                    turn,
                    query: &found.query,
                    names: &names,
                });
                registry.reveal(&mut self.active, found.hits.iter().map(|&(index, _)| index));
            }

            let activated = registry.activate(&mut self.active).await;
            if !activated.is_empty() {
                tracing::debug!(tools = ?activated, "tools activated");
                emit(AgentEvent::ToolsActivated {
                    turn,
                    names: &activated,
                });
            }
        }
        Err(AgentError::MaxTurns {
            turns: agent.config.max_turns,
            transcript: std::mem::take(transcript),
        })
    }
}

/// One tool call of the model, inside its `execute_tool` span.
async fn execute(
    registry: &ToolRegistry,
    active: &ActiveTools,
    call: &ToolCall,
    ctx: &ToolContext,
) -> ToolCallResult {
    let span = tracing::info_span!(
        "execute_tool",
        "otel.name" = format!("execute_tool {}", call.name),
        "gen_ai.operation.name" = "execute_tool",
        "gen_ai.tool.name" = call.name.as_str(),
        "gen_ai.tool.call.id" = call.id.as_str(),
        "error.type" = Empty,
    );
    let result = registry
        .dispatch(active, &call.name, &call.arguments, ctx)
        .instrument(span.clone())
        .await;
    if result.is_error {
        span.record("error.type", "tool_error");
    }
    result
}

/// What one `search_tools` call found: the tools to reveal once the turn's calls are done.
struct Found {
    query: String,
    /// Registration index and name of each tool, best first.
    hits: Vec<(usize, &'static str)>,
}

/// The model's call of `search_tools`: searches the session's discoverable tools (found ones
/// included, so a repeated search answers the same).
fn search(
    agent: &AgentInner,
    active: &ActiveTools,
    call: &ToolCall,
) -> (ToolCallResult, Option<Found>) {
    let span = tracing::info_span!(
        "execute_tool",
        "otel.name" = format!("execute_tool {}", call.name),
        "gen_ai.operation.name" = "execute_tool",
        "gen_ai.tool.name" = call.name.as_str(),
        "gen_ai.tool.call.id" = call.id.as_str(),
        "error.type" = Empty,
    );
    let _entered = span.enter();
    let arguments = match SearchArguments::parse(&call.arguments) {
        Ok(arguments) => arguments,
        Err(message) => {
            span.record("error.type", "tool_error");
            let result = ToolCallResult {
                content: vec![crate::content::Content::text(message)],
                is_error: true,
            };
            return (result, None);
        }
    };
    let hits = agent
        .tool_index()
        .search_where(&arguments.query, arguments.limit(), |index| {
            active.is_discoverable(index)
        });
    let result = ToolCallResult::success(vec![crate::content::Content::text(found_text(
        &arguments.query,
        &hits,
    ))]);
    let found = Found {
        query: arguments.query,
        hits: hits.iter().map(|hit| (hit.index, hit.name)).collect(),
    };
    (result, Some(found))
}

/// A short, stable name of a model-call failure for the `error.type` attribute.
fn error_type(error: &AgentError) -> &'static str {
    match error {
        AgentError::Provider { .. } => "provider_error",
        AgentError::Http { .. } => "http_error",
        AgentError::InvalidResponse { .. } => "invalid_response",
        _ => "_OTHER",
    }
}
