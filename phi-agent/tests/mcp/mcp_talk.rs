//! Tools that talk back while they run (progress, log messages, elicitation, sampling), the
//! content kinds beyond text, and the rest of a server's surface (resources, prompts,
//! completion, logging level), driven by rmcp's client over an in-memory pipe; and the HTTP
//! details official clients trip on (own origins, the DELETE status).

// rmcp marks logging and sampling deprecated by SEP-2577 (2026-07-28); 2025-11-25 clients use them.
#![allow(deprecated)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use phi_agent::mcp::rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, CreateMessageRequestParams,
    CreateMessageResult, ElicitRequestParams, ElicitResult, ElicitationAction,
    GetPromptRequestParams, Implementation, LoggingLevel, LoggingMessageNotificationParam,
    ProgressNotificationParam, ReadResourceRequestParams, SamplingMessage, SetLevelRequestParams,
};
use phi_agent::mcp::rmcp::service::{NotificationContext, RequestContext, RunningService};
use phi_agent::mcp::rmcp::{ClientHandler, ErrorData, RoleClient, ServiceExt};
use phi_agent::mcp::{HttpOptions, McpServer, Prompt, PromptMessage, Resource, ResourceTemplate};
use phi_agent::registry::ToolRegistry;
use phi_agent::{
    AgentResult, Content, Elicitation, LogLevel, ResourceContents, SampleRequest, ToolConfig,
    ToolContext, phi_tool, tools,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// Reports progress and writes log messages, interleaved, with a pause between steps.
#[phi_tool]
async fn chatty(ctx: &ToolContext) -> &'static str {
    for step in 1..=3 {
        ctx.log(LogLevel::Info, format!("step {step} started"))
            .await;
        ctx.progress(f64::from(step), Some(3.0), Some(&format!("step {step}")))
            .await;
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    ctx.log(LogLevel::Debug, "a detail").await;
    ctx.log(LogLevel::Warning, "a warning").await;
    "done"
}

#[derive(Debug, Deserialize, JsonSchema)]
struct Shipping {
    /// Where to ship
    city: String,
    /// How many parcels
    parcels: u32,
    /// Gift-wrap them
    #[serde(default)]
    gift: bool,
}

/// Asks the user where to ship.
#[phi_tool]
async fn ship(ctx: &ToolContext) -> AgentResult<String> {
    Ok(match ctx.elicit::<Shipping>("Where to?").await? {
        Elicitation::Accept(shipping) => format!(
            "shipping {} parcels to {} (gift: {})",
            shipping.parcels, shipping.city, shipping.gift
        ),
        Elicitation::Decline => "declined".to_string(),
        Elicitation::Cancel => "cancelled".to_string(),
    })
}

/// Asks the client's model.
#[phi_tool]
async fn ask_model(
    /// The question
    question: String,
    ctx: &ToolContext,
) -> AgentResult<String> {
    let answer = ctx
        .sample(SampleRequest::new(question).with_system("Be brief"))
        .await?;
    Ok(format!("{} said: {}", answer.model, answer.text))
}

/// Returns audio, an embedded resource and a link.
#[phi_tool]
async fn media() -> Vec<Content> {
    vec![
        Content::audio("UklGRg==", "audio/wav"),
        Content::resource(ResourceContents::text(
            "file:///notes.md",
            "text/markdown",
            "# Notes",
        )),
        Content::resource_link("file:///big.csv", "big.csv"),
    ]
}

#[derive(Serialize, JsonSchema)]
struct StockCount {
    /// Units in stock
    units: u32,
    /// Reserved units
    reserved: u64,
}

/// Returns a typed stock count (its schema has integer formats).
#[phi_tool]
async fn stock(
    /// How many to reserve
    reserve: u8,
) -> StockCount {
    StockCount {
        units: 10,
        reserved: u64::from(reserve),
    }
}

fn server() -> McpServer {
    let mut registry = ToolRegistry::new(ToolConfig::default());
    registry
        .register_all(tools![chatty, ship, ask_model, media, stock])
        .unwrap();
    phi_agent::mcp_server!(registry)
        .with_resource(
            Resource::text("test://readme", "readme", "Read me.").with_description("The readme"),
        )
        .with_resource_template(ResourceTemplate::new(
            "test://orders/{id}",
            "order",
            |uri, vars| async move {
                Ok(ResourceContents::text(
                    uri,
                    "application/json",
                    json!({"id": vars["id"]}).to_string(),
                ))
            },
        ))
        .with_prompt(
            Prompt::new("greet", |args| async move {
                Ok(vec![PromptMessage::user(format!(
                    "Say hello to {}",
                    args["name"]
                ))])
            })
            .with_description("Greet someone")
            .with_argument("name", "Who to greet", true),
        )
        .with_completion(|_target, argument, typed| {
            ["alice", "albert", "bob"]
                .into_iter()
                .filter(|name| argument == "name" && name.starts_with(typed))
                .map(String::from)
                .collect()
        })
}

/// What the client heard, in order.
#[derive(Default)]
struct Heard {
    events: Mutex<Vec<String>>,
}

struct Client {
    heard: Arc<Heard>,
    capabilities: Value,
    elicit_answer: ElicitationAction,
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            serde_json::from_value::<ClientCapabilities>(self.capabilities.clone()).unwrap(),
            Implementation::new("phi-talk-client", "0.0.0"),
        )
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.heard.events.lock().unwrap().push(format!(
            "progress {}/{} {}",
            params.progress,
            params.total.unwrap_or_default(),
            params.message.unwrap_or_default()
        ));
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.heard.events.lock().unwrap().push(format!(
            "log {:?} {} {}",
            params.level,
            params.logger.unwrap_or_default(),
            params.data.as_str().unwrap_or_default()
        ));
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let ElicitRequestParams::FormElicitationParams {
            message,
            requested_schema,
            ..
        } = request
        else {
            return Err(ErrorData::invalid_params("a form was expected", None));
        };
        let schema = serde_json::to_value(&requested_schema).unwrap();
        self.heard
            .events
            .lock()
            .unwrap()
            .push(format!("elicit {message} {schema}"));
        let mut answer = ElicitResult::new(self.elicit_answer.clone());
        if self.elicit_answer == ElicitationAction::Accept {
            answer.content = Some(json!({"city": "Lyon", "parcels": 2}));
        }
        Ok(answer)
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        let asked = serde_json::to_value(&params).unwrap();
        self.heard
            .events
            .lock()
            .unwrap()
            .push(format!("sample {asked}"));
        Ok(CreateMessageResult::new(
            SamplingMessage::assistant_text("42"),
            "test-model".to_string(),
        ))
    }
}

async fn connect(
    capabilities: Value,
    elicit_answer: ElicitationAction,
) -> (RunningService<RoleClient, Client>, Arc<Heard>) {
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    let server = server();
    tokio::spawn(async move {
        if let Ok(running) = server.serve(tokio::io::split(server_io)).await {
            let _ = running.waiting().await;
        }
    });
    let heard = Arc::new(Heard::default());
    let client = Client {
        heard: heard.clone(),
        capabilities,
        elicit_answer,
    };
    let running = client
        .serve(tokio::io::split(client_io))
        .await
        .expect("handshake with our server");
    (running, heard)
}

async fn call(client: &RunningService<RoleClient, Client>, name: &str, args: Value) -> Value {
    let mut params = CallToolRequestParams::new(name.to_string());
    if let Value::Object(args) = args {
        params = params.with_arguments(args);
    }
    let result = client.peer().call_tool(params).await.expect("a result");
    serde_json::to_value(result).unwrap()
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

#[tokio::test]
async fn progress_and_log_messages_reach_the_client_in_order_at_its_level() {
    let (client, heard) = connect(json!({}), ElicitationAction::Accept).await;
    let result = call(&client, "chatty", json!({})).await;
    assert_eq!(text(&result), "done", "{result}");
    // Notifications travel ahead of the result on the same pipe; give the handler a moment.
    tokio::time::sleep(Duration::from_millis(50)).await;
    let events = heard.events.lock().unwrap().clone();
    assert_eq!(
        events,
        [
            "log Info chatty step 1 started",
            "progress 1/3 step 1",
            "log Info chatty step 2 started",
            "progress 2/3 step 2",
            "log Info chatty step 3 started",
            "progress 3/3 step 3",
            "log Warning chatty a warning",
        ],
        "debug is below the default level (info)"
    );

    heard.events.lock().unwrap().clear();
    client
        .peer()
        .set_level(SetLevelRequestParams::new(LoggingLevel::Warning))
        .await
        .unwrap();
    call(&client, "chatty", json!({})).await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    let logs: Vec<String> = heard
        .events
        .lock()
        .unwrap()
        .iter()
        .filter(|event| event.starts_with("log"))
        .cloned()
        .collect();
    assert_eq!(
        logs,
        ["log Warning chatty a warning"],
        "setLevel is honoured"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_typed_question_goes_to_the_client_and_its_answer_comes_back() {
    let (client, heard) = connect(json!({"elicitation": {}}), ElicitationAction::Accept).await;
    let result = call(&client, "ship", json!({})).await;
    assert_eq!(
        text(&result),
        "shipping 2 parcels to Lyon (gift: false)",
        "{result}"
    );
    let events = heard.events.lock().unwrap().clone();
    let asked = events[0]
        .strip_prefix("elicit Where to? ")
        .expect("the question");
    let schema: Value = serde_json::from_str(asked).unwrap();
    assert_eq!(schema["properties"]["city"]["type"], "string");
    assert_eq!(schema["properties"]["city"]["description"], "Where to ship");
    assert_eq!(schema["properties"]["parcels"]["type"], "integer");
    assert!(
        schema["properties"]["parcels"].get("format").is_none(),
        "{schema}"
    );
    assert_eq!(schema["properties"]["gift"]["type"], "boolean");
    assert_eq!(schema["required"], json!(["city", "parcels"]));

    for (action, expected) in [
        (ElicitationAction::Decline, "declined"),
        (ElicitationAction::Cancel, "cancelled"),
    ] {
        let (client, _) = connect(json!({"elicitation": {}}), action).await;
        assert_eq!(text(&call(&client, "ship", json!({})).await), expected);
        client.cancel().await.unwrap();
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn questions_a_client_cannot_answer_are_error_results() {
    let (client, heard) = connect(json!({}), ElicitationAction::Accept).await;
    let asked = call(&client, "ship", json!({})).await;
    assert_eq!(asked["isError"], true, "{asked}");
    assert!(text(&asked).contains("does not support it"), "{asked}");
    let sampled = call(&client, "ask_model", json!({"question": "?"})).await;
    assert_eq!(sampled["isError"], true, "{sampled}");
    assert!(heard.events.lock().unwrap().is_empty());
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn sampling_asks_the_clients_model() {
    let (client, heard) = connect(json!({"sampling": {}}), ElicitationAction::Accept).await;
    let result = call(&client, "ask_model", json!({"question": "6 x 7?"})).await;
    assert_eq!(text(&result), "test-model said: 42", "{result}");
    let events = heard.events.lock().unwrap().clone();
    let asked: Value = serde_json::from_str(events[0].strip_prefix("sample ").unwrap()).unwrap();
    assert_eq!(asked["systemPrompt"], "Be brief");
    assert_eq!(asked["messages"][0]["content"]["text"], "6 x 7?");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn audio_resources_and_links_reach_the_client() {
    let (client, _) = connect(json!({}), ElicitationAction::Accept).await;
    let result = call(&client, "media", json!({})).await;
    let content = &result["content"];
    assert_eq!(
        content[0],
        json!({"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"})
    );
    assert_eq!(content[1]["type"], "resource");
    assert_eq!(
        content[1]["resource"],
        json!({"uri": "file:///notes.md", "mimeType": "text/markdown", "text": "# Notes"})
    );
    assert_eq!(content[2]["type"], "resource_link");
    assert_eq!(content[2]["uri"], "file:///big.csv");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn resources_prompts_and_completions_are_served() {
    let (client, _) = connect(json!({}), ElicitationAction::Accept).await;
    let peer = client.peer();
    let info = serde_json::to_value(peer.peer_info().unwrap()).unwrap();
    assert_eq!(
        info["serverInfo"],
        json!({"name": env!("CARGO_PKG_NAME"), "version": env!("CARGO_PKG_VERSION")}),
        "mcp_server! names the server after the calling crate"
    );
    for capability in ["resources", "prompts", "completions", "logging", "tools"] {
        assert!(info["capabilities"].get(capability).is_some(), "{info}");
    }

    let resources = serde_json::to_value(peer.list_all_resources().await.unwrap()).unwrap();
    assert_eq!(resources[0]["uri"], "test://readme");
    assert_eq!(resources[0]["description"], "The readme");
    let readme = peer
        .read_resource(ReadResourceRequestParams::new("test://readme"))
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&readme).unwrap()["contents"][0],
        json!({"uri": "test://readme", "mimeType": "text/plain", "text": "Read me."})
    );
    let order = peer
        .read_resource(ReadResourceRequestParams::new("test://orders/77"))
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&order).unwrap()["contents"][0]["text"],
        r#"{"id":"77"}"#
    );
    let missing = peer
        .read_resource(ReadResourceRequestParams::new("test://nothing"))
        .await
        .unwrap_err();
    assert!(missing.to_string().contains("test://nothing"), "{missing}");
    let templates =
        serde_json::to_value(peer.list_all_resource_templates().await.unwrap()).unwrap();
    assert_eq!(templates[0]["uriTemplate"], "test://orders/{id}");

    let prompts = serde_json::to_value(peer.list_all_prompts().await.unwrap()).unwrap();
    assert_eq!(prompts[0]["name"], "greet");
    assert_eq!(prompts[0]["arguments"][0]["required"], true);
    let mut arguments = serde_json::Map::new();
    arguments.insert("name".into(), json!("Ada"));
    let prompt = peer
        .get_prompt(GetPromptRequestParams::new("greet").with_arguments(arguments))
        .await
        .unwrap();
    let prompt = serde_json::to_value(prompt).unwrap();
    assert_eq!(prompt["messages"][0]["role"], "user");
    assert_eq!(prompt["messages"][0]["content"]["text"], "Say hello to Ada");
    let without = peer
        .get_prompt(GetPromptRequestParams::new("greet"))
        .await
        .unwrap_err();
    assert!(without.to_string().contains("`name`"), "{without}");

    let completion: Value = serde_json::to_value(
        peer.complete(
            serde_json::from_value(json!({
                "ref": {"type": "ref/prompt", "name": "greet"},
                "argument": {"name": "name", "value": "al"}
            }))
            .unwrap(),
        )
        .await
        .unwrap(),
    )
    .unwrap();
    assert_eq!(
        completion["completion"]["values"],
        json!(["alice", "albert"])
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn served_schemas_carry_no_format_validators_do_not_know() {
    let (client, _) = connect(json!({}), ElicitationAction::Accept).await;
    let tools = serde_json::to_value(client.peer().list_all_tools().await.unwrap()).unwrap();
    let stock = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["name"] == "stock")
        .unwrap();
    let text = stock.to_string();
    for format in ["uint8", "uint32", "uint64"] {
        assert!(!text.contains(format), "{format} in {text}");
    }
    // The bounds the formats stood for stay.
    assert_eq!(
        stock["inputSchema"]["properties"]["reserve"]["maximum"],
        255
    );
    assert_eq!(
        stock["outputSchema"]["properties"]["units"]["maximum"],
        u32::MAX
    );
    client.cancel().await.unwrap();
}

/// A tool whose hand-written schema declares JSON Schema 2020-12 and uses `$defs`.
struct Declared;

#[async_trait::async_trait]
impl phi_agent::Tool for Declared {
    fn name(&self) -> &'static str {
        "declared"
    }
    fn description(&self) -> &'static str {
        "A tool with a declared dialect"
    }
    fn schema(&self) -> Value {
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {"address": {"type": "object", "properties": {"city": {"type": "string"}}}},
            "properties": {"address": {"$ref": "#/$defs/address"}},
            "additionalProperties": false
        })
    }
    async fn call(&self, _args: &Value, _ctx: &ToolContext) -> AgentResult<Vec<Content>> {
        Ok(vec![Content::text("ok")])
    }
}

/// A tool whose hand-written schema uses `$defs` and names no dialect: JSON Schema 2020-12,
/// MCP's default.
struct DefsOnly;

impl DefsOnly {
    fn declared() -> Value {
        json!({
            "type": "object",
            "$defs": {"address": {"type": "object", "properties": {"city": {"type": "string"}}}},
            "properties": {"address": {"$ref": "#/$defs/address"}},
            "required": ["address"]
        })
    }
}

#[async_trait::async_trait]
impl phi_agent::Tool for DefsOnly {
    fn name(&self) -> &'static str {
        "defs_only"
    }
    fn description(&self) -> &'static str {
        "A tool with definitions and no declared dialect"
    }
    fn schema(&self) -> Value {
        Self::declared()
    }
    async fn call(&self, _args: &Value, _ctx: &ToolContext) -> AgentResult<Vec<Content>> {
        Ok(vec![Content::text("ok")])
    }
}

#[tokio::test]
async fn a_schema_that_declares_its_dialect_is_served_as_declared() {
    let mut registry = ToolRegistry::new(ToolConfig::default());
    registry.register(Declared).unwrap();
    registry.register_all(tools![chatty]).unwrap();
    registry.register(DefsOnly).unwrap();
    let server = McpServer::new(registry);
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(tokio::io::split(server_io)).await {
            let _ = running.waiting().await;
        }
    });
    let client = ().serve(tokio::io::split(client_io)).await.unwrap();
    let tools = serde_json::to_value(client.peer().list_all_tools().await.unwrap()).unwrap();
    let declared = &tools[0]["inputSchema"];
    assert_eq!(
        declared["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert_eq!(
        declared["$defs"]["address"]["properties"]["city"]["type"],
        "string"
    );
    assert_eq!(declared["properties"]["address"]["$ref"], "#/$defs/address");
    assert!(
        tools[1]["inputSchema"].get("$schema").is_none(),
        "a derived schema stays canonical"
    );
    // `$defs` without `$schema`: 2020-12 by default, served with its definitions and `$ref`s.
    assert_eq!(tools[2]["name"], "defs_only");
    assert_eq!(tools[2]["inputSchema"], DefsOnly::declared());
    // The providers' dialects still inline the definitions (none takes a `$ref`).
    let canonical = phi_agent::schema::canonicalize(DefsOnly::declared());
    for dialect in [
        phi_agent::schema::Dialect::Anthropic,
        phi_agent::schema::Dialect::OpenAiStrict,
        phi_agent::schema::Dialect::Gemini,
    ] {
        let schema = phi_agent::schema::to_dialect(&canonical, dialect).unwrap();
        assert!(schema.get("$defs").is_none(), "{dialect}: {schema}");
        assert_eq!(
            schema["properties"]["address"]["properties"]["city"]["type"], "string",
            "{dialect}: {schema}"
        );
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_context_without_a_peer_keeps_quiet_and_refuses_questions() {
    let ctx = ToolContext::default();
    assert!(!ctx.has_peer());
    ctx.progress(1.0, None, None).await;
    ctx.log(LogLevel::Error, json!({"any": "json"})).await;
    let asked = ctx.elicit::<Shipping>("Where to?").await.unwrap_err();
    assert!(
        asked
            .to_string()
            .contains("not supported where it runs now"),
        "{asked}"
    );
    let sampled = ctx.sample(SampleRequest::new("hi")).await.unwrap_err();
    assert!(sampled.to_string().contains("ask a model"), "{sampled}");
}

#[tokio::test]
async fn own_origins_are_accepted_and_a_session_delete_gets_204() {
    let mut registry = ToolRegistry::new(ToolConfig::default());
    registry.register_all(tools![media]).unwrap();
    let server = McpServer::new(registry)
        .serve_http(HttpOptions::default())
        .await
        .unwrap();
    let port = server.local_addr().port();
    for origin in [
        format!("http://localhost:{port}"),
        format!("http://127.0.0.1:{port}"),
    ] {
        let answer = crate::raw::send(
            crate::raw::post(&server, crate::raw::initialize_body(1)).header("Origin", &origin),
        )
        .await;
        assert_eq!(answer.status, 200, "{origin}: {answer:?}");
    }
    for origin in [
        "http://evil.example",
        &format!("http://localhost:{}", port + 1),
    ] {
        let answer = crate::raw::send(
            crate::raw::post(&server, crate::raw::initialize_body(1)).header("Origin", origin),
        )
        .await;
        assert_eq!(answer.status, 403, "{origin}: {answer:?}");
    }

    let session = crate::raw::open_session(&server).await;
    let deleted = crate::raw::client()
        .delete(server.url())
        .header("Mcp-Session-Id", &session)
        .header("MCP-Protocol-Version", "2025-11-25")
        .send()
        .await
        .unwrap();
    assert_eq!(
        deleted.status(),
        204,
        "the official SDKs accept 200 or 204 (the Python SDK warns on 202)"
    );
    server.shutdown().await;
}

#[tokio::test]
async fn progress_goes_out_only_for_a_request_that_asked_for_it() {
    let mut registry = ToolRegistry::new(ToolConfig::default());
    registry.register_all(tools![chatty]).unwrap();
    let server = McpServer::new(registry)
        .serve_http(HttpOptions::default())
        .await
        .unwrap();
    let session = crate::raw::open_session(&server).await;
    let call = |id: u64, meta: Value| {
        let mut params = json!({"name": "chatty", "arguments": {}});
        if !meta.is_null() {
            params["_meta"] = meta;
        }
        crate::raw::post(
            &server,
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
                .to_string(),
        )
        .header("Mcp-Session-Id", &session)
        .header("MCP-Protocol-Version", "2025-11-25")
    };
    let progress = |answer: &crate::raw::Answer| -> Vec<Value> {
        answer
            .messages()
            .into_iter()
            .filter(|message| message["method"] == "notifications/progress")
            .collect()
    };
    let plain = crate::raw::send(call(2, Value::Null)).await;
    assert_eq!(plain.reply()["result"]["content"][0]["text"], "done");
    assert!(progress(&plain).is_empty(), "{plain:?}");

    let asked = crate::raw::send(call(3, json!({"progressToken": "p-1"}))).await;
    let reports = progress(&asked);
    assert_eq!(reports.len(), 3, "{asked:?}");
    assert_eq!(reports[0]["params"]["progressToken"], "p-1");
    assert_eq!(reports[2]["params"]["progress"], 3.0);
    server.shutdown().await;
}
