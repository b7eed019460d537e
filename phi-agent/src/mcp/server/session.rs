//! What one client session of an [`McpServer`](super::McpServer) holds apart from the others.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use rmcp::service::{SubscriptionContext, SubscriptionSink};

use super::peer::LogThreshold;
use crate::registry::ActiveTools;

/// What one client session changes: its active tools, and (protocol 2026-07-28 and later) the
/// `subscriptions/listen` streams that asked for `notifications/tools/list_changed`.
#[derive(Default)]
pub(super) struct Session {
    /// The session's active tools, evaluated on first use (see `activation`).
    pub(super) active: tokio::sync::Mutex<Option<ActiveTools>>,
    listeners: Mutex<Vec<SubscriptionSink>>,
    /// The lowest level of log message the client hears (`logging/setLevel`).
    pub(super) threshold: Arc<LogThreshold>,
    /// The URIs the client subscribed to (`resources/subscribe`).
    subscriptions: Mutex<BTreeSet<String>>,
}

impl Session {
    /// The listen streams open now.
    pub(super) fn listeners(&self) -> Vec<SubscriptionSink> {
        self.listeners
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Keeps the listen stream of `context` while it is open, when it asked for
    /// `notifications/tools/list_changed` (the only notification this server sends on one).
    pub(super) async fn listen(&self, context: SubscriptionContext) {
        if context.accepted().tools_list_changed != Some(true) {
            context.cancelled().await;
            return;
        }
        let sink = context.sink().clone();
        let id = sink.id().clone();
        self.listeners
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(sink);
        context.cancelled().await;
        self.listeners
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|listener| listener.id() != &id);
    }

    /// Adds `uri` to the session's subscriptions (`resources/subscribe`).
    pub(super) fn subscribe(&self, uri: String) {
        self.subscriptions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(uri);
    }

    /// Removes `uri` from the session's subscriptions (`resources/unsubscribe`).
    pub(super) fn unsubscribe(&self, uri: &str) {
        self.subscriptions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(uri);
    }
}
