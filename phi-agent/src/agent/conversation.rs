//! The mutable part of a session: what one run borrows and, once it is done, leaves changed.

use std::sync::Arc;

use super::approval::RememberedDecision;

use super::phi::AgentInner;
use super::prefix::Prefix;
use super::steering::Steering;
use super::tool_list::ToolListCache;
use crate::context::ActivationContext;
use crate::llm::{Message, Usage};
use crate::registry::ActiveTools;
use crate::search::ToolSearch;

/// A conversation's id, history and tools: the value a run borrows. A run works on its own copy
/// of the history and writes it back only when it is done, so a failed, dropped or paused run
/// leaves the conversation as it was.
pub(super) struct Conversation {
    pub(super) id: Arc<str>,
    pub(super) history: Vec<Message>,
    pub(super) active: ActiveTools,
    pub(super) tool_list: ToolListCache,
    pub(super) search: SessionSearch,
    /// The usage of the runs that finished in this conversation, summed.
    pub(super) usage: Usage,
    /// The system prompt of this conversation's runs, in place of the agent's.
    pub(super) system: Option<Arc<str>>,
    /// The prefix of the last model request, to report cache busts against.
    pub(super) prefix: Prefix,
    /// Messages a person queued for the next step boundary.
    pub(super) steering: Steering,
    /// The decisions about calls that the session remembers ([`Remember`](crate::Remember)).
    pub(super) remembered: Vec<RememberedDecision>,
}

/// Whether a session's model searches for its Deferred tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum SessionSearch {
    /// Deferred tools are sent once active.
    Off,
    /// Automatic mode before the session's first run, whose plan decides.
    Undecided {
        /// Most discoverable tools sent without searching.
        threshold: usize,
    },
    /// Deferred tools are found with `search_tools`.
    On,
    /// Deferred tools are sent deferred, for the provider's own search to find.
    Native,
}

impl SessionSearch {
    /// Searching: the provider's own search when the model's client has one, else the local one.
    pub(super) fn on(agent: &AgentInner) -> Self {
        if agent.llm.native_tool_search() {
            SessionSearch::Native
        } else {
            SessionSearch::On
        }
    }
}

impl Conversation {
    /// The conversation `id` with `history`, its tools as a new session's.
    pub(super) fn new(agent: &AgentInner, id: Arc<str>, history: Vec<Message>) -> Self {
        let mut active = agent.registry.active_tools(&ActivationContext {
            session_id: id.to_string(),
            current_tools: Vec::new(),
            workspace: agent.workspace.clone(),
        });
        let search = match agent.config.tool_search {
            ToolSearch::Off => SessionSearch::Off,
            ToolSearch::Local => SessionSearch::On,
            ToolSearch::Native => SessionSearch::on(agent),
            ToolSearch::Auto { threshold } => SessionSearch::Undecided { threshold },
        };
        if search != SessionSearch::Off {
            active.start_discovery();
        }
        Self {
            id,
            history,
            active,
            tool_list: ToolListCache::default(),
            search,
            usage: Usage::default(),
            system: None,
            prefix: Prefix::default(),
            steering: Steering::default(),
            remembered: Vec::new(),
        }
    }

    /// The active tools named `names`, as the session `id` sees them.
    pub(super) fn tools_named(agent: &AgentInner, id: &str, names: Vec<String>) -> ActiveTools {
        agent.registry.active_tools(&ActivationContext {
            session_id: id.to_string(),
            current_tools: names,
            workspace: agent.workspace.clone(),
        })
    }
}
