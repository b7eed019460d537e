//! The registry itself: its tools in registration order, their names, and registration.
//!
//! Its fields are the data the other files of the registry read (the registered tools, the
//! shared Direct list, the live sources); the `impl ToolRegistry` blocks of each concern
//! (activation, the tool lists, live tools, dispatch) are in their own files and name this one.

use std::sync::Arc;
use std::time::Duration;

use rustc_hash::FxHashMap;

use super::direct_list::DirectList;
use super::examples;
use super::limiter::Limiter;
use super::live_set::LiveSources;
use super::name::validate_tool_name;
use super::registered::{Listed, RegisteredTool, call_target};
use super::stored_schema::StoredSchema;
use crate::budget::ResultBudget;
use crate::config::ToolConfig;
use crate::error::{AgentError, AgentResult, mistakes};
use crate::schema;
use crate::tool::{FastPath, Tool, ToolCallers, ToolExposure};
use crate::toolset::Toolset;

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
    pub(super) tools: Vec<RegisteredTool>,
    pub(super) by_name: FxHashMap<&'static str, usize>,
    pub(super) config: ToolConfig,
    pub(super) direct_list: DirectList,
    /// Whether the tools only code may call ([`ToolCallers::Code`]) are offered to the model's
    /// provider too: only when its client speaks programmatic tool calling, so that the
    /// provider's sandbox can call them (see [`set_code_callers`](Self::set_code_callers)).
    pub(super) code_callers: bool,
    /// Whether some tool is not callable by both the model and code ([`ToolCallers::Both`]):
    /// while none is, a call's caller need not be checked.
    pub(super) restricts_callers: bool,
    /// Whether some tool is [`sequential`](crate::ToolLimits::sequential): while none is, a
    /// turn's calls need not be looked at before they run together.
    pub(super) has_sequential: bool,
    /// Sources of tools that change while the registry is in use; see [`ToolSource`].
    pub(super) live: LiveSources,
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
            has_sequential: false,
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
        self.has_sequential |= entry.sequential;
        self.by_name.insert(entry.name, self.tools.len());
        self.tools.push(entry);
        self.forget_direct_list();
        self.forget_live();
        Ok(())
    }

    /// `tool` with everything read from it once: its name checked (not against the other
    /// tools), its schema, timeout, options and metadata.
    pub(super) fn read_tool(&self, tool: Arc<dyn Tool>) -> AgentResult<RegisteredTool> {
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
        if let Some(uri) = options.ui_resource.as_deref()
            && !uri.starts_with("ui://")
        {
            return Err(AgentError::Config(format!(
                "tool `{name}` names the view `{uri}`, which is not a `ui://` URI; MCP Apps serve a tool's view as a `ui://` resource"
            )));
        }
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
            group: tool.group().map(Arc::new),
            #[cfg(feature = "schema-validation")]
            checks_arguments,
            approval: std::mem::take(&mut options.approval),
            sequential: options.limits.sequential,
            limiter: Limiter::of(options.limits),
            typed,
            listed: Listed::of(options),
            on_demand: false,
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

    /// Checks every tool's [`requires_tools`](crate::tool::ToolOptions::requires_tools): each
    /// name must be a registered tool that is not hidden. A deferred tool that waits for a tool
    /// that is never active never activates itself, and nothing else would say so; the error
    /// names the tool, the missing name and the registered name closest to it.
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

    /// Whether `name` is a registered [`sequential`](crate::ToolLimits::sequential) tool: a
    /// barrier among its turn's calls.
    pub(crate) fn is_sequential(&self, name: &str) -> bool {
        self.has_sequential && self.get(name).is_some_and(|tool| tool.sequential)
    }

    /// Whether some registered tool is [`sequential`](crate::ToolLimits::sequential).
    pub(crate) fn has_sequential(&self) -> bool {
        self.has_sequential
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

    /// Forgets the shared list, after the set of tools changed.
    pub(super) fn forget_direct_list(&mut self) {
        self.direct_list = DirectList::default();
    }

    /// Empties the live set (a tool or source was registered: names must be checked again).
    pub(super) fn forget_live(&mut self) {
        self.live.current = Arc::default();
    }

    pub(super) fn index_of(&self, name: &str) -> Option<usize> {
        self.by_name.get(name).copied()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct PingArgs {
        #[allow(dead_code)]
        text: String,
    }

    struct Ping;

    #[async_trait::async_trait]
    impl crate::TypedTool for Ping {
        type Args = PingArgs;
        type Output = String;
        fn name(&self) -> &'static str {
            "ping"
        }
        fn description(&self) -> &'static str {
            "Answer pong"
        }
        async fn call_typed(
            &self,
            _: PingArgs,
            _: &crate::ToolContext,
        ) -> crate::AgentResult<String> {
            Ok("pong".into())
        }
    }

    #[test]
    fn typed_tools_share_their_type_schema_across_registries() {
        let mut first = ToolRegistry::default();
        let mut second = ToolRegistry::default();
        first.register(Ping).unwrap();
        second.register(Ping).unwrap();
        let (a, b) = (first.get("ping").unwrap(), second.get("ping").unwrap());
        assert!(Arc::ptr_eq(a.schema(), b.schema()), "one schema per type");
        assert_eq!(a.schema()["required"], json!(["text"]));
    }
}
