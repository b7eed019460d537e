//! Assembling an agent: model, system prompt, tools and shared state.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use super::approval::ApprovalPolicy;
use super::approval::ledger::Clock;
use super::approval::seal::SigningKey;
use super::{
    AgentObserver, Approver, ElicitationHandler, InProcess, MemoryResumeStore, ResumeStore,
    StepExecutor,
};

use crate::llm::LlmClient;
use crate::registry::ToolSource;
use crate::skill::SkillCatalog;
use crate::state::SharedState;
use crate::tool::Tool;
use crate::toolset::Toolset;

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
        sources: Vec::new(),
        state: SharedState::new(),
        observer: None,
        approver: None,
        workspace: PathBuf::from("."),
        steps: Arc::new(InProcess),
        sampler: None,
        elicitation: None,
        semantic: None,
        signing_key: None,
        approval_policy: None,
        approval_clock: Arc::new(std::time::SystemTime::now),
        resume_store: Arc::new(MemoryResumeStore::default()),
        skills: None,
    }
}

/// An agent being assembled; see [`base_agent_builder`].
#[must_use = "pass the builder to PhiAgent::build"]
pub struct AgentBuilder {
    pub(crate) llm: Arc<dyn LlmClient>,
    pub(crate) system_prompt: Option<String>,
    pub(crate) tools: Vec<Arc<dyn Tool>>,
    pub(crate) sources: Vec<Arc<dyn ToolSource>>,
    pub(crate) state: SharedState,
    pub(crate) observer: Option<Arc<dyn AgentObserver>>,
    pub(crate) approver: Option<Arc<dyn Approver>>,
    pub(crate) workspace: PathBuf,
    pub(crate) steps: Arc<dyn StepExecutor>,
    pub(crate) sampler: Option<Arc<dyn LlmClient>>,
    pub(crate) elicitation: Option<Arc<dyn ElicitationHandler>>,
    pub(crate) semantic: Option<crate::search::SemanticSearch>,
    pub(crate) signing_key: Option<SigningKey>,
    pub(crate) approval_policy: Option<Arc<dyn ApprovalPolicy>>,
    pub(crate) approval_clock: Clock,
    pub(crate) resume_store: Arc<dyn ResumeStore>,
    pub(crate) skills: Option<SkillCatalog>,
}

impl AgentBuilder {
    /// Offers the model `skills` ([`crate::skill`]): the tool `load_skill`, whose description lists
    /// each skill in one line, and `read_skill_file`. Loading a skill gives the model its
    /// instructions (as the call's result) and activates the tools it names for the next request,
    /// appended to the tool list so that the request's earlier bytes do not change. Each tool a
    /// skill names must be a registered Deferred tool; it stays hidden (neither activated by its
    /// predicate nor found by a search) until a skill that brings it is loaded. With tool search
    /// on, `search_tools` lists the skills that match a query besides the tools. Replaces any
    /// catalogue given before.
    ///
    /// ```
    /// use phi_agent::llm::{LlmResponse, ScriptedLlm};
    /// use phi_agent::skill::{Skill, SkillCatalog};
    /// use phi_agent::{AgentConfig, PhiAgent, base_agent_builder};
    ///
    /// let skills = SkillCatalog::new().with(Skill::new(
    ///     "release-notes",
    ///     "Write release notes from a list of merged changes.",
    ///     "Group the changes by area; one line each, in the reader's words.",
    /// )?)?;
    /// let llm = ScriptedLlm::new([LlmResponse::text("ok")]);
    /// let agent = PhiAgent::build(base_agent_builder(llm).skills(skills), AgentConfig::default())?;
    /// assert!(agent.registry().get("load_skill").unwrap().description().contains("- release-notes: "));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn skills(mut self, skills: SkillCatalog) -> Self {
        self.skills = Some(skills);
        self
    }

    /// Sets the system prompt.
    pub fn system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.system_prompt = Some(prompt.into());
        self
    }

    /// Ranks the local `search_tools`'s results with `search`'s embedder beside the words (a
    /// [`HybridIndex`](crate::search::HybridIndex)), when tool search is
    /// [`Local`](crate::ToolSearch::Local) or falls back to it. Native search is untouched.
    pub fn semantic_search(mut self, search: crate::search::SemanticSearch) -> Self {
        self.semantic = Some(search);
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

    /// Adds the tools of `toolset`, under the names it gives them. Names are checked when the
    /// agent is built.
    pub fn register_toolset(mut self, toolset: Toolset) -> Self {
        self.tools.extend(toolset.into_tools());
        self
    }

    /// Adds a live source of tools, such as an MCP server's
    /// (`McpClient::tool_source`, with the `mcp-client` feature): its tools follow the
    /// agent's own in every turn's list, and a tool it adds is offered from the next turn, the
    /// earlier definitions unchanged (see [`ToolSource`]). A name another tool has is not
    /// offered, with a warning; it never fails the build or a turn.
    pub fn register_source(mut self, source: Arc<dyn ToolSource>) -> Self {
        self.sources.push(source);
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

    /// Decides the calls that need approval during a run ([`PhiAgent::run`](crate::PhiAgent::run),
    /// any [`RunRequest`](crate::RunRequest) not made [`pausing`](crate::RunRequest::pausing));
    /// an async closure `Fn(ApprovalRequest) -> impl Future<Output = Approval>` (or
    /// [`Decided`](crate::Decided), to have the session remember it) will do. Without
    /// one, such calls are denied. A pausing run ([`PhiAgent::start`](crate::PhiAgent::start))
    /// never asks it.
    ///
    /// ```
    /// use phi_agent::llm::{LlmResponse, ScriptedLlm, ToolCall};
    /// use phi_agent::{base_agent_builder, phi_tool, AgentConfig, Approval, ApprovalRequest, PhiAgent};
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
    /// let llm = ScriptedLlm::new([LlmResponse::tool_calls(vec![call]), LlmResponse::text("Kept it.")]);
    /// let builder = base_agent_builder(llm)
    ///     .register_tool(DeleteFile)
    ///     .approver(|request: ApprovalRequest| async move {
    ///         Approval::deny(format!("keep {}", request.arguments["path"]))
    ///     });
    /// let output = PhiAgent::build(builder, AgentConfig::default())?.run("Delete a.txt").await?;
    /// assert!(output.tool_calls[0].is_error);
    /// assert_eq!(output.tool_calls[0].approval, Some(Approval::deny("keep \"a.txt\"")));
    /// # Ok(())
    /// # }
    /// ```
    pub fn approver(mut self, approver: impl Approver + 'static) -> Self {
        self.approver = Some(Arc::new(approver));
        self
    }

    /// Decides calls that need approval before anyone is asked: approve, deny with a reason
    /// the model reads, or ask (the session's remembered decisions, then a person). Consulted
    /// in every run, pausing or not; see [`ApprovalPolicy`].
    pub fn approval_policy(mut self, policy: impl ApprovalPolicy + 'static) -> Self {
        self.approval_policy = Some(Arc::new(policy));
        self
    }

    /// The clock remembered decisions expire by ([`DecisionRule::for_duration`](crate::DecisionRule::for_duration));
    /// the system's by default. Set one to test expiry without waiting.
    pub fn approval_clock(
        mut self,
        clock: impl Fn() -> std::time::SystemTime + Send + Sync + 'static,
    ) -> Self {
        self.approval_clock = Arc::new(clock);
        self
    }

    /// Runs every nondeterministic step of a run (model requests, tool calls, the session id)
    /// through `executor`, which may journal them to make runs durable; see [`StepExecutor`].
    /// Default: [`InProcess`], which runs each step as it comes.
    pub fn step_executor(mut self, executor: impl StepExecutor + 'static) -> Self {
        self.steps = Arc::new(executor);
        self
    }

    /// The model a tool's [`ToolContext::sample`](crate::ToolContext::sample) asks during a
    /// run. Default: the agent's own model. The request has the tool's messages and system
    /// prompt and no tools.
    pub fn sampling_model(mut self, llm_client: impl LlmClient + 'static) -> Self {
        self.sampler = Some(Arc::new(llm_client));
        self
    }

    /// Answers the questions a tool asks the user during a run
    /// ([`ToolContext::elicit`](crate::ToolContext::elicit)); an async closure
    /// `Fn(ElicitationRequest) -> impl Future<Output = Elicitation<Value>>` will do. Without
    /// one, the question is an error result the model reads.
    pub fn elicitation_handler(mut self, handler: impl ElicitationHandler + 'static) -> Self {
        self.elicitation = Some(Arc::new(handler));
        self
    }

    /// Signs the paused runs this agent writes with `key` (HMAC-SHA256 over every part of the
    /// stored run that decides what runs next: the history, the earlier results, the pending
    /// calls and the programs that made them) and resumes only runs that carry a matching
    /// signature: a [`PausedRun`](crate::PausedRun) edited in storage is refused with
    /// [`AgentError::Tampered`](crate::AgentError::Tampered) before anything runs. Give every
    /// agent that resumes the runs the same key, at least 32 random bytes kept as a secret.
    ///
    /// Without a key, a resume still refuses a decided call whose tool, arguments or program
    /// changed since the decision, but nothing else of the stored run is checked: keep it where
    /// only your program can write.
    pub fn signing_key(mut self, key: impl AsRef<[u8]>) -> Self {
        self.signing_key = Some(SigningKey::new(key.as_ref()));
        self
    }

    /// Where the agent marks the paused runs it resumes, so that each resumes once (a second
    /// resume, or two racing, is refused with
    /// [`AgentError::AlreadyResumed`](crate::AgentError::AlreadyResumed)); see [`ResumeStore`].
    /// Default: a [`MemoryResumeStore`] of this agent's own, which holds within one process;
    /// use a [`FileResumeStore`](crate::FileResumeStore) or a store of your database's when
    /// several processes resume runs.
    pub fn resume_store(mut self, store: impl ResumeStore + 'static) -> Self {
        self.resume_store = Arc::new(store);
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
            .field("sources", &self.sources.len())
            .field("state", &self.state)
            .field("observer", &self.observer.is_some())
            .field("approver", &self.approver.is_some())
            .field("signing_key", &self.signing_key.is_some())
            .field("approval_policy", &self.approval_policy.is_some())
            .field("sampling_model", &self.sampler.is_some())
            .field("elicitation_handler", &self.elicitation.is_some())
            .field("workspace", &self.workspace)
            .finish_non_exhaustive()
    }
}
