//! The `Tool` trait: what the registry and the agent know about any tool.

use async_trait::async_trait;
use futures_util::future::BoxFuture;
use serde::Serialize;
use serde_json::Value;

use crate::budget::ResultBudget;
use crate::content::Content;
use crate::context::{ActivationContext, ToolContext};
use crate::error::AgentResult;

/// A tool an LLM can call.
///
/// Implement it by hand when the schema is written by hand; otherwise implement
/// [`TypedTool`](crate::TypedTool) (the schema comes from a type) or write a plain function with
/// `#[phi_tool]`. The trait is object safe: the registry holds `Arc<dyn Tool>`.
///
/// ```
/// use phi_agent::{AgentResult, Content, Tool, ToolContext};
/// use async_trait::async_trait;
/// use serde_json::{json, Value};
///
/// struct Echo;
///
/// #[async_trait]
/// impl Tool for Echo {
///     fn name(&self) -> &'static str { "echo" }
///     fn description(&self) -> &'static str { "Repeat the given text" }
///     fn schema(&self) -> Value {
///         json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]})
///     }
///     async fn call(&self, args: &Value, _ctx: &ToolContext) -> AgentResult<Vec<Content>> {
///         Ok(vec![Content::text(args["text"].as_str().unwrap_or_default())])
///     }
/// }
/// ```
#[async_trait]
pub trait Tool: Send + Sync {
    /// Unique name the model uses to call the tool (`^[a-zA-Z0-9_-]{1,64}$`).
    ///
    /// `'static`, because the registry, every request and every record of a run hand it on
    /// without copying it. A tool made at run time (one per operation of an OpenAPI document,
    /// per row of a table) names itself with [`static_text`], which keeps one copy of each
    /// distinct text for the life of the process: the cost is that text's bytes, once, however
    /// many times the tool is made again.
    fn name(&self) -> &'static str;

    /// What the tool does, written for the model; a description made at run time: see
    /// [`name`](Tool::name) and [`static_text`].
    fn description(&self) -> &'static str;

    /// JSON Schema of the arguments object. Read once, at registration.
    ///
    /// What the model and MCP clients are shown, and what the registry holds a call's
    /// arguments to: with the `schema-validation` feature (on by default) arguments the schema
    /// refuses (unknown fields it closes, wrong types, missing required fields) get the usual
    /// argument error, naming every mistake, and never reach [`call`](Tool::call). The check
    /// is JSON Schema 2020-12, compiled on the tool's first call. Without the feature only the
    /// shape (a JSON object) and the size limits are checked. A
    /// [`TypedTool`](crate::TypedTool) decodes its arguments into its `Args` instead.
    fn schema(&self) -> Value;

    /// Runs the tool on the model's arguments: a JSON object that fits
    /// [`schema`](Tool::schema) (see there for when that is checked).
    async fn call(&self, args: &Value, ctx: &ToolContext) -> AgentResult<Vec<Content>>;

    /// This tool's timeout in milliseconds; `None` uses
    /// [`ToolConfig::default_tool_timeout_ms`](crate::ToolConfig::default_tool_timeout_ms).
    fn timeout_ms(&self) -> Option<u64> {
        None
    }

    /// The most bytes of one call's output the model reads; longer output is cut to fit (text
    /// head and tail, JSON kept valid) with a note. `None` uses
    /// [`ToolConfig::max_output_bytes`](crate::ToolConfig::max_output_bytes).
    fn max_result_bytes(&self) -> Option<usize> {
        None
    }

    /// This tool's result budget in bytes or estimated tokens; what the registry reads.
    /// Default: [`max_result_bytes`](Tool::max_result_bytes) as a budget in bytes. Override one
    /// or the other; `#[phi_tool(max_result = ..)]` sets this one.
    fn max_result(&self) -> Option<ResultBudget> {
        self.max_result_bytes().map(ResultBudget::Bytes)
    }

    /// Who may call this tool: the model directly, code the model writes (a provider's
    /// programmatic tool calling, or a `run_code` tool), or both; see [`ToolCallers`]. Default:
    /// [`ToolCallers::Both`]. With `#[phi_tool]` write `callers = "direct" | "code" | "both"`.
    fn callers(&self) -> ToolCallers {
        ToolCallers::Both
    }

    /// Example arguments, each a JSON object this tool accepts, shown to the model beside the
    /// schema: a model that sees a filled-in call gets nested or formatted parameters right more
    /// often than from the schema alone. Default: none.
    ///
    /// Read once, at registration, where each example is checked against the tool's schema (and
    /// decoded, for a [`TypedTool`](crate::TypedTool)); one that does not fit fails registration
    /// with [`AgentError::InvalidInputExample`](crate::AgentError::InvalidInputExample). Anthropic
    /// receives them as the tool's `input_examples`; the other providers read them at the end
    /// of the tool's description (see `docs/providers.md`). With `#[phi_tool]` write
    /// `example = {..}` (repeatable).
    ///
    /// ```
    /// use phi_agent::{AgentResult, Content, Tool, ToolContext, ToolConfig, registry::ToolRegistry};
    /// use async_trait::async_trait;
    /// use serde_json::{json, Value};
    ///
    /// struct Search;
    ///
    /// #[async_trait]
    /// impl Tool for Search {
    ///     fn name(&self) -> &'static str { "search" }
    ///     fn description(&self) -> &'static str { "Search the catalogue" }
    ///     fn schema(&self) -> Value {
    ///         json!({"type": "object", "properties": {"query": {"type": "string"}},
    ///                "required": ["query"], "additionalProperties": false})
    ///     }
    ///     async fn call(&self, _args: &Value, _ctx: &ToolContext) -> AgentResult<Vec<Content>> {
    ///         Ok(vec![Content::text("no match")])
    ///     }
    ///     fn input_examples(&self) -> Vec<Value> {
    ///         vec![json!({"query": "red shoes"}), json!({"qurey": "typo"})]
    ///     }
    /// }
    ///
    /// let error = ToolRegistry::new(ToolConfig::default()).register(Search).unwrap_err();
    /// assert!(error.to_string().contains("input example 2 of tool `search`"), "{error}");
    /// ```
    fn input_examples(&self) -> Vec<Value> {
        Vec::new()
    }

    /// Checks one of [`input_examples`](Tool::input_examples) the way a call's arguments are
    /// decoded, beyond the schema check every tool gets: a [`TypedTool`](crate::TypedTool)
    /// decodes it into its `Args`. Not part of the public API.
    #[doc(hidden)]
    fn __check_input_example(&self, _example: &Value) -> AgentResult<()> {
        Ok(())
    }

    /// Machine-readable origin and version, for introspection.
    fn metadata(&self) -> ToolMetadata {
        ToolMetadata::new(self.name(), self.description())
    }

    /// Who may see the tool; see [`ToolExposure`].
    fn exposure(&self) -> ToolExposure {
        ToolExposure::Direct
    }

    /// Hints about the tool's behaviour, for clients that show or gate tools (MCP annotations).
    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::default()
    }

    /// JSON Schema of the tool's structured output, when it has one (MCP `outputSchema`).
    fn output_schema(&self) -> Option<Value> {
        None
    }

    /// Whether an MCP client may get this tool's call as a task, to poll for its result,
    /// rather than wait on the call: see [`TaskSupport`]. Default:
    /// [`Forbidden`](TaskSupport::Forbidden). Over MCP only: an agent run calls the tool as
    /// always. With `#[phi_tool]` write `task = "optional"` or `task = "required"`.
    fn task_support(&self) -> TaskSupport {
        TaskSupport::Forbidden
    }

    /// The argument schema, already canonical and shared, when the tool has one at hand (a
    /// [`TypedTool`](crate::TypedTool) shares its argument type's). The registry then stores
    /// this `Arc` instead of canonicalizing [`schema`](Tool::schema) into a copy of its own.
    /// Not part of the public API: implement [`schema`](Tool::schema).
    #[doc(hidden)]
    fn __canonical_schema(&self) -> Option<std::sync::Arc<Value>> {
        None
    }

    /// Whether the registry leaves checking the arguments against [`schema`](Tool::schema) to
    /// the tool: `true` for a tool that checks them itself against the same schema (a
    /// [`TypedTool`](crate::TypedTool), whose decoder does; an MCP server's tool, which its
    /// server checks under the schema's own draft). Otherwise, with the `schema-validation`
    /// feature, a call whose arguments the schema refuses never reaches
    /// [`call`](Tool::call). Not part of the public API.
    #[doc(hidden)]
    fn __checks_own_arguments(&self) -> bool {
        self.__canonical_schema().is_some()
    }

    /// The tool whose [`call`](Tool::call) runs this one's calls, when this is a wrapper that
    /// changes nothing about a call (a toolset's renamed tool): the registry then calls it
    /// directly, so that the wrapper costs nothing per call. Not part of the public API.
    #[doc(hidden)]
    fn __call_target(&self) -> Option<std::sync::Arc<dyn Tool>> {
        None
    }

    /// Whether [`__call_within`](Tool::__call_within) refuses arguments past the registry's
    /// size and depth limits itself, as it decodes them: a [`TypedTool`](crate::TypedTool)'s
    /// decoder visits every part of the arguments anyway, so the registry does not walk them
    /// once more before the call. Not part of the public API.
    #[doc(hidden)]
    fn __measures_own_arguments(&self) -> bool {
        false
    }

    /// [`call`](Tool::call), with arguments the registry has checked for shape only: a tool
    /// whose [`__measures_own_arguments`](Tool::__measures_own_arguments) is `true` refuses
    /// arguments longer than `max_argument_bytes` or nested too deep with the registry's own
    /// errors, before any other mistake. Default: `call` (the registry measured the arguments
    /// already). Not part of the public API.
    #[doc(hidden)]
    fn __call_within<'a>(
        &'a self,
        args: &'a Value,
        ctx: &'a ToolContext,
        max_argument_bytes: usize,
    ) -> BoxFuture<'a, AgentResult<Vec<Content>>> {
        let _ = max_argument_bytes;
        self.call(args, ctx)
    }

    /// `false` when [`needs_approval`](Tool::needs_approval) answers no to every call, known
    /// without asking (a [`TypedTool`](crate::TypedTool) without a predicate): the registry then
    /// answers for it without checking the arguments first. Not part of the public API.
    #[doc(hidden)]
    fn __may_need_approval(&self) -> bool {
        true
    }

    /// Whether a person must approve this call before it runs. Default: no.
    ///
    /// Asked for every call of the model whose arguments passed the registry's shape and size
    /// checks; arguments the tool cannot use get the usual argument error and no one is asked.
    /// [`PhiAgent::run`](crate::PhiAgent::run) then asks the agent's
    /// [`Approver`](crate::Approver) (and denies the call when there is none), while
    /// [`PhiAgent::start`](crate::PhiAgent::start) pauses the run until someone decides. A
    /// [`TypedTool`](crate::TypedTool) answers over its decoded arguments instead; with
    /// `#[phi_tool]` write `needs_approval` or `needs_approval = predicate`.
    ///
    /// ```
    /// use phi_agent::{AgentResult, Content, Tool, ToolContext};
    /// use async_trait::async_trait;
    /// use serde_json::{json, Value};
    ///
    /// struct Shell;
    ///
    /// #[async_trait]
    /// impl Tool for Shell {
    ///     fn name(&self) -> &'static str { "shell" }
    ///     fn description(&self) -> &'static str { "Run a shell command" }
    ///     fn schema(&self) -> Value {
    ///         json!({"type": "object", "properties": {"command": {"type": "string"}}})
    ///     }
    ///     async fn call(&self, _args: &Value, _ctx: &ToolContext) -> AgentResult<Vec<Content>> {
    ///         Ok(vec![Content::text("done")])
    ///     }
    ///     // Listing files is harmless; anything else waits for a person.
    ///     async fn needs_approval(&self, args: &Value, _ctx: &ToolContext) -> bool {
    ///         args["command"] != "ls"
    ///     }
    /// }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let ctx = ToolContext::default();
    /// assert!(!Shell.needs_approval(&json!({"command": "ls"}), &ctx).await);
    /// assert!(Shell.needs_approval(&json!({"command": "rm -rf /"}), &ctx).await);
    /// # }
    /// ```
    async fn needs_approval(&self, _args: &Value, _ctx: &ToolContext) -> bool {
        false
    }

    /// The names of the tools this one needs beside it (`#[phi_tool(requires_tools = [..])]`).
    ///
    /// Declared so that a name can be checked: [`PhiAgent::build`](crate::PhiAgent::build) and
    /// [`ToolRegistry::check_requirements`](crate::registry::ToolRegistry::check_requirements)
    /// refuse a name that is not registered, or that is hidden (never active), because a tool
    /// waiting for it would never activate. Activation itself is still decided by
    /// [`should_activate`](Tool::should_activate); a hand-written tool that waits for another
    /// there should name it here too.
    fn requires_tools(&self) -> &'static [&'static str] {
        &[]
    }

    /// For a [`ToolExposure::Deferred`] tool: whether it should become visible now.
    ///
    /// Evaluated before the first turn and after every turn until it returns `true`; once
    /// active, a tool stays active for the rest of the session. Default: `true`, so a Deferred
    /// tool that does not override it is sent from the first turn like a Direct one, unless
    /// [`AgentConfig::tool_search`](crate::AgentConfig::tool_search) is on, which makes it
    /// discoverable through `search_tools` instead (MCP clients list it at once).
    async fn should_activate(&self, _ctx: &ActivationContext) -> bool {
        true
    }
}

/// Whether an MCP client may get a tool's call as a task ([`Tool::task_support`]): the
/// `io.modelcontextprotocol/tasks` extension (SEP-2663, protocol 2026-07-28), through which a
/// long-running call answers at once with a task id, the tool runs on, and the client polls
/// `tasks/get` for its status and, once it is done, its result (and may `tasks/cancel` it). A
/// question the tool asks meanwhile ([`ToolContext::elicit`](crate::ToolContext::elicit),
/// [`ToolContext::sample`](crate::ToolContext::sample)) reaches the client in the task's
/// `inputRequests`, its answer in `tasks/update`; its progress is the task's status message.
///
/// The names and meanings are the 2025-11-25 specification's `execution.taskSupport`. Only a
/// client that declares the extension on its request gets a task.
///
/// ```
/// use phi_agent::TaskSupport;
/// assert_eq!(TaskSupport::default(), TaskSupport::Forbidden);
/// assert_eq!(TaskSupport::Optional.as_str(), "optional");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TaskSupport {
    /// Every call is answered with its result (the default).
    #[default]
    Forbidden,
    /// A call from a client that declared the tasks extension is answered with a task; other
    /// clients get the result as usual.
    Optional,
    /// Every call is answered with a task; a client that did not declare the tasks extension
    /// gets the error "Missing required client capability" (-32021) and the tool does not run.
    Required,
}

impl TaskSupport {
    /// The name MCP gives it: `forbidden`, `optional` or `required`.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskSupport::Forbidden => "forbidden",
            TaskSupport::Optional => "optional",
            TaskSupport::Required => "required",
        }
    }
}

/// Who can see and call a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolExposure {
    /// Always sent to the model.
    #[default]
    Direct,
    /// Sent to the model once [`Tool::should_activate`] returns `true` (by default at once), or,
    /// with [`AgentConfig::tool_search`](crate::AgentConfig::tool_search) on, found by the model's
    /// search instead of sent.
    Deferred,
    /// Never sent to the model and never callable by it; the program can still call it.
    Hidden,
}

/// Who may call a tool: the model in a turn of its own, code the model writes (a provider's
/// programmatic tool calling, where the model's program runs in the provider's sandbox and
/// calls tools there; or a `run_code` tool of our own), or both. Read by the adapters (Anthropic's
/// and the Responses API's `allowed_callers`) and by code-mode tools, which offer only the tools
/// code may call, and enforced by the agent: a `Code` tool is left out of the tools the model is
/// sent (unless its client speaks programmatic tool calling,
/// [`LlmClient::programmatic_tool_calling`](crate::llm::LlmClient::programmatic_tool_calling))
/// and the model's direct call of it is an error result; a `Direct` tool called from code
/// ([`ToolContext::call_tool`](crate::ToolContext::call_tool)) is an error result too.
///
/// `#[non_exhaustive]`: another kind of caller may come.
///
/// ```
/// use phi_agent::ToolCallers;
/// assert!(ToolCallers::Both.allows_direct() && ToolCallers::Both.allows_code());
/// assert!(!ToolCallers::Code.allows_direct());
/// assert_eq!(ToolCallers::default(), ToolCallers::Both);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ToolCallers {
    /// Only the model, in a turn of its own (a plain tool call).
    Direct,
    /// Only code the model writes; the model never calls it directly.
    Code,
    /// Both.
    #[default]
    Both,
}

impl ToolCallers {
    /// Whether the model may call the tool directly.
    pub fn allows_direct(self) -> bool {
        matches!(self, ToolCallers::Direct | ToolCallers::Both)
    }

    /// Whether code the model writes may call the tool.
    pub fn allows_code(self) -> bool {
        matches!(self, ToolCallers::Code | ToolCallers::Both)
    }
}

/// Machine-readable facts about a tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolMetadata {
    /// The tool's name.
    pub name: String,
    /// The tool's description.
    pub description: String,
    /// Where the tool comes from (a crate name, `custom`, `mcp:<server>`).
    pub origin: String,
    /// The version of its origin.
    pub version: String,
    /// What the tool needs to work (`network`, `filesystem`, ...).
    pub requirements: Vec<String>,
}

impl ToolMetadata {
    /// The metadata of a tool written by hand: origin `custom`, version `unknown`, no
    /// requirements. This is what [`Tool::metadata`] returns unless a tool says more; set the
    /// fields to say more.
    ///
    /// ```
    /// use phi_agent::ToolMetadata;
    ///
    /// let metadata = ToolMetadata {
    ///     requirements: vec!["network".to_string()],
    ///     ..ToolMetadata::new("get_weather", "Get current weather for a city.")
    /// };
    /// assert_eq!(metadata.origin, "custom");
    /// assert_eq!(metadata.version, "unknown");
    /// ```
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        ToolMetadata {
            name: name.into(),
            description: description.into(),
            origin: "custom".to_string(),
            version: "unknown".to_string(),
            requirements: Vec::new(),
        }
    }
}

/// Hints about what a tool does, as MCP clients read them. `None` leaves the protocol default
/// (not read-only, destructive, not idempotent, open world).
///
/// `#[non_exhaustive]`: start from [`Default`] and set hints with the `with_*` setters.
///
/// ```
/// use phi_agent::ToolAnnotations;
/// let hints = ToolAnnotations::default().with_read_only(true);
/// assert_eq!(hints.read_only, Some(true));
/// assert_eq!(hints.destructive, None);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize)]
#[non_exhaustive]
pub struct ToolAnnotations {
    /// The tool does not change its environment.
    pub read_only: Option<bool>,
    /// The tool may destroy or overwrite data (meaningful when not read-only).
    pub destructive: Option<bool>,
    /// Calling it twice with the same arguments has no further effect.
    pub idempotent: Option<bool>,
    /// The tool talks to an open world (the internet) rather than a closed domain.
    pub open_world: Option<bool>,
}

impl ToolAnnotations {
    /// These hints with [`read_only`](Self::read_only) set to `on`.
    pub fn with_read_only(mut self, on: bool) -> Self {
        self.read_only = Some(on);
        self
    }

    /// These hints with [`destructive`](Self::destructive) set to `on`.
    pub fn with_destructive(mut self, on: bool) -> Self {
        self.destructive = Some(on);
        self
    }

    /// These hints with [`idempotent`](Self::idempotent) set to `on`.
    pub fn with_idempotent(mut self, on: bool) -> Self {
        self.idempotent = Some(on);
        self
    }

    /// These hints with [`open_world`](Self::open_world) set to `on`.
    pub fn with_open_world(mut self, on: bool) -> Self {
        self.open_world = Some(on);
        self
    }
}

/// `text` as a `&'static str`, for the name or description of a tool made at run time
/// ([`Tool::name`] returns `&'static str`).
///
/// Interned: the first call with a given text keeps one copy of it for the life of the process
/// (as `Box::leak` would), and every later call with the same text returns that copy. What is
/// kept is bounded by the distinct texts, not by how often tools are made: a program that builds
/// its 200 tools again for each session keeps 200 names, not 200 per session. The cost is one
/// lock and one hash lookup per call, made when a tool is built, never per tool call.
///
/// ```
/// use phi_agent::{AgentResult, Content, Tool, ToolContext, static_text};
/// use serde_json::{Value, json};
///
/// /// One tool per table, made from the database's schema at start-up.
/// struct CountRows {
///     name: &'static str,
///     description: &'static str,
/// }
///
/// impl CountRows {
///     fn new(table: &str) -> Self {
///         CountRows {
///             name: static_text(format!("count_{table}")),
///             description: static_text(format!("Count the rows of the table `{table}`")),
///         }
///     }
/// }
///
/// #[async_trait::async_trait]
/// impl Tool for CountRows {
///     fn name(&self) -> &'static str { self.name }
///     fn description(&self) -> &'static str { self.description }
///     fn schema(&self) -> Value { json!({"type": "object", "properties": {}}) }
///     async fn call(&self, _: &Value, _: &ToolContext) -> AgentResult<Vec<Content>> {
///         Ok(vec![Content::text("42")])
///     }
/// }
///
/// let tools: Vec<CountRows> = ["orders", "users"].iter().map(|t| CountRows::new(t)).collect();
/// assert_eq!(tools[0].name(), "count_orders");
/// // Made again: the same copy, nothing more kept.
/// assert!(std::ptr::eq(CountRows::new("orders").name, tools[0].name));
/// ```
pub fn static_text(text: impl AsRef<str>) -> &'static str {
    use std::collections::HashSet;
    use std::sync::{Mutex, OnceLock, PoisonError};

    static KEPT: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    let text = text.as_ref();
    // A panic while the set is held leaves it whole (an insert either happened or did not).
    let mut kept = KEPT
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    if let Some(copy) = kept.get(text) {
        return copy;
    }
    let copy: &'static str = Box::leak(text.to_owned().into_boxed_str());
    kept.insert(copy);
    copy
}
