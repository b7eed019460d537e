//! Toolsets: groups of tools that are prefixed, renamed, filtered, made to need approval or
//! given another exposure together, then registered as their tools would be.
//!
//! A toolset holds its tools and what it changed about each. What it changed is applied by one
//! thin wrapper per changed tool (a tool nothing changed is registered unwrapped), whatever the
//! chain of combinators, so dispatch costs what it costs for the tool alone. New names are
//! interned with [`static_text`](crate::static_text): each distinct name is kept once per
//! process, never per call or per toolset built. The names the model sees are checked when the tools are registered, exactly
//! as for tools registered one by one (valid, unique, the same errors).
//!
//! Inside a toolset a renamed tool keeps the names it knows its siblings by: a
//! [`requires_tools`](crate::ToolOptions::requires_tools) name of a sibling that was renamed with
//! it is read as the sibling's new name, and [`should_activate`](Tool::should_activate) sees the active
//! siblings under their old names.

mod wrapped;

use std::fmt;
use std::sync::Arc;

use rustc_hash::FxHashMap;
use serde_json::Value;

use crate::budget::ResultBudget;
use crate::error::{AgentError, AgentResult};
use crate::tool::{Tool, ToolCallers, ToolExposure, static_text};
use wrapped::{ApprovalPolicy, Entry, NameView};

/// A group of tools, changed together and registered together.
///
/// Build one from `tools![..]`, a `#[phi_tools]` block's `tools()`, an MCP server's imported tools
/// or any `Vec<Arc<dyn Tool>>`, then register it with
/// [`ToolRegistry::register_toolset`](crate::registry::ToolRegistry::register_toolset) or
/// [`AgentBuilder::register_toolset`](crate::AgentBuilder::register_toolset).
///
/// ```
/// use phi_agent::{phi_tool, registry::ToolRegistry, tools, ToolExposure, Toolset};
///
/// /// Search the documentation.
/// #[phi_tool]
/// fn search(query: String) -> String { format!("docs about {query}") }
///
/// /// Delete a page.
/// #[phi_tool]
/// fn delete(page: String) -> String { format!("deleted {page}") }
///
/// let docs = Toolset::from(tools![search, delete])
///     .prefix("docs")
///     .require_approval_if(|name, _args| name == "docs_delete");
/// assert_eq!(docs.names().collect::<Vec<_>>(), ["docs_search", "docs_delete"]);
///
/// let read_only = docs.clone().without(&["docs_delete"]).with_exposure(ToolExposure::Deferred);
/// assert_eq!(read_only.names().collect::<Vec<_>>(), ["docs_search"]);
///
/// let mut registry = ToolRegistry::default();
/// registry.register_toolset(docs)?;
/// assert!(registry.get("docs_search").is_some());
/// assert!(registry.get("search").is_none());
/// # Ok::<(), phi_agent::AgentError>(())
/// ```
#[derive(Clone, Default)]
pub struct Toolset {
    entries: Vec<Entry>,
}

impl Toolset {
    /// An empty toolset.
    pub fn new() -> Self {
        Self::default()
    }

    /// This toolset with `tool` added at the end.
    pub fn with_tool(mut self, tool: impl Tool + 'static) -> Self {
        self.entries.push(Entry::new(Arc::new(tool)));
        self
    }

    /// This toolset with a shared `tool` added at the end.
    pub fn with_arc(mut self, tool: Arc<dyn Tool>) -> Self {
        self.entries.push(Entry::new(tool));
        self
    }

    /// This toolset's tools followed by `other`'s, each keeping what its own toolset changed.
    pub fn merge(mut self, other: Toolset) -> Self {
        self.entries.extend(other.entries);
        self
    }

    /// Every tool renamed `{prefix}_{name}`: two groups that both have a `search` become
    /// `docs_search` and `web_search`.
    pub fn prefix(mut self, prefix: &str) -> Self {
        for entry in &mut self.entries {
            entry.name = static_text(format!("{prefix}_{}", entry.name));
        }
        self
    }

    /// Every tool put in one [`ToolGroup`](crate::ToolGroup) named `name` and described by
    /// `description` (replacing any group of their own): tool search reads both as context for
    /// each of the tools ("create an issue on GitHub" finds `gh_create_issue` when the group is
    /// named `github`). Often with [`prefix`](Self::prefix).
    ///
    /// ```
    /// use phi_agent::{Tool, Toolset};
    /// # use phi_agent::{AgentResult, Content, ToolContext};
    /// # use serde_json::{json, Value};
    /// # struct Search;
    /// # #[async_trait::async_trait]
    /// # impl Tool for Search {
    /// #     fn name(&self) -> &'static str { "search" }
    /// #     fn description(&self) -> &'static str { "Search the pages." }
    /// #     fn schema(&self) -> Value { json!({"type": "object"}) }
    /// #     async fn call(&self, _: &Value, _: &ToolContext) -> AgentResult<Vec<Content>> { Ok(vec![]) }
    /// # }
    /// let tools = Toolset::new()
    ///     .with_tool(Search)
    ///     .prefix("wiki")
    ///     .group("wiki", "The team's wiki: design notes and runbooks.")
    ///     .into_tools();
    /// let group = tools[0].group().unwrap();
    /// assert_eq!((tools[0].name(), group.name.as_str()), ("wiki_search", "wiki"));
    /// ```
    pub fn group(mut self, name: &str, description: &str) -> Self {
        let group = crate::tool::ToolGroup::new(name, description);
        for entry in &mut self.entries {
            entry.group = Some(group.clone());
        }
        self
    }

    /// The tool now named `from` renamed `to`. An error when no tool of the toolset is named
    /// `from`, so that a misspelt rename is not silently ignored; whether `to` is a valid and
    /// unique name is checked at registration, as for any tool.
    pub fn rename(mut self, from: &str, to: &str) -> AgentResult<Self> {
        let Some(entry) = self.entries.iter_mut().find(|entry| entry.name == from) else {
            return Err(AgentError::Config(format!(
                "the toolset has no tool named `{from}` to rename to `{to}`; its tools are: {}",
                self.names().collect::<Vec<_>>().join(", ")
            )));
        };
        entry.name = static_text(to);
        Ok(self)
    }

    /// Only the tools for which `keep` holds; it sees each tool's current name and the tool.
    pub fn filter(mut self, keep: impl Fn(&str, &dyn Tool) -> bool) -> Self {
        self.entries.retain(|entry| keep(entry.name, &*entry.tool));
        self
    }

    /// Only the tools now named one of `names`.
    pub fn only(self, names: &[&str]) -> Self {
        self.filter(|name, _| names.contains(&name))
    }

    /// Every tool but those now named one of `names`.
    pub fn without(self, names: &[&str]) -> Self {
        self.filter(|name, _| !names.contains(&name))
    }

    /// Every call of every tool needs a person's approval
    /// ([`ToolOptions::approval`](crate::ToolOptions::approval)), whatever the tool itself says.
    pub fn require_approval(mut self) -> Self {
        for entry in &mut self.entries {
            entry.approval = ApprovalPolicy::Always;
        }
        self
    }

    /// A call needs approval when `rule` holds for the name the model called and the arguments
    /// (or when the tool itself says so). Several rules add up: any one of them is enough.
    pub fn require_approval_if(
        mut self,
        rule: impl Fn(&str, &Value) -> bool + Send + Sync + 'static,
    ) -> Self {
        let rule: wrapped::ApprovalRule = Arc::new(rule);
        for entry in &mut self.entries {
            let policy = std::mem::take(&mut entry.approval);
            entry.approval = policy.or(rule.clone());
        }
        self
    }

    /// Every tool given `exposure` instead of its own (a [`ToolExposure::Deferred`] tool still
    /// activates by its own [`should_activate`](Tool::should_activate)).
    pub fn with_exposure(mut self, exposure: ToolExposure) -> Self {
        for entry in &mut self.entries {
            entry.exposure = Some(exposure);
        }
        self
    }

    /// Every tool's output cut to at most `bytes` for the model, instead of its own
    /// [`max_result`](crate::ToolOptions::max_result) or the registry's default.
    pub fn with_max_result_bytes(mut self, bytes: usize) -> Self {
        for entry in &mut self.entries {
            entry.max_result = Some(bytes);
        }
        self
    }

    /// Every tool's output cut to `budget` (bytes or estimated tokens) for the model; see
    /// [`with_max_result_bytes`](Self::with_max_result_bytes).
    pub fn with_max_result(self, budget: ResultBudget) -> Self {
        self.with_max_result_bytes(budget.bytes())
    }

    /// Every tool callable by `callers` instead of its own
    /// [`callers`](crate::ToolOptions::callers): e.g. a toolset of fine-grained lookups offered to
    /// code only.
    ///
    /// ```
    /// use phi_agent::{Tool, ToolCallers, Toolset, phi_tool, tools};
    /// /// Look up a record.
    /// #[phi_tool]
    /// fn lookup(id: u32) -> String { id.to_string() }
    ///
    /// let tools = Toolset::from(tools![lookup]).with_callers(ToolCallers::Code).into_tools();
    /// assert_eq!(tools[0].options().callers, ToolCallers::Code);
    /// ```
    pub fn with_callers(mut self, callers: ToolCallers) -> Self {
        for entry in &mut self.entries {
            entry.callers = Some(callers);
        }
        self
    }

    /// The names the model will see, in order.
    pub fn names(&self) -> impl ExactSizeIterator<Item = &'static str> + '_ {
        self.entries.iter().map(|entry| entry.name)
    }

    /// Number of tools.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the toolset has no tool.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The tools, as registered: each unchanged tool as it came, each changed one in one
    /// forwarding wrapper.
    pub fn into_tools(self) -> Vec<Arc<dyn Tool>> {
        let view: Option<NameView> = self.entries.iter().any(Entry::is_renamed).then(|| {
            let renamed: FxHashMap<&'static str, &'static str> = self
                .entries
                .iter()
                .filter(|entry| entry.is_renamed())
                .map(|entry| (entry.name, entry.tool.name()))
                .collect();
            Arc::new(renamed)
        });
        self.entries
            .into_iter()
            .map(|entry| entry.into_tool(view.as_ref()))
            .collect()
    }
}

impl From<Vec<Arc<dyn Tool>>> for Toolset {
    fn from(tools: Vec<Arc<dyn Tool>>) -> Self {
        tools.into_iter().collect()
    }
}

impl FromIterator<Arc<dyn Tool>> for Toolset {
    fn from_iter<I: IntoIterator<Item = Arc<dyn Tool>>>(tools: I) -> Self {
        Toolset {
            entries: tools.into_iter().map(Entry::new).collect(),
        }
    }
}

impl fmt::Debug for Toolset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Toolset")
            .field("names", &self.names().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}
