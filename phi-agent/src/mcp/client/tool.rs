//! One imported tool: a [`Tool`] whose calls go to the server that listed it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

use async_trait::async_trait;
use rmcp::model::{CallToolRequestParams, CallToolResult, ContentBlock, Tool as McpToolDef};
use rmcp::service::ServiceError;
use serde_json::Value;

use super::connect::chain;
use super::{Inner, McpClientOptions, result};
use crate::content::Content;
use crate::context::ToolContext;
use crate::error::{AgentError, AgentResult};
use crate::mcp::convert;
use crate::tool::{Tool, ToolAnnotations, ToolMetadata};

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
    output_schema: Option<Value>,
    annotations: ToolAnnotations,
    needs_approval: bool,
    server: Arc<str>,
    version: Option<String>,
    transport: &'static str,
    owner: Weak<Inner>,
    /// Whether the server still lists the tool (see `McpClient`'s docs on `tools/list_changed`).
    available: AtomicBool,
    call_timeout: Duration,
}

impl McpTool {
    pub(super) fn new(
        definition: McpToolDef,
        local_name: String,
        inner: &Arc<Inner>,
        version: Option<String>,
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
            // leaked here, once per tool and connection: a name of at most 64 bytes and a
            // description of at most `MAX_REMOTE_DESCRIPTION`.
            name: Box::leak(local_name.into_boxed_str()),
            description: Box::leak(description.into_boxed_str()),
            remote_name: definition.name.to_string(),
            schema: Value::Object(definition.input_schema.as_ref().clone()),
            output_schema: definition
                .output_schema
                .map(|schema| Value::Object(schema.as_ref().clone())),
            needs_approval: needs_approval(&annotations, options.unannotated_needs_approval),
            annotations,
            server: inner.server.clone(),
            version,
            transport: inner.connector.kind(),
            owner: Arc::downgrade(inner),
            available: AtomicBool::new(true),
            call_timeout: options.call_timeout,
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
        let peer = match self.owner.upgrade() {
            Some(inner) => inner.peer().await?,
            None => {
                return Err(self.error(
                    "the client was closed or dropped; its tools can no longer be called"
                        .to_string(),
                ));
            }
        };
        // Dropping the request future (timeout, cancellation) makes rmcp send
        // `notifications/cancelled`, so the server stops the tool too.
        let call = tokio::time::timeout(self.call_timeout, peer.call_tool(params));
        let outcome = tokio::select! {
            outcome = call => outcome,
            () = ctx.cancellation().cancelled() => {
                return Err(AgentError::Cancelled { tool: self.name.to_string() });
            }
        };
        match outcome {
            Err(_elapsed) => Err(self.error(format!(
                "`{}` did not finish within {} ms and was cancelled; try a smaller request, or raise `call_timeout`",
                self.remote_name,
                self.call_timeout.as_millis()
            ))),
            Ok(Err(error)) => Err(self.service_error(error)),
            Ok(Ok(result)) if result.is_error == Some(true) => {
                Err(AgentError::tool(error_text(&result)))
            }
            Ok(Ok(result)) => Ok(result::contents_from_mcp(result)),
        }
    }

    /// Slightly longer than the call timeout, so that the client's own timeout (which cancels
    /// the call on the server and says so) fires first.
    fn timeout_ms(&self) -> Option<u64> {
        Some(self.call_timeout.as_millis() as u64 + 1_000)
    }

    fn metadata(&self) -> ToolMetadata {
        let mut metadata = ToolMetadata::new(self.name, self.description);
        metadata.origin = format!("mcp:{}", self.server);
        if let Some(version) = &self.version {
            metadata.version = version.clone();
        }
        metadata
    }

    fn annotations(&self) -> ToolAnnotations {
        self.annotations
    }

    /// From the server's hints, read once when the tools were listed; see
    /// [`McpClientOptions::unannotated_needs_approval`].
    async fn needs_approval(&self, _args: &Value, _ctx: &ToolContext) -> bool {
        self.needs_approval
    }

    fn output_schema(&self) -> Option<Value> {
        self.output_schema.clone()
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
    use super::*;

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
