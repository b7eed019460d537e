//! Malformed JSON-RPC over stdio and HTTP: a line that is not JSON, a request nested 5,000 levels
//! deep, a `tools/call` whose `arguments` is an array. Each gets its JSON-RPC error, and a valid
//! call right after still works. The `rmcp_alone_*` tests pin what rmcp does without our
//! screening, so that the day rmcp answers these itself, they say so.

use std::process::Stdio;
use std::time::Duration;

use phi_agent::mcp::{HttpOptions, HttpServer};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

use crate::raw::{echo_server, initialize_body, nested, open_session, post, send};

const CHILD_ENV: &str = "PHI_MCP_MALFORMED_CHILD";
/// `ours`: `McpServer::serve_stdio`; `rmcp`: the same server on rmcp's own stdio transport.
pub(crate) const OURS: &str = "ours";
const RMCP: &str = "rmcp";

/// The child: this test binary serving [`echo_server`] over stdio.
#[test]
#[ignore = "started by the stdio tests as a child MCP server"]
fn stdio_server_entry() {
    let Ok(mode) = std::env::var(CHILD_ENV) else {
        return;
    };
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let server = echo_server();
        if mode == OURS {
            let _ = server.serve_stdio().await;
        } else {
            use phi_agent::mcp::rmcp::ServiceExt;
            if let Ok(running) = server.serve(phi_agent::mcp::rmcp::transport::stdio()).await {
                let _ = running.waiting().await;
            }
        }
        // Exit at once: the harness would print its summary on stdout.
        std::process::exit(0);
    });
}

pub(crate) struct StdioPeer {
    child: Child,
    stdin: ChildStdin,
    stdout: Lines<BufReader<ChildStdout>>,
}

impl StdioPeer {
    pub(crate) async fn start(mode: &str) -> Self {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                "--ignored",
                "--exact",
                "mcp_malformed::stdio_server_entry",
                "--nocapture",
                "-q",
            ])
            .env(CHILD_ENV, mode)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut peer = Self {
            child,
            stdin,
            stdout,
        };
        peer.line(&initialize_body(1)).await;
        let init = peer.reply().await;
        assert!(init["result"]["serverInfo"].is_object(), "{init}");
        peer.line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            .await;
        peer
    }

    pub(crate) async fn line(&mut self, line: &str) {
        self.stdin.write_all(line.as_bytes()).await.unwrap();
        self.stdin.write_all(b"\n").await.unwrap();
        self.stdin.flush().await.unwrap();
    }

    /// The next message on stdout that answers a request. Lines that are not JSON objects are
    /// the test harness's own output (`running 1 test`), skipped.
    pub(crate) async fn reply(&mut self) -> Value {
        loop {
            let line = tokio::time::timeout(Duration::from_secs(10), self.stdout.next_line())
                .await
                .expect("an answer within 10 s")
                .unwrap()
                .expect("the server is still running");
            let Ok(message) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            if message.get("result").is_some() || message.get("error").is_some() {
                return message;
            }
        }
    }

    pub(crate) async fn finish(mut self) {
        drop(self.stdin);
        let status = tokio::time::timeout(Duration::from_secs(10), self.child.wait())
            .await
            .expect("the server ends with its input")
            .unwrap();
        assert!(status.success(), "{status}");
    }
}

fn deep_call(id: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":{}}}}}}}"#,
        nested(5_000)
    )
}

fn array_arguments(id: u64) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": "echo", "arguments": ["not", "an", "object"]}})
    .to_string()
}

fn echo_call(id: u64, text: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": "echo", "arguments": {"text": text}}})
    .to_string()
}

fn ping(id: u64) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "ping"}).to_string()
}

fn assert_error(reply: &Value, code: i64, id: Value, says: &str) {
    assert_eq!(reply["jsonrpc"], "2.0", "{reply}");
    assert_eq!(reply["error"]["code"], code, "{reply}");
    assert_eq!(reply.get("id"), Some(&id), "{reply}");
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(message.contains(says), "{message:?} should say {says:?}");
}

fn assert_echo(reply: &Value, id: u64, text: &str) {
    assert_eq!(reply["id"], id, "{reply}");
    assert_eq!(reply["result"]["isError"], false, "{reply}");
    assert_eq!(reply["result"]["content"][0]["text"], text, "{reply}");
}

#[tokio::test]
async fn malformed_lines_over_stdio_get_their_errors_and_the_session_goes_on() {
    let mut peer = StdioPeer::start(OURS).await;

    peer.line("this is not JSON").await;
    assert_error(&peer.reply().await, -32700, Value::Null, "Parse error");

    peer.line(&deep_call(2)).await;
    assert_error(&peer.reply().await, -32700, Value::Null, "recursion limit");

    peer.line(&array_arguments(3)).await;
    assert_error(
        &peer.reply().await,
        -32602,
        json!(3),
        "`arguments` must be an object",
    );

    let no_name = json!({"jsonrpc": "2.0", "id": "four", "method": "tools/call",
                         "params": {"arguments": {}}});
    peer.line(&no_name.to_string()).await;
    assert_error(&peer.reply().await, -32602, json!("four"), "`name`");

    peer.line(r#"{"jsonrpc":"2.0","id":5,"params":{}}"#).await;
    assert_error(&peer.reply().await, -32600, json!(5), "Invalid Request");

    // A malformed notification gets no answer (JSON-RPC never answers one); the next reply is
    // the call's.
    peer.line(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":7}"#)
        .await;
    peer.line(&echo_call(6, "still serving")).await;
    assert_echo(&peer.reply().await, 6, "still serving");
    peer.finish().await;
}

/// What rmcp's own stdio transport does with the same lines (the server is the same).
#[tokio::test]
async fn rmcp_alone_ignores_bad_json_and_calls_bad_arguments_an_unknown_method() {
    let mut peer = StdioPeer::start(RMCP).await;
    // No answer to either: the next reply is the ping's that follows.
    peer.line("this is not JSON").await;
    peer.line(&ping(10)).await;
    assert_eq!(peer.reply().await["id"], 10);
    peer.line(&deep_call(11)).await;
    peer.line(&ping(12)).await;
    assert_eq!(peer.reply().await["id"], 12);
    // A `tools/call` whose arguments are an array is read as an unknown method.
    peer.line(&array_arguments(13)).await;
    assert_error(&peer.reply().await, -32601, json!(13), "");
    peer.line(&echo_call(14, "fine")).await;
    assert_echo(&peer.reply().await, 14, "fine");
    peer.finish().await;
}

/// Posts `body` (on `session`, if any) and returns the status and the reply.
async fn post_on(server: &HttpServer, session: Option<&str>, body: String) -> (u16, Value) {
    let mut request = post(server, body).header("MCP-Protocol-Version", "2025-11-25");
    if let Some(session) = session {
        request = request.header("Mcp-Session-Id", session);
    }
    let answer = send(request).await;
    (answer.status, answer.reply())
}

#[tokio::test]
async fn malformed_bodies_over_http_get_their_errors_and_the_server_goes_on() {
    for stateless in [false, true] {
        let options = HttpOptions::default().with_stateless(stateless);
        let server = echo_server().serve_http(options).await.unwrap();
        let session = if stateless {
            None
        } else {
            Some(open_session(&server).await)
        };
        let session = session.as_deref();

        let (status, reply) = post_on(&server, session, "this is not JSON".into()).await;
        assert_eq!(status, 400, "stateless: {stateless}");
        assert_error(&reply, -32700, Value::Null, "Parse error");

        let (status, reply) = post_on(&server, session, deep_call(2)).await;
        assert_eq!(status, 400);
        assert_error(&reply, -32700, Value::Null, "recursion limit");

        let (status, reply) = post_on(&server, session, array_arguments(3)).await;
        assert_eq!(status, 400);
        assert_error(&reply, -32602, json!(3), "`arguments` must be an object");

        // Without a session id too: the body is refused before any session is looked up.
        let (status, reply) = post_on(&server, None, array_arguments(4)).await;
        assert_eq!(status, 400);
        assert_error(&reply, -32602, json!(4), "`arguments`");

        let (status, reply) = post_on(&server, session, echo_call(5, "still serving")).await;
        assert_eq!(status, 200);
        assert_echo(&reply, 5, "still serving");
        assert_eq!(server.live_sessions().await, usize::from(!stateless));
        server.shutdown().await;
    }
}

#[tokio::test]
async fn header_checks_come_before_the_body_is_judged() {
    let server = echo_server()
        .serve_http(HttpOptions::default().with_bearer_token("t0ken"))
        .await
        .unwrap();
    // No token: 401, whatever the body.
    let unauthorized = send(post(&server, "not JSON")).await;
    assert_eq!(unauthorized.status, 401);
    // A foreign Origin: rmcp's 403, not a JSON-RPC error about the body.
    let foreign = send(
        post(&server, "not JSON")
            .bearer_auth("t0ken")
            .header("Origin", "http://evil.example"),
    )
    .await;
    assert_eq!(foreign.status, 403, "{foreign:?}");
    // A client that does not accept event streams: rmcp's 406.
    let not_acceptable = send(
        crate::raw::new_client()
            .post(server.url())
            .bearer_auth("t0ken")
            .header("Accept", "application/json")
            .header("Content-Type", "application/json")
            .body(array_arguments(1)),
    )
    .await;
    assert_eq!(not_acceptable.status, 406, "{not_acceptable:?}");
    // The same body with good headers gets its JSON-RPC error.
    let judged = send(post(&server, "not JSON").bearer_auth("t0ken")).await;
    assert_eq!(judged.status, 400, "{judged:?}");
    assert_error(&judged.reply(), -32700, Value::Null, "Parse error");
    server.shutdown().await;
}

/// What rmcp's own streamable HTTP service does with the same bodies (stateless, so that no
/// session is needed; called directly, without a socket).
#[tokio::test]
async fn rmcp_alone_over_http_answers_415_in_plain_text_and_calls_bad_arguments_an_unknown_method()
{
    use http_body_util::{BodyExt, Full};
    use hyper::body::Bytes;
    use phi_agent::mcp::rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use phi_agent::mcp::rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};

    let service = StreamableHttpService::new(
        || Ok(echo_server()),
        std::sync::Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default().with_legacy_session_mode(false),
    );
    let ask = |body: String| {
        hyper::Request::builder()
            .method("POST")
            .uri("http://127.0.0.1/mcp")
            .header("Host", "127.0.0.1")
            .header("Accept", "application/json, text/event-stream")
            .header("Content-Type", "application/json")
            .header("MCP-Protocol-Version", "2025-11-25")
            .body(Full::new(Bytes::from(body)))
            .unwrap()
    };
    for body in ["this is not JSON".to_string(), deep_call(2)] {
        let response = service.handle(ask(body)).await;
        assert_eq!(response.status(), 415);
        let text = response.into_body().collect().await.unwrap().to_bytes();
        let text = String::from_utf8_lossy(&text);
        assert!(
            text.starts_with("fail to deserialize request body"),
            "{text}"
        );
    }
    let response = service.handle(ask(array_arguments(3))).await;
    let status = response.status();
    let text = response.into_body().collect().await.unwrap().to_bytes();
    let text = String::from_utf8_lossy(&text);
    println!("rmcp alone, a tools/call whose arguments are an array: {status}, {text:?}");
    assert!(text.contains("-32601"), "{status}: {text}");
}
