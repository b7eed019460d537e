//! One imported tool: a [`Tool`] whose calls go to the server that listed it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

use async_trait::async_trait;
use rmcp::RoleClient;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, CancelledNotificationParam,
    ClientRequest, ContentBlock, RequestId, ServerResult, Tool as McpToolDef,
};
use rmcp::service::{Peer, PeerRequestOptions, ServiceError};
use serde_json::Value;

use super::about::ServerAbout;
use super::connect::chain;
use super::connection::Connection as Inner;
use super::options::McpClientOptions;
use super::result;
use super::talk::{Asker, Talk};
use crate::content::Content;
use crate::context::ToolContext;
use crate::error::{AgentError, AgentResult};
use crate::mcp::convert;
use crate::tool::{
    FastPath, Tool, ToolAnnotations, ToolApproval, ToolGroup, ToolMetadata, ToolOptions,
    static_text,
};

/// One tool of an MCP server, callable like any other [`Tool`].
///
/// Its schema is the server's, as given; its name is provider-safe (see
/// [`ProviderSafeNames`](crate::mcp::ProviderSafeNames)) and carries the server's prefix if the
/// client has one ([`McpClientOptions::with_name_prefix`]); its origin is `mcp:<server>`.
pub struct McpTool {
    name: &'static str,
    description: &'static str,
    remote_name: String,
    schema: Value,
    /// Whether the registry checks a call's arguments here, before sending it: when the schema
    /// is JSON Schema 2020-12 (declared, or by MCP's default), the draft the local check reads.
    checked_here: bool,
    output_schema: Option<Arc<Value>>,
    annotations: ToolAnnotations,
    needs_approval: bool,
    server: Arc<str>,
    version: Option<String>,
    /// The server as a group: searched as context for each of its tools.
    group: ToolGroup,
    transport: &'static str,
    owner: Weak<Inner>,
    /// Whether the server still lists the tool (see `McpClient`'s docs on `tools/list_changed`).
    available: AtomicBool,
    call_timeout: Duration,
    /// `Some(limit)` when progress reports restart `call_timeout`: the limit in total.
    max_call_time: Option<Duration>,
}

impl McpTool {
    pub(super) fn new(
        definition: McpToolDef,
        local_name: String,
        inner: &Arc<Inner>,
        about: &ServerAbout,
        options: &McpClientOptions,
    ) -> Self {
        let annotations = convert::annotations_from_mcp(definition.annotations.as_ref());
        let description = bounded_description(
            definition
                .description
                .as_deref()
                .or(definition.title.as_deref())
                .unwrap_or_default(),
        );
        Self {
            // `Tool` hands out `&'static str` so that specs and registry keys cost nothing per
            // turn. A remote tool's name and description are known only at run time, so they are
            // interned: kept once per distinct text (a name of at most 64 bytes, a description
            // of at most `MAX_REMOTE_DESCRIPTION`), not once per connection, so that
            // reconnecting and re-listing the same server keeps nothing more.
            name: static_text(local_name),
            description: static_text(description),
            remote_name: definition.name.to_string(),
            checked_here: draft_2020_12(&definition.input_schema),
            schema: Value::Object(definition.input_schema.as_ref().clone()),
            output_schema: definition
                .output_schema
                .map(|schema| Arc::new(Value::Object(schema.as_ref().clone()))),
            needs_approval: needs_approval(&annotations, options.unannotated_needs_approval),
            annotations,
            server: inner.server.clone(),
            version: about.version.clone(),
            // The group is named as the model sees the server's tools: by their prefix, if any.
            group: ToolGroup::new(
                options.name_prefix.as_deref().unwrap_or(&inner.server),
                about.description.as_str(),
            ),
            transport: inner.connector.kind(),
            owner: Arc::downgrade(inner),
            available: AtomicBool::new(true),
            call_timeout: options.call_timeout,
            max_call_time: options
                .reset_timeout_on_progress
                .then_some(options.max_call_time),
        }
    }

    /// The tool's name on the server.
    pub fn remote_name(&self) -> &str {
        &self.remote_name
    }

    /// The server's name.
    pub fn server_name(&self) -> &str {
        &self.server
    }

    /// Whether the server still lists this tool. A tool the server removed (announced with
    /// `notifications/tools/list_changed`) stays in the client's list, so that the tools after
    /// it keep their places, and its calls answer that it is not available.
    pub fn is_available(&self) -> bool {
        self.available.load(Ordering::Acquire)
    }

    /// Marks the tool as listed or not; returns the previous state.
    pub(super) fn set_available(&self, available: bool) -> bool {
        self.available.swap(available, Ordering::AcqRel)
    }

    /// Sends the call; when the server refuses it for want of OAuth authorization (a 403 for
    /// more scope, or a 401 a refresh could not cure), authorizes as it asks on a new connection
    /// and sends it once more.
    async fn call_authorized(
        &self,
        inner: &Arc<Inner>,
        params: CallToolRequestParams,
        asker: &Asker,
    ) -> AgentResult<CallToolResult> {
        let talk = &inner.handler.talk;
        let peer = inner.peer().await?;
        let challenge = match self.rounds(talk, &peer, params.clone(), asker).await {
            Ok(result) => return Ok(result),
            Err(Refusal::Error(error)) => return Err(error),
            Err(Refusal::Unauthorized(challenge)) => challenge,
        };
        inner.step_up(&challenge).await?;
        let peer = inner.peer().await?;
        match self.rounds(talk, &peer, params, asker).await {
            Ok(result) => Ok(result),
            Err(Refusal::Error(error)) => Err(error),
            Err(Refusal::Unauthorized(challenge)) => Err(self.error(format!(
                "the server refused `{}` again after authorizing as it asked; not sent a third time (its challenge: {challenge})",
                self.remote_name
            ))),
        }
    }

    /// Sends the call, and sends it again with the answers while the server answers that it
    /// needs input first (`input_required`, protocol 2026-07-28).
    async fn rounds(
        &self,
        talk: &Talk,
        peer: &Peer<RoleClient>,
        mut params: CallToolRequestParams,
        asker: &Asker,
    ) -> Result<CallToolResult, Refusal> {
        let tool = &self.remote_name;
        let mut waits = 0u32;
        for _ in 0..MAX_INPUT_ROUNDS {
            let input = match self.send(peer, params.clone()).await? {
                ServerResult::CallToolResult(result) => return Ok(result),
                // A result with no fields at all: a tool that returned nothing.
                ServerResult::EmptyResult(_) => return Ok(CallToolResult::default()),
                ServerResult::InputRequiredResult(input) => input,
                other => {
                    return Err(self
                        .error(format!(
                            "the server answered `{tool}` with something other than a tool result: {}",
                            serde_json::to_string(&other).unwrap_or_default()
                        ))
                        .into());
                }
            };
            let requests = input.input_requests.unwrap_or_default();
            if requests.is_empty() {
                if input.request_state.is_none() {
                    return Err(self
                        .error(format!(
                            "the server answered `{tool}` that it needs input, but asked for none"
                        ))
                        .into());
                }
                // Only state to hand back: the server is still working; do not hammer it.
                waits += 1;
                tokio::time::sleep(Duration::from_millis(50 << waits.min(4))).await;
            }
            let responses = talk.fulfil(requests, asker).await.map_err(|error| {
                self.error(format!(
                    "the server asked for input to `{tool}` that this client cannot give: {}",
                    error.message
                ))
            })?;
            params.input_responses = (!responses.is_empty()).then_some(responses);
            params.request_state = input.request_state;
        }
        Err(self
            .error(format!(
                "the server asked for input to `{tool}` {MAX_INPUT_ROUNDS} times without a result; the call was given up"
            ))
            .into())
    }

    /// One `tools/call` request, within the call timeout (restarted by progress if asked).
    async fn send(
        &self,
        peer: &Peer<RoleClient>,
        params: CallToolRequestParams,
    ) -> Result<ServerResult, Refusal> {
        let mut options = PeerRequestOptions::with_timeout(self.call_timeout);
        if let Some(limit) = self.max_call_time {
            options.reset_timeout_on_progress = true;
            options.max_total_timeout = Some(limit);
        }
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let handle = peer
            .send_request_with_option(request, options)
            .await
            .map_err(|error| self.refusal(error))?;
        // rmcp cancels the request on the server when its timeout fires; a call dropped
        // (cancelled by the run) is cancelled there by this guard.
        let mut guard = CancelOnDrop {
            peer,
            id: Some(handle.id.clone()),
        };
        let result = handle.await_response().await;
        guard.id = None;
        result.map_err(|error| self.refusal(error))
    }

    /// A failed request: the server's OAuth challenge if it asked for authorization, else the
    /// error as the model reads it.
    fn refusal(&self, error: ServiceError) -> Refusal {
        if let ServiceError::TransportSend(transport) = &error
            && let Some(inner) = self.owner.upgrade()
            && let Some(challenge) = inner.connector.oauth_challenge(transport)
        {
            return Refusal::Unauthorized(challenge);
        }
        Refusal::Error(self.service_error(error))
    }

    fn error(&self, message: String) -> AgentError {
        AgentError::Mcp {
            server: self.server.to_string(),
            message,
        }
    }

    fn service_error(&self, error: ServiceError) -> AgentError {
        let tool = &self.remote_name;
        match error {
            ServiceError::McpError(error) => AgentError::tool(format!(
                "MCP server `{}` refused the call of `{tool}`: {}",
                self.server, error.message
            )),
            ServiceError::TransportSend(error) if chain(&error).contains("Session expired") => {
                self.error(format!(
                    "the server answered `{tool}` with HTTP 404 (session expired) again after the session was renewed; the call was not sent a third time"
                ))
            }
            ServiceError::TransportSend(error) if self.transport == "http" => self.error(format!(
                "sending `{tool}` failed: {}",
                chain(&error)
            )),
            ServiceError::Timeout { timeout } => {
                let (what, setting) = match self.max_call_time {
                    Some(limit) if timeout >= limit => ("finish", "`max_call_time`"),
                    Some(_) => ("report progress", "`call_timeout`"),
                    None => ("finish", "`call_timeout`"),
                };
                self.error(format!(
                    "`{tool}` did not {what} within {} ms and was cancelled; try a smaller request, or raise {setting}",
                    timeout.as_millis()
                ))
            }
            ServiceError::TransportClosed
            | ServiceError::TransportSend(_)
            | ServiceError::Cancelled { .. } => self.error(format!(
                "the server stopped before `{tool}` finished; its tools are unavailable until the program reconnects"
            )),
            other => self.error(format!("calling `{tool}` failed: {other}")),
        }
    }
}

impl std::fmt::Debug for McpTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpTool")
            .field("name", &self.name)
            .field("remote_name", &self.remote_name)
            .field("server", &self.server)
            .field("available", &self.is_available())
            .finish_non_exhaustive()
    }
}

#[async_trait]
impl Tool for McpTool {
    fn name(&self) -> &'static str {
        self.name
    }

    fn description(&self) -> &'static str {
        self.description
    }

    fn schema(&self) -> Value {
        self.schema.clone()
    }

    async fn call(&self, args: &Value, ctx: &ToolContext) -> AgentResult<Vec<Content>> {
        if !self.is_available() {
            return Err(AgentError::tool(format!(
                "`{}` is not available: MCP server `{}` no longer lists it",
                self.name, self.server
            )));
        }
        let mut params = CallToolRequestParams::new(self.remote_name.clone());
        match args {
            Value::Object(arguments) => params = params.with_arguments(arguments.clone()),
            Value::Null => {}
            other => {
                return Err(AgentError::InvalidArguments {
                    tool: self.name.to_string(),
                    path: crate::error::ROOT_PATH.to_string(),
                    message: crate::error::mistakes::arguments_are_a_scalar(other),
                });
            }
        }
        let Some(inner) = self.owner.upgrade() else {
            return Err(self.error(
                "the client was closed or dropped; its tools can no longer be called".to_string(),
            ));
        };
        let asker = Asker::of(ctx);
        let _in_flight = inner.handler.talk.enter(asker.clone());
        let outcome = tokio::select! {
            outcome = self.call_authorized(&inner, params, &asker) => outcome,
            () = ctx.cancellation().cancelled() => {
                return Err(AgentError::Cancelled { tool: self.name.to_string() });
            }
        };
        let result = outcome?;
        if result.is_error == Some(true) {
            return Err(AgentError::tool(error_text(&result)));
        }
        Ok(result::contents_from_mcp(result))
    }

    /// Slightly longer than the call timeout (or, when progress resets it, than the longest a
    /// call may take), so that the client's own timeout (which cancels the call on the server
    /// and says so) fires first.
    fn timeout_ms(&self) -> Option<u64> {
        let longest = match self.max_call_time {
            Some(limit) => limit,
            None => self.call_timeout,
        };
        Some(longest.as_millis() as u64 + 1_000)
    }

    fn metadata(&self) -> ToolMetadata {
        let mut metadata = ToolMetadata::new(self.name, self.description);
        metadata.origin = format!("mcp:{}", self.server);
        if let Some(version) = &self.version {
            metadata.version = version.clone();
        }
        metadata
    }

    fn group(&self) -> Option<ToolGroup> {
        Some(self.group.clone())
    }

    /// The server's hints and output schema; approval from the hints, read once when the tools
    /// were listed (see [`McpClientOptions::unannotated_needs_approval`]).
    fn options(&self) -> ToolOptions {
        let mut options = ToolOptions::default().with_annotations(self.annotations);
        options.output_schema = self.output_schema.clone();
        if self.needs_approval {
            options.approval = ToolApproval::Always;
        }
        options
    }

    // A schema in JSON Schema 2020-12 (MCP's default draft) is checked here, so that the model
    // hears every mistake at once, in the same words as for a local tool, without a round trip.
    // One that declares another draft is left to the server: a check here under 2020-12 could
    // refuse what the server accepts.
    fn __fast_path(&self) -> FastPath<'_> {
        if self.checked_here {
            FastPath::Plain
        } else {
            FastPath::ChecksOwnArguments
        }
    }
}

/// Whether an input schema is JSON Schema 2020-12: it declares so, or declares no draft (MCP's
/// default since 2025-11-25).
fn draft_2020_12(schema: &serde_json::Map<String, Value>) -> bool {
    match schema.get("$schema") {
        None => true,
        Some(Value::String(draft)) => {
            draft.trim_end_matches('#') == "https://json-schema.org/draft/2020-12/schema"
        }
        Some(_) => false,
    }
}

/// Whether a tool with these hints needs a person's approval: read-only never, destructive
/// always, and one without a destructive hint as `unannotated` says.
fn needs_approval(hints: &ToolAnnotations, unannotated: bool) -> bool {
    match (hints.read_only, hints.destructive) {
        (Some(true), _) => false,
        (_, Some(destructive)) => destructive,
        (_, None) => unannotated,
    }
}

/// How many times a call is sent again with answers to the server's questions before it is
/// given up (rmcp's own helpers stop at 10 as well).
const MAX_INPUT_ROUNDS: usize = 10;

/// Why a call came back without a result.
enum Refusal {
    Error(AgentError),
    /// The server asked for (more) OAuth authorization: its `WWW-Authenticate` challenge.
    Unauthorized(String),
}

impl From<AgentError> for Refusal {
    fn from(error: AgentError) -> Self {
        Self::Error(error)
    }
}

/// Sends `notifications/cancelled` for a request abandoned before its answer came.
struct CancelOnDrop<'a> {
    peer: &'a Peer<RoleClient>,
    id: Option<RequestId>,
}

impl Drop for CancelOnDrop<'_> {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else { return };
        let peer = self.peer.clone();
        let params = CancelledNotificationParam::new(
            Some(id),
            Some("the caller abandoned the tool call".to_string()),
        );
        // Drop cannot wait; the notification is sent on the runtime, if there still is one.
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let _ = peer.notify_cancelled(params).await;
            });
        }
    }
}

/// The text of an `isError` result, for the model.
fn error_text(result: &CallToolResult) -> String {
    let text: Vec<&str> = result
        .content
        .iter()
        .filter_map(ContentBlock::as_text)
        .map(|text| text.text.as_str())
        .collect();
    if text.is_empty() {
        "the tool reported an error without a message".to_string()
    } else {
        text.join("\n")
    }
}

/// The longest remote tool description kept, in bytes: a server cannot make the client hold
/// (and send the model, every turn) an unbounded text.
const MAX_REMOTE_DESCRIPTION: usize = 8 * 1024;

/// `text`, cut at [`MAX_REMOTE_DESCRIPTION`] on a character boundary, with a mark where it was.
fn bounded_description(text: &str) -> String {
    if text.len() <= MAX_REMOTE_DESCRIPTION {
        return text.to_string();
    }
    let kept = &text[..crate::limits::floor_char_boundary(text, MAX_REMOTE_DESCRIPTION)];
    format!("{kept} [description cut at {MAX_REMOTE_DESCRIPTION} bytes]")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn only_schemas_in_json_schema_2020_12_are_checked_here() {
        let schema = |value: Value| match value {
            Value::Object(map) => map,
            _ => unreachable!(),
        };
        assert!(draft_2020_12(&schema(json!({"type": "object"}))));
        assert!(draft_2020_12(&schema(
            json!({"$schema": "https://json-schema.org/draft/2020-12/schema#"})
        )));
        assert!(!draft_2020_12(&schema(
            json!({"$schema": "http://json-schema.org/draft-07/schema#"})
        )));
        assert!(!draft_2020_12(&schema(json!({"$schema": 7}))));
    }

    #[test]
    fn remote_descriptions_are_bounded_on_a_character_boundary() {
        assert_eq!(bounded_description("Search the web"), "Search the web");
        let long = "é".repeat(MAX_REMOTE_DESCRIPTION);
        let cut = bounded_description(&long);
        assert!(cut.len() < MAX_REMOTE_DESCRIPTION + 64, "{}", cut.len());
        assert!(cut.ends_with("[description cut at 8192 bytes]"));
        assert!(cut.starts_with("éé"));
    }
}
