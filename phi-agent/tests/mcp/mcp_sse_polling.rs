//! SSE polling (MCP 2025-11-25, SEP-1699) on the streamable HTTP server, read raw: a session's
//! call stream opens with a priming event (an id, no data, the `retry` field), and a tool that
//! closes its stream mid-call ([`ToolContext::close_stream`]) is resumed by a `GET` with
//! `Last-Event-ID`, once or several times, the result arriving on the resumed stream even when
//! the tool finished while the client was away.

use std::time::Duration;

use phi_agent::mcp::{HttpOptions, HttpServer, McpServer};
use phi_agent::registry::ToolRegistry;
use phi_agent::{AgentResult, Tool, ToolConfig, ToolContext};
use serde_json::{Value, json};

use crate::raw::{client, open_session, post, send};

/// Closes its stream `closes` times (default 1), reporting progress `pause_ms` (default 30) after
/// each close (and, with `lead`, progress 0 before the first); then returns whether every close
/// closed a stream.
struct Polls;

#[async_trait::async_trait]
impl Tool for Polls {
    fn name(&self) -> &'static str {
        "polls"
    }
    fn description(&self) -> &'static str {
        "Close the call's stream, several times"
    }
    fn schema(&self) -> Value {
        json!({"type": "object", "properties": {
            "closes": {"type": "integer"}, "lead": {"type": "boolean"},
            "pause_ms": {"type": "integer"}}})
    }
    async fn call(&self, args: &Value, ctx: &ToolContext) -> AgentResult<Vec<phi_agent::Content>> {
        let closes = args.get("closes").and_then(Value::as_u64).unwrap_or(1);
        let pause = args.get("pause_ms").and_then(Value::as_u64).unwrap_or(30);
        if args.get("lead").and_then(Value::as_bool) == Some(true) {
            ctx.progress(0.0, Some(closes as f64), None).await;
        }
        let mut closed = true;
        for round in 1..=closes {
            closed &= ctx.close_stream().await;
            tokio::time::sleep(Duration::from_millis(pause)).await;
            ctx.progress(round as f64, Some(closes as f64), None).await;
        }
        Ok(vec![phi_agent::Content::text(format!("closed: {closed}"))])
    }
}

async fn serve(options: HttpOptions) -> HttpServer {
    let mut registry = ToolRegistry::new(ToolConfig::default());
    registry.register(Polls).unwrap();
    registry.register(crate::raw::Echo).unwrap();
    McpServer::new(registry).serve_http(options).await.unwrap()
}

/// One event of a stream: its id, `retry` and data lines.
#[derive(Debug, Default)]
struct Event {
    id: Option<String>,
    retry: Option<u64>,
    data: String,
}

fn events(body: &str) -> Vec<Event> {
    let mut events = Vec::new();
    let mut event = Event::default();
    let mut any = false;
    for line in body.lines() {
        if line.is_empty() {
            if any {
                events.push(std::mem::take(&mut event));
            }
            any = false;
            continue;
        }
        any = true;
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match field {
            "id" => event.id = Some(value.to_string()),
            "retry" => event.retry = value.parse().ok(),
            "data" => event.data.push_str(value),
            _ => {}
        }
    }
    if any {
        events.push(event);
    }
    events
}

fn messages(events: &[Event]) -> Vec<Value> {
    events
        .iter()
        .filter(|event| !event.data.trim().is_empty())
        .map(|event| serde_json::from_str(&event.data).expect("JSON in an event"))
        .collect()
}

fn call(
    server: &HttpServer,
    session: &str,
    name: &str,
    arguments: Value,
) -> reqwest::RequestBuilder {
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": name, "arguments": arguments, "_meta": {"progressToken": "p"}}});
    post(server, body.to_string())
        .header("Mcp-Session-Id", session)
        .header("MCP-Protocol-Version", "2025-11-25")
}

fn resume(server: &HttpServer, session: &str, last_event_id: &str) -> reqwest::RequestBuilder {
    client()
        .get(server.url())
        .header("Accept", "text/event-stream")
        .header("Mcp-Session-Id", session)
        .header("MCP-Protocol-Version", "2025-11-25")
        .header("Last-Event-ID", last_event_id)
}

/// Calls `polls` (pausing `pause_ms` after each close) and follows its stream, reconnecting with
/// the last event id after each close (after `away` each time), until the result: every message
/// received, and how many times the stream was resumed.
async fn poll_call(
    server: &HttpServer,
    closes: u64,
    pause_ms: u64,
    away: Duration,
) -> (Vec<Value>, u64) {
    let session = open_session(server).await;
    let arguments = json!({"closes": closes, "pause_ms": pause_ms});
    let answer = send(call(server, &session, "polls", arguments)).await;
    assert_eq!(answer.status, 200, "{answer:?}");
    let mut received = events(&answer.body);
    let mut resumptions = 0;
    while !messages(&received).iter().any(|message| message["id"] == 7) {
        assert!(
            resumptions <= closes,
            "no result after {resumptions} resumptions: {received:?}"
        );
        let last = received
            .iter()
            .rev()
            .find_map(|event| event.id.clone())
            .expect("an event id to resume from");
        tokio::time::sleep(away).await;
        let answer = send(resume(server, &session, &last)).await;
        assert_eq!(answer.status, 200, "{answer:?}");
        received.extend(events(&answer.body));
        resumptions += 1;
    }
    (messages(&received), resumptions)
}

fn result_text(messages: &[Value]) -> String {
    let results: Vec<&Value> = messages.iter().filter(|m| m["id"] == 7).collect();
    assert_eq!(results.len(), 1, "one result: {messages:?}");
    results[0]["result"]["content"][0]["text"]
        .as_str()
        .expect("a text result")
        .to_string()
}

#[tokio::test]
async fn a_call_stream_opens_with_a_priming_event_carrying_retry() {
    let server =
        serve(HttpOptions::default().with_sse_retry(Some(Duration::from_millis(1500)))).await;
    let session = open_session(&server).await;
    let answer = send(call(&server, &session, "echo", json!({"text": "hi"}))).await;
    assert!(
        answer.content_type.starts_with("text/event-stream"),
        "{answer:?}"
    );
    let events = events(&answer.body);
    let first = &events[0];
    assert!(
        first.id.is_some(),
        "the priming event has an id: {events:?}"
    );
    assert!(first.data.trim().is_empty(), "and no data: {events:?}");
    assert_eq!(first.retry, Some(1500), "{events:?}");
    assert_eq!(result_text(&messages(&events)), "hi");
}

#[tokio::test]
async fn without_sse_retry_a_stream_has_no_priming_event() {
    let server = serve(HttpOptions::default().with_sse_retry(None)).await;
    let session = open_session(&server).await;
    let answer = send(call(&server, &session, "echo", json!({"text": "hi"}))).await;
    let events = events(&answer.body);
    assert!(
        events.iter().all(|event| event.retry.is_none()),
        "{events:?}"
    );
    assert!(
        events.iter().all(|event| !event.data.trim().is_empty()),
        "{events:?}"
    );
    assert_eq!(result_text(&messages(&events)), "hi");
}

#[tokio::test]
async fn a_closed_call_stream_is_resumed_with_last_event_id() {
    let server = serve(HttpOptions::default()).await;
    let (messages, resumptions) = poll_call(&server, 1, 30, Duration::ZERO).await;
    assert_eq!(resumptions, 1, "{messages:?}");
    assert_eq!(result_text(&messages), "closed: true");
    let progress = messages
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .count();
    assert_eq!(progress, 1, "{messages:?}");
}

#[tokio::test]
async fn a_call_may_close_its_stream_several_times() {
    let server = serve(HttpOptions::default()).await;
    // Closes 300 ms apart: a client that took longer to come back would find the stream closed
    // twice meanwhile, and resume once for both.
    let (messages, resumptions) = poll_call(&server, 3, 300, Duration::ZERO).await;
    assert_eq!(resumptions, 3, "{messages:?}");
    assert_eq!(result_text(&messages), "closed: true");
    let progress: Vec<f64> = messages
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .filter_map(|m| m["params"]["progress"].as_f64())
        .collect();
    assert_eq!(
        progress,
        [1.0, 2.0, 3.0],
        "each once, in order: {messages:?}"
    );
}

#[tokio::test]
async fn the_result_of_a_call_that_finished_while_its_client_was_away_waits_for_it() {
    // The tool is done 30 ms after closing; the client comes back after 300 ms. rmcp forgets a
    // stream once its result is sent, so without the wait the resumed stream would be empty.
    let server = serve(HttpOptions::default()).await;
    let (messages, resumptions) = poll_call(&server, 1, 30, Duration::from_millis(300)).await;
    assert_eq!(resumptions, 1, "{messages:?}");
    assert_eq!(result_text(&messages), "closed: true");
}

#[tokio::test]
async fn a_stateless_server_has_no_stream_to_close() {
    let server = serve(HttpOptions::default().with_stateless(true)).await;
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "polls", "arguments": {}}});
    let answer =
        send(post(&server, body.to_string()).header("MCP-Protocol-Version", "2025-11-25")).await;
    assert_eq!(answer.status, 200, "{answer:?}");
    assert_eq!(result_text(&answer.messages()), "closed: false");
}

#[tokio::test]
async fn outside_mcp_there_is_no_stream_to_close() {
    assert!(!ToolContext::default().close_stream().await);
}

#[tokio::test]
async fn a_resumed_stream_starts_after_the_last_event_id() {
    // The client resumes from the progress event it saw (as after a dropped connection), not
    // from the close's priming event: that progress must not come again; what followed must.
    let server = serve(HttpOptions::default()).await;
    let session = open_session(&server).await;
    let answer = send(call(&server, &session, "polls", json!({"lead": true}))).await;
    let first = events(&answer.body);
    let progress = first
        .iter()
        .find(|event| event.data.contains("notifications/progress"))
        .unwrap_or_else(|| panic!("progress before the close: {first:?}"));
    let last = progress.id.clone().expect("an id on the progress event");
    let answer = send(resume(&server, &session, &last)).await;
    let resumed = events(&answer.body);
    assert!(
        resumed
            .iter()
            .all(|event| event.id.as_deref() != Some(last.as_str())),
        "the event of Last-Event-ID again: {resumed:?}"
    );
    let progress: Vec<f64> = messages(&resumed)
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .filter_map(|m| m["params"]["progress"].as_f64())
        .collect();
    assert_eq!(progress, [1.0], "{resumed:?}");
    assert_eq!(result_text(&messages(&resumed)), "closed: true");
}

#[tokio::test]
async fn a_last_event_id_of_no_stream_gets_an_empty_stream_and_the_session_goes_on() {
    let server = serve(HttpOptions::default()).await;
    let session = open_session(&server).await;
    for bad in ["x/y", "99/99", "/", "1/18446744073709551616", ""] {
        let answer = send(resume(&server, &session, bad)).await;
        assert!(answer.status < 500, "{bad:?}: {answer:?}");
        assert!(
            messages(&events(&answer.body)).is_empty(),
            "{bad:?}: {answer:?}"
        );
    }
    let answer = send(call(
        &server,
        &session,
        "echo",
        json!({"text": "still here"}),
    ))
    .await;
    assert_eq!(result_text(&messages(&events(&answer.body))), "still here");
}
