//! The agent: a model, its tools, and the loop between them.

mod builder;
mod config;

use std::fmt;
use std::sync::Arc;

use crate::error::AgentResult;
use crate::llm::LlmClient;
use crate::registry::ToolRegistry;
use crate::state::SharedState;

pub use builder::{AgentBuilder, base_agent_builder};
pub use config::AgentConfig;

/// An agent: a model, a system prompt and a registry of tools.
pub struct PhiAgent {
    llm: Arc<dyn LlmClient>,
    system_prompt: Option<String>,
    registry: Arc<ToolRegistry>,
    state: SharedState,
    config: AgentConfig,
}

impl PhiAgent {
    /// Builds the agent, registering its tools; fails on an invalid or duplicate tool name.
    pub fn build(builder: AgentBuilder, config: AgentConfig) -> AgentResult<PhiAgent> {
        let mut registry = ToolRegistry::new(config.tools.clone());
        registry.register_all(builder.tools)?;
        Ok(PhiAgent {
            llm: builder.llm,
            system_prompt: builder.system_prompt,
            registry: Arc::new(registry),
            state: builder.state,
            config,
        })
    }

    /// The agent's tools.
    pub fn registry(&self) -> &Arc<ToolRegistry> {
        &self.registry
    }

    /// The system prompt.
    pub fn system_prompt(&self) -> Option<&str> {
        self.system_prompt.as_deref()
    }

    /// The configuration the agent was built with.
    pub fn config(&self) -> &AgentConfig {
        &self.config
    }

    /// The state shared with every tool.
    pub fn shared_state(&self) -> &SharedState {
        &self.state
    }

    /// The model.
    pub fn llm(&self) -> &Arc<dyn LlmClient> {
        &self.llm
    }
}

impl fmt::Debug for PhiAgent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PhiAgent")
            .field("system_prompt", &self.system_prompt)
            .field("tools", &self.registry.len())
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}
