//! What a live source is ([`ToolSource`]) and the live set a registry takes from its sources:
//! data only, naming no registry. How the registry follows the sources is in `live`.

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use rustc_hash::FxHashMap;

use super::registered::RegisteredTool;
use super::spec::ToolSpec;
use crate::tool::Tool;

/// A set of tools that may change while an agent runs; registered with
/// [`ToolRegistry::register_source`](super::ToolRegistry::register_source) (or
/// [`AgentBuilder::register_source`](crate::AgentBuilder::register_source)), it is asked once
/// per turn whether it changed. `McpClient::tool_source` (the `mcp-client` feature) is one: the tools of an MCP server, following its `tools/list_changed`.
///
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering};
/// use std::sync::{Arc, Mutex};
/// use phi_agent::registry::{ToolRegistry, ToolSource};
/// use phi_agent::{phi_tool, tools, Tool};
///
/// /// Answer pong.
/// #[phi_tool]
/// fn ping() -> String { "pong".into() }
///
/// /// A set the program changes at run time.
/// #[derive(Default)]
/// struct Plugins {
///     generation: AtomicU64,
///     tools: Mutex<Vec<Arc<dyn Tool>>>,
/// }
///
/// impl ToolSource for Plugins {
///     fn generation(&self) -> u64 {
///         self.generation.load(Ordering::Acquire)
///     }
///     fn tools(&self) -> Vec<Arc<dyn Tool>> {
///         self.tools.lock().unwrap().clone()
///     }
/// }
///
/// let plugins = Arc::new(Plugins::default());
/// let mut registry = ToolRegistry::default();
/// registry.register_source(plugins.clone());
/// assert!(registry.live_tools().is_empty());
///
/// plugins.tools.lock().unwrap().extend(tools![ping]);
/// plugins.generation.fetch_add(1, Ordering::AcqRel);
/// let names: Vec<&str> = registry.live_tools().iter().map(|tool| tool.name()).collect();
/// assert_eq!(names, ["ping"]);
/// ```
pub trait ToolSource: Send + Sync + 'static {
    /// A number that changes whenever [`tools`](Self::tools) would answer differently. Called
    /// once per turn of every session: keep it to an atomic load.
    fn generation(&self) -> u64;

    /// The tools the source offers now, in the order they appeared. Called only after
    /// [`generation`](Self::generation) changed. A tool is recognized across calls by its
    /// `Arc` (the same allocation), so hand out the same `Arc` for a tool that did not change.
    fn tools(&self) -> Vec<Arc<dyn Tool>>;

    /// Told when the registry does not offer the source's tool `name` (a name another tool
    /// has, or an invalid name or schema), with the reason; once per tool. Default: nothing
    /// (the registry logs a warning either way).
    fn refused(&self, name: &str, reason: &str) {
        let _ = (name, reason);
    }
}

/// A registry's live sources and the set taken from them last.
#[derive(Clone, Default)]
pub(super) struct LiveSources {
    pub(super) sources: Vec<Arc<dyn ToolSource>>,
    pub(super) current: Arc<RwLock<Arc<LiveSet>>>,
}

impl fmt::Debug for LiveSources {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LiveSources")
            .field("sources", &self.sources.len())
            .finish_non_exhaustive()
    }
}

/// The live tools as taken at the generations `seen`, one per source.
#[derive(Default)]
pub(crate) struct LiveSet {
    pub(super) seen: Vec<u64>,
    pub(super) tools: Vec<RegisteredTool>,
    pub(super) by_name: FxHashMap<&'static str, usize>,
    /// Tools refused before, by address: refused once, not reported again.
    pub(super) refused: Vec<Arc<dyn Tool>>,
    pub(super) specs: Arc<[ToolSpec]>,
    /// The last list joined with the live specs, keyed on the list it was joined to (the reuse
    /// rule of `shared_list`): sessions that show the same tools share one joined list.
    pub(super) joined: Mutex<Option<Joined>>,
}

/// A list (the key) and the same list with the live specs appended.
type Joined = (Arc<[ToolSpec]>, Arc<[ToolSpec]>);

impl LiveSet {
    /// The live tool named `name`.
    pub(crate) fn get(&self, name: &str) -> Option<&RegisteredTool> {
        self.by_name.get(name).map(|&index| &self.tools[index])
    }

    /// The live tools, in the order they appeared.
    pub(crate) fn tools(&self) -> &[RegisteredTool] {
        &self.tools
    }

    /// `own` followed by the live tools' specs.
    pub(crate) fn join(&self, own: Arc<[ToolSpec]>) -> Arc<[ToolSpec]> {
        if self.specs.is_empty() {
            return own;
        }
        let mut joined = self.joined.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((key, list)) = joined.as_ref()
            && Arc::ptr_eq(key, &own)
        {
            return list.clone();
        }
        let list: Arc<[ToolSpec]> = own.iter().chain(self.specs.iter()).cloned().collect();
        *joined = Some((own, list.clone()));
        list
    }
}
