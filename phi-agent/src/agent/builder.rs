//! Assembling an agent: model, system prompt, tools and shared state.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use super::AgentObserver;

use crate::llm::LlmClient;
use crate::state::SharedState;
use crate::tool::Tool;

/// Starts an agent on `llm_client`. Finish it with [`PhiAgent::build`](crate::PhiAgent::build).
///
/// ```
/// # use phi_agent::{base_agent_builder, AgentConfig, AgentResult, PhiAgent};
/// # use phi_agent::llm::{LlmClient, LlmRequest, LlmResponse};
/// # struct Model;
/// # #[async_trait::async_trait]
/// # impl LlmClient for Model {
/// #     async fn complete(&self, _: &LlmRequest) -> AgentResult<LlmResponse> { unimplemented!() }
/// # }
/// # fn main() -> AgentResult<()> {
/// let builder = base_agent_builder(Model).system_prompt("You are terse.");
/// let agent = PhiAgent::build(builder, AgentConfig::default())?;
/// # Ok(())
/// # }
/// ```
pub fn base_agent_builder(llm_client: impl LlmClient + 'static) -> AgentBuilder {
    AgentBuilder {
        llm: Arc::new(llm_client),
        system_prompt: None,
        tools: Vec::new(),
        state: SharedState::new(),
        observer: None,
        workspace: PathBuf::from("."),
    }
}

/// An agent being assembled; see [`base_agent_builder`].
#[must_use = "pass the builder to PhiAgent::build"]
pub struct AgentBuilder {
    pub(crate) llm: Arc<dyn LlmClient>,
    pub(crate) system_prompt: Option<String>,
    pub(crate) tools: Vec<Arc<dyn Tool>>,
    pub(crate) state: SharedState,
    pub(crate) observer: Option<Arc<dyn AgentObserver>>,
    pub(crate) workspace: PathBuf,
}

impl AgentBuilder {
    /// Sets the system prompt.
    pub fn system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.system_prompt = Some(prompt.into());
        self
    }

    /// Adds a tool. Names are checked when the agent is built.
    pub fn register_tool(mut self, tool: impl Tool + 'static) -> Self {
        self.tools.push(Arc::new(tool));
        self
    }

    /// Adds several tools, e.g. from `tools![..]`.
    pub fn register_tools(mut self, tools: Vec<Arc<dyn Tool>>) -> Self {
        self.tools.extend(tools);
        self
    }

    /// Shares `value` with every tool, which reads it with
    /// [`ToolContext::state`](crate::ToolContext::state).
    pub fn state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.state.insert(value);
        self
    }

    /// Sends every run's events (turns, tool calls with durations, activations, the answer) to
    /// `observer`; a closure `Fn(&AgentEvent)` will do.
    pub fn observer(mut self, observer: impl AgentObserver + 'static) -> Self {
        self.observer = Some(Arc::new(observer));
        self
    }

    /// The working directory tools and activation predicates see. Default: `.`.
    pub fn workspace(mut self, workspace: impl Into<PathBuf>) -> Self {
        self.workspace = workspace.into();
        self
    }
}

impl fmt::Debug for AgentBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AgentBuilder")
            .field("system_prompt", &self.system_prompt)
            .field(
                "tools",
                &self.tools.iter().map(|t| t.name()).collect::<Vec<_>>(),
            )
            .field("state", &self.state)
            .field("observer", &self.observer.is_some())
            .field("workspace", &self.workspace)
            .finish_non_exhaustive()
    }
}
