//! The tool registry: names, exposure, activation and dispatch.
//!
//! Everything a tool costs is paid at registration: the name is checked, the schema read once and
//! shared, the timeout resolved. Dispatch then only looks up, decodes and runs.

mod activation;
mod deadline;
mod dispatch;
mod examples;
mod live;
mod name;
mod schema_text;
mod shared_list;
mod spec;
mod stored_schema;
#[cfg(test)]
mod test_tool;

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use rustc_hash::FxHashMap;
use serde_json::Value;

use crate::budget::ResultBudget;
use crate::config::ToolConfig;
use crate::error::{AgentError, AgentResult, mistakes};
use crate::schema::{self, Dialect, DialectError};
use crate::tool::{
    FastPath, TaskSupport, Tool, ToolAnnotations, ToolApproval, ToolCallers, ToolExposure,
    ToolMetadata, ToolOptions,
};
use crate::toolset::Toolset;
use examples::InputExamples;
use live::LiveSources;
use shared_list::DirectList;
use stored_schema::StoredSchema;

pub use activation::ActiveTools;
pub use dispatch::ToolCallResult;
pub use live::ToolSource;
pub use name::{MAX_TOOL_NAME_LEN, validate_tool_name};
pub use spec::ToolSpec;

/// A tool together with everything read from it once, at registration.
#[derive(Clone)]
pub struct RegisteredTool {
    tool: Arc<dyn Tool>,
    /// What dispatch calls: the tool, or the tool a forwarding wrapper stands for
    /// ([`FastPath::Forward`]), so that a toolset's wrapper adds nothing to a call.
    target: Arc<dyn Tool>,
    name: &'static str,
    description: &'static str,
    schema: Arc<StoredSchema>,
    exposure: ToolExposure,
    timeout: Duration,
    /// The most bytes of output the model reads of one call ([`ToolOptions::max_result`], or
    /// the configured default).
    result_limit: usize,
    metadata: Arc<ToolMetadata>,
    /// [`ToolOptions::input_examples`], checked; `None` for a tool without any (most), which
    /// costs nothing.
    examples: Option<Arc<InputExamples>>,
    callers: ToolCallers,
    /// Whether dispatch checks the arguments against the schema before the tool sees them
    /// ([`FastPath::Plain`]: a hand-written tool).
    #[cfg(feature = "schema-validation")]
    checks_arguments: bool,
    /// Whether a call waits for a person ([`ToolOptions::approval`]).
    approval: ToolApproval,
    /// Whether the tool that runs the calls is typed ([`FastPath::Typed`]): its decoder then
    /// measures the arguments' size and depth, and dispatch does not walk them first.
    typed: bool,
    /// The rest of the tool's options, which only listings read (MCP `tools/list`, the checks
    /// of [`check_requirements`](ToolRegistry::check_requirements)); shared by every clone, and
    /// `None` for a tool that sets none of them (most), which then costs no allocation.
    listed: Option<Arc<Listed>>,
}

/// What a registered tool's listings read of its [`ToolOptions`].
#[derive(Default)]
struct Listed {
    annotations: ToolAnnotations,
    output_schema: Option<Arc<Value>>,
    task_support: TaskSupport,
    requires_tools: Vec<&'static str>,
}

impl Listed {
    /// What listings read of `options`; `None` when all of it is the default.
    fn of(options: ToolOptions) -> Option<Arc<Listed>> {
        let listed = Listed {
            annotations: options.annotations,
            output_schema: options.output_schema,
            task_support: options.task_support,
            requires_tools: options.requires_tools,
        };
        let default = listed.annotations == ToolAnnotations::default()
            && listed.output_schema.is_none()
            && listed.task_support == TaskSupport::default()
            && listed.requires_tools.is_empty();
        (!default).then(|| Arc::new(listed))
    }
}

impl RegisteredTool {
    /// The tool itself.
    pub fn tool(&self) -> &Arc<dyn Tool> {
        &self.tool
    }

    /// The tool's name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The tool's description.
    pub fn description(&self) -> &'static str {
        self.description
    }

    /// The tool's argument schema in canonical form ([`schema::canonicalize`]).
    ///
    /// A hand-written tool's schema is held as compact JSON text until the first call of this
    /// method (or of [`spec`](Self::spec)), which parses it once; see the memory target in
    /// `BENCHMARKS.md`.
    pub fn schema(&self) -> &Arc<Value> {
        self.schema.value()
    }

    /// Calls `read` with the canonical schema, parsing it for this call alone when it is held as
    /// text (see [`schema`](Self::schema)), so that reading every tool once costs no memory.
    pub(crate) fn peek_schema<R>(&self, read: impl FnOnce(&Value) -> R) -> R {
        self.schema.peek(read)
    }

    /// The argument schema in `dialect`, computed at most once per tool and dialect.
    pub fn dialect_schema(&self, dialect: Dialect) -> Result<&Value, &DialectError> {
        self.schema.dialects().get(self.schema.value(), dialect)
    }

    /// The tool's exposure.
    pub fn exposure(&self) -> ToolExposure {
        self.exposure
    }

    /// The timeout that applies to the tool (its own, or the configured default).
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// The most bytes of one call's output the model reads: the tool's own
    /// [`max_result`](ToolOptions::max_result) (a budget in tokens as its byte estimate), or
    /// [`ToolConfig::max_output_bytes`](crate::ToolConfig::max_output_bytes).
    pub fn result_limit(&self) -> usize {
        self.result_limit
    }

    /// The tool's metadata.
    pub fn metadata(&self) -> &ToolMetadata {
        &self.metadata
    }

    /// The tool's [`input_examples`](ToolOptions::input_examples), as checked at registration.
    pub fn input_examples(&self) -> &[Value] {
        self.examples.as_deref().map_or(&[], InputExamples::values)
    }

    /// Who may call the tool ([`ToolOptions::callers`]), as read at registration.
    pub fn callers(&self) -> ToolCallers {
        self.callers
    }

    /// Whether a call of the tool waits for a person ([`ToolOptions::approval`]), as read at
    /// registration. A typed tool's rule sees the decoded arguments
    /// ([`ToolApproval::when_args`]).
    pub fn approval(&self) -> &ToolApproval {
        &self.approval
    }

    /// The tool's hints for MCP clients ([`ToolOptions::annotations`]).
    pub fn annotations(&self) -> ToolAnnotations {
        self.listed
            .as_ref()
            .map(|listed| listed.annotations)
            .unwrap_or_default()
    }

    /// The tool's output schema ([`ToolOptions::output_schema`]), when it has one.
    pub fn output_schema(&self) -> Option<&Arc<Value>> {
        self.listed.as_ref()?.output_schema.as_ref()
    }

    /// Whether an MCP client may get the tool's call as a task ([`ToolOptions::task_support`]).
    pub fn task_support(&self) -> TaskSupport {
        self.listed
            .as_ref()
            .map(|listed| listed.task_support)
            .unwrap_or_default()
    }

    /// The names of the tools this one needs beside it ([`ToolOptions::requires_tools`]).
    pub fn requires_tools(&self) -> &[&'static str] {
        self.listed
            .as_ref()
            .map_or(&[], |listed| &listed.requires_tools)
    }

    /// The tool as offered to a model. Cheap: shares the schema.
    pub fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name,
            description: self.description,
            schema: self.schema.value().clone(),
            dialects: self.schema.dialects().clone(),
            examples: self.examples.clone(),
            callers: self.callers,
        }
    }

    fn describe(&self) -> String {
        format!(
            "`{}` from {} {} ({:?})",
            self.name, self.metadata.origin, self.metadata.version, self.description
        )
    }
}

/// The tool at the end of a chain of forwarding wrappers (a toolset's tools put into another
/// toolset are wrapped twice).
fn call_target(tool: &Arc<dyn Tool>) -> Arc<dyn Tool> {
    let mut target = tool.clone();
    while let FastPath::Forward(inner) = target.__fast_path() {
        let inner = inner.clone();
        target = inner;
    }
    target
}

impl fmt::Debug for RegisteredTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RegisteredTool")
            .field("name", &self.name)
            .field("exposure", &self.exposure)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

/// The tools an agent can use, in registration order.
///
/// ```
/// # use phi_agent::{registry::ToolRegistry, AgentResult, Content, Tool, ToolContext, ToolConfig};
/// # use serde_json::{json, Value};
/// # struct Ping;
/// # #[async_trait::async_trait]
/// # impl Tool for Ping {
/// #     fn name(&self) -> &'static str { "ping" }
/// #     fn description(&self) -> &'static str { "Answer pong" }
/// #     fn schema(&self) -> Value { json!({"type": "object"}) }
/// #     async fn call(&self, _: &Value, _: &ToolContext) -> AgentResult<Vec<Content>> {
/// #         Ok(vec![Content::text("pong")])
/// #     }
/// # }
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> AgentResult<()> {
/// let mut registry = ToolRegistry::new(ToolConfig::default());
/// registry.register(Ping)?;
/// assert!(registry.register(Ping).is_err(), "one name, one tool");
///
/// let active = registry.visible_tools(&Default::default()).await;
/// let result = registry.dispatch(&active, "ping", &json!({}), &ToolContext::default()).await;
/// assert!(!result.is_error);
/// assert_eq!(result.content[0].as_text(), Some("pong"));
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Default)]
pub struct ToolRegistry {
    tools: Vec<RegisteredTool>,
    by_name: FxHashMap<&'static str, usize>,
    config: ToolConfig,
    direct_list: DirectList,
    /// Whether the tools only code may call ([`ToolCallers::Code`]) are offered to the model's
    /// provider too: only when its client speaks programmatic tool calling, so that the
    /// provider's sandbox can call them (see [`set_code_callers`](Self::set_code_callers)).
    code_callers: bool,
    /// Whether some tool is not callable by both the model and code ([`ToolCallers::Both`]):
    /// while none is, a call's caller need not be checked.
    restricts_callers: bool,
    /// Sources of tools that change while the registry is in use; see [`ToolSource`].
    live: LiveSources,
}

impl ToolRegistry {
    /// An empty registry with the given limits.
    pub fn new(config: ToolConfig) -> Self {
        Self {
            tools: Vec::new(),
            by_name: FxHashMap::default(),
            config,
            direct_list: DirectList::default(),
            code_callers: false,
            restricts_callers: false,
            live: LiveSources::default(),
        }
    }

    /// Offers the tools only code may call to the model's provider (`true`: its client speaks
    /// programmatic tool calling, [`LlmClient::programmatic_tool_calling`]), or leaves them out
    /// of the model's tools (`false`, the default). Set by the agent once, when it is built.
    ///
    /// [`LlmClient::programmatic_tool_calling`]: crate::llm::LlmClient::programmatic_tool_calling
    pub(crate) fn set_code_callers(&mut self, on: bool) {
        self.code_callers = on;
        self.forget_direct_list();
    }

    /// Whether `tool` is among the model's tools when active: a tool the model may call
    /// directly, or any tool when the provider runs the model's code itself.
    pub(crate) fn offers(&self, tool: &RegisteredTool) -> bool {
        self.code_callers || tool.callers.allows_direct()
    }

    /// Registers `tool`: checks its name, refuses a second tool of the same name, and reads its
    /// schema (refused unless its root is a plain object schema, see [`schema::check_root`]),
    /// exposure, timeout and metadata once.
    pub fn register(&mut self, tool: impl Tool + 'static) -> AgentResult<()> {
        self.register_arc(Arc::new(tool))
    }

    /// Registers a shared tool; see [`register`](Self::register).
    pub fn register_arc(&mut self, tool: Arc<dyn Tool>) -> AgentResult<()> {
        let entry = self.read_tool(tool)?;
        if let Some(&index) = self.by_name.get(entry.name) {
            return Err(AgentError::DuplicateTool {
                name: entry.name.to_string(),
                first: self.tools[index].describe(),
                second: entry.describe(),
            });
        }
        self.restricts_callers |= entry.callers != ToolCallers::Both;
        self.by_name.insert(entry.name, self.tools.len());
        self.tools.push(entry);
        self.forget_direct_list();
        self.forget_live();
        Ok(())
    }

    /// `tool` with everything read from it once: its name checked (not against the other
    /// tools), its schema, timeout, options and metadata.
    fn read_tool(&self, tool: Arc<dyn Tool>) -> AgentResult<RegisteredTool> {
        let name = tool.name();
        validate_tool_name(name)?;
        let timeout_ms = match tool.timeout_ms() {
            Some(0) => {
                return Err(AgentError::Config(format!(
                    "tool `{name}` has a timeout of 0 ms; give it a positive timeout or return None for the default"
                )));
            }
            Some(ms) => ms,
            None => self.config.default_tool_timeout_ms,
        };
        let invalid = |problem: schema::SchemaProblem| AgentError::InvalidSchema {
            tool: name.to_string(),
            problem: problem.to_string(),
        };
        let target = call_target(&tool);
        let fast_path = target.__fast_path();
        let typed = match fast_path {
            FastPath::Typed(typed) => Some(typed),
            _ => None,
        };
        let schema = match typed {
            Some(typed) => {
                let shared = typed.shared_schema();
                schema::check_root(&shared).map_err(invalid)?;
                StoredSchema::shared(shared)
            }
            None => {
                let schema = schema::canonicalize(tool.schema());
                schema::check_root(&schema).map_err(invalid)?;
                StoredSchema::compact(schema)
            }
        };
        let mut options = tool.options();
        let description = tool.description();
        let examples = std::mem::take(&mut options.input_examples);
        let examples =
            schema.peek(|schema| examples::checked(typed, name, description, schema, examples))?;
        #[cfg(feature = "schema-validation")]
        let checks_arguments = matches!(fast_path, FastPath::Plain);
        let typed = typed.is_some();
        Ok(RegisteredTool {
            name,
            description,
            examples,
            callers: options.callers,
            schema: Arc::new(schema),
            exposure: tool.exposure(),
            timeout: Duration::from_millis(timeout_ms),
            result_limit: options
                .max_result
                .map_or(self.config.max_output_bytes, ResultBudget::bytes),
            metadata: Arc::new(tool.metadata()),
            #[cfg(feature = "schema-validation")]
            checks_arguments,
            approval: std::mem::take(&mut options.approval),
            typed,
            listed: Listed::of(options),
            target,
            tool,
        })
    }

    /// Registers every tool of `tools`, in order, stopping at the first error.
    pub fn register_all(
        &mut self,
        tools: impl IntoIterator<Item = Arc<dyn Tool>>,
    ) -> AgentResult<()> {
        tools
            .into_iter()
            .try_for_each(|tool| self.register_arc(tool))
    }

    /// Registers every tool of `toolset` under the name the toolset gives it, in order, stopping
    /// at the first error: names are checked as for [`register`](Self::register).
    pub fn register_toolset(&mut self, toolset: Toolset) -> AgentResult<()> {
        self.register_all(toolset.into_tools())
    }

    /// Checks every tool's [`requires_tools`](ToolOptions::requires_tools): each name must be a
    /// registered tool that is not hidden. A deferred tool that waits for a tool that is never
    /// active never activates itself, and nothing else would say so; the error names the tool,
    /// the missing name and the registered name closest to it.
    ///
    /// [`PhiAgent::build`](crate::PhiAgent::build) runs this check. A registry used without an
    /// agent gets it from this one call, once every tool is registered; skip it only when the
    /// required tools come from another source, named in
    /// [`ActivationContext::current_tools`](crate::ActivationContext::current_tools).
    ///
    /// ```
    /// # use phi_agent::{registry::ToolRegistry, phi_tool, tools};
    /// /// Read a file.
    /// #[phi_tool]
    /// fn file_read(path: String) -> String { path }
    ///
    /// /// Write a file, once reading is offered.
    /// #[phi_tool(exposure = "deferred", requires_tools = ["file_reed"])]
    /// fn file_write(path: String) -> String { path }
    ///
    /// let mut registry = ToolRegistry::default();
    /// registry.register_all(tools![file_read, file_write])?;
    /// let error = registry.check_requirements().unwrap_err();
    /// assert!(error.to_string().contains("did you mean `file_read`?"), "{error}");
    /// # Ok::<(), phi_agent::AgentError>(())
    /// ```
    pub fn check_requirements(&self) -> AgentResult<()> {
        for entry in &self.tools {
            for &required in entry.requires_tools() {
                let found = self.get(required);
                if found.is_some_and(|found| found.exposure != ToolExposure::Hidden) {
                    continue;
                }
                let closest = match found {
                    Some(_) => None,
                    None => mistakes::closest(
                        required,
                        self.tools
                            .iter()
                            .filter(|other| {
                                other.exposure != ToolExposure::Hidden && other.name != entry.name
                            })
                            .map(|other| other.name),
                    ),
                };
                return Err(AgentError::RequiredToolMissing {
                    tool: entry.name.to_string(),
                    required: required.to_string(),
                    hidden: found.is_some(),
                    closest: closest.map(str::to_string),
                });
            }
        }
        Ok(())
    }

    /// The tool registered as `name`, whatever its exposure.
    pub fn get(&self, name: &str) -> Option<&RegisteredTool> {
        self.by_name.get(name).map(|&index| &self.tools[index])
    }

    /// The tool named `name` with its registration index, in one lookup.
    pub(crate) fn entry(&self, name: &str) -> Option<(usize, &RegisteredTool)> {
        self.by_name
            .get(name)
            .map(|&index| (index, &self.tools[index]))
    }

    /// Whether some tool is Deferred: one that tool search can find, and whose activation can
    /// differ between sessions.
    pub(crate) fn has_deferred(&self) -> bool {
        self.tools
            .iter()
            .any(|tool| tool.exposure == ToolExposure::Deferred)
    }

    /// Whether some tool is not callable by both the model and code.
    pub(crate) fn restricts_callers(&self) -> bool {
        self.restricts_callers
    }

    /// The registration index of the tool named `name` (its place in [`iter`](Self::iter)).
    pub fn position(&self, name: &str) -> Option<usize> {
        self.index_of(name)
    }

    /// All registered tools in registration order, hidden ones included.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &RegisteredTool> {
        self.tools.iter()
    }

    /// Number of registered tools.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether no tool is registered.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The limits this registry applies.
    pub fn config(&self) -> &ToolConfig {
        &self.config
    }

    fn index_of(&self, name: &str) -> Option<usize> {
        self.by_name.get(name).copied()
    }
}
