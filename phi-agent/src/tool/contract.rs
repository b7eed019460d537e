//! The `Tool` trait: the reference page's methods, one value for every other property
//! ([`ToolOptions`]), and one hidden hook for the registry ([`FastPath`]).

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::Value;

use super::exposure::ToolExposure;
use super::fast_path::TypedCall;
use super::metadata::{ToolGroup, ToolMetadata};
use super::options::ToolOptions;
use crate::content::Content;
use crate::context::{ActivationContext, ToolContext};
use crate::error::AgentResult;

/// A tool an LLM can call.
///
/// Implement it by hand when the schema is written by hand; otherwise implement
/// [`TypedTool`](crate::TypedTool) (the schema comes from a type) or write a plain function with
/// `#[phi_tool]`. The trait is object safe: the registry holds `Arc<dyn Tool>`.
///
/// A tool is its data plus its call: the methods below are the reference page's (four required,
/// four optional), and every other property (who may call it, its result budget, approval,
/// hints, output schema, examples, ...) is one [`ToolOptions`] value, returned by
/// [`options`](Tool::options) and read once, at registration. A new property is a field of
/// that value, never a new method here.
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
    /// per row of a table) names itself with [`static_text`](crate::static_text), which keeps
    /// one copy of each distinct text for the life of the process: the cost is that text's
    /// bytes, once, however many times the tool is made again.
    fn name(&self) -> &'static str;

    /// What the tool does, written for the model; a description made at run time: see
    /// [`name`](Tool::name) and [`static_text`](crate::static_text).
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

    /// Machine-readable origin and version, for introspection.
    fn metadata(&self) -> ToolMetadata {
        ToolMetadata::new(self.name(), self.description())
    }

    /// The group the tool belongs to, if any: an MCP import's server (named by the client's
    /// prefix, else the server's name; described as the server describes itself), a
    /// [`Toolset::group`](crate::Toolset::group). Tool search reads the group's name and
    /// description as context for the tool. Read once, at registration. Default: none.
    fn group(&self) -> Option<ToolGroup> {
        None
    }

    /// Who may see the tool; see [`ToolExposure`].
    fn exposure(&self) -> ToolExposure {
        ToolExposure::Direct
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

    /// Every other property of the tool, as one value; read once, at registration. Default:
    /// [`ToolOptions::default`] (callable by the model and by code, the configured result
    /// budget, no approval, no hints, no output schema, no examples).
    ///
    /// ```
    /// use phi_agent::{AgentResult, Content, Tool, ToolApproval, ToolContext, ToolOptions};
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
    ///     fn options(&self) -> ToolOptions {
    ///         // Listing files is harmless; anything else waits for a person.
    ///         ToolOptions::default()
    ///             .with_approval(ToolApproval::when(|args, _ctx| args["command"] != "ls"))
    ///             .with_input_examples(vec![json!({"command": "ls"})])
    ///     }
    /// }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let (approval, ctx) = (Shell.options().approval, ToolContext::default());
    /// assert!(!approval.is_needed(&json!({"command": "ls"}), &ctx).await);
    /// assert!(approval.is_needed(&json!({"command": "rm -rf /"}), &ctx).await);
    /// # }
    /// ```
    fn options(&self) -> ToolOptions {
        ToolOptions::default()
    }

    /// How the registry reaches this tool's calls beyond [`call`](Tool::call): a typed tool's
    /// decoder, a wrapper's inner tool, or a tool that checks its own arguments. Not part of the
    /// public API: every tool written outside this crate keeps the default.
    #[doc(hidden)]
    fn __fast_path(&self) -> FastPath<'_> {
        FastPath::Plain
    }
}

/// How the registry reaches a tool's calls ([`Tool::__fast_path`], the registry's one hidden
/// hook into a tool): what it may do instead of the plain [`Tool::call`] behind `dyn Tool`. Not
/// part of the public API; public only because a public trait's method names it.
///
/// Beside the trait because each names the other: the trait's hook returns it, and
/// [`Forward`](FastPath::Forward) holds a tool.
#[doc(hidden)]
#[non_exhaustive]
pub enum FastPath<'a> {
    /// A hand-written tool: the registry checks a call's arguments against the schema (with
    /// the `schema-validation` feature) and calls [`Tool::call`].
    Plain,
    /// A tool that checks its arguments itself, against the same schema: an MCP server's tool,
    /// which its server checks under the schema's own draft (a check here under another could
    /// refuse what the server accepts).
    ChecksOwnArguments,
    /// A wrapper whose [`Tool::call`] only forwards to this tool (a toolset's renamed tool):
    /// the registry calls the inner tool directly, so that the wrapper costs nothing per call.
    Forward(&'a Arc<dyn Tool>),
    /// A [`TypedTool`](crate::TypedTool): its decoder checks and measures the arguments.
    Typed(&'a dyn TypedCall),
}
