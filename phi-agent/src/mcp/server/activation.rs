//! A session's active tools: the Direct tools at first, grown by activation after each call,
//! and the client told when they grow.

use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::service::Peer;

use super::settings::McpServer;
use crate::context::ActivationContext;
use crate::registry::ActiveTools;

impl McpServer {
    /// The active tools every session shares, when no tool's activation can depend on the
    /// session (see [`Derived::fixed_active`](super::derived::Derived::fixed_active)).
    fn fixed_active(&self) -> Option<&Arc<ActiveTools>> {
        self.shared
            .derived
            .fixed_active(&self.shared.registry, || self.activation_context())
    }

    /// The session's active tools, evaluated on first use.
    pub(super) async fn active_snapshot(&self) -> Arc<ActiveTools> {
        if let Some(fixed) = self.fixed_active() {
            return fixed.clone();
        }
        let mut active = self.session.active.lock().await;
        let set = match active.as_ref() {
            Some(set) => set.clone(),
            None => {
                let set = self
                    .shared
                    .registry
                    .visible_tools(&self.activation_context())
                    .await;
                active.insert(set).clone()
            }
        };
        Arc::new(set)
    }

    /// Re-evaluates activation after a call; returns whether the visible set grew.
    pub(super) async fn reevaluate(&self) -> bool {
        if self.fixed_active().is_some() {
            // No Deferred tool: nothing can activate.
            return false;
        }
        let mut active = self.session.active.lock().await;
        match active.as_mut() {
            Some(set) => !self.shared.registry.activate(set).await.is_empty(),
            None => false,
        }
    }

    /// Tells the clients that the tool list changed: from protocol 2026-07-28 on (`modern`),
    /// where no client has a session, on every listen stream of the server that asked for it;
    /// before, to the session's client, as a plain notification.
    pub(super) async fn notify_tools_changed(&self, peer: &Peer<RoleServer>, modern: bool) {
        if modern {
            self.shared.listeners.tools_changed().await;
        } else if let Err(error) = peer.notify_tool_list_changed().await {
            tracing::warn!(%error, "could not send notifications/tools/list_changed");
        }
    }

    fn activation_context(&self) -> ActivationContext {
        ActivationContext {
            session_id: self.shared.context.session_id().to_string(),
            current_tools: Vec::new(),
            workspace: self.shared.context.workspace().to_path_buf(),
        }
    }
}
