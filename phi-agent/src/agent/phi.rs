//! The agent itself: a model, a system prompt and a registry of tools, built once and shared.

use std::fmt;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use super::approval::ledger::Clock;
use super::approval::seal::SigningKey;
use super::approval::{ApprovalPolicy, Approver};
use super::builder::AgentBuilder;
use super::config::AgentConfig;
use super::events::AgentObserver;
use super::result_store::ReadResult;
use super::resume_store::ResumeStore;
use super::skills::AgentSkills;
use super::step::StepExecutor;
use super::tool_list;
use crate::error::{AgentError, AgentResult};
use crate::llm::LlmClient;
use crate::registry::ToolRegistry;
use crate::search::{HybridIndex, SEARCH_TOOL_NAME, SemanticSearch, ToolIndex, ToolSearch};
use crate::state::SharedState;

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
    pub(super) inner: Arc<AgentInner>,
}

pub(super) struct AgentInner {
    pub(super) llm: Arc<dyn LlmClient>,
    pub(super) system_prompt: Option<String>,
    pub(super) registry: Arc<ToolRegistry>,
    pub(super) state: SharedState,
    pub(super) config: AgentConfig,
    pub(super) observer: Option<Arc<dyn AgentObserver>>,
    pub(super) approver: Option<Arc<dyn Approver>>,
    pub(super) workspace: PathBuf,
    /// The search index over the Deferred tools, built on the first search of any session.
    pub(super) tool_index: OnceLock<ToolIndex>,
    /// Hybrid search's setting, and its index, built on the first search that succeeds in
    /// embedding the tools.
    pub(super) semantic: Option<SemanticSearch>,
    pub(super) hybrid_index: tokio::sync::OnceCell<HybridIndex>,
    /// The Direct tools and `search_tools`: the list of every searching session that has found
    /// nothing yet.
    pub(super) search_list: OnceLock<Arc<[crate::llm::ToolSpec]>>,
    /// The deferred tools of native tool search, for the discoverable set it was built for:
    /// sessions that can discover the same tools share one list (and the adapter's text of it).
    pub(super) deferred_list: tool_list::SharedDeferred,
    pub(super) steps: Arc<dyn StepExecutor>,
    /// The model tools' sampling asks, when not the agent's own.
    pub(super) sampler: Option<Arc<dyn LlmClient>>,
    pub(super) elicitation: Option<Arc<dyn super::ElicitationHandler>>,
    /// The key of the MAC over the paused runs this agent writes and resumes.
    pub(super) signing_key: Option<SigningKey>,
    /// Decides calls that need approval before anyone is asked.
    pub(super) approval_policy: Option<Arc<dyn ApprovalPolicy>>,
    /// The clock remembered decisions expire by.
    pub(super) approval_clock: Clock,
    /// Where resumed paused runs are marked, so that each resumes once.
    pub(super) resume_store: Arc<dyn ResumeStore>,
    /// The skills offered, when the builder was given some.
    pub(super) skills: Option<AgentSkills>,
}

impl AgentInner {
    pub(super) fn tool_index(&self) -> &ToolIndex {
        self.tool_index
            .get_or_init(|| ToolIndex::build(&self.registry))
    }

    /// The hybrid index, when the agent has semantic search and its tools could be embedded:
    /// built on the first call (tool vectors read from the cache file where their text is
    /// unchanged, the file saved again), tried again on the next call if embedding failed.
    pub(super) async fn hybrid_index(&self) -> Option<&HybridIndex> {
        let semantic = self.semantic.as_ref()?;
        let built = self
            .hybrid_index
            .get_or_try_init(|| semantic.build_index(&self.registry))
            .await;
        match built {
            Ok(index) => Some(index),
            Err(error) => {
                tracing::warn!(%error, "tool embeddings failed; searching by words only");
                None
            }
        }
    }
}

impl PhiAgent {
    /// Builds the agent, registering its tools; fails on an invalid or duplicate tool name, a
    /// `requires_tools` name that is not registered or is hidden
    /// ([`ToolRegistry::check_requirements`]), a loop limit of zero, or a tool named
    /// `search_tools` while tool search is on.
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
        // Registered after the user's tools: activated, it is appended to the tools array.
        if let Some(store) = config
            .context_policy
            .as_ref()
            .and_then(|p| p.result_store())
        {
            registry.register(ReadResult(store.clone()))?;
        }
        // After the user's tools, which it holds for loading.
        let skills = builder
            .skills
            .map(|catalog| AgentSkills::register(catalog, &mut registry))
            .transpose()?;
        if config.tool_search != ToolSearch::Off && registry.get(SEARCH_TOOL_NAME).is_some() {
            return Err(AgentError::Config(format!(
                "a tool is named `{SEARCH_TOOL_NAME}`, the name of the search tool that tool search offers; rename the tool or turn tool search off"
            )));
        }
        registry.check_requirements()?;
        if config.tool_search != ToolSearch::Off
            && !registry.has_deferred()
            && builder.sources.is_empty()
        {
            // A warning, not an error: the agent works (every tool is sent, as without search),
            // but the model is offered a search that can find nothing.
            tracing::warn!(
                tools = registry.len(),
                "tool search is on, but no tool is Deferred: `{SEARCH_TOOL_NAME}` can find nothing and every tool is sent each turn; mark the tools to be found `exposure = \"deferred\"` (or `Toolset::with_exposure`), or turn tool search off"
            );
        }
        registry.set_code_callers(builder.llm.programmatic_tool_calling());
        for source in builder.sources {
            registry.register_source(source);
        }
        Ok(PhiAgent {
            inner: Arc::new(AgentInner {
                llm: builder.llm,
                system_prompt: builder.system_prompt,
                registry: Arc::new(registry),
                state: builder.state,
                config,
                observer: builder.observer,
                approver: builder.approver,
                workspace: builder.workspace,
                tool_index: OnceLock::new(),
                semantic: builder.semantic,
                hybrid_index: tokio::sync::OnceCell::new(),
                search_list: OnceLock::new(),
                deferred_list: std::sync::Mutex::new(None),
                steps: builder.steps,
                sampler: builder.sampler,
                elicitation: builder.elicitation,
                signing_key: builder.signing_key,
                approval_policy: builder.approval_policy,
                approval_clock: builder.approval_clock,
                resume_store: builder.resume_store,
                skills,
            }),
        })
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
            .field("approver", &self.inner.approver.is_some())
            .field("signing_key", &self.inner.signing_key.is_some())
            .field("workspace", &self.inner.workspace)
            .finish_non_exhaustive()
    }
}
