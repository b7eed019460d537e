//! Typed runs, every one of them: [`Typed`] is a typed run of a session (or of a fresh one)
//! before it starts, and its methods are the plain run methods' typed twins; the `run_typed*`
//! methods are thin calls to it.

use std::marker::PhantomData;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use super::answer::Answering;
use super::output::RunOutcome;
use super::paused::PausedRun;
use super::phi::PhiAgent;
use super::session::AgentSession;
use super::stream::{RunStream, Sink};
use super::typed::{AnswerOptions, TypedOutcome, TypedOutput, answering, take_answer};
use crate::error::AgentResult;

/// A typed run before it starts, made by [`AgentSession::typed`] (in that session) or
/// [`PhiAgent::typed`] (in a fresh one): pick its [`AnswerOptions`] if the defaults do not
/// suit, then run it in any of the ways a plain run goes. Awaited or streamed, asking the
/// agent's approver or pausing; a paused typed run (its JSON too) resumes into the typed
/// answer, on any agent built with the same tools.
///
/// ```
/// use phi_agent::llm::{LlmResponse, ScriptedLlm, ToolCall};
/// use phi_agent::{base_agent_builder, phi_tool, AgentConfig, PausedRun, PhiAgent, TypedOutcome};
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
/// let build = |replies: Vec<LlmResponse>| {
///     let llm = ScriptedLlm::new(replies);
///     PhiAgent::build(base_agent_builder(llm).register_tool(DeleteFile), AgentConfig::default())
/// };
/// let delete = ToolCall::new("c1", "delete_file", json!({"path": "a.txt"}));
/// let first = build(vec![LlmResponse::tool_calls(vec![delete])])?;
/// let TypedOutcome::Paused(paused) = first.typed::<Report>().start("Delete a.txt").await? else {
///     unreachable!()
/// };
/// let stored = serde_json::to_string(&paused).unwrap();
///
/// // Later, in another process, on an agent built anew:
/// let mut paused: PausedRun = serde_json::from_str(&stored).unwrap();
/// paused.approve("c1")?;
/// let answer = ToolCall::new("c2", "final_answer", json!({"deleted": ["a.txt"]}));
/// let again = build(vec![LlmResponse::tool_calls(vec![answer])])?;
/// let done = again.typed::<Report>().resume(paused).await?.done().unwrap();
/// assert_eq!(done.value, Report { deleted: vec!["a.txt".into()] });
/// # Ok(())
/// # }
/// ```
#[must_use = "a typed run does nothing until it is run"]
pub struct Typed<'s, T> {
    session: Held<'s>,
    options: AnswerOptions,
    answer: PhantomData<fn() -> T>,
}

/// The session a typed run runs in.
enum Held<'s> {
    Borrowed(&'s mut AgentSession),
    Owned(Box<AgentSession>),
}

impl Held<'_> {
    fn get(&mut self) -> &mut AgentSession {
        match self {
            Held::Borrowed(session) => session,
            Held::Owned(session) => session,
        }
    }
}

impl<'s, T> Typed<'s, T>
where
    T: DeserializeOwned + JsonSchema + Send + 'static,
{
    /// This run with `options` (default: [`AnswerOptions::default`]).
    pub fn with_options(mut self, options: AnswerOptions) -> Self {
        self.options = options;
        self
    }

    /// Answers `input`, approvals put to the agent's approver; see [`AgentSession::run_typed`].
    pub async fn run(mut self, input: impl Into<String>) -> AgentResult<TypedOutput<T>> {
        let (session, mut answering) = self.prepare()?;
        let run = session
            .answer(input.into(), &Sink::off(), Some(&mut answering))
            .await?;
        Ok(TypedOutput {
            value: take_answer(&mut answering)?,
            run,
        })
    }

    /// [`run`](Self::run) as a stream of events; see [`AgentSession::run_typed_stream`].
    pub fn stream(mut self, input: impl Into<String>) -> RunStream<'s> {
        let input = input.into();
        RunStream::new(move |sink| async move {
            let (session, mut answering) = self.prepare()?;
            let output = session.answer(input, &sink, Some(&mut answering)).await?;
            Ok(RunOutcome::Done(output))
        })
    }

    /// Answers `input`, pausing when a call needs approval, as
    /// [`AgentSession::start`] does; the paused run resumes with [`resume`](Self::resume).
    pub async fn start(mut self, input: impl Into<String>) -> AgentResult<TypedOutcome<T>> {
        let (session, mut answering) = self.prepare()?;
        let outcome = session
            .begin(input.into(), &Sink::off(), Some(&mut answering))
            .await?;
        typed_outcome(outcome, &mut answering)
    }

    /// [`start`](Self::start) as a stream of events, ending with
    /// [`Finished`](crate::StreamEvent::Finished) (its text the answer as JSON) or
    /// [`Paused`](crate::StreamEvent::Paused).
    pub fn start_stream(mut self, input: impl Into<String>) -> RunStream<'s> {
        let input = input.into();
        RunStream::new(move |sink| async move {
            let (session, mut answering) = self.prepare()?;
            session.begin(input, &sink, Some(&mut answering)).await
        })
    }

    /// Resumes a typed run paused by [`start`](Self::start) (in any process, on an agent with
    /// the same tools and the same final-answer tool name), as [`AgentSession::resume`] does.
    /// A plain paused run, or one paused with another final-answer tool, is refused.
    pub async fn resume(mut self, paused: PausedRun) -> AgentResult<TypedOutcome<T>> {
        let (session, answering) = self.prepare()?;
        let mut answering = resumed(answering, &paused);
        let outcome = session
            .go_on(paused, &Sink::off(), Some(&mut answering))
            .await?;
        typed_outcome(outcome, &mut answering)
    }

    /// [`resume`](Self::resume) as a stream of events, as [`start_stream`](Self::start_stream)
    /// yields them.
    pub fn resume_stream(mut self, paused: PausedRun) -> RunStream<'s> {
        RunStream::new(move |sink| async move {
            let (session, answering) = self.prepare()?;
            let mut answering = resumed(answering, &paused);
            session.go_on(paused, &sink, Some(&mut answering)).await
        })
    }

    /// The session, and the answer of a run for `T` with these options (refused when its tool
    /// name is invalid or taken).
    fn prepare(&mut self) -> AgentResult<(&mut AgentSession, Answering)> {
        let session = self.session.get();
        let answering = answering::<T>(&session.agent, &self.options)?;
        Ok((session, answering))
    }
}

/// The answer of a resumed run, with the refusals it had before it paused.
fn resumed(answering: Answering, paused: &PausedRun) -> Answering {
    let refused = paused.answer.as_ref().map_or(0, |note| note.refused);
    answering.resumed_with(refused)
}

fn typed_outcome<T: 'static>(
    outcome: RunOutcome,
    answering: &mut Answering,
) -> AgentResult<TypedOutcome<T>> {
    Ok(match outcome {
        RunOutcome::Done(run) => TypedOutcome::Done(TypedOutput {
            value: take_answer(answering)?,
            run,
        }),
        RunOutcome::Paused(paused) => TypedOutcome::Paused(paused),
    })
}

impl AgentSession {
    /// A typed run in this session, answering with a `T`; see [`Typed`].
    pub fn typed<T>(&mut self) -> Typed<'_, T>
    where
        T: DeserializeOwned + JsonSchema + Send + 'static,
    {
        Typed {
            session: Held::Borrowed(self),
            options: AnswerOptions::default(),
            answer: PhantomData,
        }
    }

    /// Answers `input` as [`run`](Self::run) does, and returns the final answer as a `T` (with
    /// [`AnswerOptions::default`]): the model calls tools as it needs, then answers by calling a
    /// `final_answer` tool whose arguments are `T` (a `T` whose schema is not an object, such as
    /// a `String`, a `Vec` or an enum, is wrapped: `{"value": ..}`). A plain-text reply, or an
    /// answer that does not decode, goes back to the model with every mistake, a bounded number
    /// of times; then the run fails with [`AgentError::AnswerRejected`](crate::AgentError::AnswerRejected), which holds the last
    /// attempt.
    ///
    /// ```
    /// use phi_agent::llm::{LlmResponse, ScriptedLlm, ToolCall};
    /// use phi_agent::{base_agent_builder, AgentConfig, PhiAgent};
    /// use serde_json::json;
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema, Debug, PartialEq)]
    /// struct Capital { city: String, population_millions: f64 }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> phi_agent::AgentResult<()> {
    /// let llm = ScriptedLlm::new([LlmResponse::tool_calls(vec![ToolCall::new(
    ///     "c1",
    ///     "final_answer",
    ///     json!({"city": "Paris", "population_millions": 2.1}),
    /// )])]);
    /// let agent = PhiAgent::build(base_agent_builder(llm), AgentConfig::default())?;
    /// let answer = agent.session().run_typed::<Capital>("Capital of France?").await?;
    /// assert_eq!(answer.value, Capital { city: "Paris".into(), population_millions: 2.1 });
    /// assert_eq!(answer.run.text, r#"{"city":"Paris","population_millions":2.1}"#);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn run_typed<T>(&mut self, input: impl Into<String>) -> AgentResult<TypedOutput<T>>
    where
        T: DeserializeOwned + JsonSchema + Send + 'static,
    {
        self.typed().run(input).await
    }

    /// [`run_typed`](Self::run_typed) with `options`: the answer's mode (a final-answer tool,
    /// or the provider's structured output on turns without tools), the retries allowed, the
    /// tool's name and description.
    pub async fn run_typed_with<T>(
        &mut self,
        input: impl Into<String>,
        options: AnswerOptions,
    ) -> AgentResult<TypedOutput<T>>
    where
        T: DeserializeOwned + JsonSchema + Send + 'static,
    {
        self.typed().with_options(options).run(input).await
    }

    /// [`run_typed_with`](Self::run_typed_with) as a stream of events, as
    /// [`run_stream`](Self::run_stream) yields them. The final-answer call streams as any call
    /// does (its `ToolCallStarted`, argument deltas and `ToolCallReady`) but never starts as a
    /// tool. The last event's [`RunOutput::text`](crate::RunOutput::text) is the answer as JSON, which decodes into `T`
    /// (`serde_json::from_str::<T>`): the run checked it before it finished. Options that cannot
    /// work (a tool name taken) end the stream with their error.
    /// (`self.typed::<T>().stream(input)` is the same with the default options.)
    pub fn run_typed_stream<T>(
        &mut self,
        input: impl Into<String>,
        options: AnswerOptions,
    ) -> RunStream<'_>
    where
        T: DeserializeOwned + JsonSchema + Send + 'static,
    {
        self.typed::<T>().with_options(options).stream(input)
    }
}

impl PhiAgent {
    /// A typed run in a fresh session, answering with a `T`; see [`Typed`].
    pub fn typed<T>(&self) -> Typed<'static, T>
    where
        T: DeserializeOwned + JsonSchema + Send + 'static,
    {
        Typed {
            session: Held::Owned(Box::new(self.session())),
            options: AnswerOptions::default(),
            answer: PhantomData,
        }
    }

    /// Answers `input` in a fresh session and returns the answer as a `T`; see
    /// [`AgentSession::run_typed`].
    pub async fn run_typed<T>(&self, input: impl Into<String>) -> AgentResult<TypedOutput<T>>
    where
        T: DeserializeOwned + JsonSchema + Send + 'static,
    {
        self.typed().run(input).await
    }

    /// [`run_typed`](Self::run_typed) with `options`; see [`AgentSession::run_typed_with`].
    pub async fn run_typed_with<T>(
        &self,
        input: impl Into<String>,
        options: AnswerOptions,
    ) -> AgentResult<TypedOutput<T>>
    where
        T: DeserializeOwned + JsonSchema + Send + 'static,
    {
        self.typed().with_options(options).run(input).await
    }

    /// A typed run in a fresh session, streamed; see [`AgentSession::run_typed_stream`].
    pub fn run_typed_stream<T>(
        &self,
        input: impl Into<String>,
        options: AnswerOptions,
    ) -> RunStream<'static>
    where
        T: DeserializeOwned + JsonSchema + Send + 'static,
    {
        self.typed::<T>().with_options(options).stream(input)
    }
}
