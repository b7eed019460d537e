//! Sessions over streamable HTTP under abuse: more than the cap, abandoned without a `DELETE`,
//! expired when idle; and stateless mode, which has none.

use std::time::Duration;

use phi_agent::mcp::rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation,
};
use phi_agent::mcp::rmcp::transport::StreamableHttpClientTransport;
use phi_agent::mcp::rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use phi_agent::mcp::rmcp::{ClientLifecycleMode, ClientServiceExt};
use phi_agent::mcp::{HttpOptions, HttpServer};
use serde_json::json;

use crate::raw::{
    call_echo, echo_server, initialize_body, open_session, post, send, wait_for_no_sessions,
};

const CAP: usize = 20;
/// Short for a test, long enough that no session expires while the test opens the others on a
/// loaded machine.
const IDLE: Duration = Duration::from_secs(1);

async fn capped() -> HttpServer {
    let options = HttpOptions::default()
        .with_max_sessions(CAP)
        .with_session_idle_timeout(IDLE);
    echo_server().serve_http(options).await.unwrap()
}

/// rmcp's own client: handshake, one `echo` call, close.
async fn echo_with_rmcp_client(server: &HttpServer, text: &str) -> String {
    let transport = StreamableHttpClientTransport::with_client(
        crate::raw::new_client(),
        StreamableHttpClientTransportConfig::with_uri(server.url()),
    );
    let client = ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("phi-session-test", "0.0.0"),
    )
    .serve_with_lifecycle(transport, ClientLifecycleMode::Initialize)
    .await
    .expect("handshake over HTTP");
    let mut arguments = serde_json::Map::new();
    arguments.insert("text".into(), json!(text));
    let result = client
        .peer()
        .call_tool(CallToolRequestParams::new("echo").with_arguments(arguments))
        .await
        .expect("a tools/call result");
    client.cancel().await.unwrap();
    assert_eq!(result.is_error, Some(false), "{result:?}");
    result.content[0].as_text().unwrap().text.clone()
}

#[tokio::test]
async fn sessions_beyond_the_cap_are_refused_and_abandoned_ones_expire() {
    let server = capped().await;
    let mut sessions = Vec::new();
    let mut refused = Vec::new();
    for id in 0..(CAP as u64 + 5) {
        let answer = send(post(&server, initialize_body(id))).await;
        match answer.status {
            200 => sessions.push(answer.session.clone().expect("a session id")),
            _ => refused.push((id, answer)),
        }
    }
    assert_eq!(sessions.len(), CAP, "the first {CAP} are served");
    assert_eq!(server.live_sessions().await, CAP);
    assert_eq!(refused.len(), 5);
    for (id, answer) in &refused {
        assert_eq!(answer.status, 503, "{answer:?}");
        assert_eq!(answer.retry_after.as_deref(), Some("1"), "{answer:?}");
        assert!(answer.session.is_none());
        let reply = answer.reply();
        assert_eq!(reply["id"], json!(id), "{reply}");
        assert_eq!(reply["error"]["code"], -32000, "{reply}");
        let message = reply["error"]["message"].as_str().unwrap();
        assert!(message.contains("session limit"), "{message}");
        assert_eq!(reply["error"]["data"]["maxSessions"], CAP);
    }

    // Abandoned: no DELETE, no further request. The idle timeout closes every one.
    let waited = wait_for_no_sessions(&server, Duration::from_secs(10)).await;
    println!(
        "{CAP} abandoned sessions expired {waited:?} after the last initialize (idle timeout {IDLE:?})"
    );

    // An expired session is gone for its client too (404, as MCP says; the client re-initializes)...
    let gone = send(call_echo(&server, &sessions[0], 7, "late")).await;
    assert_eq!(gone.status, 404, "{gone:?}");
    // ...and the server keeps serving new sessions, up to the cap again.
    assert_eq!(
        echo_with_rmcp_client(&server, "after expiry").await,
        "after expiry"
    );
    wait_for_no_sessions(&server, Duration::from_secs(10)).await;
    let mut again = Vec::new();
    for id in 0..CAP as u64 {
        again.push(send(post(&server, initialize_body(id))).await.status);
    }
    assert!(again.iter().all(|&status| status == 200), "{again:?}");
    server.shutdown().await;
}

#[tokio::test]
async fn a_session_in_use_outlives_the_idle_timeout_and_a_deleted_one_frees_its_slot() {
    let options = HttpOptions::default()
        .with_max_sessions(1)
        .with_session_idle_timeout(IDLE);
    let server = echo_server().serve_http(options).await.unwrap();
    let session = open_session(&server).await;
    // Calls more often than the idle timeout keep the session alive well past it.
    for id in 0..8u64 {
        tokio::time::sleep(IDLE / 4).await;
        let answer = send(call_echo(&server, &session, id, "busy")).await;
        assert_eq!(answer.status, 200, "{answer:?}");
        assert_eq!(answer.reply()["result"]["content"][0]["text"], "busy");
    }
    let full = send(post(&server, initialize_body(9))).await;
    assert_eq!(full.status, 503, "the one slot is taken: {full:?}");

    let deleted = crate::raw::client()
        .delete(server.url())
        .header("Mcp-Session-Id", &session)
        .header("MCP-Protocol-Version", "2025-11-25")
        .send()
        .await
        .unwrap();
    assert!(deleted.status().is_success(), "{deleted:?}");
    assert_eq!(server.live_sessions().await, 0);
    let next = send(post(&server, initialize_body(10))).await;
    assert_eq!(next.status, 200, "the freed slot is used: {next:?}");
    server.shutdown().await;
}

#[tokio::test]
async fn concurrent_initializes_never_exceed_the_cap() {
    let server = capped().await;
    let url_server = &server;
    let answers = futures_util::future::join_all(
        (0..(CAP as u64 * 3)).map(|id| send(post(url_server, initialize_body(id)))),
    )
    .await;
    let served = answers.iter().filter(|answer| answer.status == 200).count();
    let refused = answers.iter().filter(|answer| answer.status == 503).count();
    assert_eq!(served, CAP, "{answers:?}");
    assert_eq!(refused, CAP * 2, "every other one is a 503: {answers:?}");
    assert!(
        answers
            .iter()
            .all(|answer| answer.status != 503 || answer.retry_after.is_some())
    );
    assert_eq!(server.live_sessions().await, CAP);
    server.shutdown().await;
}

#[tokio::test]
async fn stateless_mode_serves_every_request_without_a_session() {
    let options = HttpOptions::default()
        .with_stateless(true)
        .with_max_sessions(1);
    let server = echo_server().serve_http(options).await.unwrap();
    let answer = send(post(&server, initialize_body(1))).await;
    assert_eq!(answer.status, 200, "{answer:?}");
    assert!(answer.session.is_none(), "no Mcp-Session-Id: {answer:?}");
    // More clients than the session cap: it does not apply, there are no sessions.
    for round in 0..3 {
        let text = format!("stateless {round}");
        assert_eq!(echo_with_rmcp_client(&server, &text).await, text);
    }
    // A call needs no session id at all.
    let call = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                      "params": {"name": "echo", "arguments": {"text": "alone"}}});
    let alone =
        send(post(&server, call.to_string()).header("MCP-Protocol-Version", "2025-11-25")).await;
    assert_eq!(alone.status, 200, "{alone:?}");
    assert_eq!(alone.reply()["result"]["content"][0]["text"], "alone");
    assert_eq!(server.live_sessions().await, 0);
    server.shutdown().await;
}
