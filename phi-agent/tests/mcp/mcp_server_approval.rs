//! A tool that needs approval, served over MCP to a client that supports elicitation: the
//! client's user is asked with a form showing the call's arguments (at 2026-07-28 the input
//! request `approval` of the call's `input_required` result), and the tool runs only when they
//! approve. (A client without elicitation is refused: `mcp_server.rs`; the official Python SDK
//! answering the form: `interop/mcp/python_sdk_client.py`.)

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use phi_agent::mcp::McpServer;
use phi_agent::mcp::rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientCapabilities, ClientConfig, Implementation,
    InputResponses, ProtocolVersion,
};
use phi_agent::mcp::rmcp::{ClientLifecycleMode, ClientServiceExt, ServiceExt};
use phi_agent::registry::ToolRegistry;
use phi_agent::{AgentResult, ToolConfig, phi_tool, tools};
use serde_json::{Value, json};

static DELETED: AtomicUsize = AtomicUsize::new(0);

/// Deletes a file (counted, not done).
#[phi_tool(needs_approval)]
async fn delete_file(
    /// The file to delete
    path: String,
) -> AgentResult<String> {
    DELETED.fetch_add(1, Ordering::SeqCst);
    Ok(format!("deleted {path}"))
}

fn server() -> McpServer {
    let mut registry = ToolRegistry::new(ToolConfig::default());
    registry.register_all(tools![delete_file]).unwrap();
    McpServer::new(Arc::new(registry))
}

fn call(answer: Option<Value>, state: Option<String>) -> CallToolRequestParams {
    let mut params = CallToolRequestParams::new("delete_file");
    params.arguments = json!({"path": "/tmp/notes.txt"}).as_object().cloned();
    params.input_responses = answer.map(|answer| {
        let mut responses = InputResponses::new();
        responses.insert("approval".to_string(), answer);
        responses
    });
    params.request_state = state;
    params
}

#[tokio::test]
async fn the_clients_user_approves_or_denies_the_call_through_a_form() {
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        if let Ok(running) = server().serve(tokio::io::split(server_io)).await {
            let _ = running.waiting().await;
        }
    });
    let capabilities = ClientCapabilities::builder().enable_elicitation().build();
    let client = ClientConfig::new(capabilities, Implementation::new("approver", "0"))
        .serve_with_lifecycle(
            tokio::io::split(client_io),
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .expect("a 2026-07-28 connection");

    let cases = [
        (
            json!({"action": "accept", "content": {"approve": true}}),
            false,
            "deleted /tmp/notes.txt",
        ),
        (
            json!({"action": "accept", "content": {"approve": false, "reason": "keep it"}}),
            true,
            "a person denied this call of tool `delete_file`: keep it",
        ),
        (json!({"action": "decline"}), true, "the user declined it"),
    ];
    for (answer, is_error, expected) in cases {
        let before = DELETED.load(Ordering::SeqCst);
        let asked = client.call_tool_once(call(None, None)).await.unwrap();
        let CallToolResponse::InputRequired(asked) = asked else {
            panic!("the call should ask for approval first: {asked:?}");
        };
        assert_eq!(DELETED.load(Ordering::SeqCst), before, "nothing ran yet");
        let requests = serde_json::to_value(asked.input_requests.as_ref().unwrap()).unwrap();
        let question = &requests["approval"];
        assert_eq!(question["method"], "elicitation/create");
        let message = question["params"]["message"].as_str().unwrap();
        assert!(
            message.contains("delete_file") && message.contains("/tmp/notes.txt"),
            "{message}"
        );
        assert_eq!(
            question["params"]["requestedSchema"]["properties"]["approve"]["type"],
            "boolean"
        );
        let done = client
            .call_tool_once(call(Some(answer), asked.request_state.clone()))
            .await
            .unwrap();
        let CallToolResponse::Complete(result) = done else {
            panic!("the call should finish: {done:?}");
        };
        let result = serde_json::to_value(&result).unwrap();
        let text = result["content"][0]["text"].as_str().unwrap();
        assert!(text.contains(expected), "{text}");
        assert_eq!(
            result["isError"].as_bool().unwrap_or(false),
            is_error,
            "{text}"
        );
        let ran = DELETED.load(Ordering::SeqCst) - before;
        assert_eq!(ran, usize::from(!is_error), "{text}");
    }
    client.cancel().await.unwrap();
}
