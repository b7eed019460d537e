//! Which tools the model may see and call: Direct ones, and Deferred ones once activated.
//!
//! Activation is evaluated to a fixpoint (activating one tool may activate another), never
//! deactivates within a session (so a provider's prompt cache stays valid), and keeps
//! registration order (so requests are deterministic). Hidden tools are never active.
//!
//! A set may instead be *discovering* (tool search): a Deferred tool whose predicate holds then
//! becomes discoverable rather than active, and becomes active only when the program reveals it
//! (the model found it). Revealed tools come after the others, in the order they were found, so
//! the earlier part of the tool list never changes.
//!
//! A Deferred tool may be held for loading ([`ToolRegistry::hold_for_load`]: a skill brings it):
//! its predicate is not asked and no search finds it; it becomes active when the program loads
//! it ([`ToolRegistry::load`]), after the tools active before, as a revealed tool does.

use super::registered::RegisteredTool;
use super::tool_registry::ToolRegistry;
use crate::context::ActivationContext;
use crate::error::{AgentError, AgentResult};
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
    /// Whether Deferred tools wait to be found instead of activating (tool search).
    discovering: bool,
    /// Deferred tools whose predicate held while discovering; never cleared.
    discoverable: Vec<bool>,
    /// Revealed tools, by registration index, in the order they were found.
    found: Vec<usize>,
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

    /// Whether the tool at registration index `index` may be found by a search: a Deferred tool
    /// whose predicate held while the set was discovering (revealed ones included).
    pub fn is_discoverable(&self, index: usize) -> bool {
        self.discoverable.get(index).copied().unwrap_or(false)
    }

    /// Which tools, by registration index, are discoverable.
    pub(crate) fn discoverable_mask(&self) -> &[bool] {
        &self.discoverable
    }

    /// How many tools are discoverable, revealed ones included.
    pub fn discoverable_count(&self) -> usize {
        self.discoverable.iter().filter(|&&d| d).count()
    }

    /// Whether Deferred tools wait to be found (see the module docs) instead of activating.
    pub fn is_discovering(&self) -> bool {
        self.discovering
    }

    /// Makes Deferred tools wait to be found from now on; they are not offered before. Tools
    /// already active stay active.
    pub fn start_discovery(&mut self) {
        self.discovering = true;
    }

    /// Registration indices of the revealed tools, in the order they were found.
    pub fn found(&self) -> &[usize] {
        &self.found
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
            discoverable: vec![false; active.len()],
            active,
            external,
            context: context.clone(),
            generation: 0,
            discovering: false,
            found: Vec::new(),
        };
        self.refresh_names(&mut set);
        set
    }

    /// Evaluates the inactive Deferred tools' predicates until nothing changes, and returns the
    /// names newly activated, in registration order of activation. A discovering set activates
    /// nothing: a tool whose predicate holds becomes discoverable instead (and is not asked
    /// again).
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
                if set.active[index]
                    || set.discoverable[index]
                    || tool.exposure != ToolExposure::Deferred
                    || tool.on_demand
                {
                    continue;
                }
                if tool.tool.should_activate(&set.context).await {
                    if set.discovering {
                        // Discoverable tools are not active, so no other predicate can change
                        // because of this one: no further round is needed for it.
                        set.discoverable[index] = true;
                        continue;
                    }
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

    /// Ends discovery: every discoverable tool not yet revealed becomes active, in registration
    /// order, and Deferred tools activate as usual from now on. Returns the names newly
    /// activated (with those that the next [`activate`](Self::activate) round would add).
    pub async fn end_discovery(&self, set: &mut ActiveTools) -> Vec<&'static str> {
        set.discovering = false;
        let mut activated = Vec::new();
        for (index, tool) in self.tools.iter().enumerate() {
            if set.discoverable[index] && !set.active[index] {
                set.active[index] = true;
                activated.push(tool.name);
            }
        }
        // What is revealed keeps its place among the rest: registration order for all.
        set.found.clear();
        if !activated.is_empty() {
            self.refresh_names(set);
            set.generation += 1;
        }
        activated.extend(self.activate(set).await);
        activated
    }

    /// Makes the discoverable tools at registration indices `indices` active (the model found
    /// them), after the ones found before. Returns the names newly revealed; indices of tools
    /// not discoverable, or already active, are passed over.
    pub fn reveal(
        &self,
        set: &mut ActiveTools,
        indices: impl IntoIterator<Item = usize>,
    ) -> Vec<&'static str> {
        let mut revealed = Vec::new();
        for index in indices {
            if set.is_discoverable(index) && !set.active[index] {
                set.active[index] = true;
                set.found.push(index);
                revealed.push(self.tools[index].name);
            }
        }
        if !revealed.is_empty() {
            self.refresh_names(set);
            set.generation += 1;
        }
        revealed
    }

    /// Holds the Deferred tool `name` for loading: from now on it activates only through
    /// [`load`](Self::load), never through its predicate or a search. Fails for a name that is not
    /// registered or a tool that is not Deferred (a Direct tool is always shown; a Hidden one
    /// never is).
    pub fn hold_for_load(&mut self, name: &str) -> AgentResult<usize> {
        let Some(index) = self.index_of(name) else {
            let closest = crate::error::mistakes::closest(name, self.tools.iter().map(|t| t.name));
            let hint = closest.map_or(String::new(), |c| format!(" (did you mean `{c}`?)"));
            return Err(AgentError::Config(format!(
                "no tool is named `{name}`{hint}; register it before the skill that brings it"
            )));
        };
        let tool = &mut self.tools[index];
        if tool.exposure != ToolExposure::Deferred {
            return Err(AgentError::Config(format!(
                "tool `{name}` is {:?}, but a skill brings it: mark it Deferred (`exposure = \"deferred\"`, or `Toolset::with_exposure`) so that it is shown once the skill is loaded",
                tool.exposure
            )));
        }
        tool.on_demand = true;
        Ok(index)
    }

    /// Makes the tools at registration indices `indices` active (a skill that brings them was
    /// loaded), after the tools active before, as a revealed tool is: the earlier part of the
    /// tool list does not change. Returns the names newly activated; indices of tools already
    /// active, or not held for loading, are passed over.
    pub fn load(
        &self,
        set: &mut ActiveTools,
        indices: impl IntoIterator<Item = usize>,
    ) -> Vec<&'static str> {
        let mut loaded = Vec::new();
        for index in indices {
            let Some(tool) = self.tools.get(index) else {
                continue;
            };
            if tool.on_demand && !set.active[index] {
                set.active[index] = true;
                set.found.push(index);
                loaded.push(tool.name);
            }
        }
        if !loaded.is_empty() {
            self.refresh_names(set);
            set.generation += 1;
        }
        loaded
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
