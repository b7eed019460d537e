//! SEP-2243 from the client's side: an imported tool whose schema carries `x-mcp-header` is
//! called with its arguments mirrored into `Mcp-Param-*` headers (rmcp's transport worker
//! writes them; our client's HTTP seam must carry them), a value that is not plain ASCII in
//! the Base64 sentinel, an absent optional argument with no header at all. Our server checks
//! them, so the call's success says they matched.

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use phi_agent::llm::{HttpError, HttpReply, HttpRequest, HttpTransport, ReqwestTransport};
use phi_agent::mcp::{HttpOptions, McpClient, McpClientOptions, McpHttpOptions};
use phi_agent::{Tool, ToolContext};
use serde_json::json;

use crate::mcp_param_headers::server;

/// Sends through reqwest's transport and keeps the headers of each `tools/call`.
#[derive(Debug)]
struct Keeping {
    inner: Arc<dyn HttpTransport>,
    calls: Mutex<Vec<Vec<(String, String)>>>,
}

#[async_trait]
impl HttpTransport for Keeping {
    async fn send(&self, request: HttpRequest) -> Result<HttpReply, HttpError> {
        let is_call = request.headers.iter().any(|header| {
            header.name.eq_ignore_ascii_case("mcp-method") && header.value == "tools/call"
        });
        if is_call {
            let headers = request
                .headers
                .iter()
                .map(|header| (header.name.to_ascii_lowercase(), header.value.clone()))
                .collect();
            self.calls.lock().unwrap().push(headers);
        }
        self.inner.send(request).await
    }
}

#[tokio::test]
async fn an_imported_tool_mirrors_annotated_arguments_into_headers() {
    let server = server()
        .serve_http(HttpOptions::default().with_stateless(true))
        .await
        .unwrap();
    let keeping = Arc::new(Keeping {
        inner: ReqwestTransport::shared().unwrap(),
        calls: Mutex::new(Vec::new()),
    });
    let http = McpHttpOptions::default().with_http_transport(keeping.clone());
    let client = McpClient::connect_http("local", &server.url(), http, McpClientOptions::default())
        .await
        .unwrap();
    // Kept: the optional header property is served with its plain type, which clients require.
    let tools = client.tools();
    let deploy = tools
        .iter()
        .find(|tool| tool.name().ends_with("deploy"))
        .expect("the annotated tool is imported");
    assert_eq!(
        deploy.schema()["properties"]["region"]["x-mcp-header"],
        "Region"
    );
    let answer = deploy
        .call(
            &json!({"region": "Zürich", "service": "api"}),
            &ToolContext::default(),
        )
        .await
        .unwrap();
    assert_eq!(answer[0].to_model_text(), "api to Zürich at None");
    let answer = deploy
        .call(
            &json!({"region": "us-west1", "priority": 2, "service": "web"}),
            &ToolContext::default(),
        )
        .await
        .unwrap();
    assert_eq!(answer[0].to_model_text(), "web to us-west1 at Some(2)");
    client.close().await;
    server.shutdown().await;

    let calls = keeping.calls.lock().unwrap().clone();
    assert_eq!(calls.len(), 2, "{calls:?}");
    let value = |call: &[(String, String)], name: &str| {
        call.iter()
            .find(|(header, _)| header == name)
            .map(|(_, value)| value.clone())
    };
    assert_eq!(
        value(&calls[0], "mcp-param-region").as_deref(),
        Some("=?base64?WsO8cmljaA==?="),
        "{calls:?}"
    );
    assert_eq!(value(&calls[0], "mcp-param-priority"), None, "{calls:?}");
    assert_eq!(
        value(&calls[1], "mcp-param-region").as_deref(),
        Some("us-west1")
    );
    assert_eq!(value(&calls[1], "mcp-param-priority").as_deref(), Some("2"));
}
