//! phi-agent's `serve_http` with the benchmark's two tools, `add` and `echo`.

use mcp_serving_bench::Options;
use phi_agent::mcp::{HttpOptions, serve_http};
use phi_agent::registry::ToolRegistry;
use phi_agent::{phi_tool, tools};

// `async fn`: a plain `fn` tool runs on tokio's blocking pool (it may block), a thread hand-off
// per call that rmcp's handler, which computes inline, does not pay; `async fn` is polled inline
// as rmcp's is. BENCHMARKS.md has the figure of the plain `fn` beside it.
/// Add two integers.
#[phi_tool]
async fn add(
    /// The first addend
    a: i64,
    /// The second addend
    b: i64,
) -> i64 {
    a + b
}

/// Answer with the given text.
#[phi_tool]
async fn echo(
    /// The text to answer with
    text: String,
) -> String {
    text
}

#[tokio::main]
async fn main() {
    let options = Options::from_args();
    let mut registry = ToolRegistry::default();
    registry
        .register_all(tools![add, echo])
        .expect("two distinct, valid tools");
    let http = HttpOptions::default()
        .with_bind(options.bind)
        .with_stateless(options.stateless)
        .with_session_idle_timeout(options.idle)
        .with_max_sessions(options.max_sessions);
    let server = serve_http(registry, http)
        .await
        .expect("the address is free");
    eprintln!("phi-agent serve_http listening on {}", server.url());
    tokio::signal::ctrl_c().await.ok();
    server.shutdown().await;
}
