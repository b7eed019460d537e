//! The one wrapper a toolset puts around a tool whose name, exposure or approval it changed.
//!
//! Every combinator edits the fields of this one wrapper rather than wrapping again, so a tool
//! inside any chain of combinators is one forwarding call away from the tool itself, and a tool
//! no combinator changed is registered as it came, unwrapped.

use std::sync::Arc;

use async_trait::async_trait;
use rustc_hash::FxHashMap;
use serde_json::Value;

use crate::budget::ResultBudget;
use crate::content::Content;
use crate::context::{ActivationContext, ToolContext};
use crate::error::AgentResult;
use crate::tool::{Tool, ToolAnnotations, ToolCallers, ToolExposure, ToolMetadata};

/// A predicate over a call (the name the model used, its arguments) that says it needs approval.
pub(super) type ApprovalRule = Arc<dyn Fn(&str, &Value) -> bool + Send + Sync>;

/// Whether a toolset asks for approval beyond what the tool itself asks.
#[derive(Clone, Default)]
pub(super) enum ApprovalPolicy {
    /// Only when the tool itself asks.
    #[default]
    Tools,
    /// Every call.
    Always,
    /// When the rule (or the tool itself) says so.
    When(ApprovalRule),
}

impl ApprovalPolicy {
    /// This policy and `rule` together: a call needs approval when either says so.
    pub(super) fn or(self, rule: ApprovalRule) -> Self {
        match self {
            ApprovalPolicy::Tools => ApprovalPolicy::When(rule),
            ApprovalPolicy::Always => ApprovalPolicy::Always,
            ApprovalPolicy::When(first) => ApprovalPolicy::When(Arc::new(move |name, args| {
                first(name, args) || rule(name, args)
            })),
        }
    }
}

/// The names a renamed tool's siblings have now, mapped to the names the tool itself knows them
/// by (its `requires_tools`, its `should_activate`). Shared by every tool of one toolset.
pub(super) type NameView = Arc<FxHashMap<&'static str, &'static str>>;

/// A tool of a toolset, with what the toolset changed about it.
#[derive(Clone)]
pub(super) struct Entry {
    pub(super) tool: Arc<dyn Tool>,
    /// The name the model sees (interned); the tool's own unless renamed.
    pub(super) name: &'static str,
    pub(super) exposure: Option<ToolExposure>,
    pub(super) approval: ApprovalPolicy,
    pub(super) max_result: Option<usize>,
    pub(super) callers: Option<ToolCallers>,
}

impl Entry {
    pub(super) fn new(tool: Arc<dyn Tool>) -> Self {
        Entry {
            name: tool.name(),
            tool,
            exposure: None,
            approval: ApprovalPolicy::Tools,
            max_result: None,
            callers: None,
        }
    }

    pub(super) fn is_renamed(&self) -> bool {
        self.name != self.tool.name()
    }

    fn is_changed(&self) -> bool {
        self.is_renamed()
            || self.exposure.is_some()
            || self.max_result.is_some()
            || self.callers.is_some()
            || !matches!(self.approval, ApprovalPolicy::Tools)
    }

    /// The tool to register: the tool itself when nothing changed, else one wrapper.
    pub(super) fn into_tool(self, view: Option<&NameView>) -> Arc<dyn Tool> {
        if !self.is_changed() {
            return self.tool;
        }
        let requires_tools = match view {
            Some(view) => {
                let own = self.tool.requires_tools();
                // The siblings' new names, for the names the tool declared.
                let renamed: Vec<&'static str> = own
                    .iter()
                    .map(|&required| {
                        let mut now = view
                            .iter()
                            .filter(|&(_, &old)| old == required)
                            .map(|(&now, _)| now);
                        match (now.next(), now.next()) {
                            (Some(only), None) => only,
                            _ => required,
                        }
                    })
                    .collect();
                if renamed.as_slice() == own {
                    own
                } else {
                    super::intern::intern_list(renamed)
                }
            }
            None => self.tool.requires_tools(),
        };
        Arc::new(Wrapped {
            view: view.filter(|_| self.is_renamed()).cloned(),
            requires_tools,
            entry: self,
        })
    }
}

/// A tool seen through a toolset: every method forwards, but for what the toolset changed.
struct Wrapped {
    entry: Entry,
    requires_tools: &'static [&'static str],
    view: Option<NameView>,
}

#[async_trait]
impl Tool for Wrapped {
    fn name(&self) -> &'static str {
        self.entry.name
    }

    fn description(&self) -> &'static str {
        self.entry.tool.description()
    }

    fn schema(&self) -> Value {
        self.entry.tool.schema()
    }

    async fn call(&self, args: &Value, ctx: &ToolContext) -> AgentResult<Vec<Content>> {
        self.entry.tool.call(args, ctx).await
    }

    fn timeout_ms(&self) -> Option<u64> {
        self.entry.tool.timeout_ms()
    }

    fn max_result_bytes(&self) -> Option<usize> {
        self.entry
            .max_result
            .or_else(|| self.entry.tool.max_result_bytes())
    }

    fn max_result(&self) -> Option<ResultBudget> {
        match self.entry.max_result {
            Some(bytes) => Some(ResultBudget::Bytes(bytes)),
            None => self.entry.tool.max_result(),
        }
    }

    fn callers(&self) -> ToolCallers {
        self.entry
            .callers
            .unwrap_or_else(|| self.entry.tool.callers())
    }

    fn metadata(&self) -> ToolMetadata {
        ToolMetadata {
            name: self.entry.name.to_string(),
            ..self.entry.tool.metadata()
        }
    }

    fn exposure(&self) -> ToolExposure {
        self.entry
            .exposure
            .unwrap_or_else(|| self.entry.tool.exposure())
    }

    fn annotations(&self) -> ToolAnnotations {
        self.entry.tool.annotations()
    }

    fn output_schema(&self) -> Option<Value> {
        self.entry.tool.output_schema()
    }

    fn input_examples(&self) -> Vec<Value> {
        self.entry.tool.input_examples()
    }

    fn __check_input_example(&self, example: &Value) -> AgentResult<()> {
        self.entry.tool.__check_input_example(example)
    }

    fn task_support(&self) -> crate::tool::TaskSupport {
        self.entry.tool.task_support()
    }

    fn __call_target(&self) -> Option<Arc<dyn Tool>> {
        // `call` only forwards: the registry may call the tool itself.
        Some(self.entry.tool.clone())
    }

    fn __canonical_schema(&self) -> Option<Arc<Value>> {
        self.entry.tool.__canonical_schema()
    }

    fn __checks_own_arguments(&self) -> bool {
        self.entry.tool.__checks_own_arguments()
    }

    fn __may_need_approval(&self) -> bool {
        match &self.entry.approval {
            ApprovalPolicy::Tools => self.entry.tool.__may_need_approval(),
            ApprovalPolicy::Always | ApprovalPolicy::When(_) => true,
        }
    }

    async fn needs_approval(&self, args: &Value, ctx: &ToolContext) -> bool {
        let by_toolset = match &self.entry.approval {
            ApprovalPolicy::Tools => false,
            ApprovalPolicy::Always => true,
            ApprovalPolicy::When(rule) => rule(self.entry.name, args),
        };
        by_toolset || self.entry.tool.needs_approval(args, ctx).await
    }

    fn requires_tools(&self) -> &'static [&'static str] {
        self.requires_tools
    }

    async fn should_activate(&self, ctx: &ActivationContext) -> bool {
        let Some(view) = &self.view else {
            return self.entry.tool.should_activate(ctx).await;
        };
        // The tool asks after its siblings by the names it knows them by.
        let seen = ActivationContext {
            session_id: ctx.session_id.clone(),
            current_tools: ctx
                .current_tools
                .iter()
                .map(|name| match view.get(name.as_str()) {
                    Some(old) => (*old).to_string(),
                    None => name.clone(),
                })
                .collect(),
            workspace: ctx.workspace.clone(),
        };
        self.entry.tool.should_activate(&seen).await
    }
}
