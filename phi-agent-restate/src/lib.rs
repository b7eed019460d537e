//! Runs a [`phi_agent`] agent as a [Restate](https://restate.dev) virtual object, so that a run
//! survives the death of the process running it.
//!
//! [`AgentObject`] is a virtual object keyed by the session id. Its `run` handler answers one
//! input: the session's history comes from Restate's state and goes back to it when the run is
//! done, and every step of the run ([`StepExecutor`]: the session id, each model reply, each tool
//! call) is a journal entry (`ctx.run`). When the process dies mid-run, Restate invokes the
//! handler again (on this or another instance of the service) and the run replays its journal:
//! the model is not asked again for a turn it answered, a tool call that finished does not run
//! again. The call that was running at the crash runs again, under the same
//! [`ToolContext::step_key`](phi_agent::ToolContext::step_key): tools with side effects pass that
//! key on as their idempotency key.
//!
//! Your crate serves the object with restate-sdk's `Endpoint` and `HttpServer` (the SDK's default
//! features add request-signing checks that this needs not):
//!
//! ```toml
//! [dependencies]
//! phi-agent = "0.1"
//! phi-agent-restate = "0.1"
//! restate-sdk = { version = "0.13", default-features = false, features = ["http_server"] }
//! tokio = { version = "1", features = ["macros", "rt-multi-thread"] }
//! ```
//!
//! ```no_run
//! use phi_agent::{AgentConfig, base_agent_builder, llm::ScriptedLlm, phi_tool, tools};
//! use phi_agent_restate::AgentObject;
//! use restate_sdk::prelude::{Endpoint, HttpServer};
//!
//! /// Refund an order.
//! #[phi_tool(needs_approval)]
//! async fn refund(order: String) -> String {
//!     format!("refunded {order}")
//! }
//!
//! # async fn serve() {
//! let object = AgentObject::new(
//!     // called once per invocation: the same model and tools on every instance
//!     || base_agent_builder(ScriptedLlm::new([])).register_tools(tools![refund]),
//!     AgentConfig::default(),
//! );
//! HttpServer::new(Endpoint::builder().bind(object).build())
//!     .listen_and_serve("127.0.0.1:9080".parse().unwrap())
//!     .await;
//! # }
//! ```
//!
//! Then register its address with Restate (`POST /deployments` on the admin port, 9070, with
//! `{"uri": "http://127.0.0.1:9080"}`) and send inputs to `/Agent/<session id>/run` on the
//! ingress (8080). The object's name is always `Agent`: registering a second agent's service
//! with the same Restate makes it the `Agent` service's next revision, which takes the new
//! invocations of the first.
//!
//! A call that needs approval waits on a Restate awakeable. Its id is in the object's state,
//! read with the shared `pending` handler, and a person decides with the shared `decide`
//! handler, whose body is an [`Approval`] as JSON:
//!
//! ```text
//! curl -X POST localhost:8080/Agent/<session id>/pending      # {"awakeable_id": ..}
//! curl -X POST localhost:8080/Agent/<session id>/decide \
//!      -H 'content-type: application/json' -d '{"decision": "approve"}'
//! ```
//!
//! `decide` checks the body before it resolves anything: a body that is not an [`Approval`]
//! (`{"decision": "yes"}`) is answered at once with `400` and what to send instead, and the call
//! keeps waiting. Resolving the awakeable straight over Restate's ingress
//! (`/restate/awakeables/<awakeable_id>/resolve`) works too, but Restate accepts any payload
//! there (`202`); one that is not an [`Approval`] is refused by the run, which puts the call
//! under a new awakeable, and `pending` then shows the new id with the reason in `refused`. The
//! session is never left waiting on a decision it cannot read.
//!
//! Restate wants each journaled action awaited before the next one starts, so a run's steps are
//! journaled one at a time: under Restate, the calls of a turn run one after another.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::{Pin, pin};
use std::sync::Arc;

use async_trait::async_trait;
use phi_agent::llm::Message;
use phi_agent::{
    AgentBuilder, AgentConfig, AgentError, AgentResult, Approval, ApprovalRequest, Approver,
    Decided, PhiAgent, RunOutput, StepExecutor, StepFuture, StepOutput, ToolCallRecord,
};
use restate_sdk::prelude::*;
use serde::{Deserialize, Serialize};
use tokio::sync::{mpsc, oneshot};

/// The state key of a session's conversation.
pub const HISTORY: &str = "history";
/// The state key of the approval a run waits on, if any.
pub const PENDING: &str = "pending_approval";

/// Makes the agent of one invocation: its model and tools, without an executor or approver
/// (the object sets both).
pub type MakeAgent = dyn Fn() -> AgentBuilder + Send + Sync;

/// An agent served as a Restate virtual object keyed by session id; bind it to an
/// [`Endpoint`].
pub struct AgentObject {
    make: Arc<MakeAgent>,
    config: AgentConfig,
}

impl AgentObject {
    /// An object whose every invocation runs an agent built from `make()` with `config`. The
    /// builder is called once per invocation, so the agent's tools are the same on every
    /// instance of the service that may replay a run; a replay on an agent whose tools changed
    /// fails (Restate then retries it, and the run waits for a deployment that fits).
    pub fn new(
        make: impl Fn() -> AgentBuilder + Send + Sync + 'static,
        config: AgentConfig,
    ) -> Self {
        Self {
            make: Arc::new(make),
            config,
        }
    }
}

/// What the `run` handler returns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunReply {
    /// The model's answer.
    pub text: String,
    /// Model turns taken.
    pub turns: usize,
    /// Every tool call of the run.
    pub tool_calls: Vec<ToolCallRecord>,
}

impl From<RunOutput> for RunReply {
    fn from(output: RunOutput) -> Self {
        Self {
            text: output.text,
            turns: output.turns,
            tool_calls: output.tool_calls,
        }
    }
}

/// The approval a run waits on, as the `pending` handler shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PendingApproval {
    /// Resolve this awakeable with an [`Approval`] to decide.
    pub awakeable_id: String,
    /// The turn of the call, from 1.
    pub turn: usize,
    /// The provider's id of the call.
    pub call_id: String,
    /// The tool called.
    pub tool: String,
    /// The arguments the model sent.
    pub arguments: serde_json::Value,
    /// Why the last payload resolving this call's previous awakeable was refused (it was not an
    /// [`Approval`]); `None` until one is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
}

/// `payload`, the bytes an awakeable was resolved with, read as an [`Approval`]; otherwise why
/// not, and what to send instead.
pub fn read_approval(payload: &[u8]) -> Result<Approval, String> {
    serde_json::from_slice(payload).map_err(|error| {
        const SHOWN: usize = 200;
        let text = String::from_utf8_lossy(payload);
        let shown: String = text.chars().take(SHOWN).collect();
        let cut = if text.chars().count() > SHOWN {
            ".."
        } else {
            ""
        };
        format!(
            "`{shown}{cut}` is not an approval ({error}); send {{\"decision\": \"approve\"}}, \
             {{\"decision\": \"approve_with\", \"arguments\": {{..}}}} or \
             {{\"decision\": \"deny\", \"message\": \"..\"}}"
        )
    })
}

/// The handlers. In a module of its own because the object macro generates items without
/// documentation (a client type, its methods), which the workspace's lints would refuse.
#[allow(missing_docs)]
mod handlers {
    use super::*;

    #[restate_sdk::object(name = "Agent")]
    impl AgentObject {
        /// Answers `input` in the session named by the object's key, and keeps the conversation.
        #[handler]
        async fn run(
            &self,
            ctx: ObjectContext<'_>,
            input: String,
        ) -> HandlerResult<Json<RunReply>> {
            let history: Vec<Message> = ctx
                .get::<Json<Vec<Message>>>(HISTORY)
                .await?
                .map(Json::into_inner)
                .unwrap_or_default();
            let (work, mut requests) = mpsc::unbounded_channel();
            let builder = (self.make)()
                .step_executor(RestateSteps::new(work.clone()))
                .approver(RestateApprover { work });
            let agent = PhiAgent::build(builder, self.config.clone())
                .map_err(|error| TerminalError::new(error.to_string()))?;
            let mut session = agent.restore_session(ctx.key(), history);
            let outcome = serve(&ctx, session.prompt(input).into_future(), &mut requests).await;
            let output = outcome.map_err(handler_error)?;
            ctx.set(HISTORY, Json(session.history().to_vec()));
            Ok(Json(output.into()))
        }

        /// Decides the call the session's run waits on: the body is an [`Approval`] as JSON.
        /// A body that is not one is refused with `400` and the reason, before anything is
        /// resolved, and so are edited arguments (`approve_with`) the tool would refuse; with no
        /// call waiting, `404`. Answers with the call decided.
        #[handler]
        async fn decide(
            &self,
            ctx: SharedObjectContext<'_>,
            decision: Json<serde_json::Value>,
        ) -> HandlerResult<Json<PendingApproval>> {
            let body = serde_json::to_vec(&decision.into_inner())
                .map_err(|error| TerminalError::new_with_code(400, error.to_string()))?;
            let approval =
                read_approval(&body).map_err(|why| TerminalError::new_with_code(400, why))?;
            let Some(Json(pending)) = ctx.get::<Json<PendingApproval>>(PENDING).await? else {
                return Err(TerminalError::new_with_code(
                    404,
                    format!("session `{}` has no call waiting for approval", ctx.key()),
                )
                .into());
            };
            if let Approval::ApproveWith { arguments } = &approval {
                // Edited arguments the tool would refuse are refused here, while the person who
                // edited them is still waiting for the answer; the call keeps waiting.
                let agent = PhiAgent::build((self.make)(), self.config.clone())
                    .map_err(|error| TerminalError::new(error.to_string()))?;
                if let Err(error) = agent.registry().check_arguments(&pending.tool, arguments) {
                    return Err(TerminalError::new_with_code(
                        400,
                        format!(
                            "the edited arguments do not fit tool `{}`: {error}; the call still waits for a decision",
                            pending.tool
                        ),
                    )
                    .into());
                }
            }
            ctx.resolve_awakeable(&pending.awakeable_id, Json(approval));
            // The call as decided: a refusal of an earlier payload no longer applies to it.
            Ok(Json(PendingApproval {
                refused: None,
                ..pending
            }))
        }

        /// The approval the session's run waits on, if any.
        #[handler]
        async fn pending(
            &self,
            ctx: SharedObjectContext<'_>,
        ) -> HandlerResult<Json<Option<PendingApproval>>> {
            Ok(Json(
                ctx.get::<Json<PendingApproval>>(PENDING)
                    .await?
                    .map(Json::into_inner),
            ))
        }
    }
}

/// A failed run: retried by Restate when a retry may succeed (the model or its transport
/// failed, a step could not be journaled), terminal when it would fail the same way again.
fn handler_error(error: AgentError) -> HandlerError {
    match error {
        AgentError::Http { .. }
        | AgentError::Provider { .. }
        | AgentError::InvalidResponse { .. }
        | AgentError::Step { .. } => HandlerError::from(error),
        other => TerminalError::new(other.to_string()).into(),
    }
}

/// What the agent asks of the handler, which alone holds the Restate context.
enum Work {
    /// Journal a step: `go` says "run it now" (the journal lacks it), `value` brings its result
    /// back, `done` carries the journaled result (replayed or just recorded).
    Step {
        key: String,
        go: oneshot::Sender<()>,
        value: oneshot::Receiver<Result<StepOutput, String>>,
        done: oneshot::Sender<Result<StepOutput, String>>,
    },
    /// Wait for a person's decision on an awakeable.
    Approve {
        request: ApprovalRequest,
        done: oneshot::Sender<Result<Approval, String>>,
    },
}

type Performing<'a> = Pin<Box<dyn Future<Output = ()> + Send + 'a>>;

/// Drives `run` while carrying out its requests against `ctx`, one at a time in the order they
/// came (which is the run's own, deterministic order, so a replay meets the same journal).
async fn serve<F>(
    ctx: &ObjectContext<'_>,
    run: F,
    requests: &mut mpsc::UnboundedReceiver<Work>,
) -> AgentResult<RunOutput>
where
    F: Future<Output = AgentResult<RunOutput>>,
{
    enum Event {
        Finished(AgentResult<RunOutput>),
        Request(Option<Work>),
        Performed,
    }
    let mut run = pin!(run);
    let mut queue = VecDeque::new();
    let mut current: Option<Performing<'_>> = None;
    let mut open = true;
    loop {
        if current.is_none() {
            current = queue.pop_front().map(|work| perform(ctx, work));
        }
        let event = tokio::select! {
            biased;
            output = &mut run => Event::Finished(output),
            work = requests.recv(), if open => Event::Request(work),
            () = async {
                match current.as_mut() {
                    Some(performing) => performing.await,
                    None => std::future::pending().await,
                }
            } => Event::Performed,
        };
        match event {
            Event::Finished(output) => return output,
            Event::Request(Some(work)) => queue.push_back(work),
            Event::Request(None) => open = false,
            Event::Performed => current = None,
        }
    }
}

fn perform<'a>(ctx: &'a ObjectContext<'_>, work: Work) -> Performing<'a> {
    match work {
        Work::Step {
            key,
            go,
            value,
            done,
        } => Box::pin(async move {
            let journaled = ctx
                .run(move || async move {
                    // Called only when the journal lacks this step.
                    let _ = go.send(());
                    match value.await {
                        Ok(Ok(output)) => Ok(Json(output)),
                        Ok(Err(message)) => Err(HandlerError::from(message)),
                        Err(_) => Err(HandlerError::from("the run stopped during this step")),
                    }
                })
                .name(key)
                .await;
            let _ = done.send(
                journaled
                    .map(Json::into_inner)
                    .map_err(|error| error.to_string()),
            );
        }),
        Work::Approve { request, done } => Box::pin(async move {
            // Read as bytes, not as `Json<Approval>`: the SDK fails the invocation on a payload
            // it cannot decode, and Restate then retries it for ever on the same journaled
            // payload, the session locked. A payload that is not an approval is refused here
            // instead, and the call waits again under a new awakeable.
            let mut refused = None;
            let decision = loop {
                let (awakeable_id, payload) = ctx.awakeable::<Vec<u8>>();
                ctx.set(
                    PENDING,
                    Json(PendingApproval {
                        awakeable_id,
                        turn: request.turn,
                        call_id: request.call_id.clone(),
                        tool: request.tool.clone(),
                        arguments: request.arguments.clone(),
                        refused: refused.take(),
                    }),
                );
                match payload.await {
                    Ok(bytes) => match read_approval(&bytes) {
                        Ok(approval) => break Ok(approval),
                        Err(why) => {
                            tracing::warn!(call_id = %request.call_id, "approval refused: {why}");
                            refused = Some(why);
                        }
                    },
                    Err(rejected) => break Err(rejected.to_string()),
                }
            };
            ctx.clear(PENDING);
            let _ = done.send(decision);
        }),
    }
}

/// The agent's side of the journal: hands each step to the handler and runs it when told to.
struct RestateSteps {
    work: mpsc::UnboundedSender<Work>,
    /// The keys of the steps running now (told to run, not yet done).
    running: std::sync::Mutex<Vec<String>>,
}

impl RestateSteps {
    fn new(work: mpsc::UnboundedSender<Work>) -> Self {
        Self {
            work,
            running: std::sync::Mutex::default(),
        }
    }

    /// The running step that `key` is a nested call of (`<its key>/call/<k>`), if any.
    fn nested_in(&self, key: &str) -> Option<String> {
        let running = self.running.lock().unwrap_or_else(|p| p.into_inner());
        running
            .iter()
            .find(|outer| {
                key.strip_prefix(outer.as_str())
                    .is_some_and(|rest| rest.starts_with("/call/"))
            })
            .cloned()
    }

    fn set_running(&self, key: &str, on: bool) {
        let mut running = self.running.lock().unwrap_or_else(|p| p.into_inner());
        match on {
            true => running.push(key.to_string()),
            false => running.retain(|running| running != key),
        }
    }
}

/// Why a nested call ([`ToolContext::call_tool`](phi_agent::ToolContext::call_tool), code mode's
/// programs) cannot be a step under Restate.
fn nested_unsupported(key: &str, outer: &str) -> AgentError {
    AgentError::Config(format!(
        "step `{key}` is a tool's nested call (a tool calling tools, as code mode's `run_code` does), and nested calls are not supported under Restate: the call's step would be a journal entry (`ctx.run`) inside the entry of `{outer}`, which Restate does not have, and the handler journals one step at a time; run code mode in process or with a `JournalExecutor`"
    ))
}

#[async_trait]
impl StepExecutor for RestateSteps {
    async fn step(&self, key: &str, run: StepFuture<'_>) -> AgentResult<StepOutput> {
        let failed = |reason: String| AgentError::Step {
            key: key.to_string(),
            reason,
        };
        if let Some(outer) = self.nested_in(key) {
            // Queued behind the step it runs in, it would wait for ever: refused at once, a
            // terminal error (the same on every retry).
            return Err(nested_unsupported(key, &outer));
        }
        let (go, go_rx) = oneshot::channel();
        let (value_tx, value) = oneshot::channel();
        let (done, done_rx) = oneshot::channel();
        self.work
            .send(Work::Step {
                key: key.to_string(),
                go,
                value,
                done,
            })
            .map_err(|_| failed("the Restate handler has stopped".into()))?;
        // Dropped unsent when Restate replays the step from its journal.
        if go_rx.await.is_ok() {
            self.set_running(key, true);
            let ran = run.await;
            self.set_running(key, false);
            match ran {
                Ok(output) => {
                    let _ = value_tx.send(Ok(output));
                }
                Err(error) => {
                    // Not journaled: Restate retries the invocation and the step runs again.
                    let _ = value_tx.send(Err(error.to_string()));
                    return Err(error);
                }
            }
        }
        match done_rx.await {
            Ok(Ok(output)) => Ok(output),
            Ok(Err(reason)) => Err(failed(reason)),
            Err(_) => Err(failed("the Restate handler has stopped".into())),
        }
    }
}

/// Puts a call to a person through an awakeable, whose id the `pending` handler shows.
struct RestateApprover {
    work: mpsc::UnboundedSender<Work>,
}

#[async_trait]
impl Approver for RestateApprover {
    async fn decide(&self, request: ApprovalRequest) -> Decided {
        let (done, decided) = oneshot::channel();
        if self.work.send(Work::Approve { request, done }).is_err() {
            return Approval::deny("the Restate handler has stopped").into();
        }
        let approval = match decided.await {
            Ok(Ok(approval)) => approval,
            Ok(Err(message)) => Approval::deny(format!("the approval was rejected: {message}")),
            Err(_) => Approval::deny("the Restate handler has stopped"),
        };
        approval.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Carries out steps the way the handler does, one at a time, with no journal: each runs.
    async fn handler(mut requests: mpsc::UnboundedReceiver<Work>) {
        while let Some(work) = requests.recv().await {
            if let Work::Step {
                go, value, done, ..
            } = work
            {
                let _ = go.send(());
                let result = value.await.unwrap_or_else(|_| Err("dropped".into()));
                let _ = done.send(result);
            }
        }
    }

    #[tokio::test]
    async fn a_nested_call_is_refused_at_once_with_the_reason_instead_of_waiting_for_ever() {
        let (work, requests) = mpsc::unbounded_channel();
        tokio::spawn(handler(requests));
        let steps = Arc::new(RestateSteps::new(work));
        let inner = steps.clone();
        let outer = steps
            .step(
                "turn/1/tool/c1",
                Box::pin(async move {
                    // What code mode's program does: a step of its own while its caller's runs.
                    let nested = inner
                        .step("turn/1/tool/c1/call/0", Box::pin(async { unreachable!() }))
                        .await;
                    let error = nested.unwrap_err();
                    assert!(matches!(error, AgentError::Config(_)), "{error:?}");
                    let message = error.to_string();
                    assert!(
                        message.contains("nested calls are not supported under Restate"),
                        "{message}"
                    );
                    assert!(message.contains("`turn/1/tool/c1`"), "{message}");
                    Ok(StepOutput::SessionId { id: "done".into() })
                }),
            )
            .await;
        assert!(outer.is_ok(), "{outer:?}");
        // A step that is no nested call (another call of the turn, here after it) runs.
        let next = steps
            .step(
                "turn/1/tool/c1x/call/0",
                Box::pin(async { Ok(StepOutput::SessionId { id: "ran".into() }) }),
            )
            .await;
        assert!(next.is_ok(), "{next:?}");
    }

    #[test]
    fn an_approval_payload_is_read_as_an_approval() {
        assert_eq!(
            read_approval(br#"{"decision": "approve"}"#),
            Ok(Approval::Approve)
        );
        assert_eq!(
            read_approval(br#"{"decision": "deny", "message": "no"}"#),
            Ok(Approval::deny("no"))
        );
    }

    #[test]
    fn a_mistyped_approval_is_refused_with_what_to_send() {
        let why = read_approval(br#"{"decision": "yes"}"#).unwrap_err();
        assert!(
            why.starts_with(r#"`{"decision": "yes"}` is not an approval"#),
            "{why}"
        );
        assert!(why.contains("unknown variant `yes`"), "{why}");
        assert!(why.contains(r#"send {"decision": "approve"}"#), "{why}");
        // A person's edit sent under the wrong decision is refused, not dropped (the call would
        // run with the model's arguments).
        let why =
            read_approval(br#"{"decision": "approve", "arguments": {"amount": 10}}"#).unwrap_err();
        assert!(why.contains("unknown field `arguments`"), "{why}");
        let why =
            read_approval(br#"{"decision": "deny", "message": "no", "id": "c1"}"#).unwrap_err();
        assert!(why.contains("unknown field `id`"), "{why}");
        let long = vec![b'x'; 1000];
        let why = read_approval(&long).unwrap_err();
        assert!(why.len() < 600, "the payload is cut short: {why}");
        assert!(read_approval(&[0xff, 0xfe]).is_err(), "not UTF-8");
    }
}
