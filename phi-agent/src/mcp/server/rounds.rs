//! A tool's questions on a 2026-07-28 connection, where a server sends the client no requests of
//! its own (multi round-trip requests, SEP-2322): the `tools/call` is answered `input_required`
//! with the question, the call itself is kept here, suspended where it asked, and the client's
//! resent call (its answers, and the `requestState` echoed back) resumes it.
//!
//! The state stays on the server: `requestState` is only an unguessable handle to it, so a
//! client can neither forge what the tool knows nor resume another client's call. One store
//! serves every session, as a stateless HTTP client resends from no session at all. A call
//! waits at most [`IDLE`] for its answer, and at most [`MAX_SUSPENDED`] wait at once (the
//! oldest is dropped first).

use std::collections::HashMap;
use std::future::Future;
use std::hash::{BuildHasher, Hasher};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use rmcp::model::{ClientCapabilities, InputRequest, InputRequests, InputResponses};
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use crate::registry::ToolCallResult;

/// How long a suspended call waits for the client to resend it with the answer.
pub(crate) const IDLE: Duration = Duration::from_secs(600);

/// How many calls may wait for answers at once, over all sessions.
pub(crate) const MAX_SUSPENDED: usize = 1024;

/// A tool call as a future that owns all it needs.
pub(crate) type CallFuture = Pin<Box<dyn Future<Output = ToolCallResult> + Send>>;

/// One question of a running call, and where its answer goes.
struct Question {
    key: String,
    request: InputRequest,
    answer: oneshot::Sender<Value>,
}

/// A capability the client did not declare and a question of the call needed, shared by the
/// call's [`Asker`] and its [`Running`].
type Lacking = Arc<Mutex<Option<ClientCapabilities>>>;

/// What a call's [peer](super::peer::ClientPeer) asks through.
#[derive(Clone, Debug)]
pub(crate) struct Asker {
    questions: mpsc::UnboundedSender<Question>,
    asked: Arc<AtomicUsize>,
    lacking: Lacking,
}

impl std::fmt::Debug for Question {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Question")
            .field("key", &self.key)
            .finish_non_exhaustive()
    }
}

impl Asker {
    /// Records that a question needed `capability`, which the request did not declare: a call
    /// that then fails is answered MissingRequiredClientCapability (SEP-2575) instead.
    pub(crate) fn lacks(&self, capability: ClientCapabilities) {
        *self.lacking.lock().unwrap_or_else(PoisonError::into_inner) = Some(capability);
    }

    /// Puts `request` to the client and waits for its answer; `Err` when the call was dropped
    /// (the client never came back, or cancelled).
    pub(crate) async fn ask(&self, what: &str, request: InputRequest) -> Result<Value, String> {
        let number = self.asked.fetch_add(1, Ordering::Relaxed) + 1;
        let (answer, answered) = oneshot::channel();
        let question = Question {
            key: format!("{what}-{number}"),
            request,
            answer,
        };
        self.questions
            .send(question)
            .map_err(|_| "the call is over".to_string())?;
        answered
            .await
            .map_err(|_| "the client did not resend the call with the answer".to_string())
    }
}

/// A call between rounds: running, or about to be.
pub(crate) struct Running {
    tool: String,
    call: CallFuture,
    questions: mpsc::UnboundedReceiver<Question>,
    lacking: Lacking,
    /// The tool's own cancellation: the requests of the rounds come and go.
    stop: CancellationToken,
}

impl Running {
    /// The tool called.
    pub(crate) fn tool(&self) -> &str {
        &self.tool
    }
}

/// The receiving end of a call's questions.
pub(crate) struct Questions(mpsc::UnboundedReceiver<Question>, Lacking);

/// A fresh channel for a call's questions: the [`Asker`] goes in its peer.
pub(crate) fn questions() -> (Asker, Questions) {
    let (questions, receiver) = mpsc::unbounded_channel();
    let lacking = Lacking::default();
    let asker = Asker {
        questions,
        asked: Arc::new(AtomicUsize::new(0)),
        lacking: lacking.clone(),
    };
    (asker, Questions(receiver, lacking))
}

impl Running {
    /// The call of `tool`, whose peer asks through the [`Asker`] of `questions`; `stop` is the
    /// token its context was made under.
    pub(crate) fn new(
        tool: &str,
        call: CallFuture,
        questions: Questions,
        stop: CancellationToken,
    ) -> Self {
        Self {
            tool: tool.to_string(),
            call,
            questions: questions.0,
            lacking: questions.1,
            stop,
        }
    }
}

/// How a round ended.
pub(crate) enum Round {
    /// The tool finished.
    Done(ToolCallResult),
    /// The tool asked: answer `input_required` with these requests and this state.
    Ask {
        requests: InputRequests,
        state: String,
    },
    /// The client cancelled the request; the tool was stopped.
    Cancelled,
    /// The call failed after a question needed this capability, which the request did not
    /// declare.
    Lacking(ClientCapabilities),
}

/// A call waiting for the client's answer.
struct Suspended {
    running: Running,
    /// The key of the question asked, and where its answer goes.
    key: String,
    answer: oneshot::Sender<Value>,
    since: Instant,
}

/// The calls waiting for answers, by their `requestState`.
#[derive(Default)]
pub(crate) struct Rounds {
    suspended: Mutex<HashMap<String, Suspended>>,
}

impl std::fmt::Debug for Rounds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let waiting = self
            .suspended
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len();
        f.debug_struct("Rounds").field("waiting", &waiting).finish()
    }
}

impl Rounds {
    /// The call `state` names, resumed with the client's `responses`: the answer to its
    /// question is handed to the tool. Why not, when the state is unknown (never given, or
    /// expired), names another tool, or the answer is missing.
    pub(crate) fn resume(
        &self,
        state: &str,
        tool: &str,
        responses: Option<InputResponses>,
    ) -> Result<Running, String> {
        let suspended = {
            let mut map = self
                .suspended
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            match map.get(state) {
                Some(waiting) if waiting.running.tool != tool => {
                    return Err(format!(
                        "the requestState belongs to a call of another tool than `{tool}`"
                    ));
                }
                Some(_) => map.remove(state),
                None => None,
            }
        };
        let Some(suspended) = suspended else {
            return Err(format!(
                "the requestState is unknown here: the call of `{tool}` it named is over, or \
                 waited more than {} s for its answer",
                IDLE.as_secs()
            ));
        };
        let Some(answer) = responses.and_then(|mut responses| responses.remove(&suspended.key))
        else {
            suspended.running.stop.cancel();
            return Err(format!(
                "the resent call of `{tool}` lacks the answer to its input request `{}`",
                suspended.key
            ));
        };
        // The tool may have stopped waiting (its own timeout); then the round finds it done.
        let _ = suspended.answer.send(answer);
        Ok(suspended.running)
    }

    /// Runs the call until it finishes, asks, or the request is `cancelled`.
    pub(crate) async fn drive(&self, mut running: Running, cancelled: &CancellationToken) -> Round {
        let question = tokio::select! {
            biased;
            result = &mut running.call => {
                let lacking = running.lacking.lock().unwrap_or_else(PoisonError::into_inner).take();
                return match lacking {
                    Some(capability) if result.is_error => Round::Lacking(capability),
                    _ => Round::Done(result),
                };
            }
            () = cancelled.cancelled() => {
                running.stop.cancel();
                return Round::Cancelled;
            }
            Some(question) = running.questions.recv() => question,
        };
        let state = new_state();
        let mut requests = InputRequests::new();
        requests.insert(question.key.clone(), question.request);
        let suspended = Suspended {
            running,
            key: question.key,
            answer: question.answer,
            since: Instant::now(),
        };
        self.keep(state.clone(), suspended);
        Round::Ask { requests, state }
    }

    fn keep(&self, state: String, suspended: Suspended) {
        let mut map = self
            .suspended
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let now = Instant::now();
        map.retain(|_, waiting| {
            let fresh = now.duration_since(waiting.since) < IDLE;
            if !fresh {
                waiting.running.stop.cancel();
            }
            fresh
        });
        if map.len() >= MAX_SUSPENDED {
            let oldest = map
                .iter()
                .min_by_key(|(_, waiting)| waiting.since)
                .map(|(key, _)| key.clone());
            if let Some(oldest) = oldest.and_then(|key| map.remove(&key)) {
                oldest.running.stop.cancel();
            }
        }
        map.insert(state, suspended);
    }

    /// How many calls wait for answers.
    #[cfg(test)]
    fn waiting(&self) -> usize {
        self.suspended
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}

/// A fresh `requestState`: 128 bits from two randomly keyed hashers (std's `RandomState`, keyed
/// from the operating system's randomness) over a process-wide counter.
fn new_state() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let count = COUNTER.fetch_add(1, Ordering::Relaxed);
    let half = || {
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u64(count);
        hasher.finish()
    };
    format!("call-{:016x}{:016x}", half(), half())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::{ElicitRequest, ElicitRequestParams};
    use serde_json::json;

    fn question() -> InputRequest {
        let params: ElicitRequestParams = serde_json::from_value(json!({
            "message": "Which city?",
            "requestedSchema": {"type": "object", "properties": {"city": {"type": "string"}}},
        }))
        .unwrap();
        InputRequest::Elicitation(ElicitRequest::new(params))
    }

    /// A call that asks once and answers with what it was told.
    fn asking_call(tool: &str) -> Running {
        let (asker, asked) = questions();
        let call: CallFuture = Box::pin(async move {
            let answer = asker.ask("elicitation", question()).await;
            ToolCallResult::success(vec![crate::Content::text(format!("{answer:?}"))])
        });
        Running::new(tool, call, asked, CancellationToken::new())
    }

    #[tokio::test]
    async fn a_question_suspends_the_call_and_the_answer_resumes_it() {
        let rounds = Rounds::default();
        let never = CancellationToken::new();
        let Round::Ask { requests, state } = rounds.drive(asking_call("weather"), &never).await
        else {
            panic!("the call should ask");
        };
        assert_eq!(requests.keys().collect::<Vec<_>>(), ["elicitation-1"]);
        assert_eq!(rounds.waiting(), 1);
        let mut responses = InputResponses::new();
        responses.insert("elicitation-1".into(), json!({"action": "accept"}));
        let running = rounds.resume(&state, "weather", Some(responses)).unwrap();
        assert_eq!(rounds.waiting(), 0);
        let Round::Done(result) = rounds.drive(running, &never).await else {
            panic!("the call should finish");
        };
        let text = result.to_model_text();
        assert!(text.contains("accept"), "{text}");
    }

    #[tokio::test]
    async fn a_wrong_state_tool_or_missing_answer_is_refused() {
        let rounds = Rounds::default();
        let never = CancellationToken::new();
        let Round::Ask { state, .. } = rounds.drive(asking_call("weather"), &never).await else {
            panic!("the call should ask");
        };
        let error = rounds.resume("call-forged", "weather", None).err().unwrap();
        assert!(error.contains("unknown"), "{error}");
        let error = rounds.resume(&state, "delete_all", None).err().unwrap();
        assert!(error.contains("another tool"), "{error}");
        assert_eq!(rounds.waiting(), 1, "a wrong tool leaves the call waiting");
        let error = rounds.resume(&state, "weather", None).err().unwrap();
        assert!(error.contains("elicitation-1"), "{error}");
        assert_eq!(rounds.waiting(), 0);
        assert_ne!(new_state(), new_state());
    }
}
