//! The `subscriptions/listen` streams (protocol 2026-07-28) open on a server, shared by all its
//! sessions: a 2026-07-28 client has no session, so a listen stream opened by one request must
//! hear of a tool list that changed in another ([`ListChanged`]).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::service::{SubscriptionContext, SubscriptionSink};

/// The open listen streams that asked for `notifications/tools/list_changed`.
#[derive(Debug, Default)]
pub(super) struct Listeners {
    /// Each stream with a number of our own: request ids repeat across requests.
    open: Mutex<Vec<(u64, SubscriptionSink)>>,
    next: AtomicU64,
}

impl Listeners {
    /// Keeps the listen stream of `context` while it is open, when it asked for
    /// `notifications/tools/list_changed` (the only notification this server sends on one).
    pub(super) async fn listen(&self, context: SubscriptionContext) {
        if context.accepted().tools_list_changed != Some(true) {
            context.cancelled().await;
            return;
        }
        let number = self.next.fetch_add(1, Ordering::Relaxed);
        self.lock().push((number, context.sink().clone()));
        context.cancelled().await;
        self.lock().retain(|(open, _)| *open != number);
    }

    /// How many streams are open.
    pub(super) fn len(&self) -> usize {
        self.lock().len()
    }

    /// Sends `notifications/tools/list_changed` on every open stream.
    pub(super) async fn tools_changed(&self) {
        let open: Vec<SubscriptionSink> =
            self.lock().iter().map(|(_, sink)| sink.clone()).collect();
        for sink in open {
            if let Err(error) = sink.notify_tool_list_changed().await {
                tracing::debug!(%error, "a listen stream did not take notifications/tools/list_changed");
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(u64, SubscriptionSink)>> {
        self.open.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Tells a server's clients that its tool list changed, for a program whose tools change
/// other than by activation (a tool enabled by configuration, a tool whose description
/// changed): `notifications/tools/list_changed` on every `subscriptions/listen` stream that
/// asked for it (protocol 2026-07-28), whichever request opened it. Get it from
/// [`McpServer::list_changed`](super::McpServer::list_changed); a clone tells the same server.
/// Activation needs none of this: a call that activates a Deferred tool notifies by itself.
///
/// ```
/// use phi_agent::mcp::{ListChanged, McpServer};
/// use phi_agent::registry::ToolRegistry;
/// use phi_agent::{ToolConfig, ToolContext};
///
/// let server = McpServer::new(ToolRegistry::new(ToolConfig::default()));
/// // Tools reach it through the context's shared state: `ctx.state::<ListChanged>()`.
/// let changed = server.list_changed();
/// let server = server.with_context(ToolContext::default().with_state(changed));
/// # let _ = server;
/// ```
#[derive(Debug, Clone)]
pub struct ListChanged {
    pub(super) listeners: Arc<Listeners>,
}

impl ListChanged {
    /// Sends `notifications/tools/list_changed` on every open listen stream that asked for it.
    pub async fn tools_changed(&self) {
        self.listeners.tools_changed().await;
    }

    /// How many listen streams that asked for tool list changes are open now.
    pub fn listening(&self) -> usize {
        self.listeners.len()
    }
}
