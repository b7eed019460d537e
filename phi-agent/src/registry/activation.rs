//! Which tools the model may see and call: Direct ones, and Deferred ones once activated.
//!
//! Activation is evaluated to a fixpoint (activating one tool may activate another), never
//! deactivates within a session (so a provider's prompt cache stays valid), and keeps
//! registration order (so requests are deterministic). Hidden tools are never active.

use super::{RegisteredTool, ToolRegistry};
use crate::context::ActivationContext;
use crate::tool::ToolExposure;

/// One session's set of active tools. Create it with [`ToolRegistry::active_tools`], advance it
/// with [`ToolRegistry::activate`] after every turn.
#[derive(Debug, Clone)]
pub struct ActiveTools {
    active: Vec<bool>,
    /// Names from the starting context that this registry does not hold (tools of another
    /// source); predicates keep seeing them.
    external: Vec<String>,
    context: ActivationContext,
    generation: u64,
}

impl ActiveTools {
    /// Names of the active tools, in registration order.
    pub fn names(&self) -> &[String] {
        &self.context.current_tools[..self.context.current_tools.len() - self.external.len()]
    }

    /// Whether the tool at registration index `index` is active.
    pub fn is_active(&self, index: usize) -> bool {
        self.active.get(index).copied().unwrap_or(false)
    }

    /// The context that activation predicates see.
    pub fn context(&self) -> &ActivationContext {
        &self.context
    }

    /// A number that changes whenever the set changes, to key caches of the tool list on.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The active names joined for an error message.
    pub(crate) fn names_for_message(&self) -> String {
        match self.names() {
            [] => "(none)".to_string(),
            names => names.join(", "),
        }
    }
}

impl ToolRegistry {
    /// The starting set for a session described by `context`: every Direct tool, plus the
    /// Deferred tools that `context.current_tools` names as already active. Activation predicates
    /// are not consulted yet; call [`activate`](Self::activate) for that. Names in
    /// `context.current_tools` that this registry does not hold stay in the context that
    /// predicates see.
    pub fn active_tools(&self, context: &ActivationContext) -> ActiveTools {
        let active: Vec<bool> = self
            .tools
            .iter()
            .map(|tool| match tool.exposure {
                ToolExposure::Direct => true,
                ToolExposure::Deferred => context.has_tool(tool.name),
                ToolExposure::Hidden => false,
            })
            .collect();
        let external = context
            .current_tools
            .iter()
            .filter(|name| self.get(name).is_none())
            .cloned()
            .collect();
        let mut set = ActiveTools {
            active,
            external,
            context: context.clone(),
            generation: 0,
        };
        self.refresh_names(&mut set);
        set
    }

    /// Evaluates the inactive Deferred tools' predicates until nothing changes, and returns the
    /// names newly activated, in registration order of activation.
    pub async fn activate(&self, set: &mut ActiveTools) -> Vec<&'static str> {
        debug_assert_eq!(
            set.active.len(),
            self.tools.len(),
            "ActiveTools of another registry"
        );
        let mut activated = Vec::new();
        loop {
            let mut changed = false;
            for (index, tool) in self.tools.iter().enumerate() {
                if set.active[index] || tool.exposure != ToolExposure::Deferred {
                    continue;
                }
                if tool.tool.should_activate(&set.context).await {
                    set.active[index] = true;
                    activated.push(tool.name);
                    self.refresh_names(set);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        if !activated.is_empty() {
            set.generation += 1;
        }
        activated
    }

    /// The session's visible tools, starting from `context` and evaluating activation: a
    /// shortcut for [`active_tools`](Self::active_tools) followed by [`activate`](Self::activate).
    pub async fn visible_tools(&self, context: &ActivationContext) -> ActiveTools {
        let mut set = self.active_tools(context);
        self.activate(&mut set).await;
        set
    }

    /// The active tools of `set`, in registration order.
    pub fn visible<'a>(
        &'a self,
        set: &'a ActiveTools,
    ) -> impl Iterator<Item = &'a RegisteredTool> + 'a {
        self.tools
            .iter()
            .enumerate()
            .filter(|(index, _)| set.is_active(*index))
            .map(|(_, tool)| tool)
    }

    fn refresh_names(&self, set: &mut ActiveTools) {
        set.context.current_tools = self
            .tools
            .iter()
            .enumerate()
            .filter(|(index, _)| set.active[*index])
            .map(|(_, tool)| tool.name.to_string())
            .chain(set.external.iter().cloned())
            .collect();
    }
}
