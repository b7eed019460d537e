//! A streamed model reply inside the loop: its deltas become [`StreamEvent`]s as they come,
//! each call is announced ready as soon as the stream shows it whole (and offered to the early
//! start), and the calls announced are checked against the whole reply.

use futures_util::StreamExt;

use super::calls::enter_call;
use super::early::Early;
use crate::agent::stream::{Sink, StreamEvent};
use crate::error::{AgentError, AgentResult};
use crate::llm::{LlmClient, LlmRequest, LlmResponse, StreamDelta, ToolCall};

/// The calls of one turn announced ready while its reply streamed, by index, as the model
/// wrote them (before the loop defuses deep arguments).
pub(in crate::agent) type Readied = Vec<Option<ToolCall>>;

/// Whether the call at `index` was announced ready while the reply streamed.
pub(in crate::agent) fn was_readied(readied: &Readied, index: usize) -> bool {
    readied.get(index).is_some_and(Option::is_some)
}

/// Asks the model for a streamed reply, handing its pieces to `sink` as they come, and returns
/// the whole reply. Each call announced ready is noted in `readied` and offered to `early`,
/// whose calls run while the reply is still being written. A stream that ends before its reply
/// is complete is an error, so no call ever runs with arguments cut short; so is a reply whose
/// calls are not the ones the stream announced ready.
pub(in crate::agent) async fn stream_reply(
    llm: &dyn LlmClient,
    request: &LlmRequest,
    sink: &Sink,
    turn: usize,
    readied: &mut Readied,
    early: &mut Early<'_, '_>,
    repair: bool,
) -> AgentResult<LlmResponse> {
    let mut deltas = llm.stream(request);
    // The calls' ids by index: providers name a call once, on its first piece.
    let mut ids: Vec<String> = Vec::new();
    loop {
        let delta = tokio::select! {
            // The calls started early go on between deltas; a finished one is only noted.
            biased;
            () = early.progress() => continue,
            delta = deltas.next() => delta,
        };
        let Some(delta) = delta else { break };
        match delta? {
            StreamDelta::Text(text) => sink.send(|| StreamEvent::TextDelta { turn, text }).await,
            StreamDelta::ToolCallStarted { index, id, name } => {
                if ids.len() <= index {
                    ids.resize(index + 1, String::new());
                }
                ids[index].clone_from(&id);
                sink.send(|| StreamEvent::ToolCallStarted {
                    turn,
                    index,
                    id,
                    name,
                })
                .await;
            }
            StreamDelta::ToolArguments { index, fragment } => {
                let id = ids.get(index).cloned().unwrap_or_default();
                sink.send(|| StreamEvent::ToolArgumentsDelta {
                    turn,
                    index,
                    id,
                    fragment,
                })
                .await;
            }
            StreamDelta::ToolCallReady { index, call } => {
                if was_readied(readied, index) {
                    return Err(invalid(
                        llm,
                        format!("call {index} was announced ready twice"),
                    ));
                }
                if readied.len() <= index {
                    readied.resize(index + 1, None);
                }
                let mut ready = call.clone();
                enter_call(&mut ready, repair);
                readied[index] = Some(call);
                sink.send(|| StreamEvent::ToolCallReady {
                    turn,
                    call: ready.clone(),
                })
                .await;
                early.offer(index, ready).await;
            }
            StreamDelta::Done(response) => {
                check_readied(llm, readied, &response)?;
                return Ok(response);
            }
        }
    }
    Err(invalid(llm, "ended before the reply was complete".into()))
}

/// Fails unless every call announced ready is the reply's call at its index: a call may
/// already be running on what the announcement said.
fn check_readied(
    llm: &dyn LlmClient,
    readied: &Readied,
    response: &LlmResponse,
) -> AgentResult<()> {
    for (index, call) in readied.iter().enumerate() {
        let Some(call) = call else { continue };
        if response.tool_calls.get(index) != Some(call) {
            return Err(invalid(
                llm,
                format!(
                    "announced call {index} (`{}`, id `{}`) ready, and the whole reply holds another call there",
                    call.name, call.id
                ),
            ));
        }
    }
    Ok(())
}

fn invalid(llm: &dyn LlmClient, what: String) -> AgentError {
    AgentError::InvalidResponse {
        provider: "stream",
        message: format!("the reply stream of {} {what}", llm.provider()),
    }
}
