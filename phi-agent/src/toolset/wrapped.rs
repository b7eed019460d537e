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
use crate::tool::{
    FastPath, Tool, ToolApproval, ToolCallers, ToolExposure, ToolMetadata, ToolOptions,
};

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
/// by (its options' `requires_tools`, its `should_activate`). Shared by every tool of one toolset.
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
    /// The group [`Toolset::group`](super::Toolset::group) puts the tool in, over its own.
    pub(super) group: Option<crate::tool::ToolGroup>,
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
            group: None,
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
            || self.group.is_some()
            || !matches!(self.approval, ApprovalPolicy::Tools)
    }

    /// The tool to register: the tool itself when nothing changed, else one wrapper. `view`
    /// maps the toolset's new names to the old ones, when it renamed any tool.
    pub(super) fn into_tool(self, view: Option<&NameView>) -> Arc<dyn Tool> {
        if !self.is_changed() {
            return self.tool;
        }
        Arc::new(Wrapped {
            view: view.cloned(),
            entry: self,
        })
    }

    /// What the toolset asks about a call, beside what the tool itself asks.
    fn approval(&self) -> ToolApproval {
        match &self.approval {
            ApprovalPolicy::Tools => ToolApproval::Never,
            ApprovalPolicy::Always => ToolApproval::Always,
            ApprovalPolicy::When(rule) => {
                let (rule, name) = (rule.clone(), self.name);
                ToolApproval::when(move |args, _ctx| rule(name, args))
            }
        }
    }
}

/// A tool seen through a toolset: every method forwards, but for what the toolset changed (its
/// name, exposure and options, and the names it knows its siblings by).
struct Wrapped {
    entry: Entry,
    view: Option<NameView>,
}

impl Wrapped {
    /// The siblings' new names, for the names the tool declared.
    fn renamed_requirements(&self, own: Vec<&'static str>) -> Vec<&'static str> {
        let Some(view) = &self.view else {
            return own;
        };
        own.into_iter()
            .map(|required| {
                let mut now = view
                    .iter()
                    .filter(|&(_, &old)| old == required)
                    .map(|(&now, _)| now);
                match (now.next(), now.next()) {
                    (Some(only), None) => only,
                    _ => required,
                }
            })
            .collect()
    }
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

    fn metadata(&self) -> ToolMetadata {
        ToolMetadata {
            name: self.entry.name.to_string(),
            ..self.entry.tool.metadata()
        }
    }

    fn group(&self) -> Option<crate::tool::ToolGroup> {
        self.entry.group.clone().or_else(|| self.entry.tool.group())
    }

    fn exposure(&self) -> ToolExposure {
        self.entry
            .exposure
            .unwrap_or_else(|| self.entry.tool.exposure())
    }

    async fn should_activate(&self, ctx: &ActivationContext) -> bool {
        let Some(view) = self.view.as_ref().filter(|_| self.entry.is_renamed()) else {
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

    fn options(&self) -> ToolOptions {
        let mut options = self.entry.tool.options();
        if let Some(bytes) = self.entry.max_result {
            options.max_result = Some(ResultBudget::Bytes(bytes));
        }
        if let Some(callers) = self.entry.callers {
            options.callers = callers;
        }
        options.approval = std::mem::take(&mut options.approval).or(self.entry.approval());
        options.requires_tools = self.renamed_requirements(options.requires_tools);
        options
    }

    fn __fast_path(&self) -> FastPath<'_> {
        // `call` only forwards: the registry may call the tool itself.
        FastPath::Forward(&self.entry.tool)
    }
}
