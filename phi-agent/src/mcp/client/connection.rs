//! The connection a client and its tools share: the server's name, how to reach it, and the
//! live link to it, replaced by a reconnect or a step-up authorization.

use std::sync::{Arc, Weak};

use rmcp::RoleClient;
use rmcp::model::{ServerNotification, SubscriptionFilter, Tool as McpToolDef};
use rmcp::service::{Peer, ServiceError};
use tokio::process::Command;
use tokio::sync::RwLock;

use super::connect::{Connector, Handler, Link};
use super::options::McpClientOptions;
use crate::error::{AgentError, AgentResult};

/// What a client and its tools share: the connection, replaced by a reconnect. Its tools hold
/// it weakly, so that it lives as long as the client.
pub(crate) struct Connection {
    pub(super) server: Arc<str>,
    pub(super) connector: Connector,
    pub(super) options: McpClientOptions,
    pub(super) handler: Handler,
    pub(super) link: RwLock<Option<Link>>,
}

impl Connection {
    /// Not connected yet: [`open`](Self::open) connects.
    pub(super) fn new(server: String, connector: Connector, options: McpClientOptions) -> Self {
        Self {
            server: Arc::from(server),
            connector,
            handler: Handler::new(&options),
            link: RwLock::new(None),
            options,
        }
    }

    pub(super) fn error(&self, message: String) -> AgentError {
        AgentError::Mcp {
            server: self.server.to_string(),
            message,
        }
    }

    /// Opens a connection and lists the tools, within the connect timeout.
    pub(super) async fn open(
        &self,
        first: Option<Command>,
    ) -> AgentResult<(Link, Vec<McpToolDef>)> {
        let connect = async {
            let link = self
                .connector
                .open(self.handler.clone(), first)
                .await
                .map_err(|message| self.error(message))?;
            let challenge = match link.service.peer().list_all_tools().await {
                Ok(definitions) => return Ok((link, definitions)),
                Err(error) => match &error {
                    ServiceError::TransportSend(transport) => {
                        self.connector.oauth_challenge(transport)
                    }
                    _ => None,
                }
                .ok_or_else(|| self.error(format!("listing the server's tools failed: {error}")))?,
            };
            // The server took the token for the handshake and refuses it now: its authorization
            // server changed (SEP-2352), or the token was revoked. Authorize once more as the
            // challenge says, and list on a new connection; a second refusal is the answer.
            let mut old = link;
            let _ = old.service.close().await;
            self.connector.authorize(&challenge).await.map_err(|reason| {
                self.error(format!(
                    "the server refused its token after the handshake, and authorizing again failed: {reason}"
                ))
            })?;
            let link = self
                .connector
                .open(self.handler.clone(), None)
                .await
                .map_err(|message| self.error(message))?;
            let definitions = link
                .service
                .peer()
                .list_all_tools()
                .await
                .map_err(|e| self.error(format!("listing the server's tools failed: {e}")))?;
            Ok::<_, AgentError>((link, definitions))
        };
        tokio::time::timeout(self.options.connect_timeout, connect)
            .await
            .map_err(|_| {
                self.error(format!(
                    "`{}` did not start and list its tools within {} ms; raise `connect_timeout` if it is slow to start",
                    self.connector.endpoint(),
                    self.options.connect_timeout.as_millis()
                ))
            })?
    }

    /// Replaces the connection with a new one (the old one closed).
    pub(super) async fn relink(self: &Arc<Self>) -> AgentResult<()> {
        let (link, _) = self.open(None).await?;
        self.follow(link.service.peer().clone());
        let old = self.link.write().await.replace(link);
        if let Some(mut old) = old {
            let _ = old.service.close().await;
        }
        Ok(())
    }

    /// Step-up authorization: a call the server refused for want of scope (403
    /// `insufficient_scope`) is authorized again as its challenge asks, on a new connection.
    pub(crate) async fn step_up(self: &Arc<Self>, challenge: &str) -> AgentResult<()> {
        self.connector
            .authorize(challenge)
            .await
            .map_err(|reason| self.error(format!("authorizing for more scope failed: {reason}")))?;
        self.relink().await
    }

    /// The current connection's peer.
    pub(crate) async fn peer(&self) -> AgentResult<Peer<RoleClient>> {
        match self.link.read().await.as_ref() {
            Some(link) => Ok(link.service.peer().clone()),
            None => {
                Err(self
                    .error("the client was closed; its tools can no longer be called".to_string()))
            }
        }
    }

    /// On a 2026-07-28 connection `list_changed` arrives only on a subscription: opens one when
    /// the server says its list changes, and tells the handler's follower of each. (Earlier
    /// versions send it to the handler itself.)
    pub(super) fn follow(&self, peer: Peer<RoleClient>) {
        let modern = peer
            .peer_info()
            .is_some_and(|info| !info.protocol_version.has_initialize());
        let changes = peer.peer_info().is_some_and(|info| {
            info.capabilities
                .tools
                .as_ref()
                .and_then(|tools| tools.list_changed)
                .unwrap_or(false)
        });
        if !(modern && changes) {
            return;
        }
        let follower = self.handler.follower.clone();
        tokio::spawn(async move {
            let filter = SubscriptionFilter::builder().tools_list_changed().build();
            let Ok(mut subscription) = peer.listen(filter).await else {
                return;
            };
            while let Ok(Some(notification)) = subscription.next().await {
                if !matches!(
                    notification,
                    ServerNotification::ToolListChangedNotification(_)
                ) {
                    continue;
                }
                let Some(follower) = follower.get().and_then(Weak::upgrade) else {
                    return;
                };
                follower.list_again().await;
            }
        });
    }
}
