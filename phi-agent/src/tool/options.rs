//! [`ToolOptions`]: every property of a tool beyond the reference page's methods, as one value.

use std::sync::Arc;

use serde_json::Value;

use super::approval::ToolApproval;
use super::exposure::ToolCallers;
use super::limits::ToolLimits;
use super::metadata::ToolAnnotations;
use super::task::TaskSupport;
use crate::budget::ResultBudget;

/// What a tool is, beyond its name, description, schema and call: who may call it, how much of
/// its output the model reads, whether a call waits for a person, hints for MCP clients, its
/// output schema, example arguments, and the tools it needs beside it.
///
/// A tool returns it from [`Tool::options`](crate::Tool::options) (`#[phi_tool]` writes that
/// method from its keys), and the registry reads it once, at registration. `#[non_exhaustive]`:
/// start from [`Default`] and set fields with the `with_*` setters; a new property is a new
/// field here, which breaks no tool.
///
/// ```
/// use phi_agent::{ResultBudget, ToolApproval, ToolCallers, ToolOptions};
///
/// let options = ToolOptions::default()
///     .with_callers(ToolCallers::Code)
///     .with_max_result(ResultBudget::Tokens(2_000))
///     .with_approval(ToolApproval::Always);
/// assert_eq!(options.callers, ToolCallers::Code);
/// assert_eq!(options.max_result, Some(ResultBudget::Tokens(2_000)));
/// assert!(options.approval.is_always());
/// assert!(ToolOptions::default().approval.is_never());
/// ```
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ToolOptions {
    /// Who may call the tool: the model directly, code the model writes (a provider's
    /// programmatic tool calling, or a `run_code` tool), or both; see [`ToolCallers`].
    /// Default: [`ToolCallers::Both`]. With `#[phi_tool]` write
    /// `callers = "direct" | "code" | "both"`.
    pub callers: ToolCallers,
    /// The most of one call's output the model reads, in bytes or estimated tokens; longer
    /// output is cut to fit (text head and tail, JSON kept valid) with a note. `None` uses
    /// [`ToolConfig::max_output_bytes`](crate::ToolConfig::max_output_bytes). With
    /// `#[phi_tool]` write `max_result = ..`.
    pub max_result: Option<ResultBudget>,
    /// Whether a call waits for a person's approval before it runs; see [`ToolApproval`].
    /// Default: never.
    pub approval: ToolApproval,
    /// Hints about the tool's behaviour, for clients that show or gate tools (MCP annotations).
    pub annotations: ToolAnnotations,
    /// JSON Schema of the tool's structured output, when it has one (MCP `outputSchema`);
    /// shared, since a typed tool's comes from its output type's schema, made once per type.
    pub output_schema: Option<Arc<Value>>,
    /// Whether an MCP client may get the tool's call as a task, to poll for its result, rather
    /// than wait on the call: see [`TaskSupport`]. Default: [`TaskSupport::Forbidden`]. Over MCP
    /// only: an agent run calls the tool as always. With `#[phi_tool]` write
    /// `task = "optional"` or `task = "required"`.
    pub task_support: TaskSupport,
    /// Whether a call answered with a task asks its first questions before the task starts.
    /// Default: `false`, the task starts at once and every question is one of the task's
    /// (its `inputRequests`, answered with `tasks/update`).
    ///
    /// With `true`, on an MCP connection at protocol 2026-07-28 or later, the call runs as a
    /// plain call first: its questions ([`ToolContext::elicit`](crate::ToolContext::elicit)
    /// and the others) come back as `input_required` results of the `tools/call` (SEP-2322),
    /// round after round, and the task is created on the first round in which the call, given
    /// its answers, goes on to wait on something other than a question, or finishes: that
    /// round's `tools/call` is answered with the task (SEP-2663's composition of the two), and
    /// the call runs on in it. A question asked after that is one of the task's. So write the
    /// questions first and the long work after them. Earlier protocols, and a call answered
    /// with its result, are unaffected. With `#[phi_tool]` write `ask_before_task` (beside
    /// `task = ..`).
    pub ask_before_task: bool,
    /// Example arguments, each a JSON object this tool accepts, shown to the model beside the
    /// schema: a model that sees a filled-in call gets nested or formatted parameters right more
    /// often than from the schema alone. Default: none.
    ///
    /// Checked at registration against the tool's schema (and decoded, for a
    /// [`TypedTool`](crate::TypedTool)); one that does not fit fails registration with
    /// [`AgentError::InvalidInputExample`](crate::AgentError::InvalidInputExample). Anthropic
    /// receives them as the tool's `input_examples`; the other providers read them at the end
    /// of the tool's description (see `docs/src/providers.md`). With `#[phi_tool]` write
    /// `example = {..}` (repeatable).
    pub input_examples: Vec<Value>,
    /// The names of the tools this one needs beside it (`#[phi_tool(requires_tools = [..])]`).
    ///
    /// Declared so that a name can be checked: [`PhiAgent::build`](crate::PhiAgent::build) and
    /// [`ToolRegistry::check_requirements`](crate::registry::ToolRegistry::check_requirements)
    /// refuse a name that is not registered, or that is hidden (never active), because a tool
    /// waiting for it would never activate. Activation itself is still decided by
    /// [`Tool::should_activate`](crate::Tool::should_activate); a hand-written tool that waits
    /// for another there should name it here too.
    pub requires_tools: Vec<&'static str>,
    /// The `ui://` resource of the tool's interactive view (MCP Apps, SEP-1865): served over
    /// MCP, the tool's definition names it in `_meta.ui.resourceUri`, and a host that renders
    /// views shows the resource (served with
    /// [`McpServer::with_app_view`](crate::mcp::McpServer::with_app_view)) beside the call's
    /// result, which carries the data the view shows (the result's structured content). A URI
    /// that is not `ui://` fails registration. Default: none. Over MCP only.
    pub ui_resource: Option<String>,
    /// How the tool's calls are ordered and paced: a barrier in its turn's batch, a bound on
    /// calls at once, a rate; see [`ToolLimits`]. Default: none. With `#[phi_tool]` write
    /// `sequential`, `concurrency = n`, `rate = "10/s"`.
    pub limits: ToolLimits,
}

impl ToolOptions {
    /// These options with [`callers`](Self::callers) set.
    pub fn with_callers(mut self, callers: ToolCallers) -> Self {
        self.callers = callers;
        self
    }

    /// These options with the result budget [`max_result`](Self::max_result) set.
    pub fn with_max_result(mut self, budget: ResultBudget) -> Self {
        self.max_result = Some(budget);
        self
    }

    /// These options with [`approval`](Self::approval) set.
    pub fn with_approval(mut self, approval: ToolApproval) -> Self {
        self.approval = approval;
        self
    }

    /// These options with the MCP [`annotations`](Self::annotations) set.
    pub fn with_annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.annotations = annotations;
        self
    }

    /// These options with [`output_schema`](Self::output_schema) set.
    pub fn with_output_schema(mut self, schema: Value) -> Self {
        self.output_schema = Some(Arc::new(schema));
        self
    }

    /// These options with [`ui_resource`](Self::ui_resource) set to `uri` (a `ui://` URI).
    pub fn with_ui_resource(mut self, uri: impl Into<String>) -> Self {
        self.ui_resource = Some(uri.into());
        self
    }

    /// These options with [`limits`](Self::limits) set.
    pub fn with_limits(mut self, limits: ToolLimits) -> Self {
        self.limits = limits;
        self
    }

    /// These options with [`task_support`](Self::task_support) set.
    pub fn with_task_support(mut self, support: TaskSupport) -> Self {
        self.task_support = support;
        self
    }

    /// These options with [`ask_before_task`](Self::ask_before_task) set.
    pub fn with_ask_before_task(mut self, ask: bool) -> Self {
        self.ask_before_task = ask;
        self
    }

    /// These options with `examples` as the [`input_examples`](Self::input_examples).
    ///
    /// ```
    /// use phi_agent::{AgentResult, Content, Tool, ToolContext, ToolConfig, ToolOptions};
    /// use phi_agent::registry::ToolRegistry;
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
    ///     fn options(&self) -> ToolOptions {
    ///         ToolOptions::default()
    ///             .with_input_examples(vec![json!({"query": "red shoes"}), json!({"qurey": "typo"})])
    ///     }
    /// }
    ///
    /// let error = ToolRegistry::new(ToolConfig::default()).register(Search).unwrap_err();
    /// assert!(error.to_string().contains("input example 2 of tool `search`"), "{error}");
    /// ```
    pub fn with_input_examples(mut self, examples: Vec<Value>) -> Self {
        self.input_examples = examples;
        self
    }

    /// These options with `names` as [`requires_tools`](Self::requires_tools).
    pub fn with_requires_tools(mut self, names: &[&'static str]) -> Self {
        self.requires_tools = names.to_vec();
        self
    }
}
