//! [`McpClientOptions`]: limits, naming, and the answers to a server's questions.

use std::sync::Arc;
use std::time::Duration;

use crate::context::ElicitationHandler;
use crate::llm::LlmClient;

/// Limits, naming, and the answers to a server's questions, for an MCP client connection.
///
/// `#[non_exhaustive]`: start from [`McpClientOptions::default`] and change fields with the
/// `with_*` setters; the fields stay public to read.
///
/// ```
/// use std::time::Duration;
/// use phi_agent::mcp::McpClientOptions;
/// let options = McpClientOptions::default().with_call_timeout(Duration::from_secs(5));
/// assert_eq!(options.call_timeout, Duration::from_secs(5));
/// assert!(!options.unannotated_needs_approval);
/// ```
///
/// A server's questions (elicitation) and requests for a model's reply (sampling) are answered
/// by the same kinds of handler an agent run uses for its own tools, so one handler serves
/// both; the client declares each capability only when its handler is set:
///
/// ```
/// use phi_agent::mcp::McpClientOptions;
/// use phi_agent::{Elicitation, ElicitationRequest};
///
/// let ask_the_user = |request: ElicitationRequest| async move {
///     println!("{}", request.message);
///     Elicitation::Accept(serde_json::json!({"confirm": true}))
/// };
/// let options = McpClientOptions::default()
///     .with_elicitation_handler(ask_the_user)
///     .with_root("file:///home/me/project", "project");
/// // The same closure (it is `Clone`) can go to `AgentBuilder::elicitation_handler` too.
/// assert!(options.elicitation_handler.is_some());
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub struct McpClientOptions {
    /// How long the server may take to start and answer the handshake and the tool list.
    /// Default: 30 s.
    pub connect_timeout: Duration,
    /// How long one tool call may take before it is cancelled on the server and reported as an
    /// error (with [`reset_timeout_on_progress`](Self::reset_timeout_on_progress): how long it
    /// may go without reporting progress). Default: 60 s.
    pub call_timeout: Duration,
    /// Whether each progress report of a call (`notifications/progress`) starts its
    /// [`call_timeout`](Self::call_timeout) again, so that a long task that keeps reporting is
    /// not cut off; [`max_call_time`](Self::max_call_time) still bounds it. Default: `false`.
    pub reset_timeout_on_progress: bool,
    /// The longest a call may take however often it reports progress, with
    /// [`reset_timeout_on_progress`](Self::reset_timeout_on_progress) on (unused without).
    /// Default: 10 min.
    pub max_call_time: Duration,
    /// Whether a tool the server sends without a `destructiveHint` (and without
    /// `readOnlyHint: true`) needs a person's approval
    /// ([`ToolOptions::approval`](crate::ToolOptions::approval)). Default: `false`.
    ///
    /// The hints decide every other tool: `readOnlyHint: true` needs no approval,
    /// `destructiveHint: true` needs it, `destructiveHint: false` does not. The protocol reads a
    /// missing hint as "may be destructive", but most servers send no hints at all: with `true`
    /// here every tool of such a server would wait for a person, and
    /// [`PhiAgent::run`](crate::PhiAgent::run) without an approver would deny them all. Hints
    /// are also only claims of the server (a hostile one can call any tool read-only), so they
    /// guard against an honest server's destructive tools, not against a server you do not
    /// trust. Set `true` for a server whose tools you have not reviewed.
    pub unannotated_needs_approval: bool,
    /// A prefix for the local names of this server's tools: with `"gh"`, the server's `search`
    /// is `gh_search` to the model, and calls of `gh_search` reach the server's `search`. Two
    /// servers that both have a `search` can then serve one agent. Default: none.
    pub name_prefix: Option<String>,
    /// Answers the server's questions to the user (`elicitation/create`, form mode), as
    /// [`AgentBuilder::elicitation_handler`](crate::AgentBuilder::elicitation_handler) does
    /// for a run's own tools; the form's defaults fill the fields an answer leaves out. The
    /// request names the run, turn and call whose tool call asked, when that is the only call
    /// of this client in flight (empty otherwise). Declared as the client's `elicitation`
    /// capability only when set. Default: none.
    pub elicitation_handler: Option<Arc<dyn ElicitationHandler>>,
    /// The model that answers the server's `sampling/createMessage` requests (their messages
    /// and system prompt; text only), as
    /// [`AgentBuilder::sampling_model`](crate::AgentBuilder::sampling_model) does for a run's
    /// own tools. Declared as the `sampling` capability only when set. Default: none.
    pub sampling_model: Option<Arc<dyn LlmClient>>,
    /// The roots (`uri`, optional name) the client names to the server's `roots/list`: the
    /// directories or places the server may work in. Declared as the `roots` capability only
    /// when there are any. Default: none.
    pub roots: Vec<(String, Option<String>)>,
}

impl Default for McpClientOptions {
    fn default() -> Self {
        Self {
            connect_timeout: Duration::from_secs(30),
            call_timeout: Duration::from_secs(60),
            reset_timeout_on_progress: false,
            max_call_time: Duration::from_secs(600),
            unannotated_needs_approval: false,
            name_prefix: None,
            elicitation_handler: None,
            sampling_model: None,
            roots: Vec::new(),
        }
    }
}

impl McpClientOptions {
    /// These options with [`connect_timeout`](Self::connect_timeout) set to `timeout`.
    pub fn with_connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// These options with [`call_timeout`](Self::call_timeout) set to `timeout`.
    pub fn with_call_timeout(mut self, timeout: Duration) -> Self {
        self.call_timeout = timeout;
        self
    }

    /// These options with [`reset_timeout_on_progress`](Self::reset_timeout_on_progress) set
    /// to `on`.
    pub fn with_reset_timeout_on_progress(mut self, on: bool) -> Self {
        self.reset_timeout_on_progress = on;
        self
    }

    /// These options with [`max_call_time`](Self::max_call_time) set to `limit`.
    pub fn with_max_call_time(mut self, limit: Duration) -> Self {
        self.max_call_time = limit;
        self
    }

    /// These options with [`unannotated_needs_approval`](Self::unannotated_needs_approval) set
    /// to `on`.
    pub fn with_unannotated_needs_approval(mut self, on: bool) -> Self {
        self.unannotated_needs_approval = on;
        self
    }

    /// These options with [`name_prefix`](Self::name_prefix) set to `prefix`.
    pub fn with_name_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.name_prefix = Some(prefix.into());
        self
    }

    /// These options with [`elicitation_handler`](Self::elicitation_handler) set to `handler`.
    pub fn with_elicitation_handler(mut self, handler: impl ElicitationHandler + 'static) -> Self {
        self.elicitation_handler = Some(Arc::new(handler));
        self
    }

    /// These options with [`sampling_model`](Self::sampling_model) set to `model` (an
    /// `Arc<dyn LlmClient>` shares one model with an agent).
    pub fn with_sampling_model(mut self, model: impl LlmClient + 'static) -> Self {
        self.sampling_model = Some(Arc::new(model));
        self
    }

    /// These options with the root `uri` named `name` added to [`roots`](Self::roots).
    pub fn with_root(mut self, uri: impl Into<String>, name: impl Into<String>) -> Self {
        self.roots.push((uri.into(), Some(name.into())));
        self
    }
}

impl PartialEq for McpClientOptions {
    /// Handlers and models compare by identity (the same `Arc`), everything else by value.
    fn eq(&self, other: &Self) -> bool {
        fn same<T: ?Sized>(a: &Option<Arc<T>>, b: &Option<Arc<T>>) -> bool {
            match (a, b) {
                (Some(a), Some(b)) => Arc::ptr_eq(a, b),
                (None, None) => true,
                _ => false,
            }
        }
        self.connect_timeout == other.connect_timeout
            && self.call_timeout == other.call_timeout
            && self.reset_timeout_on_progress == other.reset_timeout_on_progress
            && self.max_call_time == other.max_call_time
            && self.unannotated_needs_approval == other.unannotated_needs_approval
            && self.name_prefix == other.name_prefix
            && same(&self.elicitation_handler, &other.elicitation_handler)
            && same(&self.sampling_model, &other.sampling_model)
            && self.roots == other.roots
    }
}

impl Eq for McpClientOptions {}

impl std::fmt::Debug for McpClientOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpClientOptions")
            .field("connect_timeout", &self.connect_timeout)
            .field("call_timeout", &self.call_timeout)
            .field("reset_timeout_on_progress", &self.reset_timeout_on_progress)
            .field("max_call_time", &self.max_call_time)
            .field(
                "unannotated_needs_approval",
                &self.unannotated_needs_approval,
            )
            .field("name_prefix", &self.name_prefix)
            .field("elicitation_handler", &self.elicitation_handler.is_some())
            .field(
                "sampling_model",
                &self
                    .sampling_model
                    .as_ref()
                    .map(|model| model.model().to_string()),
            )
            .field("roots", &self.roots)
            .finish()
    }
}
