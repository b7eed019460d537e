//! What one client session of an [`McpServer`](super::McpServer) holds apart from the others.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use super::peer::LogThreshold;
use crate::registry::ActiveTools;

/// What one client session changes: its active tools, its log level and its subscriptions.
#[derive(Default)]
pub(super) struct Session {
    /// The session's active tools, evaluated on first use (see `activation`).
    pub(super) active: tokio::sync::Mutex<Option<ActiveTools>>,
    /// The lowest level of log message the client hears (`logging/setLevel`).
    pub(super) threshold: Arc<LogThreshold>,
    /// The URIs the client subscribed to (`resources/subscribe`).
    subscriptions: Mutex<BTreeSet<String>>,
}

impl Session {
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
