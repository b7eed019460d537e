//! A stateless `tools/call` served without rmcp's per-request service: the HTTP transport
//! hands a call it has read and checked itself ([`http::direct`](super::http)) to
//! [`McpServer::serve_direct_call`], which runs the tool through the same registry, approval,
//! task and activation steps as [`serve_call`](McpServer::serve_call), and answers with the
//! JSON-RPC messages rmcp would have sent.
//!
//! Only calls on protocols before 2026-07-28 that carry no `_meta` come here (the transport
//! checks): such a call has no progress token, no declared client capabilities and no
//! per-request log level, so the tool's talk-back is fully decided by the session's defaults.
//! Progress is not sent (no token), questions are refused as the client declared no capability
//! (as [`ClientPeer`](super::peer::ClientPeer) refuses them), and log messages at or above the
//! session's level are kept and sent before the answer, as rmcp's transport does when a
//! handler sends a notification before its result (the answer then becomes an event stream).

// rmcp marks logging deprecated by SEP-2577 (2026-07-28); the protocols served here use it.
#![allow(deprecated)]

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use rmcp::ErrorData;
use rmcp::model::{
    CallToolResponse, ClientCapabilities, JsonObject, LoggingMessageNotification,
    LoggingMessageNotificationParam, ProtocolVersion, RequestId, ServerJsonRpcMessage,
    ServerNotification, ServerResult, ToolListChangedNotification,
};
use serde_json::Value;

use super::peer::{LogThreshold, to_mcp_level, unsupported};
use super::settings::McpServer;
use super::tasks::{self, Answer};
use crate::context::{Elicitation, LogLevel, Progress, SampleRequest, Sampled, ToolPeer};
use crate::error::{AgentError, AgentResult};
use crate::mcp::convert;
use crate::registry::ToolCallResult;
use crate::tool::TaskSupport;

/// The messages that answer one direct call: the notifications the call sent, in order, then
/// its response.
pub(crate) struct DirectAnswer {
    pub(crate) notifications: Vec<ServerJsonRpcMessage>,
    pub(crate) response: ServerJsonRpcMessage,
}

impl McpServer {
    /// Runs the tool `name` with `arguments` for the request `id` of a client on `protocol`
    /// (before 2026-07-28, without `_meta`): see the module docs.
    pub(crate) async fn serve_direct_call(
        &self,
        id: RequestId,
        name: &str,
        arguments: Option<JsonObject>,
        protocol: &ProtocolVersion,
    ) -> DirectAnswer {
        let outbox = Arc::new(Outbox::default());
        let peer = DirectPeer {
            tool: name.to_string(),
            threshold: self.session.threshold.clone(),
            outbox: outbox.clone(),
        };
        let result = self.run_direct(&id, name, arguments, protocol, peer).await;
        let response = match result {
            Ok(response) => {
                // What rmcp's handler does for a peer before 2026-07-28: the result keeps the
                // wire shape of those revisions.
                let mut result = ServerResult::from(response);
                result.strip_result_type_for_legacy_peer();
                result.strip_non_object_output_for_legacy_peer();
                ServerJsonRpcMessage::response(result, id)
            }
            Err(error) => ServerJsonRpcMessage::error(error, Some(id)),
        };
        let notifications = std::mem::take(&mut *outbox.lock());
        DirectAnswer {
            notifications,
            response,
        }
    }

    async fn run_direct(
        &self,
        id: &RequestId,
        name: &str,
        arguments: Option<JsonObject>,
        protocol: &ProtocolVersion,
        peer: DirectPeer,
    ) -> Result<CallToolResponse, ErrorData> {
        let outbox = peer.outbox.clone();
        let active = self.active_snapshot().await;
        let arguments = Value::Object(arguments.unwrap_or_default());
        // Dropping this future (the client closed the connection) drops the tool's: the same
        // end as rmcp's cancellation of a stateless request whose client went away.
        let stop = tokio_util::sync::CancellationToken::new();
        let ctx = self
            .shared
            .context
            .for_call_under(&id.to_string(), &stop)
            .with_peer(Arc::new(peer));
        let registry = &self.shared.registry;
        if registry
            .needs_approval(&active, name, &arguments, &ctx)
            .await
        {
            let refusal = ToolCallResult::error(&AgentError::ApprovalRequired {
                tool: name.to_string(),
            });
            return Ok(convert::call_result(refusal, Some(protocol)).into());
        }
        let support = registry
            .position(name)
            .filter(|&index| active.is_active(index))
            .map_or(TaskSupport::Forbidden, |index| {
                self.shared.task_support[index]
            });
        // No `_meta`, so no declared tasks extension: a task-only tool is refused.
        if let Answer::Refuse | Answer::Task = tasks::answer(support, false) {
            return Err(ErrorData::missing_required_client_capability(
                ClientCapabilities::builder().enable_tasks().build(),
            ));
        }
        let result = registry.dispatch(&active, name, &arguments, &ctx).await;
        if self.reevaluate().await {
            // Before 2026-07-28 the change goes to the call's own client, on the answer's stream,
            // as rmcp's peer would send it (`notify_tools_changed`, not `modern`).
            outbox.push(ServerNotification::ToolListChangedNotification(
                ToolListChangedNotification::default(),
            ));
        }
        Ok(convert::call_result(result, Some(protocol)).into())
    }
}

/// The notifications a direct call sends, kept until its answer is written.
#[derive(Debug, Default)]
struct Outbox(Mutex<Vec<ServerJsonRpcMessage>>);

impl Outbox {
    fn push(&self, notification: ServerNotification) {
        self.lock()
            .push(ServerJsonRpcMessage::notification(notification));
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<ServerJsonRpcMessage>> {
        // A panic while pushing leaves a whole vector: keep using it.
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The talk-back of a direct call: see the module docs.
#[derive(Debug)]
struct DirectPeer {
    tool: String,
    threshold: Arc<LogThreshold>,
    outbox: Arc<Outbox>,
}

#[async_trait]
impl ToolPeer for DirectPeer {
    async fn progress(&self, progress: Progress) {
        tracing::trace!(tool = %self.tool, done = progress.done, "no progress token: progress not sent");
    }

    async fn log(&self, level: LogLevel, data: Value) {
        if !self.threshold.allows(level) {
            return;
        }
        let mut params = LoggingMessageNotificationParam::new(to_mcp_level(level), data);
        params.logger = Some(self.tool.clone());
        self.outbox
            .push(ServerNotification::LoggingMessageNotification(
                LoggingMessageNotification::new(params),
            ));
    }

    async fn elicit(&self, _message: &str, _schema: Value) -> AgentResult<Elicitation<Value>> {
        Err(unsupported(
            &self.tool,
            "ask the user a question (elicitation)",
        ))
    }

    async fn sample(&self, _request: SampleRequest) -> AgentResult<Sampled> {
        Err(unsupported(&self.tool, "ask the client's model (sampling)"))
    }
}
