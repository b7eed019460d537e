//! A tool's talk-back over MCP: the [`ToolPeer`] the server gives every `tools/call`.
//!
//! Progress goes out only when the request carried a progress token (the spec forbids it
//! otherwise); log messages only at or above the session's level (`logging/setLevel`, `info`
//! until the client sets one); questions go to the client when it declared the capability (on
//! the request from 2026-07-28 on, at initialization before), and are refused with a clear error
//! when it did not (from 2026-07-28 on, a call that then fails is answered with the
//! MissingRequiredClientCapability error instead, SEP-2575). Up to 2025-11-25 a question is an `elicitation/create` or
//! `sampling/createMessage` request, which rmcp routes to the call's response stream; from
//! 2026-07-28 on, where a server sends no requests, it is an input request of the call's
//! `input_required` result ([`rounds`](super::rounds)).

#![allow(deprecated)] // rmcp marks logging and sampling as deprecated by SEP-2577 (2026-07-28); 2025-11-25 clients use them.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use async_trait::async_trait;
use rmcp::model::{
    ClientCapabilities, CreateMessageRequest, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequest, ElicitRequestParams, ElicitResult, ElicitationAction, InputRequest,
    ListRootsRequest, ListRootsResult, LoggingLevel, LoggingMessageNotificationParam,
    ProgressNotificationParam, ProgressToken, SamplingMessage, ServerRequest,
};
use rmcp::service::Peer;
use rmcp::{RoleServer, model::ClientResult};
use serde_json::Value;

use super::polling::CallStream;
use super::rounds::Asker;
use crate::context::{
    Elicitation, LogLevel, Progress, SampleRequest, SampleRole, Sampled, ToolPeer,
};
use crate::error::{AgentError, AgentResult};

/// The lowest level a session's client hears: `info` until it sends `logging/setLevel`.
#[derive(Debug)]
pub(crate) struct LogThreshold(AtomicU8);

impl Default for LogThreshold {
    fn default() -> Self {
        Self(AtomicU8::new(LogLevel::Info as u8))
    }
}

impl LogThreshold {
    pub(crate) fn set(&self, level: LoggingLevel) {
        self.0.store(from_mcp_level(level) as u8, Ordering::Relaxed);
    }

    pub(crate) fn allows(&self, level: LogLevel) -> bool {
        level as u8 >= self.0.load(Ordering::Relaxed)
    }
}

/// Which log messages of a call the client hears.
#[derive(Debug)]
pub(crate) enum LogFilter {
    /// The session's level (`logging/setLevel`; protocols up to 2025-11-25).
    Session(Arc<LogThreshold>),
    /// The level the request opted in to with `_meta["io.modelcontextprotocol/logLevel"]`, or
    /// none without it (protocol 2026-07-28 and later, which has no `logging/setLevel`).
    Request(Option<LogLevel>),
}

impl LogFilter {
    /// The filter of a request with `meta`, on `protocol`.
    pub(crate) fn for_request(
        session: &Arc<LogThreshold>,
        meta: &rmcp::model::RequestMetaObject,
        modern: bool,
    ) -> Self {
        if !modern {
            return LogFilter::Session(session.clone());
        }
        let level = meta
            .get("io.modelcontextprotocol/logLevel")
            .and_then(|level| serde_json::from_value::<LoggingLevel>(level.clone()).ok())
            .map(from_mcp_level);
        LogFilter::Request(level)
    }

    fn allows(&self, level: LogLevel) -> bool {
        match self {
            LogFilter::Session(threshold) => threshold.allows(level),
            LogFilter::Request(min) => min.is_some_and(|min| level >= min),
        }
    }
}

/// The client of one `tools/call`.
pub(crate) struct ClientPeer {
    pub(crate) peer: Peer<RoleServer>,
    pub(crate) progress_token: Option<ProgressToken>,
    pub(crate) logs: LogFilter,
    pub(crate) tool: String,
    /// What the client declared: on the request from 2026-07-28 on, at initialization before
    /// (rmcp's `RequestContext::client_capabilities`).
    pub(crate) capabilities: Option<ClientCapabilities>,
    /// Where questions go on a 2026-07-28 connection: the call's `input_required` rounds.
    pub(crate) asker: Option<Asker>,
    /// The call's response stream, where the transport lets the call close it for the client
    /// to resume (a stateful HTTP session; SEP-1699).
    pub(crate) stream: Option<CallStream>,
}

impl std::fmt::Debug for ClientPeer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientPeer")
            .field("tool", &self.tool)
            .field("progress_token", &self.progress_token)
            .finish_non_exhaustive()
    }
}

#[async_trait]
impl ToolPeer for ClientPeer {
    async fn progress(&self, progress: Progress) {
        // The call became a task (`ToolOptions::ask_before_task`): the request the token
        // belonged to is answered, and `tasks/get` shows the progress instead.
        if let Some(task) = self.asker.as_ref().and_then(Asker::task) {
            task.set_status_message(status_of(progress));
            return;
        }
        let Some(token) = &self.progress_token else {
            tracing::trace!(tool = %self.tool, done = progress.done, "no progress token: progress not sent");
            return;
        };
        let mut params = ProgressNotificationParam::new(token.clone(), progress.done);
        params.total = progress.total;
        params.message = progress.message;
        if let Err(error) = self.peer.notify_progress(params).await {
            tracing::debug!(tool = %self.tool, %error, "could not send notifications/progress");
        }
    }

    async fn log(&self, level: LogLevel, data: Value) {
        if !self.logs.allows(level) {
            return;
        }
        let mut params = LoggingMessageNotificationParam::new(to_mcp_level(level), data);
        params.logger = Some(self.tool.clone());
        if let Err(error) = self.peer.notify_logging_message(params).await {
            tracing::debug!(tool = %self.tool, %error, "could not send notifications/message");
        }
    }

    async fn elicit(&self, message: &str, schema: Value) -> AgentResult<Elicitation<Value>> {
        self.elicit_as("elicitation", message, schema).await
    }

    async fn close_stream(&self) -> bool {
        match &self.stream {
            Some(stream) => stream.0.close().await,
            None => false,
        }
    }

    async fn elicit_as(
        &self,
        key: &str,
        message: &str,
        schema: Value,
    ) -> AgentResult<Elicitation<Value>> {
        let supported = self
            .capabilities
            .as_ref()
            .is_some_and(|capabilities| capabilities.elicitation.is_some());
        if !supported {
            if let Some(asker) = &self.asker {
                asker.lacks(ClientCapabilities::builder().enable_elicitation().build());
            }
            return Err(unsupported(
                &self.tool,
                "ask the user a question (elicitation)",
            ));
        }
        let params = elicit_params(message, schema)?;
        if let Some(asker) = &self.asker {
            let request = InputRequest::Elicitation(ElicitRequest::new(params));
            let answer: ElicitResult = self.round(asker, key, "elicitation", request).await?;
            return Ok(elicitation_of(answer));
        }
        let request = ServerRequest::ElicitRequest(ElicitRequest::new(params));
        let answer = match self.peer.send_request(request).await {
            Ok(ClientResult::ElicitResult(answer)) => answer,
            Ok(other) => {
                return Err(failed(
                    &self.tool,
                    "elicitation",
                    format!("unexpected answer {other:?}"),
                ));
            }
            Err(error) => return Err(failed(&self.tool, "elicitation", error.to_string())),
        };
        Ok(elicitation_of(answer))
    }

    async fn sample(&self, request: SampleRequest) -> AgentResult<Sampled> {
        let supported = self
            .capabilities
            .as_ref()
            .is_some_and(|capabilities| capabilities.sampling.is_some());
        if !supported {
            if let Some(asker) = &self.asker {
                asker.lacks(ClientCapabilities::builder().enable_sampling().build());
            }
            return Err(unsupported(&self.tool, "ask the client's model (sampling)"));
        }
        if let Some(asker) = &self.asker {
            let key = request
                .key
                .clone()
                .unwrap_or_else(|| "sampling".to_string());
            let request =
                InputRequest::CreateMessage(CreateMessageRequest::new(sampling_params(request)));
            let answer: CreateMessageResult = self.round(asker, &key, "sampling", request).await?;
            return Ok(sampled_of(answer));
        }
        let answer = self
            .peer
            .create_message(sampling_params(request))
            .await
            .map_err(|error| failed(&self.tool, "sampling", error.to_string()))?;
        Ok(sampled_of(answer))
    }

    async fn roots(&self) -> AgentResult<Vec<crate::context::Root>> {
        let supported = self
            .capabilities
            .as_ref()
            .is_some_and(|capabilities| capabilities.roots.is_some());
        if !supported {
            if let Some(asker) = &self.asker {
                asker.lacks(ClientCapabilities::builder().enable_roots().build());
            }
            return Err(unsupported(
                &self.tool,
                "list the client's roots (roots/list)",
            ));
        }
        let answer: ListRootsResult = if let Some(asker) = &self.asker {
            let request = InputRequest::ListRoots(ListRootsRequest::default());
            self.round(asker, "roots", "roots/list", request).await?
        } else {
            match self
                .peer
                .send_request(ServerRequest::ListRootsRequest(ListRootsRequest::default()))
                .await
            {
                Ok(ClientResult::ListRootsResult(answer)) => answer,
                Ok(other) => {
                    return Err(failed(
                        &self.tool,
                        "roots/list",
                        format!("unexpected answer {other:?}"),
                    ));
                }
                Err(error) => return Err(failed(&self.tool, "roots/list", error.to_string())),
            }
        };
        Ok(answer
            .roots
            .into_iter()
            .map(|root| {
                let named = crate::context::Root::new(root.uri);
                match root.name {
                    Some(name) => named.with_name(name),
                    None => named,
                }
            })
            .collect())
    }
}

impl ClientPeer {
    /// Asks `request` (a `what` request) under `key` through the call's `input_required`
    /// rounds; the answer decoded as `T`.
    async fn round<T: serde::de::DeserializeOwned>(
        &self,
        asker: &Asker,
        key: &str,
        what: &str,
        request: InputRequest,
    ) -> AgentResult<T> {
        let answer = asker
            .ask(key, request)
            .await
            .map_err(|error| failed(&self.tool, what, error))?;
        serde_json::from_value(answer).map_err(|error| {
            failed(
                &self.tool,
                what,
                format!("the answer in inputResponses is not a {what} result: {error}"),
            )
        })
    }
}

/// The `elicitation/create` parameters of a tool's question.
pub(crate) fn elicit_params(message: &str, schema: Value) -> AgentResult<ElicitRequestParams> {
    let requested_schema = serde_json::from_value(schema).map_err(|error| {
        AgentError::tool(format!(
            "the form is not one MCP elicitation allows (a flat object of strings, numbers, booleans and enums): {error}"
        ))
    })?;
    Ok(ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: message.to_string(),
        requested_schema,
    })
}

/// The client's answer to a question, as the tool gets it.
pub(crate) fn elicitation_of(answer: ElicitResult) -> Elicitation<Value> {
    match answer.action {
        ElicitationAction::Accept => {
            Elicitation::Accept(answer.content.unwrap_or(Value::Object(Default::default())))
        }
        ElicitationAction::Decline => Elicitation::Decline,
        _ => Elicitation::Cancel,
    }
}

/// The `sampling/createMessage` parameters of a tool's request to the client's model.
pub(crate) fn sampling_params(request: SampleRequest) -> CreateMessageRequestParams {
    let messages = request
        .messages
        .into_iter()
        .map(|(role, text)| match role {
            SampleRole::User => SamplingMessage::user_text(text),
            SampleRole::Assistant => SamplingMessage::assistant_text(text),
        })
        .collect();
    let mut params = CreateMessageRequestParams::new(messages, request.max_tokens);
    params.system_prompt = request.system;
    params.temperature = request.temperature.map(|t| t as f32);
    params
}

/// The client model's reply, as the tool gets it: its text blocks, joined.
pub(crate) fn sampled_of(answer: CreateMessageResult) -> Sampled {
    let text = answer
        .message
        .content
        .into_vec()
        .iter()
        .filter_map(|block| block.as_text().map(|text| text.text.clone()))
        .collect::<Vec<_>>()
        .join("\n");
    let mut sampled = Sampled::new(text, answer.model);
    sampled.stop_reason = answer.stop_reason;
    sampled
}

/// The error of a question the client cannot be asked.
pub(crate) fn unsupported(tool: &str, what: &str) -> AgentError {
    AgentError::tool(format!(
        "tool `{tool}` needs to {what}, and this MCP client does not support it (it declared no such capability, at initialization or, from protocol 2026-07-28 on, in the request's _meta)"
    ))
}

/// The error of a question the client did not answer.
pub(crate) fn failed(tool: &str, what: &str, error: String) -> AgentError {
    AgentError::tool(format!(
        "tool `{tool}`: the client did not answer the {what} request: {error}"
    ))
}

pub(crate) fn to_mcp_level(level: LogLevel) -> LoggingLevel {
    match level {
        LogLevel::Debug => LoggingLevel::Debug,
        LogLevel::Info => LoggingLevel::Info,
        LogLevel::Notice => LoggingLevel::Notice,
        LogLevel::Warning => LoggingLevel::Warning,
        LogLevel::Error => LoggingLevel::Error,
        LogLevel::Critical => LoggingLevel::Critical,
        LogLevel::Alert => LoggingLevel::Alert,
        LogLevel::Emergency => LoggingLevel::Emergency,
    }
}

fn from_mcp_level(level: LoggingLevel) -> LogLevel {
    match level {
        LoggingLevel::Debug => LogLevel::Debug,
        LoggingLevel::Info => LogLevel::Info,
        LoggingLevel::Notice => LogLevel::Notice,
        LoggingLevel::Warning => LogLevel::Warning,
        LoggingLevel::Error => LogLevel::Error,
        LoggingLevel::Critical => LogLevel::Critical,
        LoggingLevel::Alert => LogLevel::Alert,
        _ => LogLevel::Emergency,
    }
}

/// A task's status message for `progress`: `3 of 10: message`.
pub(super) fn status_of(progress: Progress) -> String {
    let done = match progress.total {
        Some(total) => format!("{} of {total}", progress.done),
        None => progress.done.to_string(),
    };
    match progress.message {
        Some(message) => format!("{done}: {message}"),
        None => done,
    }
}
