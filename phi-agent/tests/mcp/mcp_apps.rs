//! MCP Apps (SEP-1865) on the serving side, read as a host reads them: the extension declared,
//! a tool's definition naming its `ui://` view, the view served as `text/html;profile=mcp-app`
//! with its `_meta.ui`, and the call's result carrying the data the view shows.

use async_trait::async_trait;
use phi_agent::mcp::{APP_VIEW_MIME_TYPE, HttpOptions, McpServer, Resource};
use phi_agent::registry::ToolRegistry;
use phi_agent::{AgentError, AgentResult, Content, Tool, ToolConfig, ToolContext, ToolOptions};
use serde_json::{Value, json};

use crate::raw::{initialize_body, open_session, post, send};

const VIEW: &str = "ui://weather/card";

/// A tool with a view: its result is the data the view shows.
struct Forecast(Option<&'static str>);

#[async_trait]
impl Tool for Forecast {
    fn name(&self) -> &'static str {
        "forecast"
    }
    fn description(&self) -> &'static str {
        "Tomorrow's weather for a city"
    }
    fn schema(&self) -> Value {
        json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]})
    }
    fn options(&self) -> ToolOptions {
        let options = ToolOptions::default();
        match self.0 {
            Some(uri) => options.with_ui_resource(uri),
            None => options,
        }
    }
    async fn call(&self, args: &Value, _: &ToolContext) -> AgentResult<Vec<Content>> {
        Ok(vec![Content::json(
            json!({"city": args["city"], "high": 21}),
        )])
    }
}

async fn request(
    server: &phi_agent::mcp::HttpServer,
    session: &str,
    id: u64,
    method: &str,
    params: Value,
) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    send(
        post(server, body.to_string())
            .header("Mcp-Session-Id", session)
            .header("MCP-Protocol-Version", "2025-11-25"),
    )
    .await
    .reply()
}

#[tokio::test]
async fn a_tool_with_a_view_is_served_as_an_mcp_app() {
    let mut registry = ToolRegistry::new(ToolConfig::default());
    registry.register(Forecast(Some(VIEW))).unwrap();
    let html = "<!doctype html><div id=card></div><script>window.parent.postMessage({jsonrpc:'2.0',id:1,method:'ui/initialize',params:{}},'*')</script>";
    let server = McpServer::new(registry)
        .with_app_view(
            Resource::app_view(VIEW, "weather-card", html)
                .with_meta(json!({"ui": {"prefersBorder": true, "csp": {"connectDomains": []}}})),
        )
        .serve_http(HttpOptions::default())
        .await
        .unwrap();
    let init = send(post(&server, initialize_body(1))).await.reply();
    assert_eq!(
        init["result"]["capabilities"]["extensions"]["io.modelcontextprotocol/ui"],
        json!({})
    );
    let session = open_session(&server).await;

    let tools = request(&server, &session, 2, "tools/list", json!({})).await;
    let meta = &tools["result"]["tools"][0]["_meta"];
    assert_eq!(meta["ui"]["resourceUri"], VIEW, "{tools}");
    assert_eq!(meta["ui/resourceUri"], VIEW);

    let listed = request(&server, &session, 3, "resources/list", json!({})).await;
    let resource = &listed["result"]["resources"][0];
    assert_eq!(resource["uri"], VIEW);
    assert_eq!(resource["mimeType"], APP_VIEW_MIME_TYPE);
    assert_eq!(resource["_meta"]["ui"]["prefersBorder"], true);

    let read = request(&server, &session, 4, "resources/read", json!({"uri": VIEW})).await;
    let contents = &read["result"]["contents"][0];
    assert_eq!(contents["mimeType"], "text/html;profile=mcp-app");
    assert_eq!(contents["text"], html);
    assert_eq!(contents["_meta"]["ui"]["prefersBorder"], true);

    let call = request(
        &server,
        &session,
        5,
        "tools/call",
        json!({"name": "forecast", "arguments": {"city": "Oslo"}}),
    )
    .await;
    let text = call["result"]["content"][0]["text"].as_str().unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(text).unwrap(),
        json!({"city": "Oslo", "high": 21})
    );
}

/// Tomorrow's weather for a city, with a view.
#[phi_agent::phi_tool(ui = "ui://weather/macro-card")]
async fn macro_forecast(city: String) -> String {
    city
}

#[test]
fn the_macro_key_names_the_view_in_the_definition() {
    let mut registry = ToolRegistry::new(ToolConfig::default());
    registry.register(MacroForecast).unwrap();
    let tool = registry.get("macro_forecast").unwrap();
    assert_eq!(tool.ui_resource(), Some("ui://weather/macro-card"));
    let definition = phi_agent::mcp::definition(tool);
    assert_eq!(
        definition["_meta"]["ui"]["resourceUri"],
        "ui://weather/macro-card"
    );
}

#[tokio::test]
async fn without_views_the_extension_is_not_declared_and_a_view_must_be_ui() {
    let mut registry = ToolRegistry::new(ToolConfig::default());
    registry.register(Forecast(None)).unwrap();
    let server = McpServer::new(registry)
        .serve_http(HttpOptions::default())
        .await
        .unwrap();
    let init = send(post(&server, initialize_body(1))).await.reply();
    assert!(
        init["result"]["capabilities"]["extensions"]
            .get("io.modelcontextprotocol/ui")
            .is_none(),
        "{init}"
    );
    let mut registry = ToolRegistry::new(ToolConfig::default());
    let refused = registry
        .register(Forecast(Some("https://example.com/card")))
        .unwrap_err();
    assert!(matches!(refused, AgentError::Config(_)));
    assert!(
        refused.to_string().contains("not a `ui://` URI"),
        "{refused}"
    );
}
