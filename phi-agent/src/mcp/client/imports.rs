//! The tools imported from a server, following its list: new ones appended, removed ones kept
//! in place and marked, each change announced and counted for the registries that follow.

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};

use futures_util::future::BoxFuture;
use rmcp::model::Tool as McpToolDef;
use tokio::sync::broadcast;

use super::about::{ServerAbout, server_about};
use super::connect::ToolListFollower;
use super::connection::Connection;
use super::names::ProviderSafeNames;
use super::tool::McpTool;
use crate::error::AgentResult;
use crate::registry::ToolSource;
use crate::tool::Tool;

/// A client's imported tools, over its connection.
pub(super) struct Imports {
    /// The connection; the tools hold it weakly, so it lives as long as this.
    pub(super) connection: Arc<Connection>,
    tools: Mutex<ToolSet>,
    /// One refresh at a time, so that two `list_changed` in a row cannot interleave.
    refreshing: tokio::sync::Mutex<()>,
    pub(super) changes: broadcast::Sender<McpToolsChanged>,
    /// Counts the changes of the set, for the registries that follow it ([`ToolSource`]).
    generation: Arc<AtomicU64>,
}

/// The imported tools, and their names on the server and here.
pub(super) struct ToolSet {
    pub(super) tools: Vec<Arc<McpTool>>,
    pub(super) names: ProviderSafeNames,
}

/// A change of a server's tool set, announced on
/// [`McpClient::subscribe`](super::McpClient::subscribe).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct McpToolsChanged {
    /// Local names of the tools the server added (appended to
    /// [`McpClient::tools`](super::McpClient::tools)) or listed again after removing them, in
    /// the server's order.
    pub added: Vec<String>,
    /// Local names of the tools the server no longer lists; their calls answer that they are not
    /// available.
    pub removed: Vec<String>,
    /// Local names of tools that a registry following the client
    /// ([`McpClient::tool_source`](super::McpClient::tool_source)) did not offer, each with the
    /// reason (a name another tool has): announced on their own, when the registry takes the new
    /// set.
    pub refused: Vec<(String, String)>,
}

impl McpToolsChanged {
    /// Whether nothing changed.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.refused.is_empty()
    }
}

impl Imports {
    /// No tools yet, over `connection`: [`import`](Self::import) takes the first list.
    pub(super) fn new(connection: Arc<Connection>) -> Self {
        let (changes, _) = broadcast::channel(16);
        Self {
            connection,
            tools: Mutex::new(ToolSet {
                tools: Vec::new(),
                names: ProviderSafeNames::default(),
            }),
            refreshing: tokio::sync::Mutex::new(()),
            changes,
            generation: Arc::default(),
        }
    }

    /// Imports the tools the server listed at connect, in its order, under provider-safe names
    /// (with the client's prefix, if any).
    pub(super) fn import(
        &self,
        definitions: Vec<McpToolDef>,
        about: ServerAbout,
    ) -> AgentResult<()> {
        let connection = &self.connection;
        let names = ProviderSafeNames::with_prefix(
            connection.options.name_prefix.as_deref(),
            definitions.iter().map(|tool| tool.name.as_ref()),
        )
        .map_err(|message| connection.error(message))?;
        let tools = definitions
            .into_iter()
            .map(|definition| {
                let local = names
                    .local(&definition.name)
                    .expect("every listed tool has a local name")
                    .to_string();
                Arc::new(McpTool::new(
                    definition,
                    local,
                    connection,
                    &about,
                    &connection.options,
                ))
            })
            .collect();
        *self.set() = ToolSet { tools, names };
        Ok(())
    }

    /// The tool set, locked.
    pub(super) fn set(&self) -> MutexGuard<'_, ToolSet> {
        self.tools.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Lists the tools again: new ones appended, removed ones marked, the change announced.
    pub(super) async fn refresh(&self) -> AgentResult<McpToolsChanged> {
        let _one_at_a_time = self.refreshing.lock().await;
        let peer = self.connection.peer().await?;
        let definitions = tokio::time::timeout(
            self.connection.options.connect_timeout,
            peer.list_all_tools(),
        )
        .await
        .map_err(|_| {
            self.connection
                .error("listing the server's tools again timed out".to_string())
        })?
        .map_err(|e| {
            self.connection
                .error(format!("listing the server's tools again failed: {e}"))
        })?;
        let about = server_about(&peer);
        let listed: HashSet<&str> = definitions.iter().map(|tool| tool.name.as_ref()).collect();
        let mut change = McpToolsChanged::default();
        let mut set = self.set();
        for tool in &set.tools {
            let now = listed.contains(tool.remote_name());
            let before = tool.set_available(now);
            match (before, now) {
                (true, false) => change.removed.push(tool.name().to_string()),
                (false, true) => change.added.push(tool.name().to_string()),
                _ => {}
            }
        }
        for definition in definitions {
            if set.names.local(&definition.name).is_some() {
                // Known: it keeps its definition as first imported, so the tool list a
                // provider has cached stays byte-identical.
                continue;
            }
            let local = set.names.insert(&definition.name);
            change.added.push(local.clone());
            let tool = McpTool::new(
                definition,
                local,
                &self.connection,
                &about,
                &self.connection.options,
            );
            set.tools.push(Arc::new(tool));
        }
        drop(set);
        if !change.is_empty() {
            self.generation.fetch_add(1, Ordering::AcqRel);
            let _ = self.changes.send(change.clone());
        }
        Ok(change)
    }

    /// The tools as a live [`ToolSource`], holding them weakly.
    pub(super) fn live(self: &Arc<Self>) -> Arc<dyn ToolSource> {
        Arc::new(LiveTools {
            generation: self.generation.clone(),
            imports: Arc::downgrade(self),
        })
    }
}

impl ToolListFollower for Imports {
    fn list_again(self: Arc<Self>) -> BoxFuture<'static, ()> {
        Box::pin(async move {
            if let Err(error) = self.refresh().await {
                tracing::warn!(server = %self.connection.server, %error, "MCP tool list not refreshed");
            }
        })
    }
}

/// The tools of a client as a [`ToolSource`], held weakly.
struct LiveTools {
    generation: Arc<AtomicU64>,
    imports: Weak<Imports>,
}

impl ToolSource for LiveTools {
    fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        let Some(imports) = self.imports.upgrade() else {
            return Vec::new();
        };
        let set = imports.set();
        set.tools
            .iter()
            .filter(|tool| tool.is_available())
            .map(|tool| tool.clone() as Arc<dyn Tool>)
            .collect()
    }

    fn refused(&self, name: &str, reason: &str) {
        if let Some(imports) = self.imports.upgrade() {
            let change = McpToolsChanged {
                refused: vec![(name.to_string(), reason.to_string())],
                ..McpToolsChanged::default()
            };
            let _ = imports.changes.send(change);
        }
    }
}
