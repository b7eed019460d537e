//! rmcp's own `StreamableHttpService`, served by hyper as rmcp's examples serve it on axum, with
//! the benchmark's two tools written against `ServerHandler` directly (what rmcp's `#[tool]`
//! macros expand to: the arguments decoded from the owned map, one text block answered).

use std::convert::Infallible;
use std::sync::Arc;

use hyper_util::rt::TokioIo;
use mcp_serving_bench::Options;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use tokio::net::TcpListener;

#[derive(Deserialize, JsonSchema)]
struct AddArgs {
    /// The first addend
    a: i64,
    /// The second addend
    b: i64,
}

#[derive(Deserialize, JsonSchema)]
struct EchoArgs {
    /// The text to answer with
    text: String,
}

#[derive(Clone)]
struct Bench {
    tools: Arc<Vec<Tool>>,
}

fn schema_of<T: JsonSchema>() -> Arc<serde_json::Map<String, Value>> {
    match serde_json::to_value(schemars::schema_for!(T)) {
        Ok(Value::Object(map)) => Arc::new(map),
        _ => unreachable!("a derived schema is an object"),
    }
}

fn decode<T: serde::de::DeserializeOwned>(args: Value) -> Result<T, ErrorData> {
    serde_json::from_value(args).map_err(|error| ErrorData::invalid_params(error.to_string(), None))
}

impl ServerHandler for Bench {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.as_ref().clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = Value::Object(request.arguments.unwrap_or_default());
        let text = match &*request.name {
            "add" => {
                let AddArgs { a, b } = decode(args)?;
                (a + b).to_string()
            }
            "echo" => decode::<EchoArgs>(args)?.text,
            other => {
                return Err(ErrorData::invalid_params(format!("no tool {other}"), None));
            }
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
    }
}

#[tokio::main]
async fn main() {
    let options = Options::from_args();
    let tools = vec![
        Tool::new("add", "Add two integers.", schema_of::<AddArgs>()),
        Tool::new(
            "echo",
            "Answer with the given text.",
            schema_of::<EchoArgs>(),
        ),
    ];
    let bench = Bench {
        tools: Arc::new(tools),
    };
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(!options.stateless)
        .with_json_response(options.stateless);
    let service = Arc::new(StreamableHttpService::new(
        move || Ok(bench.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    ));
    let listener = TcpListener::bind(options.bind)
        .await
        .expect("the address is free");
    eprintln!(
        "rmcp StreamableHttpService listening on http://{}/mcp",
        options.bind
    );
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        // As phi-agent's server does: an answer's small writes must not wait for delayed ACKs.
        stream.set_nodelay(true).ok();
        let service = service.clone();
        tokio::spawn(async move {
            let handler = hyper::service::service_fn(move |request| {
                let service = service.clone();
                async move { Ok::<_, Infallible>(service.handle(request).await) }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), handler)
                .await;
        });
    }
}
