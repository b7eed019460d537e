//! The request value: a run before it starts, its modifiers, and the two ways to run it
//! (awaited, streamed).

use std::fmt;
use std::future::{Future, IntoFuture};
use std::marker::PhantomData;
use std::pin::Pin;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use super::answer_kind::{AnswerKind, OutputFor, Plain, Typed};
use super::input::{Input, RunInput};
use super::options::RunOptions;
use crate::agent::plan::{Inline, Pausing};
use crate::agent::run;
use crate::agent::session::AgentSession;
use crate::agent::stream::{RunStream, Sink};
use crate::error::AgentResult;

/// A run before it starts: made by [`PhiAgent::prompt`](crate::PhiAgent::prompt) (in a fresh
/// session), [`AgentSession::prompt`] (in that session) or
/// [`PhiAgent::resume`](crate::PhiAgent::resume); changed by its modifiers; run by awaiting it
/// ([`IntoFuture`]) or as a [`stream`](Self::stream) of events.
///
/// The modifiers choose what the run returns, as its type: [`typed::<T>()`](Self::typed) turns
/// the answer into a `T`, [`pausing()`](Self::pausing) lets the run pause on calls that need
/// approval instead of asking the agent's approver.
///
/// | awaiting it returns | asks the approver (default) | [`pausing()`](Self::pausing) |
/// |---|---|---|
/// | plain (default) | [`RunOutput`](crate::RunOutput) | [`RunOutcome`](crate::RunOutcome) |
/// | [`typed::<T>()`](Self::typed) | [`TypedOutput<T>`](crate::TypedOutput) | [`TypedOutcome<T>`](crate::TypedOutcome) |
///
/// A streamed run's last event, [`StreamEvent::Finished`](crate::StreamEvent::Finished), holds
/// the same value. A request made from a [`PausedRun`](crate::PausedRun) resumes it (in the
/// session the request belongs to); resumed without `pausing()`, the later calls that need
/// approval go to the approver.
///
/// ```
/// use phi_agent::llm::{LlmResponse, ScriptedLlm, ToolCall};
/// use phi_agent::{base_agent_builder, phi_tool, AgentConfig, PhiAgent, StreamEvent, TypedOutcome};
/// use serde_json::json;
///
/// /// Delete a file.
/// #[phi_tool(needs_approval)]
/// async fn delete_file(path: String) -> String {
///     format!("deleted {path}")
/// }
///
/// #[derive(serde::Deserialize, schemars::JsonSchema, Debug, PartialEq)]
/// struct Report { deleted: Vec<String> }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> phi_agent::AgentResult<()> {
/// let delete = ToolCall::new("c1", "delete_file", json!({"path": "a.txt"}));
/// let answer = ToolCall::new("c2", "final_answer", json!({"deleted": ["a.txt"]}));
/// let llm = ScriptedLlm::new([
///     LlmResponse::tool_calls(vec![delete]),
///     LlmResponse::tool_calls(vec![answer]),
/// ]);
/// let agent = PhiAgent::build(base_agent_builder(llm).register_tool(DeleteFile), AgentConfig::default())?;
///
/// let outcome = agent.prompt("Delete a.txt").typed::<Report>().pausing().await?;
/// let TypedOutcome::Paused(mut paused) = outcome else { unreachable!() };
/// paused.approve("c1")?;
///
/// // Resumed as a stream: its last event holds the typed outcome.
/// let mut events = agent.resume(paused).typed::<Report>().stream();
/// while let Some(event) = events.next().await {
///     if let StreamEvent::Finished(outcome) = event? {
///         let done = outcome.done().expect("answered");
///         assert_eq!(done.value, Report { deleted: vec!["a.txt".into()] });
///     }
/// }
/// # Ok(())
/// # }
/// ```
#[must_use = "a run request does nothing until it is awaited or streamed"]
pub struct RunRequest<'a, A = Plain, M = Inline> {
    session: Held<'a>,
    input: RunInput,
    options: RunOptions,
    shape: PhantomData<fn() -> (A, M)>,
}

/// The session a request runs in: the caller's, or a fresh one of the agent's (boxed, so that
/// the request stays small as its modifiers move it).
pub(super) enum Held<'a> {
    Borrowed(&'a mut AgentSession),
    Owned(Box<AgentSession>),
}

impl<'a> RunRequest<'a> {
    /// A plain run of `input` in `session`, asking the agent's approver.
    pub(super) fn new(session: Held<'a>, input: RunInput) -> Self {
        RunRequest {
            session,
            input,
            options: RunOptions::default(),
            shape: PhantomData,
        }
    }
}

impl<'a, A, M> RunRequest<'a, A, M> {
    /// This request with `options` for its run (default: [`RunOptions::default`]), in place of
    /// those given before; an [`AnswerOptions`](crate::AnswerOptions) is taken as the run's
    /// options with it.
    pub fn options(mut self, options: impl Into<RunOptions>) -> Self {
        self.options = options.into();
        self
    }

    /// This request with another shape.
    fn reshape<B, N>(self) -> RunRequest<'a, B, N> {
        RunRequest {
            session: self.session,
            input: self.input,
            options: self.options,
            shape: PhantomData,
        }
    }
}

impl<'a, M> RunRequest<'a, Plain, M> {
    /// This request answering with a `T`: the model calls tools as it needs, then answers by
    /// calling a final-answer tool whose arguments are `T` (a `T` whose schema is not an object,
    /// such as a `String`, a `Vec` or an enum, is wrapped: `{"value": ..}`); see
    /// [`AnswerOptions`](crate::AnswerOptions) for the other ways. A plain-text reply, or an
    /// answer that does not decode, goes back to the model with every mistake, a bounded number
    /// of times; then the run fails with
    /// [`AgentError::AnswerRejected`](crate::AgentError::AnswerRejected), which holds the last
    /// attempt. The output's `run.text` is the answer as compact JSON.
    ///
    /// A paused typed run resumes only as a typed run with the same final-answer tool name, and a
    /// plain one only as a plain run.
    pub fn typed<T>(self) -> RunRequest<'a, Typed<T>, M>
    where
        T: DeserializeOwned + JsonSchema + Send + 'static,
    {
        self.reshape()
    }
}

impl<'a, A> RunRequest<'a, A, Inline> {
    /// This request pausing instead of asking anyone when a call needs approval: the turn's
    /// calls that need none run, and the run comes back paused
    /// ([`RunOutcome::Paused`](crate::RunOutcome::Paused)) with the calls to decide; the agent's
    /// approver is not consulted. The session's history changes only when the run is done; a
    /// paused run carries the conversation with it, and resumes in any process, on an agent
    /// built with the same tools.
    pub fn pausing(self) -> RunRequest<'a, A, Pausing> {
        self.reshape()
    }
}

impl<'a, A, M> RunRequest<'a, A, M>
where
    A: AnswerKind,
    M: OutputFor<A>,
{
    /// The run as a stream of events: the model's text and tool calls as they are written, each
    /// tool as it starts and finishes, and last
    /// [`StreamEvent::Finished`](crate::StreamEvent::Finished) with what awaiting the request
    /// returns; see [`StreamEvent`](crate::StreamEvent). A request that cannot run (a
    /// final-answer tool name taken, a paused run that does not fit) ends the stream with its
    /// error.
    ///
    /// Dropping the stream cancels the run (the model request and the running tools) and leaves
    /// the session as it was.
    pub fn stream(self) -> RunStream<'a, M::Output> {
        RunStream::new(move |sink| self.execute(sink))
    }

    /// Runs the request, its events going to `sink`.
    async fn execute(self, sink: Sink) -> AgentResult<M::Output> {
        let RunRequest {
            mut session,
            input,
            options,
            ..
        } = self;
        let session = match &mut session {
            Held::Borrowed(session) => &mut **session,
            Held::Owned(session) => &mut **session,
        };
        let resumed = match &input.0 {
            Input::Resume(paused) => Some(&**paused),
            Input::Prompt(_) => None,
        };
        let mut answering = A::answering(&session.agent, &options.answer, resumed)?;
        let agent = &*session.agent.inner;
        let policy = M::new(&agent.approver);
        let conv = &mut session.conv;
        let answer = answering.as_mut();
        let outcome = match input.0 {
            Input::Prompt(text) => run::fresh(agent, conv, text, &policy, &sink, answer).await?,
            Input::Resume(paused) => {
                run::resumed(agent, conv, *paused, &policy, &sink, answer).await?
            }
        };
        M::output(outcome, answering)
    }
}

/// Runs the request: dropping the future cancels the run's tools (their futures are dropped and
/// their [`ToolContext::cancellation`](crate::ToolContext::cancellation) tokens fire) and leaves
/// the session as it was.
impl<'a, A, M> IntoFuture for RunRequest<'a, A, M>
where
    A: AnswerKind,
    M: OutputFor<A>,
{
    type Output = AgentResult<M::Output>;
    type IntoFuture = Pin<Box<dyn Future<Output = Self::Output> + Send + 'a>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.execute(Sink::off()))
    }
}

impl<A, M> fmt::Debug for RunRequest<'_, A, M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let session = match &self.session {
            Held::Borrowed(session) => &**session,
            Held::Owned(session) => &**session,
        };
        f.debug_struct("RunRequest")
            .field("session", &session.id())
            .field("resumes", &matches!(self.input.0, Input::Resume(_)))
            .field("answer", &std::any::type_name::<A>())
            .field("mode", &std::any::type_name::<M>())
            .field("options", &self.options)
            .finish()
    }
}
