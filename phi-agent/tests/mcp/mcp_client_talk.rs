//! Our MCP client answering what a server asks while it serves a call: a person's answer
//! (elicitation), a model's reply (sampling) and the roots, by the same kinds of handler an agent
//! run uses, declared only when set; asked by requests of their own (2025-11-25) or inside the
//! call's result (`input_required`, 2026-07-28). Against this test binary re-run as a small rmcp
//! server of either version; and call timeouts restarted by progress when asked, against our own
//! `McpServer` on loopback HTTP.

// rmcp marks sampling and roots deprecated by SEP-2577 (2026-07-28); 2025-11-25 servers use them.
#![allow(deprecated)]

use std::borrow::Cow;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use phi_agent::llm::{LlmClient, LlmResponse, ScriptedLlm};
use phi_agent::mcp::rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, InputRequest,
    InputRequests, InputRequiredResult, ListToolsResult, PaginatedRequestParams, ProtocolVersion,
    ServerCapabilities, ServerConfig, ServerRequest, Tool as McpToolDef,
};
use phi_agent::mcp::rmcp::service::RequestContext;
use phi_agent::mcp::rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use phi_agent::mcp::{HttpOptions, HttpServer, McpClient, McpClientOptions, McpHttpOptions};
use phi_agent::registry::ToolRegistry;
use phi_agent::{Elicitation, ElicitationRequest, Tool, ToolConfig, ToolContext, phi_tool, tools};
use serde_json::{Value, json};
use tokio::process::Command;

const CHILD_ENV: &str = "PHI_MCP_TALK_CHILD";

/// Works for `steps` × 100 ms, reporting progress after each step.
#[phi_tool]
async fn long_task(
    /// How many steps
    steps: u32,
    ctx: &ToolContext,
) -> &'static str {
    for step in 1..=steps {
        tokio::time::sleep(Duration::from_millis(100)).await;
        ctx.progress(f64::from(step), Some(f64::from(steps)), None)
            .await;
    }
    "done"
}

async fn server() -> HttpServer {
    let mut registry = ToolRegistry::new(ToolConfig::default());
    registry.register_all(tools![long_task]).unwrap();
    phi_agent::mcp_server!(registry)
        .serve_http(HttpOptions::default())
        .await
        .unwrap()
}

async fn connect_http(server: &HttpServer, options: McpClientOptions) -> McpClient {
    McpClient::connect_http("talk", &server.url(), McpHttpOptions::default(), options)
        .await
        .unwrap()
}

async fn call(client: &McpClient, name: &str, args: serde_json::Value) -> Result<String, String> {
    let tool = client
        .tools()
        .into_iter()
        .find(|tool| tool.name() == name)
        .unwrap();
    let ctx = ToolContext::new("session-7", ".", Default::default()).for_call_in_run("call_1");
    tool.call(&args, &ctx)
        .await
        .map(|content| content.iter().map(|c| c.to_model_text()).collect())
        .map_err(|error| error.to_string())
}

#[tokio::test]
async fn progress_restarts_the_call_timeout_only_when_asked_and_within_the_limit() {
    let server = server().await;
    let quick = Duration::from_millis(500);
    // 8 steps of 100 ms: longer than the timeout, but never 500 ms without progress.
    let args = json!({"steps": 8});

    let plain = connect_http(
        &server,
        McpClientOptions::default().with_call_timeout(quick),
    )
    .await;
    let timed_out = call(&plain, "long_task", args.clone()).await.unwrap_err();
    assert!(
        timed_out.contains("did not finish within 500 ms") && timed_out.contains("`call_timeout`"),
        "{timed_out}"
    );

    let options = McpClientOptions::default()
        .with_call_timeout(quick)
        .with_reset_timeout_on_progress(true);
    let patient = connect_http(&server, options.clone()).await;
    assert_eq!(
        call(&patient, "long_task", args.clone()).await.unwrap(),
        "done"
    );
    // The registry's own timeout leaves room for the longest call.
    let tool = patient.tools()[0].clone();
    assert_eq!(tool.timeout_ms(), Some(601_000));

    let bounded = connect_http(
        &server,
        options.with_max_call_time(Duration::from_millis(300)),
    )
    .await;
    let cut = call(&bounded, "long_task", args).await.unwrap_err();
    assert!(
        cut.contains("did not finish within 300 ms") && cut.contains("`max_call_time`"),
        "{cut}"
    );
    server.shutdown().await;
}

/// This test binary, re-run as [`talk_server_entry`]: `legacy` speaks 2025-11-25 only and asks
/// by requests of its own; `modern` asks inside its results.
fn talk_server(version: &str) -> Command {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args([
            "--ignored",
            "--exact",
            "mcp_client_talk::talk_server_entry",
            "--nocapture",
            "-q",
        ])
        .env(CHILD_ENV, version);
    command
}

/// What the handlers heard, and the options that answer with them.
fn answering_options(heard: Arc<Mutex<Vec<ElicitationRequest>>>) -> McpClientOptions {
    // One handler value, as an agent's builder takes it too (closures are `Clone`).
    let handler = move |request: ElicitationRequest| {
        let heard = heard.clone();
        async move {
            heard.lock().unwrap().push(request);
            // The person fills in the city only; the form's defaults give the rest.
            Elicitation::Accept(json!({"city": "Oslo"}))
        }
    };
    let model: Arc<dyn LlmClient> = Arc::new(ScriptedLlm::new([LlmResponse::text("forty-two")]));
    McpClientOptions::default()
        .with_elicitation_handler(handler)
        .with_sampling_model(model)
        .with_root("file:///work/project", "project")
}

async fn call_json(client: &McpClient, name: &str) -> Value {
    let text = call(client, name, json!({})).await.unwrap();
    serde_json::from_str(&text).unwrap_or_else(|_| panic!("not JSON: {text}"))
}

async fn the_handlers_answer(version: &str) {
    let heard = Arc::new(Mutex::new(Vec::new()));
    let client = McpClient::connect_stdio(
        "talk",
        talk_server(version),
        answering_options(heard.clone()),
    )
    .await
    .unwrap();
    let capabilities = call_json(&client, "capabilities").await;
    assert_eq!(
        capabilities,
        json!({"elicitation": {"form": {}}, "sampling": {}, "roots": {}}),
        "{version}"
    );
    let answers = call_json(&client, "ask").await;
    assert_eq!(answers["who"]["action"], "accept", "{version}: {answers}");
    assert_eq!(
        answers["who"]["content"],
        json!({"city": "Oslo", "parcels": 1, "gift": false}),
        "{version}: the form's defaults fill what the person left out"
    );
    assert_eq!(
        answers["model"]["content"]["text"], "forty-two",
        "{version}: {answers}"
    );
    assert_eq!(answers["model"]["role"], "assistant");
    assert_eq!(
        answers["roots"]["roots"],
        json!([{"uri": "file:///work/project", "name": "project"}]),
        "{version}"
    );
    let heard = heard.lock().unwrap().clone();
    assert_eq!(heard.len(), 1, "{version}");
    assert_eq!(heard[0].message, "Where to?");
    assert_eq!(heard[0].schema["properties"]["city"]["type"], "string");
    // The only call in flight asked: the request names its session and call.
    assert_eq!(
        (heard[0].session_id.as_str(), heard[0].call_id.as_str()),
        ("session-7", "call_1")
    );
    client.close().await;

    // Nothing set: nothing declared.
    let client =
        McpClient::connect_stdio("talk", talk_server(version), McpClientOptions::default())
            .await
            .unwrap();
    assert_eq!(
        call_json(&client, "capabilities").await,
        json!({}),
        "{version}"
    );
    client.close().await;
}

#[tokio::test]
async fn a_2025_servers_requests_are_answered_by_the_handlers_it_was_told_of() {
    the_handlers_answer("legacy").await;
}

#[tokio::test]
async fn a_2026_servers_input_requests_are_answered_and_the_call_sent_again() {
    the_handlers_answer("modern").await;
}

/// The child server. Runs only when a test starts this binary with [`CHILD_ENV`] set.
#[test]
#[ignore = "started by the other tests as a child MCP server"]
fn talk_server_entry() {
    let Some(version) = std::env::var_os(CHILD_ENV) else {
        return;
    };
    let legacy = version == "legacy";
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        // A connection the client ends before the handshake (its probe of a 2025-11-25 server
        // is answered, then dropped for a fresh start) is no failure of the server's.
        if let Ok(running) = (TalkServer { legacy })
            .serve(phi_agent::mcp::rmcp::transport::stdio())
            .await
        {
            let _ = running.waiting().await;
        }
        std::process::exit(0);
    });
}

struct TalkServer {
    legacy: bool,
}

/// The questions of `ask`, by key, as JSON-RPC requests.
fn questions() -> Vec<(&'static str, Value)> {
    vec![
        (
            "who",
            json!({"method": "elicitation/create", "params": {
                "mode": "form",
                "message": "Where to?",
                "requestedSchema": {"type": "object", "properties": {
                    "city": {"type": "string"},
                    "parcels": {"type": "integer", "default": 1},
                    "gift": {"type": "boolean", "default": false},
                }, "required": ["city"]},
            }}),
        ),
        (
            "model",
            json!({"method": "sampling/createMessage", "params": {
                "messages": [{"role": "user", "content": {"type": "text", "text": "The answer?"}}],
                "systemPrompt": "Be brief",
                "maxTokens": 50,
            }}),
        ),
        ("roots", json!({"method": "roots/list"})),
    ]
}

fn text_result(value: Value) -> CallToolResponse {
    CallToolResponse::Complete(CallToolResult::success(vec![ContentBlock::text(
        value.to_string(),
    )]))
}

impl ServerHandler for TalkServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        if self.legacy {
            Cow::Owned(vec![ProtocolVersion::V_2025_11_25])
        } else {
            Cow::Borrowed(ProtocolVersion::KNOWN_VERSIONS)
        }
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let empty = Arc::new(json!({"type": "object"}).as_object().unwrap().clone());
        Ok(ListToolsResult::with_all_items(vec![
            McpToolDef::new("capabilities", "The client's capabilities", empty.clone()),
            McpToolDef::new("ask", "Asks the client three questions", empty),
        ]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.name == "capabilities" {
            let capabilities = context.client_capabilities().unwrap_or_default();
            return Ok(text_result(serde_json::to_value(capabilities).unwrap()));
        }
        if self.legacy {
            let mut answers = serde_json::Map::new();
            for (key, question) in questions() {
                let request: ServerRequest = serde_json::from_value(
                    json!({"jsonrpc": "2.0", "id": 0})
                        .as_object()
                        .unwrap()
                        .clone()
                        .into_iter()
                        .chain(question.as_object().unwrap().clone())
                        .collect::<serde_json::Map<_, _>>()
                        .into(),
                )
                .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
                let answer = context
                    .peer
                    .send_request(request)
                    .await
                    .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
                answers.insert(key.to_string(), serde_json::to_value(answer).unwrap());
            }
            return Ok(text_result(Value::Object(answers)));
        }
        match request.input_responses {
            Some(responses) => {
                assert_eq!(request.request_state.as_deref(), Some("round-1"));
                Ok(text_result(serde_json::to_value(responses).unwrap()))
            }
            None => {
                let requests: InputRequests = questions()
                    .into_iter()
                    .map(|(key, question)| {
                        (
                            key.to_string(),
                            serde_json::from_value::<InputRequest>(question).unwrap(),
                        )
                    })
                    .collect();
                Ok(CallToolResponse::InputRequired(InputRequiredResult::new(
                    Some(requests),
                    Some("round-1".to_string()),
                )))
            }
        }
    }
}
