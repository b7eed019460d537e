//! Our server's tools asking the client on a 2026-07-28 connection, where a server sends no
//! requests of its own: the call answers `input_required` with the question and a
//! `requestState`, is kept suspended, and the client's resent call (the answer, the state echoed)
//! resumes it where it asked. Against rmcp's client driving the rounds itself, and against our
//! own `McpClient` (which answers `input_required`) over stdio and over HTTP.

// rmcp marks sampling deprecated by SEP-2577 (2026-07-28); the tools still sample through it.
#![allow(deprecated)]

use std::sync::Arc;

use phi_agent::llm::{LlmClient, LlmResponse, ScriptedLlm};
use phi_agent::mcp::rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientCapabilities, ClientConfig, Implementation,
    InputResponses, ProtocolVersion,
};
use phi_agent::mcp::rmcp::{ClientLifecycleMode, ClientServiceExt, ServiceExt};
use phi_agent::mcp::{HttpOptions, McpClient, McpClientOptions, McpServer};
use phi_agent::registry::ToolRegistry;
use phi_agent::{
    AgentResult, Elicitation, ElicitationRequest, SampleRequest, Tool, ToolConfig, ToolContext,
    phi_tool, tools,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tokio::process::Command;

const CHILD_ENV: &str = "PHI_MCP_ROUNDS_CHILD";

#[derive(Debug, Deserialize, JsonSchema)]
struct Shipping {
    /// Where to ship
    city: String,
    /// How many parcels
    parcels: u32,
}

/// Asks where to ship, then asks the client's model for a greeting card.
#[phi_tool]
async fn ship(ctx: &ToolContext) -> AgentResult<String> {
    let shipping = match ctx.elicit::<Shipping>("Where to?").await? {
        Elicitation::Accept(shipping) => shipping,
        Elicitation::Decline => return Ok("declined".to_string()),
        Elicitation::Cancel => return Ok("cancelled".to_string()),
    };
    let card = ctx
        .sample(SampleRequest::new(format!("A card for {}", shipping.city)))
        .await?;
    Ok(format!(
        "{} parcels to {}, card: {}",
        shipping.parcels, shipping.city, card.text
    ))
}

fn server() -> McpServer {
    let mut registry = ToolRegistry::new(ToolConfig::default());
    registry.register_all(tools![ship]).unwrap();
    phi_agent::mcp_server!(registry)
}

fn answering_options() -> McpClientOptions {
    let handler = |request: ElicitationRequest| async move {
        assert_eq!(request.message, "Where to?");
        Elicitation::Accept(json!({"city": "Oslo", "parcels": 3}))
    };
    let model: Arc<dyn LlmClient> = Arc::new(ScriptedLlm::new([LlmResponse::text("Hei!")]));
    McpClientOptions::default()
        .with_elicitation_handler(handler)
        .with_sampling_model(model)
}

async fn ship_through(client: &McpClient) -> String {
    let tool = client
        .tools()
        .into_iter()
        .find(|tool| tool.remote_name() == "ship")
        .expect("the tool is imported");
    let answer = tool
        .call(&json!({}), &ToolContext::default())
        .await
        .expect("the call completes");
    answer[0].to_model_text()
}

#[tokio::test]
async fn a_2026_call_asks_with_input_required_and_the_resent_call_resumes_it() {
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        if let Ok(running) = server().serve(tokio::io::split(server_io)).await {
            let _ = running.waiting().await;
        }
    });
    let capabilities = ClientCapabilities::builder()
        .enable_elicitation()
        .enable_sampling()
        .build();
    let client = ClientConfig::new(capabilities, Implementation::new("rounds", "0"))
        .serve_with_lifecycle(
            tokio::io::split(client_io),
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .expect("a 2026-07-28 connection");

    let first = client
        .call_tool_once(CallToolRequestParams::new("ship"))
        .await
        .unwrap();
    let CallToolResponse::InputRequired(asked) = first else {
        panic!("the question should come as input_required: {first:?}");
    };
    let requests = serde_json::to_value(asked.input_requests.as_ref().unwrap()).unwrap();
    assert_eq!(requests["shipping"]["method"], "elicitation/create");
    assert_eq!(requests["shipping"]["params"]["message"], "Where to?");
    let state = asked.request_state.clone().expect("a requestState");

    // A state the server never gave is refused, and leaves the real call waiting.
    let mut forged = CallToolRequestParams::new("ship");
    forged.request_state = Some("call-0000".to_string());
    let refused = client.call_tool_once(forged).await.unwrap_err().to_string();
    assert!(refused.contains("unknown"), "{refused}");

    let mut answer = InputResponses::new();
    answer.insert(
        "shipping".to_string(),
        json!({"action": "accept", "content": {"city": "Lyon", "parcels": 2}}),
    );
    let mut resent = CallToolRequestParams::new("ship");
    resent.input_responses = Some(answer);
    resent.request_state = Some(state);
    let second = client.call_tool_once(resent).await.unwrap();
    let CallToolResponse::InputRequired(sampling) = second else {
        panic!("the tool samples next: {second:?}");
    };
    let requests = serde_json::to_value(sampling.input_requests.as_ref().unwrap()).unwrap();
    assert_eq!(
        requests["sampling"]["params"]["messages"][0]["content"]["text"],
        "A card for Lyon"
    );
    let mut answer = InputResponses::new();
    answer.insert(
        "sampling".to_string(),
        json!({"role": "assistant", "content": {"type": "text", "text": "Bonjour"},
               "model": "m"}),
    );
    let mut resent = CallToolRequestParams::new("ship");
    resent.input_responses = Some(answer);
    resent.request_state = sampling.request_state.clone();
    let done = client.call_tool_once(resent).await.unwrap();
    let CallToolResponse::Complete(result) = done else {
        panic!("the call should finish: {done:?}");
    };
    let text = serde_json::to_value(&result).unwrap()["content"][0]["text"].clone();
    assert_eq!(text, "2 parcels to Lyon, card: Bonjour");
    client.cancel().await.unwrap();
}

/// Over stateful and stateless HTTP: without sessions, the resent call reaches the suspended one
/// through the server's shared store.
#[tokio::test]
async fn our_client_answers_a_2026_tools_questions_over_http() {
    for stateless in [false, true] {
        let options = HttpOptions::default().with_stateless(stateless);
        let http = server().serve_http(options).await.unwrap();
        let client = McpClient::connect_http(
            "rounds",
            &http.url(),
            phi_agent::mcp::McpHttpOptions::default(),
            answering_options(),
        )
        .await
        .unwrap();
        assert_eq!(
            ship_through(&client).await,
            "3 parcels to Oslo, card: Hei!",
            "stateless: {stateless}"
        );
        client.close().await;
    }
}

#[tokio::test]
async fn our_client_answers_a_2026_tools_questions_over_stdio() {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args([
            "--ignored",
            "--exact",
            "mcp_server_rounds::rounds_server_entry",
            "--nocapture",
            "-q",
        ])
        .env(CHILD_ENV, "1");
    let client = McpClient::connect_stdio("rounds", command, answering_options())
        .await
        .unwrap();
    assert_eq!(ship_through(&client).await, "3 parcels to Oslo, card: Hei!");
    client.close().await;
}

/// The child server. Runs only when a test starts this binary with [`CHILD_ENV`] set.
#[test]
#[ignore = "started by the stdio test as a child MCP server"]
fn rounds_server_entry() {
    if std::env::var_os(CHILD_ENV).is_none() {
        return;
    }
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let _ = server().serve_stdio().await;
        std::process::exit(0);
    });
}
