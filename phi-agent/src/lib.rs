//! # phi-agent
//!
//! Write LLM-agent tools as plain Rust functions and run agents over them.
//!
//! - [`Tool`] and [`TypedTool`]: the two ways to write a tool by hand. A tool is its data plus
//!   its call: the reference page's methods, and one [`ToolOptions`] value for every other
//!   property (callers, result budget, approval, hints, examples, ...), read once at registration.
//! - [`registry::ToolRegistry`]: names, exposure ([`ToolExposure`]), activation and safe dispatch.
//! - [`PhiAgent`]: a model ([`llm::LlmClient`]) and its tools.
//! - [`search`]: tool search, for thousands of tools of which the model is sent the few it finds
//!   ([`AgentConfig::tool_search`]).
//! - [`skill`]: skills, instructions for a kind of task with the tools they bring, offered one
//!   line each and loaded on demand ([`AgentBuilder::skills`]).
//! - [`RunRequest`]: every run, made by `prompt` and changed by `.typed::<T>()`, `.pausing()`,
//!   `.options(..)`; awaited, or [`RunRequest::stream`]ed as [`StreamEvent`]s (text and tool calls as the
//!   model writes them, tools as they run), from any model ([`llm::LlmClient::stream`]).
//! - `mcp` (features `mcp-server`, `mcp-http-server`, `mcp-client`, `mcp-http-client`; `mcp` is all four): serve a registry to MCP clients,
//!   and import MCP servers' tools.
//!
//! # The shape
//!
//! Data flows one way, and each layer names only the layers below it: content, errors and limits;
//! schemas (`Value` to `Value`); tools, their decoding and toolsets; the registry; search; the
//! model clients ([`llm`]); the agent and the MCP bridge on top. `scripts/check-layers.py` holds
//! the crate to that order and refuses an import circle inside any folder.
//!
//! - **A tool is its data plus its call.** [`Tool`] has the reference page's eight methods, one
//!   [`ToolOptions`] value for every other property, and one hidden hook through which the
//!   registry finds a typed tool's fast path. A new property is a field of `ToolOptions` and a key
//!   of the macro, nothing else; wrappers (toolsets, MCP imports, code mode) forward five methods.
//! - **A run is one request value.** `prompt` (on [`PhiAgent`] and [`AgentSession`]) and
//!   [`PhiAgent::resume`] make a [`RunRequest`]; its modifiers choose the output type, and
//!   awaiting or streaming it runs it. `run`, `start`, `run_stream` and `run_typed` are one line
//!   each over it. Inside, a run is a plan resolved before turn 1 and a few named steps (see the
//!   `agent` module's source).
//! - **A provider is a folder** (`llm/<provider>/`: client, request, reply, stream) over one serde
//!   type per wire shape, used in both directions where the shape is shared.
//! - **MCP** is `mcp/server/` and `mcp/client/`, with what both use beside them.
//!
//! # Features
//!
//! | feature | default | what it adds |
//! |---|---|---|
//! | `openai` | yes | `llm::OpenAiClient` (chat completions) and `llm::ResponsesClient` (the Responses API), plain and streamed; reqwest, rustls and sse-stream |
//! | `anthropic` | yes | `llm::AnthropicClient` (messages, plain and streamed); reqwest, rustls and sse-stream |
//! | `gemini` | yes | `llm::GeminiClient` (`generateContent`, plain and streamed); reqwest, rustls and sse-stream |
//! | `mcp-server` | no | `mcp::serve_stdio`, `mcp::McpServer` on any rmcp transport (no HTTP stack) |
//! | `mcp-http-server` | no | `mcp::serve_http`: streamable HTTP on hyper's server (no HTTP client, no TLS) |
//! | `mcp-client` | no | `mcp::McpClient`: import a server's tools over stdio (no HTTP client, no TLS) |
//! | `mcp-http-client` | no | `mcp::McpClient::connect_http`: import over streamable HTTP, bearer tokens or OAuth 2.1, machine-to-machine grants included (reqwest, rustls with ring; rmcp's `auth` with `oauth2`; JWT assertions signed with ring) |
//! | `mcp` | no | all four MCP features |
//! | `skills` | no | skills read from `SKILL.md` folders (`skill::Skill::from_dir`, `skill::SkillCatalog::from_dir`) and imported from MCP servers (`mcp::McpClient::skills`); yaml_serde for the frontmatter. Skills built in code need no feature |
//! | `schema-validation` | yes | refused arguments validated against the tool's schema (jsonschema, on the failure path only): every mistake at once, each with its path; without it, the decoder's first mistake |
//!
//! The adapters' TLS is rustls on ring (lighter to build than reqwest's default, aws-lc). Building
//! an adapter installs ring as rustls' process-wide default provider, unless the program installed
//! one first; another reqwest client built before that without a TLS feature of its own needs a
//! provider installed by the program (`rustls::crypto::ring::default_provider().install_default()`).
//!
//! With `default-features = false` the crate builds tools, the registry, schemas, the agent loop
//! and [`llm::ScriptedLlm`] (or your own [`LlmClient`]) without any HTTP client.

// docs.rs builds with `--cfg docsrs` on nightly (`[package.metadata.docs.rs]`), and then labels
// each feature-gated item with its feature; a stable build never sees the attribute.
#![cfg_attr(docsrs, feature(doc_cfg))]

mod agent;
mod budget;
mod config;
mod content;
mod context;
mod decode;
mod error;
mod limits;
mod message;
mod output;
mod repair;
mod state;
mod tool;
mod toolset;
mod typed;

#[doc(hidden)]
pub mod __private;
pub mod llm;
#[cfg(any(feature = "mcp-server", feature = "mcp-client"))]
#[cfg_attr(docsrs, doc(cfg(any(feature = "mcp-server", feature = "mcp-client"))))]
pub mod mcp;
pub mod registry;
pub mod schema;
pub mod search;
pub mod skill;

#[cfg(feature = "cedar")]
#[cfg_attr(docsrs, doc(cfg(feature = "cedar")))]
pub use agent::CedarPolicy;
pub use agent::{AgentBuilder, AgentConfig, LoopDetection, PhiAgent, base_agent_builder};
pub use agent::{AgentEvent, AgentObserver, AgentSession, PrefixChange, RunOutput, ToolCallRecord};
pub use agent::{
    AnswerMode, AnswerOptions, RunStream, StreamEvent, Typed, TypedOutcome, TypedOutput,
};
pub use agent::{Approval, ApprovalRequest, Approver, PausedRun, PendingCall, RunOutcome};
pub use agent::{ApprovalPolicy, Decided, DecisionRule, Remember, RememberedDecision, Verdict};
pub use agent::{ContextPolicy, MemoryResultStore, READ_RESULT_TOOL_NAME, ResultStore, Steering};
pub use agent::{ElicitationHandler, ElicitationRequest, PendingQuestion};
pub use agent::{FileResumeStore, MemoryResumeStore, ResumeStore};
pub use agent::{InProcess, JournalExecutor, StepExecutor, StepFuture, StepOutput, ToolStep};
pub use agent::{Inline, Pausing, Plain, RunInput, RunOptions, RunRequest};
pub use config::ToolConfig;
pub use content::{Content, ResourceBody, ResourceContents};
pub use context::{
    ActivationContext, CalledTool, Elicitation, LogLevel, Progress, Root, SampleRequest,
    SampleRole, Sampled, ToolContext, ToolPeer,
};
pub use error::{AgentError, AgentResult, ArgumentMistake, ROOT_PATH, Tampering};
pub use llm::LlmClient;
/// Turns a doc-commented fn into a tool.
///
/// `#[phi_tool] async fn get_weather(..)` keeps the fn as written and generates `GetWeatherArgs`
/// (one field per parameter; its JSON Schema is what the model sees) and `GetWeather`, a unit
/// struct with the fn's visibility that implements [`TypedTool`] (and so [`Tool`]).
///
/// ```
/// use phi_agent::{AgentResult, Tool, ToolContext, ToolExposure, phi_tool};
///
/// /// Get current weather for a city.
/// ///
/// /// The whole doc comment, Markdown included, is the tool's description.
/// #[phi_tool(timeout = 30_000, read_only)]
/// async fn get_weather(
///     /// City name, e.g. "Beijing"
///     city: String,
///     /// Days ahead
///     #[phi(default = 3)]
///     days: u8,
///     units: Option<String>,
///     ctx: &ToolContext,
/// ) -> AgentResult<String> {
///     Ok(format!("{city}: sunny for {days} days (session {})", ctx.session_id()))
/// }
///
/// /// Forget the session's cache; only the program calls it.
/// #[phi_tool(exposure = "hidden")]
/// fn clear_cache() -> &'static str {
///     "cleared"
/// }
///
/// let schema = GetWeather.schema();
/// assert_eq!(schema["properties"]["city"]["description"], "City name, e.g. \"Beijing\"");
/// assert_eq!(schema["required"], serde_json::json!(["city"]));
/// assert!(schema["properties"].get("ctx").is_none());
/// assert_eq!(GetWeather.timeout_ms(), Some(30_000));
/// assert_eq!(ClearCache.exposure(), ToolExposure::Hidden);
/// ```
///
/// # Parameters
///
/// Each parameter becomes a field of the arguments: its doc comment is the field's schema
/// description, `#[serde(..)]` and `#[schemars(..)]` pass through to the field, `Option<T>` is
/// optional, `#[phi(default)]` / `#[phi(default = expr)]` make it optional with a default, and
/// `#[phi(rename = "..")]` renames it in the schema. A `&ToolContext` parameter is injected and
/// never in the schema. Parameters must be plain names of owned types that implement
/// `Deserialize` and `JsonSchema`.
///
/// `#[phi(header = "Region")]` mirrors the argument into the HTTP header `Mcp-Param-Region` for
/// MCP clients (SEP-2243: a gateway routes on it without reading the body): the field's schema
/// gets `"x-mcp-header": "Region"`, which only the MCP dialect keeps, and the MCP server checks
/// the header against the body. The name must be an RFC 9110 token, unique in the tool
/// regardless of case, and the type `String`, `bool`, an integer, or an `Option` of one: MCP
/// allows only `string`, `integer` and `boolean` properties under a header, and a client drops
/// a tool that breaks a rule, so each is a compile error. An `Option` is kept rather than
/// refused because the SEP already reads an absent or `null` argument as "no header"; it is
/// served to MCP with its plain type (clients refuse `[T, "null"]` there) and stays optional.
///
/// The arguments struct refuses unknown fields (`#[serde(deny_unknown_fields)]`, so its schema
/// says `additionalProperties: false`): a call with `limt` for `limit` is answered "unknown field
/// `limt`; did you mean `limit`?" rather than run with the default limit. A parameter with
/// `#[serde(flatten)]` leaves the struct open, since serde cannot combine the two.
///
/// # Return types
///
/// `AgentResult<T>`, `Result<T, E>` with `E: Display` (the error text is the result the model
/// reads), or a plain `T`, where `T` is `String` or `&'static str` (text), [`Content`],
/// `Vec<Content>`, or any `Serialize` type (JSON). An object output that implements `JsonSchema`
/// is published as the tool's [`output_schema`](ToolOptions::output_schema).
///
/// # Keys
///
/// | key | meaning |
/// |---|---|
/// | `name = ".."` | the tool's name (default: the fn's), `^[a-zA-Z0-9_-]{1,64}$` |
/// | `description = ".."` | instead of the doc comment |
/// | `timeout = 30_000` | milliseconds, greater than 0 |
/// | `exposure = ".."` | `"direct"` (default), `"deferred"` or `"hidden"`; see [`ToolExposure`] |
/// | `activate_when = path` | deferred only: a sync or async fn of `&ActivationContext` returning `bool` |
/// | `requires_tools = ["a", ..]` | deferred only: active once all named tools are |
/// | `origin`, `version` | [`ToolMetadata`] (default: your crate's name and version) |
/// | `requirements = ["network", ..]` | [`ToolMetadata::requirements`] |
/// | `needs_approval` | a person must approve every call ([`ToolOptions::approval`]); `needs_approval = false` is the default |
/// | `needs_approval = path` | a person must approve the calls for which a sync or async fn `(&Args, &ToolContext) -> bool` says so; it sees the decoded arguments (`GetWeatherArgs` for `get_weather`) |
/// | `read_only`, `destructive`, `idempotent`, `open_world` | [`ToolAnnotations`] (`flag` or `flag = bool`) |
/// | `example = {"city": "Paris"}` | repeatable: the arguments of one call, shown to the model ([`ToolOptions::input_examples`]); JSON written as tokens (strings as Rust string literals), JSON text in a string literal, or an expression of the arguments struct (`example = GetWeatherArgs { .. }`, which then derives `Serialize`). Malformed JSON and a key that is no parameter are compile errors on the token; the values are checked against the schema and decoded when the tool is registered |
/// | `max_result = ..` | the most of one call's output the model reads ([`ToolOptions::max_result`]): bytes (`8192`, `"8 KiB"`, `"1 MiB"`, `"64 kB"`) or estimated tokens (`"2000 tokens"`, see [`ResultBudget`]) |
/// | `callers = ".."` | who may call the tool: `"direct"`, `"code"` or `"both"` (default); see [`ToolCallers`] |
/// | `task = ".."` | `"optional"` or `"required"`: an MCP client may get (or always gets) a call as a task to poll; see [`TaskSupport`] |
/// | `ask_before_task` | with `task`: an MCP 2026-07-28 call asks its first questions as `input_required` rounds, then becomes the task; see [`ToolOptions::ask_before_task`] |
/// | `ui = ".."` | the `ui://` resource of the tool's interactive view (MCP Apps); see [`ToolOptions::ui_resource`] |
/// | `sequential` | a barrier in its turn's batch of calls: the calls before it finish before it starts, the calls after it wait ([`ToolLimits::sequential`]) |
/// | `concurrency = n` | at most `n` (> 0) calls at once per session, per server over MCP ([`ToolLimits::concurrency`]) |
/// | `rate = "10/s"` | at most that many calls per second (`/m`, `/h`) per session, per server over MCP; a call past it is refused with [`AgentError::RateLimited`], which says when to retry ([`ToolLimits::rate`]) |
/// | `strict` | every parameter type must fit OpenAI strict mode, checked at compile time: standard scalars, `String`, and `Option`/`Vec`/`Box`/sets/arrays of them (not maps, tuples, `serde_json::Value`, nor types of your own) |
/// | `crate = path` | where phi-agent is, when it is renamed or re-exported |
///
/// A plain (non-async) fn runs on tokio's blocking pool, so it cannot stall the async workers; a
/// panic in it becomes an error result like any other tool panic. A blocking fn cannot be
/// stopped from outside: when its call times out it runs on until it returns, so a long one
/// should take `ctx: &ToolContext` and check `ctx.is_cancelled()`.
pub use phi_agent_macros::phi_tool;
pub use repair::ArgumentRepair;

/// Makes one tool of each `#[tool]` method of an impl block, for tools that hold state (a pool,
/// a client, a cache).
///
/// Each tool holds the receiver in an `Arc`; a method takes `&self` or `self: Arc<Self>`, must be
/// `async`, and is otherwise written like a [`phi_tool`] fn: its doc comment is the description,
/// its other parameters are the schema (with the same `#[phi(..)]`, `#[serde(..)]` and
/// `#[schemars(..)]` attributes), a `&ToolContext` parameter is injected, `#[tool(..)]` takes
/// every key of `#[phi_tool(..)]`, and the schema is the one the same free fn would have. Methods
/// without `#[tool]` stay as they are. The impl may be generic (`impl<B: Backend> Store<B>`);
/// parameter types must not name its parameters or `Self`.
///
/// For `impl Store { #[tool] async fn lookup(..) }` it generates, next to the impl:
///
/// - `StoreLookupArgs`, the arguments (the type's name, then the method's in PascalCase), and
///   `StoreLookup`, the tool (a [`TypedTool`] holding an `Arc<Store>`, with `StoreLookup::NAME`),
///   with the method's visibility;
/// - `Store::tools(self: Arc<Self>) -> Vec<Arc<dyn Tool>>`, every tool of the block, for
///   [`AgentBuilder::register_tools`]; a second `#[phi_tools]` block for the same type names its
///   fn with `#[phi_tools(tools_fn = "admin_tools")]`;
/// - a hidden constructor per method, which [`tools!`] calls for `store.lookup`, so that tools of
///   several blocks (in several modules) and free fns are listed together:
///   `tools![store.lookup, store.purge, get_weather]`.
///
/// A tool's name is the method's (`name = ".."` renames it), so two types with a `lookup` tool
/// collide when registered, with the usual duplicate-name error. `#[phi_tools(crate = path)]`
/// sets `crate` for every tool of the block.
///
/// ```
/// use std::collections::HashMap;
/// use std::sync::{Arc, Mutex};
/// use phi_agent::{AgentResult, Tool, ToolContext, phi_tools, tools};
///
/// #[derive(Default)]
/// struct Notes {
///     notes: Mutex<HashMap<String, String>>,
/// }
///
/// #[phi_tools]
/// impl Notes {
///     /// Read the note saved under a key.
///     #[tool(read_only)]
///     async fn read_note(&self, key: String) -> Option<String> {
///         self.notes.lock().unwrap().get(&key).cloned()
///     }
///
///     /// Save a note under a key.
///     #[tool(name = "save_note")]
///     async fn save(&self, key: String, text: String, ctx: &ToolContext) -> AgentResult<String> {
///         self.notes.lock().unwrap().insert(key.clone(), text);
///         Ok(format!("saved {key} (session {})", ctx.session_id()))
///     }
///
///     /// Not a tool: no `#[tool]`.
///     fn count(&self) -> usize {
///         self.notes.lock().unwrap().len()
///     }
/// }
///
/// let notes = Arc::new(Notes::default());
/// let all = notes.clone().tools();
/// assert_eq!(all.iter().map(|t| t.name()).collect::<Vec<_>>(), ["read_note", "save_note"]);
/// let some = tools![notes.read_note];
/// assert_eq!(some[0].schema()["required"], serde_json::json!(["key"]));
/// assert_eq!(NotesSave::NAME, "save_note");
/// assert_eq!(notes.count(), 0);
/// ```
pub use phi_agent_macros::phi_tools;

/// Marks a tool method inside a [`phi_tools`] impl block (see there); it takes the keys of
/// [`phi_tool`]. Used anywhere else it is a compile error that says where it belongs.
pub use phi_agent_macros::tool;

/// Builds a `Vec<Arc<dyn Tool>>` from tools, for
/// [`AgentBuilder::register_tools`] and [`ToolRegistry`](registry::ToolRegistry).
///
/// Each item is the path of a `#[phi_tool]` fn (its snake_case last segment names the
/// generated tool type: `weather::get_weather` means `weather::GetWeather`), a `#[tool]` method
/// of a [`phi_tools`] type as `value.method` where `value` is an `Arc` of that type (or a
/// reference to one), or an expression whose value implements [`Tool`] (a [`TypedTool`] or a
/// hand-written tool). Listing one fn
/// twice, or two macro tools with the same literal name, is a compile error; other duplicate
/// names are refused when the tools are registered.
///
/// A bare snake_case name is read as a `#[phi_tool]` fn and `a.b` as a method; to list a variable
/// or a field that holds a tool, write it in parentheses: `tools![(my_tool), (self.search)]`.
///
/// ```
/// use phi_agent::{phi_tool, tools};
///
/// /// Add two integers.
/// #[phi_tool]
/// fn add(a: i64, b: i64) -> i64 {
///     a + b
/// }
///
/// /// Repeat the given text.
/// #[phi_tool(read_only)]
/// async fn echo(text: String) -> String {
///     text
/// }
///
/// let tools = tools![add, echo];
/// assert_eq!(tools.len(), 2);
/// assert_eq!(tools[0].name(), "add");
/// ```
// `inline`: the `macro_rules!` behind it is hidden, and rustdoc leaves out a renamed re-export
// of a hidden macro unless told to inline it.
#[doc(inline)]
pub use crate::__phi_tools as tools;

pub use budget::ResultBudget;
pub use search::ToolSearch;
pub use state::SharedState;
pub use tool::{
    ApprovalRule, InvalidRate, Rate, TaskSupport, Tool, ToolAnnotations, ToolApproval, ToolCallers,
    ToolExposure, ToolGroup, ToolLimits, ToolMetadata, ToolOptions, static_text,
};
pub use toolset::Toolset;
pub use typed::TypedTool;
