//! The agent: a model, its tools, and the loop between them.

mod builder;
mod config;
mod events;
mod output;
mod retry_budget;
mod run;
mod session;
mod tool_list;

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use crate::error::{AgentError, AgentResult};
use crate::llm::LlmClient;
use crate::registry::ToolRegistry;
use crate::state::SharedState;

pub use builder::{AgentBuilder, base_agent_builder};
pub use config::AgentConfig;
pub use events::{AgentEvent, AgentObserver};
pub use output::{RunOutput, ToolCallRecord};
pub use session::AgentSession;

/// An agent: a model, a system prompt and a registry of tools. Cheap to clone (one `Arc`).
///
/// ```
/// use phi_agent::llm::{LlmResponse, ScriptedLlm};
/// use phi_agent::{base_agent_builder, AgentConfig, PhiAgent};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> phi_agent::AgentResult<()> {
/// let llm = ScriptedLlm::new([LlmResponse::text("Hello!")]);
/// let agent = PhiAgent::build(base_agent_builder(llm), AgentConfig::default())?;
/// let output = agent.run("Say hello").await?;
/// assert_eq!(output.text, "Hello!");
/// assert_eq!(output.turns, 1);
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct PhiAgent {
    inner: Arc<AgentInner>,
}

struct AgentInner {
    llm: Arc<dyn LlmClient>,
    system_prompt: Option<String>,
    registry: Arc<ToolRegistry>,
    state: SharedState,
    config: AgentConfig,
    observer: Option<Arc<dyn AgentObserver>>,
    workspace: PathBuf,
}

impl PhiAgent {
    /// Builds the agent, registering its tools; fails on an invalid or duplicate tool name, a
    /// `requires_tools` name that is not registered or is hidden
    /// ([`ToolRegistry::check_requirements`]), or a loop limit of zero.
    pub fn build(builder: AgentBuilder, config: AgentConfig) -> AgentResult<PhiAgent> {
        if config.max_turns == 0 || config.max_parallel_tools == 0 {
            return Err(AgentError::Config(format!(
                "max_turns ({}) and max_parallel_tools ({}) must both be at least 1",
                config.max_turns, config.max_parallel_tools
            )));
        }
        if config.max_repeated_failures == 0 {
            return Err(AgentError::Config(
                "max_repeated_failures must be at least 1 (the failures one identical tool call may have in a run)".into(),
            ));
        }
        let mut registry = ToolRegistry::new(config.tools.clone());
        registry.register_all(builder.tools)?;
        registry.check_requirements()?;
        Ok(PhiAgent {
            inner: Arc::new(AgentInner {
                llm: builder.llm,
                system_prompt: builder.system_prompt,
                registry: Arc::new(registry),
                state: builder.state,
                config,
                observer: builder.observer,
                workspace: builder.workspace,
            }),
        })
    }

    /// Answers `input` in a fresh session (no history): the model may call tools for several
    /// turns before it answers.
    pub async fn run(&self, input: impl Into<String>) -> AgentResult<RunOutput> {
        self.session().run(input).await
    }

    /// A new conversation: its own id, history and set of activated tools.
    pub fn session(&self) -> AgentSession {
        AgentSession::new(self.clone())
    }

    /// The agent's tools.
    pub fn registry(&self) -> &Arc<ToolRegistry> {
        &self.inner.registry
    }

    /// The system prompt.
    pub fn system_prompt(&self) -> Option<&str> {
        self.inner.system_prompt.as_deref()
    }

    /// The configuration the agent was built with.
    pub fn config(&self) -> &AgentConfig {
        &self.inner.config
    }

    /// The state shared with every tool.
    pub fn shared_state(&self) -> &SharedState {
        &self.inner.state
    }

    /// The model.
    pub fn llm(&self) -> &Arc<dyn LlmClient> {
        &self.inner.llm
    }
}

impl fmt::Debug for PhiAgent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PhiAgent")
            .field("system_prompt", &self.inner.system_prompt)
            .field("tools", &self.inner.registry.len())
            .field("config", &self.inner.config)
            .field("workspace", &self.inner.workspace)
            .finish_non_exhaustive()
    }
}
