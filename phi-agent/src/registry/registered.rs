//! A registered tool: a tool together with everything read from it once, at registration.
//!
//! Data only, naming no registry: [`ToolRegistry`](super::ToolRegistry) makes and holds these
//! (in `tool_registry`), and dispatch, activation and the tool lists read their fields.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::examples::InputExamples;
use super::limiter::Limiter;
use super::spec::ToolSpec;
use super::stored_schema::StoredSchema;
use crate::schema::{Dialect, DialectError};
use crate::tool::{
    FastPath, TaskSupport, Tool, ToolAnnotations, ToolApproval, ToolCallers, ToolExposure,
    ToolMetadata, ToolOptions,
};

/// A tool together with everything read from it once, at registration.
#[derive(Clone)]
pub struct RegisteredTool {
    pub(super) tool: Arc<dyn Tool>,
    /// What dispatch calls: the tool, or the tool a forwarding wrapper stands for
    /// ([`FastPath::Forward`]), so that a toolset's wrapper adds nothing to a call.
    pub(super) target: Arc<dyn Tool>,
    pub(super) name: &'static str,
    pub(super) description: &'static str,
    pub(super) schema: Arc<StoredSchema>,
    pub(super) exposure: ToolExposure,
    pub(super) timeout: Duration,
    /// The most bytes of output the model reads of one call ([`ToolOptions::max_result`], or
    /// the configured default).
    pub(super) result_limit: usize,
    pub(super) metadata: Arc<ToolMetadata>,
    /// [`Tool::group`], read at registration.
    pub(super) group: Option<Arc<crate::tool::ToolGroup>>,
    /// [`ToolOptions::input_examples`], checked; `None` for a tool without any (most), which
    /// costs nothing.
    pub(super) examples: Option<Arc<InputExamples>>,
    pub(super) callers: ToolCallers,
    /// Whether dispatch checks the arguments against the schema before the tool sees them
    /// ([`FastPath::Plain`]: a hand-written tool).
    #[cfg(feature = "schema-validation")]
    pub(super) checks_arguments: bool,
    /// Whether a call waits for a person ([`ToolOptions::approval`]).
    pub(super) approval: ToolApproval,
    /// Whether the tool that runs the calls is typed ([`FastPath::Typed`]): its decoder then
    /// measures the arguments' size and depth, and dispatch does not walk them first.
    pub(super) typed: bool,
    /// The rest of the tool's options, which only listings read (MCP `tools/list`, the checks
    /// of [`check_requirements`](super::ToolRegistry::check_requirements)); shared by every clone, and
    /// `None` for a tool that sets none of them (most), which then costs no allocation.
    pub(super) listed: Option<Arc<Listed>>,
    /// Whether the tool activates only when the program loads it ([`ToolRegistry::load`]: a
    /// skill that names it was loaded), never through its predicate or a search.
    ///
    /// [`ToolRegistry::load`]: super::ToolRegistry::load
    pub(super) on_demand: bool,
    /// [`ToolLimits::sequential`](crate::ToolLimits::sequential): a barrier in its turn's batch.
    pub(super) sequential: bool,
    /// Admits the calls of a tool with a bound on calls at once or a rate; `None` for a tool
    /// without (most), whose calls then pass no check.
    pub(super) limiter: Option<Arc<Limiter>>,
}

/// What a registered tool's listings read of its [`ToolOptions`].
#[derive(Default)]
pub(super) struct Listed {
    pub(super) annotations: ToolAnnotations,
    pub(super) output_schema: Option<Arc<Value>>,
    pub(super) task_support: TaskSupport,
    pub(super) ask_before_task: bool,
    pub(super) requires_tools: Vec<&'static str>,
    pub(super) ui_resource: Option<String>,
}

impl Listed {
    /// What listings read of `options`; `None` when all of it is the default.
    pub(super) fn of(options: ToolOptions) -> Option<Arc<Listed>> {
        let listed = Listed {
            annotations: options.annotations,
            output_schema: options.output_schema,
            task_support: options.task_support,
            ask_before_task: options.ask_before_task,
            requires_tools: options.requires_tools,
            ui_resource: options.ui_resource,
        };
        let default = listed.annotations == ToolAnnotations::default()
            && listed.output_schema.is_none()
            && listed.task_support == TaskSupport::default()
            && !listed.ask_before_task
            && listed.requires_tools.is_empty()
            && listed.ui_resource.is_none();
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

    /// The tool's argument schema in canonical form ([`schema::canonicalize`](crate::schema::canonicalize)).
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

    /// The tool's group ([`Tool::group`]), if it has one.
    pub fn group(&self) -> Option<&crate::tool::ToolGroup> {
        self.group.as_deref()
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

    /// The `ui://` resource of the tool's view ([`ToolOptions::ui_resource`]), when it has one.
    pub fn ui_resource(&self) -> Option<&str> {
        self.listed.as_ref()?.ui_resource.as_deref()
    }

    /// Whether an MCP client may get the tool's call as a task ([`ToolOptions::task_support`]).
    pub fn task_support(&self) -> TaskSupport {
        self.listed
            .as_ref()
            .map(|listed| listed.task_support)
            .unwrap_or_default()
    }

    /// Whether a call answered with a task asks its first questions before the task starts
    /// ([`ToolOptions::ask_before_task`]).
    pub fn ask_before_task(&self) -> bool {
        self.listed
            .as_ref()
            .is_some_and(|listed| listed.ask_before_task)
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
            group: self.group.clone(),
        }
    }

    pub(super) fn describe(&self) -> String {
        format!(
            "`{}` from {} {} ({:?})",
            self.name, self.metadata.origin, self.metadata.version, self.description
        )
    }
}

/// The tool at the end of a chain of forwarding wrappers (a toolset's tools put into another
/// toolset are wrapped twice).
pub(super) fn call_target(tool: &Arc<dyn Tool>) -> Arc<dyn Tool> {
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
