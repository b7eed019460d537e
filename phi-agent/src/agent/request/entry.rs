//! Where runs start: `prompt` on an agent and on a session, `resume`, and the names the design
//! gives the common runs (`run`, `start`, `run_stream`, `run_typed`), each one line over a
//! request.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use super::answer_kind::Plain;
use super::input::RunInput;
use super::run_request::{Held, RunRequest};
use crate::agent::output::{RunOutcome, RunOutput};
use crate::agent::paused::PausedRun;
use crate::agent::phi::PhiAgent;
use crate::agent::plan::Pausing;
use crate::agent::session::AgentSession;
use crate::agent::stream::RunStream;
use crate::agent::typed::TypedOutput;
use crate::error::AgentResult;

impl PhiAgent {
    /// A run of `input` in a fresh session (no history): a message, or a decided
    /// [`PausedRun`] to resume (in a new session that takes the paused run's id). Await it for
    /// the answer, or change it first; see [`RunRequest`].
    ///
    /// ```
    /// use phi_agent::llm::{LlmResponse, ScriptedLlm};
    /// use phi_agent::{base_agent_builder, AgentConfig, PhiAgent};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> phi_agent::AgentResult<()> {
    /// let llm = ScriptedLlm::new([LlmResponse::text("Hello!")]);
    /// let agent = PhiAgent::build(base_agent_builder(llm), AgentConfig::default())?;
    /// let output = agent.prompt("Say hello").await?;
    /// assert_eq!(output.text, "Hello!");
    /// # Ok(())
    /// # }
    /// ```
    pub fn prompt(&self, input: impl Into<RunInput>) -> RunRequest<'static> {
        RunRequest::new(Held::Owned(Box::new(self.session())), input.into())
    }

    /// The run that resumes `paused` once each of its [`pending`](PausedRun::pending) calls is
    /// decided, in a new session that takes the paused run's id (on this agent or another built
    /// with the same tools, in any process): `prompt(paused).pausing()`. It runs the approved
    /// calls, gives the turn's results to the model in call order, and goes on until the model
    /// answers or another call needs approval (paused again); awaited, it returns a
    /// [`RunOutcome`]. To have later calls asked of the approver instead, use
    /// [`prompt(paused)`](Self::prompt).
    ///
    /// Errors, and no panic, for an undecided call, a call of a tool this agent does not have,
    /// or a damaged state. Resuming one stored state twice runs its approved calls twice; see
    /// [`PausedRun`].
    pub fn resume(&self, paused: PausedRun) -> RunRequest<'static, Plain, Pausing> {
        self.prompt(paused).pausing()
    }

    /// Answers `input` in a fresh session: `prompt(input).await`. The model may call tools for
    /// several turns before it answers; calls that need approval go to the builder's
    /// [`Approver`](crate::Approver), and with none set they are denied (the model is told a
    /// person must approve them).
    pub async fn run(&self, input: impl Into<String>) -> AgentResult<RunOutput> {
        self.prompt(Into::<String>::into(input)).await
    }

    /// Answers `input` in a fresh session, pausing when a call needs approval instead of asking
    /// anyone: `prompt(input).pausing().await`; see [`RunRequest::pausing`].
    pub async fn start(&self, input: impl Into<String>) -> AgentResult<RunOutcome> {
        self.prompt(Into::<String>::into(input)).pausing().await
    }

    /// Answers `input` in a fresh session as a stream of events: `prompt(input).stream()`; see
    /// [`RunRequest::stream`].
    ///
    /// ```
    /// use phi_agent::llm::{LlmResponse, ScriptedLlm};
    /// use phi_agent::{base_agent_builder, AgentConfig, PhiAgent, StreamEvent};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> phi_agent::AgentResult<()> {
    /// let llm = ScriptedLlm::new([LlmResponse::text("Hello there")]).with_pieces(5);
    /// let agent = PhiAgent::build(base_agent_builder(llm), AgentConfig::default())?;
    /// let mut text = String::new();
    /// let mut events = agent.run_stream("Greet me");
    /// while let Some(event) = events.next().await {
    ///     match event? {
    ///         StreamEvent::TextDelta { text: piece, .. } => text.push_str(&piece),
    ///         StreamEvent::Finished(output) => assert_eq!(output.text, text),
    ///         _ => {}
    ///     }
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn run_stream(&self, input: impl Into<String>) -> RunStream<'static> {
        self.prompt(Into::<String>::into(input)).stream()
    }

    /// Answers `input` in a fresh session with a `T`: `prompt(input).typed::<T>().await`; see
    /// [`RunRequest::typed`].
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
    /// let answer = agent.run_typed::<Capital>("Capital of France?").await?;
    /// assert_eq!(answer.value, Capital { city: "Paris".into(), population_millions: 2.1 });
    /// assert_eq!(answer.run.text, r#"{"city":"Paris","population_millions":2.1}"#);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn run_typed<T>(&self, input: impl Into<String>) -> AgentResult<TypedOutput<T>>
    where
        T: DeserializeOwned + JsonSchema + Send + 'static,
    {
        self.prompt(Into::<String>::into(input)).typed::<T>().await
    }
}

impl AgentSession {
    /// A run of `input` in this conversation: a message, answered with the history of the
    /// earlier runs, or a decided [`PausedRun`] to resume (once the run is done, the session's
    /// id, history and active tools are the paused run's, whichever session paused it; when it
    /// fails or pauses again, the session is as it was). Await it for the answer, or change it
    /// first; see [`RunRequest`].
    ///
    /// ```
    /// use phi_agent::llm::{LlmResponse, ScriptedLlm, ToolCall};
    /// use phi_agent::{base_agent_builder, phi_tool, AgentConfig, PhiAgent};
    ///
    /// /// Delete a file.
    /// #[phi_tool(needs_approval)]
    /// async fn delete_file(path: String) -> String {
    ///     format!("deleted {path}")
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> phi_agent::AgentResult<()> {
    /// let call = ToolCall::new("c1", "delete_file", serde_json::json!({"path": "a.txt"}));
    /// let llm = ScriptedLlm::new([LlmResponse::tool_calls(vec![call]), LlmResponse::text("Done.")]);
    /// let agent = PhiAgent::build(base_agent_builder(llm).register_tool(DeleteFile), AgentConfig::default())?;
    /// let mut session = agent.session();
    ///
    /// let mut paused = session.prompt("Delete a.txt").pausing().await?.paused().expect("paused");
    /// assert!(session.history().is_empty(), "nothing is committed while it waits");
    /// paused.approve("c1")?;
    /// let output = session.prompt(paused).await?;
    /// assert_eq!(output.text, "Done.");
    /// assert_eq!(session.history().len(), 4, "input, call, result, answer");
    /// # Ok(())
    /// # }
    /// ```
    pub fn prompt(&mut self, input: impl Into<RunInput>) -> RunRequest<'_> {
        RunRequest::new(Held::Borrowed(self), input.into())
    }
}
