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
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use rmcp::ErrorData;
use rmcp::model::{
    ClientCapabilities, GetPromptResult, InputRequest, InputRequests, InputResponses,
};
use rmcp::task_manager::TaskContext;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use crate::registry::ToolCallResult;

/// How long a suspended call waits for the client to resend it with the answer.
pub(crate) const IDLE: Duration = Duration::from_secs(600);

/// How many calls may wait for answers at once, over all sessions.
pub(crate) const MAX_SUSPENDED: usize = 1024;

/// What a call ends with: a tool's result, or a prompt's messages.
pub(crate) enum Finished {
    /// A `tools/call`'s result.
    Tool(ToolCallResult),
    /// A `tools/call` whose tool panicked (contained; the result says so): a plain call answers
    /// it as any failed call, a task fails (the server's failure, not the tool's answer).
    ToolPanicked(ToolCallResult),
    /// A `prompts/get`'s result.
    Prompt(Result<GetPromptResult, ErrorData>),
}

impl Finished {
    fn failed(&self) -> bool {
        match self {
            Finished::Tool(result) => result.is_error,
            Finished::ToolPanicked(_) => true,
            Finished::Prompt(result) => result.is_err(),
        }
    }
}

/// A call as a future that owns all it needs.
pub(crate) type CallFuture = Pin<Box<dyn Future<Output = Finished> + Send>>;

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
#[derive(Clone)]
pub(crate) struct Asker {
    questions: mpsc::UnboundedSender<Question>,
    /// How many questions of each key the call asked: the second of a key goes by `key-2`.
    asked: Arc<Mutex<HashMap<String, usize>>>,
    /// Answers the client sent with a fresh request, by key: a question whose key is among them
    /// is answered at once (the client answered it before it was asked, or resent the whole
    /// call with its answers instead of echoing a `requestState`).
    given: Arc<Mutex<InputResponses>>,
    lacking: Lacking,
    /// The task the call became ([`ToolOptions::ask_before_task`](crate::ToolOptions::ask_before_task)),
    /// once it did: its progress then goes to the task's status message.
    task: Arc<OnceLock<TaskContext>>,
}

impl std::fmt::Debug for Question {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Question")
            .field("key", &self.key)
            .finish_non_exhaustive()
    }
}

impl std::fmt::Debug for Asker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Asker")
            .field("task", &self.task().map(TaskContext::task_id))
            .finish_non_exhaustive()
    }
}

impl Asker {
    /// The task the call became, once it did.
    pub(crate) fn task(&self) -> Option<&TaskContext> {
        self.task.get()
    }

    /// Records that a question needed `capability`, which the request did not declare: a call
    /// that then fails is answered MissingRequiredClientCapability (SEP-2575) instead.
    pub(crate) fn lacks(&self, capability: ClientCapabilities) {
        *self.lacking.lock().unwrap_or_else(PoisonError::into_inner) = Some(capability);
    }

    /// Puts `request` to the client under `key` (made unique within the call) and waits for
    /// its answer; `Err` when the call was dropped (the client never came back, or cancelled).
    pub(crate) async fn ask(&self, key: &str, request: InputRequest) -> Result<Value, String> {
        let key = {
            let mut asked = self.asked.lock().unwrap_or_else(PoisonError::into_inner);
            let count = asked.entry(key.to_string()).or_insert(0);
            *count += 1;
            if *count == 1 {
                key.to_string()
            } else {
                format!("{key}-{count}")
            }
        };
        let given = self
            .given
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&key);
        if let Some(answer) = given {
            return Ok(answer);
        }
        let (answer, answered) = oneshot::channel();
        let question = Question {
            key,
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
    /// What is called (`tool `x``, `prompt `x``): a resent request must name the same.
    target: String,
    call: CallFuture,
    questions: mpsc::UnboundedReceiver<Question>,
    /// Questions asked in an earlier round and not answered in the last: asked again first.
    unanswered: Vec<Question>,
    lacking: Lacking,
    /// The tool's own cancellation: the requests of the rounds come and go.
    stop: CancellationToken,
    /// Whether the call becomes a task once it is busy with other than its questions
    /// ([`ToolOptions::ask_before_task`](crate::ToolOptions::ask_before_task)).
    escalates: bool,
    /// Where the call's progress goes once it is a task (shared with its [`Asker`]).
    task: Arc<OnceLock<TaskContext>>,
}

/// The target of a call of the tool `name`, as [`Running`] names it.
pub(crate) fn tool_target(name: &str) -> String {
    format!("tool `{name}`")
}

/// The target of a `prompts/get` of the prompt `name`.
pub(crate) fn prompt_target(name: &str) -> String {
    format!("prompt `{name}`")
}

/// The name in a target (`tool `x`` -> `x`).
pub(crate) fn request_name(target: &str) -> String {
    target
        .split_once('`')
        .map_or(target, |(_, name)| name.trim_end_matches('`'))
        .to_string()
}

impl Running {
    /// What is called.
    pub(crate) fn target(&self) -> &str {
        &self.target
    }

    /// Whether the call becomes a task once it is busy with other than its questions.
    pub(crate) fn escalates(&self) -> bool {
        self.escalates
    }

    /// This call, to become a task once it is busy with other than its questions, instead
    /// of waiting in the round for its result.
    pub(crate) fn escalating(mut self) -> Self {
        self.escalates = true;
        self
    }

    /// The call as the operation of a task: `task` gets its progress, and its questions from
    /// now on go to `ask` (the task's input requests), their answers back to the call. The
    /// future ends with the call, or stops it when `stopped` ends first.
    pub(crate) fn into_task(
        self,
        task: TaskContext,
        ask: impl Fn(String, InputRequest) -> Pin<Box<dyn Future<Output = Option<Value>> + Send>>
        + Send
        + Sync
        + 'static,
    ) -> (CallFuture, CancellationToken) {
        let Running {
            call,
            mut questions,
            unanswered,
            stop,
            task: slot,
            ..
        } = self;
        // Set once: a call becomes a task once.
        let _ = slot.set(task);
        let operation: CallFuture = Box::pin(async move {
            let mut call = call;
            let mut pending = futures_util::stream::FuturesUnordered::new();
            let forward = |question: Question| {
                let answer = ask(question.key, question.request);
                let to = question.answer;
                async move {
                    // No answer (the task was cancelled, or the key refused): the sender is
                    // dropped, and the tool's question fails.
                    if let Some(answer) = answer.await {
                        drop(to.send(answer));
                    }
                }
            };
            for question in unanswered {
                pending.push(forward(question));
            }
            loop {
                tokio::select! {
                    biased;
                    finished = &mut call => return finished,
                    Some(question) = questions.recv() => pending.push(forward(question)),
                    Some(()) = futures_util::StreamExt::next(&mut pending) => {}
                }
            }
        });
        (operation, stop)
    }
}

/// The receiving end of a call's questions.
pub(crate) struct Questions(
    mpsc::UnboundedReceiver<Question>,
    Lacking,
    Arc<OnceLock<TaskContext>>,
);

/// A fresh channel for a call's questions, with the answers the request came with (`given`):
/// the [`Asker`] goes in its peer.
pub(crate) fn questions(given: Option<InputResponses>) -> (Asker, Questions) {
    let (questions, receiver) = mpsc::unbounded_channel();
    let lacking = Lacking::default();
    let asker = Asker {
        questions,
        asked: Arc::default(),
        given: Arc::new(Mutex::new(given.unwrap_or_default())),
        lacking: lacking.clone(),
        task: Arc::default(),
    };
    let task = asker.task.clone();
    (asker, Questions(receiver, lacking, task))
}

/// The answers a request came with, checked: each must be a JSON object (an `ElicitResult`,
/// a `CreateMessageResult` or a `ListRootsResult`), or the request is refused as malformed.
pub(crate) fn checked_responses(
    responses: Option<InputResponses>,
) -> Result<Option<InputResponses>, ErrorData> {
    if let Some((key, _)) = responses
        .iter()
        .flatten()
        .find(|(_, answer)| !answer.is_object())
    {
        return Err(ErrorData::invalid_params(
            format!(
                "inputResponses[\"{key}\"] is not a result object (an elicitation, sampling or \
                 roots/list result)"
            ),
            None,
        ));
    }
    Ok(responses)
}

impl Running {
    /// The call of `target`, whose peer asks through the [`Asker`] of `questions`; `stop` is
    /// the token its context was made under.
    pub(crate) fn new(
        target: String,
        call: CallFuture,
        questions: Questions,
        stop: CancellationToken,
    ) -> Self {
        Self {
            target,
            call,
            questions: questions.0,
            unanswered: Vec::new(),
            lacking: questions.1,
            stop,
            escalates: false,
            task: questions.2,
        }
    }
}

/// How a round ended.
pub(crate) enum Round {
    /// The call finished.
    Done(Finished),
    /// The call, [escalating](Running::escalating), went on to wait on other than a question:
    /// it is to become a task.
    Busy(Running),
    /// The call asked: answer `input_required` with these requests and this state.
    Ask {
        requests: InputRequests,
        state: String,
    },
    /// The client cancelled the request; the call was stopped.
    Cancelled,
    /// The call failed after a question needed this capability, which the request did not
    /// declare.
    Lacking(ClientCapabilities),
}

/// A call waiting for the client's answers.
struct Suspended {
    running: Running,
    /// The questions asked, each with its key and where its answer goes.
    asked: Vec<Question>,
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
    /// The call `state` names, resumed with the client's `responses`: the answer to each of
    /// its questions is handed to it; those the client left unanswered are asked again in the
    /// next round. Why not, when the state is unknown (never given, tampered with, or
    /// expired) or names another call than `target`.
    pub(crate) fn resume(
        &self,
        state: &str,
        target: &str,
        responses: Option<InputResponses>,
    ) -> Result<Running, String> {
        let suspended = {
            let mut map = self
                .suspended
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            match map.get(state) {
                Some(waiting) if waiting.running.target != target => {
                    return Err(format!(
                        "the requestState belongs to a call of another {} than {target}",
                        waiting.running.target.split(' ').next().unwrap_or("call")
                    ));
                }
                Some(_) => map.remove(state),
                None => None,
            }
        };
        let Some(suspended) = suspended else {
            return Err(format!(
                "the requestState is unknown here: the call of {target} it named is over, or \
                 waited more than {} s for its answer",
                IDLE.as_secs()
            ));
        };
        let mut responses = responses.unwrap_or_default();
        let mut running = suspended.running;
        for question in suspended.asked {
            match responses.remove(&question.key) {
                // The call may have stopped waiting (its own timeout); then the round finds
                // it done.
                Some(answer) => drop(question.answer.send(answer)),
                None => running.unanswered.push(question),
            }
        }
        Ok(running)
    }

    /// Runs the call until it finishes, asks, or the request is `cancelled`. The questions
    /// it asks at once (joined futures) go out together, in one result.
    pub(crate) async fn drive(&self, mut running: Running, cancelled: &CancellationToken) -> Round {
        let mut asked = std::mem::take(&mut running.unanswered);
        if asked.is_empty() && running.escalates {
            // Only as far as the call goes at once: a call that then waits on anything but a
            // question is busy, and becomes a task.
            if let std::task::Poll::Ready(result) = poll_once(&mut running.call).await {
                return running.finished(result);
            }
            while let Ok(question) = running.questions.try_recv() {
                asked.push(question);
            }
            if asked.is_empty() {
                return Round::Busy(running);
            }
        }
        if asked.is_empty() {
            let question = tokio::select! {
                biased;
                result = &mut running.call => return running.finished(result),
                () = cancelled.cancelled() => {
                    running.stop.cancel();
                    return Round::Cancelled;
                }
                Some(question) = running.questions.recv() => question,
            };
            asked.push(question);
        }
        // Let the call go on as far as it can without its answers: the questions it asks
        // alongside join this round.
        loop {
            while let Ok(question) = running.questions.try_recv() {
                asked.push(question);
            }
            let before = asked.len();
            if let std::task::Poll::Ready(result) = poll_once(&mut running.call).await {
                return running.finished(result);
            }
            while let Ok(question) = running.questions.try_recv() {
                asked.push(question);
            }
            if asked.len() == before {
                break;
            }
        }
        let state = new_state();
        let requests: InputRequests = asked
            .iter()
            .map(|question| (question.key.clone(), question.request.clone()))
            .collect();
        let suspended = Suspended {
            running,
            asked,
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

impl Running {
    /// The round of a call that ended with `result`.
    fn finished(&self, result: Finished) -> Round {
        let lacking = self
            .lacking
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        match lacking {
            Some(capability) if result.failed() => Round::Lacking(capability),
            _ => Round::Done(result),
        }
    }
}

/// Polls `call` once, in the current task.
async fn poll_once(call: &mut CallFuture) -> std::task::Poll<Finished> {
    std::future::poll_fn(|cx| std::task::Poll::Ready(call.as_mut().poll(cx))).await
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

    /// A call that asks `keys` at once, then `then` in a round of its own, and answers with
    /// what it was told.
    fn asking_call(
        tool: &str,
        keys: &'static [&'static str],
        given: Option<InputResponses>,
    ) -> Running {
        let (asker, asked) = questions(given);
        let call: CallFuture = Box::pin(async move {
            let answers =
                futures_util::future::join_all(keys.iter().map(|key| asker.ask(key, question())))
                    .await;
            let last = asker.ask("city", question()).await;
            Finished::Tool(ToolCallResult::success(vec![crate::Content::text(
                format!("{answers:?} {last:?}"),
            )]))
        });
        Running::new(
            format!("tool `{tool}`"),
            call,
            asked,
            CancellationToken::new(),
        )
    }

    fn answers(keys: &[&str]) -> InputResponses {
        keys.iter()
            .map(|key| {
                (
                    key.to_string(),
                    json!({"action": "accept", "content": {"k": key}}),
                )
            })
            .collect()
    }

    fn text(round: Round) -> String {
        let Round::Done(Finished::Tool(result)) = round else {
            panic!("the call should finish");
        };
        result.to_model_text()
    }

    #[tokio::test]
    async fn questions_asked_together_go_out_together_under_their_keys() {
        let rounds = Rounds::default();
        let never = CancellationToken::new();
        let call = asking_call("weather", &["user_name", "city"], None);
        let Round::Ask { requests, state } = rounds.drive(call, &never).await else {
            panic!("the call should ask");
        };
        assert_eq!(requests.keys().collect::<Vec<_>>(), ["city", "user_name"]);
        assert_eq!(rounds.waiting(), 1);
        // Only one answered: the other is asked again, under a new state.
        let running = rounds
            .resume(&state, "tool `weather`", Some(answers(&["user_name"])))
            .unwrap();
        let Round::Ask {
            requests,
            state: next,
        } = rounds.drive(running, &never).await
        else {
            panic!("the unanswered question should be asked again");
        };
        assert_eq!(requests.keys().collect::<Vec<_>>(), ["city"]);
        assert_ne!(next, state);
        let running = rounds
            .resume(&next, "tool `weather`", Some(answers(&["city"])))
            .unwrap();
        // The call's next question reuses a key: it goes by `city-2`.
        let Round::Ask { requests, state } = rounds.drive(running, &never).await else {
            panic!("the call should ask its last question");
        };
        assert_eq!(requests.keys().collect::<Vec<_>>(), ["city-2"]);
        let running = rounds
            .resume(
                &state,
                "tool `weather`",
                Some(answers(&["city-2", "extra"])),
            )
            .unwrap();
        let text = text(rounds.drive(running, &never).await);
        assert!(
            text.contains("user_name") && text.contains("city-2"),
            "{text}"
        );
        assert_eq!(rounds.waiting(), 0);
    }

    #[tokio::test]
    async fn answers_sent_with_a_fresh_call_answer_its_questions_by_key() {
        let rounds = Rounds::default();
        let never = CancellationToken::new();
        let given = answers(&["user_name", "city", "city-2", "unknown"]);
        let call = asking_call("weather", &["user_name", "city"], Some(given));
        let text = text(rounds.drive(call, &never).await);
        assert!(text.contains("city-2"), "{text}");
        // A wrong key answers nothing: the question is asked.
        let call = asking_call("weather", &["user_name"], Some(answers(&["wrong_key"])));
        let Round::Ask { requests, .. } = rounds.drive(call, &never).await else {
            panic!("the call should ask");
        };
        assert_eq!(requests.keys().collect::<Vec<_>>(), ["user_name"]);
    }

    #[tokio::test]
    async fn a_wrong_or_tampered_state_or_target_is_refused() {
        let rounds = Rounds::default();
        let never = CancellationToken::new();
        let call = asking_call("weather", &["user_name"], None);
        let Round::Ask { state, .. } = rounds.drive(call, &never).await else {
            panic!("the call should ask");
        };
        let error = rounds
            .resume(&format!("{state}-TAMPERED"), "tool `weather`", None)
            .err()
            .unwrap();
        assert!(error.contains("unknown"), "{error}");
        let error = rounds
            .resume(&state, "tool `delete_all`", None)
            .err()
            .unwrap();
        assert!(error.contains("another tool"), "{error}");
        assert_eq!(
            rounds.waiting(),
            1,
            "a wrong target leaves the call waiting"
        );
        assert_ne!(new_state(), new_state());
    }

    /// An escalating call (`ask_before_task`) asks in rounds while it asks at once; busy with
    /// anything else, or done, it leaves the round at once instead of being waited on.
    #[tokio::test]
    async fn an_escalating_call_asks_in_rounds_and_leaves_the_round_once_busy() {
        let rounds = Rounds::default();
        let never = CancellationToken::new();
        let (asker, asked) = questions(None);
        let call: CallFuture = Box::pin(async move {
            let name = asker.ask("user_name", question()).await;
            // Other work: the round does not wait for it.
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            Finished::Tool(ToolCallResult::success(vec![crate::Content::text(
                format!("{name:?}"),
            )]))
        });
        let running = Running::new(
            "tool `greet`".to_string(),
            call,
            asked,
            CancellationToken::new(),
        )
        .escalating();
        let Round::Ask { requests, state } = rounds.drive(running, &never).await else {
            panic!("the call asks first");
        };
        assert_eq!(requests.keys().collect::<Vec<_>>(), ["user_name"]);
        let running = rounds
            .resume(&state, "tool `greet`", Some(answers(&["user_name"])))
            .unwrap();
        let Round::Busy(running) = rounds.drive(running, &never).await else {
            panic!("the answered call is busy sleeping: it leaves the round");
        };
        assert!(running.escalates());
        // Not escalating, the same call is waited on to its end.
        let call = asking_call("weather", &[], Some(answers(&["city"])));
        assert!(!call.escalates());
        let text = text(rounds.drive(call, &never).await);
        assert!(text.contains("city"), "{text}");
        // Escalating and done at once: its result, in the round.
        let call = asking_call("weather", &[], Some(answers(&["city"]))).escalating();
        assert!(matches!(
            rounds.drive(call, &never).await,
            Round::Done(Finished::Tool(_))
        ));
    }

    #[test]
    fn answers_that_are_not_objects_are_refused() {
        let mut responses = answers(&["user_name"]);
        assert!(checked_responses(Some(responses.clone())).is_ok());
        assert!(checked_responses(None).unwrap().is_none());
        responses.insert("user_name".into(), json!(12345));
        let error = checked_responses(Some(responses)).unwrap_err();
        assert!(error.message.contains("user_name"), "{}", error.message);
    }
}
