//! Import an MCP server's tools into a registry, and call one: over streamable HTTP (with OAuth
//! 2.1 when the server asks for it) or a server started as a child process over stdio.
//!
//! ```text
//! cargo run -p phi-agent --features mcp --example mcp-client -- https://example.com/mcp
//! cargo run -p phi-agent --features mcp --example mcp-client -- \
//!     --call echo '{"message":"hi"}' -- npx -y @modelcontextprotocol/server-everything
//! ```
//!
//! With OAuth, the authorization URL is printed for you to open in a browser; the redirect comes
//! back to a listener on `http://127.0.0.1:8976/callback`, which hands it to the client (the
//! person's step of [`McpAuthorizer`](phi_agent::mcp::McpAuthorizer)). Prints each tool imported,
//! and the answer of the `--call`.

use std::process::ExitCode;

use phi_agent::mcp::{McpClient, McpClientOptions, McpHttpOptions, McpOAuth};
use phi_agent::registry::ToolRegistry;
use phi_agent::{
    AgentError, AgentResult, Elicitation, ElicitationRequest, Tool, ToolConfig, ToolContext,
};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

const CALLBACK: &str = "127.0.0.1:8976";

#[tokio::main]
async fn main() -> ExitCode {
    match run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("mcp-client: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn run() -> AgentResult<()> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let usage = || {
        AgentError::Config(
            "usage: mcp-client [--call TOOL JSON] (URL | -- COMMAND [ARGS..])".to_string(),
        )
    };
    let mut call = None;
    if args.first().map(String::as_str) == Some("--call") {
        if args.len() < 3 {
            return Err(usage());
        }
        let rest = args.split_off(3);
        let arguments: Value = serde_json::from_str(&args[2])
            .map_err(|e| AgentError::Config(format!("`{}` is not JSON: {e}", args[2])))?;
        call = Some((args[1].clone(), arguments));
        args = rest;
    }
    // A server's questions to the user: printed, and answered with a JSON line from stdin
    // (declined at the end of input). Declaring this shows a server's tools that ask.
    let options = McpClientOptions::default().with_elicitation_handler(ask_on_stdin);
    let client = match args.first().map(String::as_str) {
        Some("--") if args.len() > 1 => {
            let mut command = tokio::process::Command::new(&args[1]);
            command.args(&args[2..]);
            McpClient::connect_stdio("server", command, options).await?
        }
        Some(url) if url.starts_with("http://") || url.starts_with("https://") => {
            let oauth = McpOAuth::default()
                .with_redirect_uri(format!("http://{CALLBACK}/callback"))
                .with_client_name("phi-agent example")
                .with_authorizer(open_in_browser);
            let http = McpHttpOptions::default().with_oauth(oauth);
            McpClient::connect_http("server", url, http, options).await?
        }
        _ => return Err(usage()),
    };

    let mut registry = ToolRegistry::new(ToolConfig::default());
    client.register_into(&mut registry)?;
    println!(
        "{} tools imported, {} registered:",
        client.tools().len(),
        registry.len()
    );
    for tool in client.tools() {
        let first_line = tool.description().lines().next().unwrap_or_default();
        println!("  {}: {first_line}", tool.name());
    }
    if let Some((name, arguments)) = call {
        let tool = client
            .tools()
            .into_iter()
            .find(|tool| tool.name() == name)
            .ok_or_else(|| AgentError::Config(format!("the server has no tool `{name}`")))?;
        let answer = tool.call(&arguments, &ToolContext::default()).await?;
        let text: Vec<String> = answer.iter().map(|c| c.to_model_text()).collect();
        println!("{name}: {}", text.join("\n"));
    }
    client.close().await;
    Ok(())
}

/// A server's question, asked on the terminal.
async fn ask_on_stdin(request: ElicitationRequest) -> Elicitation<Value> {
    println!(
        "The server asks: {}\nform: {}",
        request.message, request.schema
    );
    println!("Answer with a JSON object on one line (empty to decline):");
    let line = tokio::task::spawn_blocking(|| {
        let mut line = String::new();
        std::io::stdin().read_line(&mut line).map(|_| line)
    })
    .await;
    match line {
        Ok(Ok(line)) if !line.trim().is_empty() => match serde_json::from_str(line.trim()) {
            Ok(answer) => Elicitation::Accept(answer),
            Err(_) => Elicitation::Cancel,
        },
        _ => Elicitation::Decline,
    }
}

/// The person's step: print the URL, then wait for the browser to come back to the loopback
/// listener, and hand its request's URL (with `code` and `state`) to the client.
async fn open_in_browser(url: String) -> Result<String, String> {
    let listener = TcpListener::bind(CALLBACK)
        .await
        .map_err(|e| format!("cannot listen on {CALLBACK} for the redirect: {e}"))?;
    println!("Open this URL in a browser to authorize the client:\n\n  {url}\n");
    let (mut stream, _) = listener.accept().await.map_err(|e| e.to_string())?;
    let mut request = vec![0; 8 * 1024];
    let read = stream.read(&mut request).await.map_err(|e| e.to_string())?;
    let request = String::from_utf8_lossy(&request[..read]);
    // "GET /callback?code=...&state=... HTTP/1.1"
    let target = request
        .lines()
        .next()
        .and_then(|line| line.split_whitespace().nth(1))
        .ok_or("the browser sent no request line")?
        .to_string();
    let page = "Authorized; you can close this tab.";
    let _ = stream
        .write_all(
            format!(
                "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{page}",
                page.len()
            )
            .as_bytes(),
        )
        .await;
    Ok(format!("http://{CALLBACK}{target}"))
}
