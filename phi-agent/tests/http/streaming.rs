//! Streamed replies of the four HTTP adapters against local servers: SSE bodies in each
//! provider's wire format (`sse/`: text, and parallel tool calls, interleaved by index for
//! OpenAI chat completions, whole calls for Gemini, after a reasoning item for the Responses
//! API), run through `LlmClient::stream` and `run_stream`; and their faults: a stream cut inside
//! a call (its arguments, or for Gemini before the chunk that finishes), a malformed event, an
//! `error` event, an idle gap. A request is retried only while nothing of it has been handed on.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use futures_util::StreamExt;
use phi_agent::llm::{
    HttpConfig, LlmClient, LlmRequest, Message, StopReason, StreamDelta, ToolCall, Usage,
    parse_stream_body,
};
use phi_agent::{
    AgentConfig, AgentError, AgentResult, Content, PhiAgent, StreamEvent, Tool, ToolContext,
    base_agent_builder,
};
use serde_json::{Value, json};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::providers::{ALL, Provider, http};

const KEY: &str = "sk-streaming-secret";

fn fixture(provider: Provider, name: &str) -> &'static str {
    match (provider, name) {
        (Provider::OpenAi, "calls") => include_str!("sse/openai_parallel_calls.sse"),
        (Provider::OpenAi, "text") => include_str!("sse/openai_text.sse"),
        (Provider::OpenAi, "sequential") => include_str!("sse/openai_sequential_calls.sse"),
        (Provider::Anthropic, "calls") => include_str!("sse/anthropic_parallel_calls.sse"),
        (Provider::Anthropic, "text") => include_str!("sse/anthropic_text.sse"),
        (Provider::Gemini, "calls") => include_str!("sse/gemini_parallel_calls.sse"),
        (Provider::Gemini, "text") => include_str!("sse/gemini_text.sse"),
        (Provider::Responses, "calls") => include_str!("sse/responses_parallel_calls.sse"),
        (Provider::Responses, "text") => include_str!("sse/responses_text.sse"),
        _ => unreachable!("no fixture {name}"),
    }
}

/// The first `events` events of a fixture, as a server that stops there would send them.
fn first_events(body: &str, events: usize) -> String {
    body.split_inclusive("\n\n").take(events).collect()
}

/// The events of the calls fixture up to the one in the middle of the first call's arguments.
fn cut_in_arguments(provider: Provider) -> String {
    let body = fixture(provider, "calls");
    let (marker, events) = match provider {
        Provider::OpenAi => ("ty\\\": \\\"Par", 8),
        Provider::Anthropic => ("{\\\"city\\\": \\\"Pa", 9),
        // Gemini sends each call whole: the cut comes after the first, before the finish.
        Provider::Gemini => ("\"city\":\"Par", 3),
        Provider::Responses => ("ty\\\": \\\"Par", 10),
    };
    let cut = first_events(body, events);
    let last = cut.trim_end().rsplit("\n\n").next().unwrap();
    assert!(
        last.contains(marker),
        "the cut comes inside the arguments: {last}"
    );
    cut
}

fn sse(body: impl Into<String>) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_raw(body.into().into_bytes(), "text/event-stream")
}

/// Serves `responses` in order, one request each.
async fn serve(responses: Vec<ResponseTemplate>) -> MockServer {
    let server = MockServer::start().await;
    for response in responses {
        Mock::given(method("POST"))
            .respond_with(response)
            .up_to_n_times(1)
            .mount(&server)
            .await;
    }
    server
}

async fn requests(server: &MockServer) -> Vec<Value> {
    server
        .received_requests()
        .await
        .unwrap()
        .iter()
        .map(|request| serde_json::from_slice(&request.body).unwrap())
        .collect()
}

fn ask() -> LlmRequest {
    LlmRequest::default().with_messages(vec![Message::user("weather in Paris and Oslo?")])
}

async fn deltas(client: &dyn LlmClient) -> Vec<AgentResult<StreamDelta>> {
    let request = ask();
    client.stream(&request).collect().await
}

fn quick(retries: u32) -> HttpConfig {
    http(2_000, retries).with_stream_idle_timeout(Duration::from_millis(300))
}

/// Counts its calls; answers with the city's weather.
struct Weather(Arc<AtomicUsize>);

#[async_trait]
impl Tool for Weather {
    fn name(&self) -> &'static str {
        "weather"
    }
    fn description(&self) -> &'static str {
        "The weather in a city"
    }
    fn schema(&self) -> Value {
        json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]})
    }
    async fn call(&self, args: &Value, _ctx: &ToolContext) -> AgentResult<Vec<Content>> {
        self.0.fetch_add(1, Ordering::SeqCst);
        let weather = if args["city"] == "Paris" {
            "sun"
        } else {
            "snow"
        };
        Ok(vec![Content::text(weather)])
    }
}

#[tokio::test]
async fn parallel_calls_are_assembled_from_their_fragments() {
    for provider in ALL {
        let server = serve(vec![sse(fixture(provider, "calls"))]).await;
        let client = provider.client(&server.uri(), KEY, quick(0));
        let deltas: Vec<StreamDelta> = deltas(&*client)
            .await
            .into_iter()
            .map(Result::unwrap)
            .collect();
        let mut text = String::new();
        let mut started = Vec::new();
        let mut arguments = vec![String::new(); 2];
        let mut fragments = Vec::new();
        // Each ready call, and how many calls had started when it was announced.
        let mut ready = Vec::new();
        for delta in &deltas[..deltas.len() - 1] {
            match delta {
                StreamDelta::Text(piece) => text.push_str(piece),
                StreamDelta::ToolCallStarted {
                    index, id, name, ..
                } => {
                    assert_eq!(name, "weather");
                    started.push((*index, id.clone()));
                }
                StreamDelta::ToolArguments {
                    index, fragment, ..
                } => {
                    assert!(
                        started.iter().any(|(i, _)| i == index),
                        "a fragment after its start"
                    );
                    assert!(
                        !ready
                            .iter()
                            .any(|(call, _): &(ToolCall, usize)| call.id == started[*index].1),
                        "{provider:?}: a fragment after its call was ready"
                    );
                    fragments.push(*index);
                    arguments[*index].push_str(fragment);
                }
                StreamDelta::ToolCallReady { index, call, .. } => {
                    assert_eq!(started[*index].1, call.id);
                    let parsed: Value = serde_json::from_str(&arguments[*index]).unwrap();
                    assert_eq!(parsed, call.arguments, "{provider:?}: ready when whole");
                    ready.push((call.clone(), started.len()));
                }
                other => panic!("{provider:?}: {other:?} before the end"),
            }
        }
        let StreamDelta::Done(reply) = deltas.last().unwrap() else {
            panic!("{provider:?}: no Done last");
        };
        let ready_calls: Vec<ToolCall> = ready.iter().map(|(call, _)| call.clone()).collect();
        assert_eq!(
            ready_calls, reply.tool_calls,
            "{provider:?}: ready as in the reply"
        );
        let started_when_ready: Vec<usize> = ready.iter().map(|&(_, n)| n).collect();
        match provider {
            // `content_block_stop` of the first call (Anthropic), its `output_item.done`
            // (Responses) or its whole part (Gemini) comes before the second call begins.
            Provider::Anthropic | Provider::Responses | Provider::Gemini => {
                assert_eq!(started_when_ready, [1, 2], "{provider:?}")
            }
            // Interleaved: the first call's JSON is still open when the second begins, so both
            // are ready only when the choice finishes.
            _ => assert_eq!(started_when_ready, [2, 2]),
        }
        assert_eq!(text, "Checking both cities.");
        assert_eq!(reply.text, text);
        assert_eq!(reply.tool_calls.len(), 2);
        assert_eq!(reply.tool_calls[0].arguments, json!({"city": "Paris"}));
        assert_eq!(reply.tool_calls[1].arguments, json!({"city": "Oslo"}));
        for (index, call) in reply.tool_calls.iter().enumerate() {
            assert_eq!(started[index], (index, call.id.clone()));
            let parsed: Value = serde_json::from_str(&arguments[index]).unwrap();
            assert_eq!(
                parsed, call.arguments,
                "{provider:?}: the fragments make the arguments"
            );
        }
        assert_eq!(reply.stop_reason, StopReason::ToolUse);
        let body = &requests(&server).await[0];
        let url = server.received_requests().await.unwrap()[0].url.to_string();
        match provider {
            Provider::Gemini => assert!(
                url.ends_with("/v1beta/models/gemini-test:streamGenerateContent?alt=sse"),
                "{url}"
            ),
            _ => assert_eq!(body["stream"], true, "{provider:?}"),
        }
        match provider {
            Provider::OpenAi => {
                assert_eq!(
                    fragments,
                    [0, 1, 0, 1, 0],
                    "the fixture interleaves the calls"
                );
                assert_eq!(reply.tool_calls[0].id, "call_paris");
                assert_eq!(reply.usage, Usage::new(41, 33));
                assert_eq!(body["stream_options"], json!({"include_usage": true}));
            }
            Provider::Anthropic => {
                assert_eq!(reply.tool_calls[1].id, "toolu_oslo");
                assert_eq!(reply.usage, Usage::new(52, 61));
            }
            Provider::Gemini => {
                assert_eq!(
                    reply.tool_calls[0].id, "call_0",
                    "made up: Gemini sent none"
                );
                assert_eq!(
                    reply.tool_calls[0].provider_state.get("gemini"),
                    Some(&json!({"thoughtSignature": "c2lnLXBhcmlz"})),
                );
                assert!(reply.tool_calls[1].provider_state.is_empty());
                assert_eq!(reply.usage, Usage::new(52, 61));
            }
            Provider::Responses => {
                assert_eq!(fragments, [0, 0, 0, 1, 1]);
                assert_eq!(reply.tool_calls[1].id, "call_oslo");
                assert_eq!(
                    reply.tool_calls[0].provider_state.get("openai_responses"),
                    Some(
                        &json!({"items": [{"id": "rs_1", "type": "reasoning", "summary": [], "encrypted_content": "gAAAAB-opaque-reasoning-1"}], "id": "fc_1"})
                    ),
                    "the reasoning item goes back with the call it preceded"
                );
                assert_eq!(reply.usage, Usage::new(41, 33));
            }
        }
    }
}

#[tokio::test]
async fn a_streamed_run_over_http_runs_the_calls_and_answers() {
    for provider in ALL {
        let server = serve(vec![
            sse(fixture(provider, "calls")),
            sse(fixture(provider, "text")),
        ])
        .await;
        let ran = Arc::new(AtomicUsize::new(0));
        let builder = base_agent_builder(provider.client(&server.uri(), KEY, quick(0)))
            .register_tool(Weather(ran.clone()));
        let agent = PhiAgent::build(builder, AgentConfig::default()).unwrap();
        let mut events = agent.run_stream("weather in Paris and Oslo?");
        let mut last_text = String::new();
        let mut finished = Vec::new();
        let mut output = None;
        while let Some(event) = events.next().await {
            match event.unwrap() {
                StreamEvent::TextDelta { turn: 2, text } => last_text.push_str(&text),
                StreamEvent::ToolFinished { call, result, .. } => {
                    finished.push((
                        call.arguments["city"].clone(),
                        result.content[0].to_model_text(),
                    ));
                }
                StreamEvent::Finished(done) => output = Some(done),
                _ => {}
            }
        }
        let output = output.expect("Finished");
        assert_eq!(output.text, "Paris: sun, Oslo: snow.");
        assert_eq!(last_text, output.text);
        assert_eq!(ran.load(Ordering::SeqCst), 2);
        assert_eq!(
            finished,
            [
                (json!("Paris"), "sun".to_string()),
                (json!("Oslo"), "snow".to_string())
            ]
        );
        assert_eq!(output.turns, 2);
        assert_eq!(requests(&server).await.len(), 2);
    }
}

#[tokio::test]
async fn a_stream_cut_inside_arguments_fails_and_no_tool_runs() {
    for provider in ALL {
        // Retries allowed, but the cut comes after deltas were handed on: no retry.
        let server = serve(vec![
            sse(cut_in_arguments(provider)),
            sse(fixture(provider, "calls")),
            sse(fixture(provider, "text")),
        ])
        .await;
        let ran = Arc::new(AtomicUsize::new(0));
        let builder = base_agent_builder(provider.client(&server.uri(), KEY, quick(2)))
            .register_tool(Weather(ran.clone()));
        let agent = PhiAgent::build(builder, AgentConfig::default()).unwrap();
        let events: Vec<_> = agent.run_stream("weather?").collect().await;
        let error = events.last().unwrap().as_ref().unwrap_err();
        assert!(
            matches!(error, AgentError::Http { message, .. } if message.contains("ended before the reply was complete")),
            "{provider:?}: {error}"
        );
        assert!(
            events
                .iter()
                .any(|event| matches!(event, Ok(StreamEvent::ToolArgumentsDelta { .. })))
        );
        // Gemini's cut comes after its first call, which is whole and so announced ready;
        // every other cut is inside the first call's arguments. Either way no tool starts.
        let ready = events
            .iter()
            .filter(|event| matches!(event, Ok(StreamEvent::ToolCallReady { .. })))
            .count();
        assert_eq!(
            ready,
            usize::from(matches!(provider, Provider::Gemini)),
            "{provider:?}"
        );
        assert!(
            !events
                .iter()
                .any(|event| matches!(event, Ok(StreamEvent::ToolStarted { .. }))),
            "{provider:?}"
        );
        assert_eq!(
            ran.load(Ordering::SeqCst),
            0,
            "{provider:?}: no tool ran with partial arguments"
        );
        assert_eq!(
            requests(&server).await.len(),
            1,
            "{provider:?}: not retried"
        );
    }
}

#[tokio::test]
async fn a_stream_that_breaks_before_any_delta_is_retried() {
    for provider in ALL {
        // The first answer ends after its opening event, which carries no delta.
        let server = serve(vec![
            sse(first_events(fixture(provider, "text"), 1)),
            ResponseTemplate::new(503).set_body_string("busy"),
            sse(fixture(provider, "text")),
        ])
        .await;
        let client = provider.client(&server.uri(), KEY, quick(2));
        let deltas = deltas(&*client).await;
        let Some(Ok(StreamDelta::Done(reply))) = deltas.last() else {
            panic!("{provider:?}: {deltas:?}");
        };
        assert_eq!(reply.text, "Paris: sun, Oslo: snow.");
        let texts: String = deltas
            .iter()
            .filter_map(|delta| match delta {
                Ok(StreamDelta::Text(text)) => Some(text.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(texts, reply.text, "{provider:?}: nothing repeated");
        assert_eq!(requests(&server).await.len(), 3);
    }
}

#[tokio::test]
async fn retries_give_up_as_configured() {
    for provider in ALL {
        let server = serve(vec![
            ResponseTemplate::new(529).set_body_string("overloaded"),
            ResponseTemplate::new(529).set_body_string("overloaded"),
        ])
        .await;
        let client = provider.client(&server.uri(), KEY, quick(1));
        let deltas = deltas(&*client).await;
        assert_eq!(deltas.len(), 1);
        assert!(
            matches!(&deltas[0], Err(AgentError::Provider { status: 529, .. })),
            "{deltas:?}"
        );
        assert_eq!(requests(&server).await.len(), 2);
    }
}

#[tokio::test]
async fn a_malformed_event_is_an_invalid_response_and_not_retried() {
    for provider in ALL {
        let opening = first_events(fixture(provider, "text"), 3);
        let server = serve(vec![
            sse(format!("{opening}data: {{\"choices\": [{{\"delta\": \n\n")),
            sse(fixture(provider, "text")),
        ])
        .await;
        let client = provider.client(&server.uri(), KEY, quick(2));
        let deltas = deltas(&*client).await;
        let error = deltas.last().unwrap().as_ref().unwrap_err();
        assert!(
            matches!(error, AgentError::InvalidResponse { message, .. } if message.contains("malformed stream event")),
            "{provider:?}: {error}"
        );
        assert_eq!(requests(&server).await.len(), 1);
    }
}

const OVERLOADED: &str = "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n";

#[tokio::test]
async fn an_anthropic_error_event_is_retried_only_before_any_delta() {
    let provider = Provider::Anthropic;
    let text = fixture(provider, "text");
    // Before any delta: retried, and the second attempt answers.
    let server = serve(vec![
        sse(format!("{}{OVERLOADED}", first_events(text, 2))),
        sse(text),
    ])
    .await;
    let client = provider.client(&server.uri(), KEY, quick(2));
    let deltas_before = deltas(&*client).await;
    assert!(
        matches!(deltas_before.last(), Some(Ok(StreamDelta::Done(_)))),
        "{deltas_before:?}"
    );
    assert_eq!(requests(&server).await.len(), 2);

    // After a delta: the error reaches the caller.
    let server = serve(vec![
        sse(format!("{}{OVERLOADED}", first_events(text, 3))),
        sse(text),
    ])
    .await;
    let client = provider.client(&server.uri(), KEY, quick(2));
    let deltas_after = deltas(&*client).await;
    assert!(matches!(deltas_after[0], Ok(StreamDelta::Text(_))));
    let error = deltas_after.last().unwrap().as_ref().unwrap_err();
    assert!(
        matches!(error, AgentError::Provider { status: 529, message, .. } if message == "overloaded_error: Overloaded"),
        "{error}"
    );
    assert_eq!(requests(&server).await.len(), 1);
}

#[tokio::test]
async fn an_openai_error_chunk_is_the_providers_error() {
    let provider = Provider::OpenAi;
    let chunk = format!(
        "{}data: {{\"error\":{{\"message\":\"The server had an error; key {KEY} echoed\",\"type\":\"invalid_request_error\"}}}}\n\n",
        first_events(fixture(provider, "text"), 2)
    );
    let server = serve(vec![sse(chunk)]).await;
    let client = provider.client(&server.uri(), KEY, quick(2));
    let deltas = deltas(&*client).await;
    let error = deltas.last().unwrap().as_ref().unwrap_err();
    assert!(
        matches!(error, AgentError::Provider { message, .. } if message.starts_with("invalid_request_error: The server had an error")),
        "{error}"
    );
    assert!(
        !error.to_string().contains(KEY),
        "an echoed key is redacted: {error}"
    );
    assert_eq!(requests(&server).await.len(), 1);
}

/// A raw loopback server: for each connection in turn, sends `before`, waits `gap`, sends
/// `after`, closes. Returns the base URL and the count of connections.
fn gapped_server(answers: Vec<(String, Duration, String)>) -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let accepted = Arc::new(AtomicUsize::new(0));
    let count = accepted.clone();
    std::thread::spawn(move || {
        for (before, gap, after) in answers {
            let Ok((mut stream, _)) = listener.accept() else {
                return;
            };
            count.fetch_add(1, Ordering::SeqCst);
            std::thread::spawn(move || {
                let mut head = Vec::new();
                let mut byte = [0u8];
                while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).unwrap_or(0) == 1 {
                    head.push(byte[0]);
                }
                let length = String::from_utf8_lossy(&head)
                    .lines()
                    .find_map(|line| {
                        let (name, value) = line.split_once(':')?;
                        name.eq_ignore_ascii_case("content-length")
                            .then(|| value.trim().parse::<usize>().ok())?
                    })
                    .unwrap_or(0);
                let mut body = vec![0u8; length];
                let _ = stream.read_exact(&mut body);
                let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";
                let _ = stream.write_all(head.as_bytes());
                let _ = stream.write_all(before.as_bytes());
                let _ = stream.flush();
                std::thread::sleep(gap);
                let _ = stream.write_all(after.as_bytes());
            });
        }
    });
    (base, accepted)
}

#[tokio::test]
async fn an_idle_gap_longer_than_the_limit_fails_the_stream() {
    let gap = Duration::from_millis(1_500);
    for provider in ALL {
        let text = fixture(provider, "text");
        // A gap after deltas were handed on: the error reaches the caller, no retry.
        let (base, connections) = gapped_server(vec![
            (
                first_events(text, 3),
                gap,
                text.split_inclusive("\n\n").skip(3).collect(),
            ),
            (text.to_string(), Duration::ZERO, String::new()),
        ]);
        let client = provider.client(&base, KEY, quick(2));
        let deltas_after = deltas(&*client).await;
        assert!(
            matches!(deltas_after[0], Ok(StreamDelta::Text(_))),
            "{provider:?}: {deltas_after:?}"
        );
        let error = deltas_after.last().unwrap().as_ref().unwrap_err();
        assert!(
            matches!(error, AgentError::Http { message, .. } if message.contains("idle for longer than 300ms")),
            "{provider:?}: {error}"
        );
        assert_eq!(connections.load(Ordering::SeqCst), 1);

        // A gap before any delta: retried, and the second answer is whole.
        let (base, connections) = gapped_server(vec![
            (first_events(text, 1), gap, String::new()),
            (text.to_string(), Duration::ZERO, String::new()),
        ]);
        let client = provider.client(&base, KEY, quick(2));
        let deltas_before = deltas(&*client).await;
        assert!(
            matches!(deltas_before.last(), Some(Ok(StreamDelta::Done(_)))),
            "{provider:?}: {deltas_before:?}"
        );
        assert_eq!(connections.load(Ordering::SeqCst), 2);
    }
}

#[tokio::test]
async fn a_gap_shorter_than_the_limit_is_waited_out() {
    for provider in ALL {
        let text = fixture(provider, "text");
        let (base, _) = gapped_server(vec![(
            first_events(text, 3),
            Duration::from_millis(100),
            text.split_inclusive("\n\n").skip(3).collect(),
        )]);
        let client = provider.client(&base, KEY, quick(0));
        let deltas = deltas(&*client).await;
        assert!(
            matches!(deltas.last(), Some(Ok(StreamDelta::Done(reply))) if reply.text == "Paris: sun, Oslo: snow."),
            "{provider:?}: {deltas:?}"
        );
    }
}

#[test]
fn a_body_cut_anywhere_reads_the_same() {
    for provider in ALL {
        let name = match provider {
            Provider::OpenAi => "openai",
            Provider::Anthropic => "anthropic",
            Provider::Gemini => "gemini",
            Provider::Responses => "openai-responses",
        };
        for fixture_name in ["calls", "text"] {
            let body = fixture(provider, fixture_name).as_bytes();
            let whole = parse_stream_body(name, &[body]).unwrap();
            assert!(matches!(whole.last(), Some(StreamDelta::Done(_))));
            // Every cut point, as a network may hand the bytes over, even inside a character.
            for cut in 1..body.len() {
                let (head, tail) = body.split_at(cut);
                assert_eq!(
                    parse_stream_body(name, &[head, tail]).unwrap(),
                    whole,
                    "{name} {fixture_name} cut at {cut}"
                );
            }
            // One byte at a time.
            let bytes: Vec<&[u8]> = body.chunks(1).collect();
            assert_eq!(parse_stream_body(name, &bytes).unwrap(), whole);
        }
    }
}

#[test]
fn a_call_without_arguments_streams_them_as_an_empty_object() {
    let openai = concat!(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":\"now\",\"arguments\":\"\"}}]},\"finish_reason\":null}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n",
        "data: [DONE]\n\n",
    );
    let anthropic = concat!(
        "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"c1\",\"name\":\"now\",\"input\":{}}}\n\n",
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\"}}\n\n",
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
        "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":5}}\n\n",
        "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
    );
    let gemini = "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"name\":\"now\"}}]},\"finishReason\":\"STOP\"}]}\n\n";
    let responses = concat!(
        "event: response.output_item.added\ndata: {\"type\":\"response.output_item.added\",\"output_index\":0,\"item\":{\"type\":\"function_call\",\"id\":\"fc_1\",\"call_id\":\"c1\",\"name\":\"now\",\"arguments\":\"\"}}\n\n",
        "event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\",\"output\":[{\"type\":\"function_call\",\"id\":\"fc_1\",\"call_id\":\"c1\",\"name\":\"now\",\"arguments\":\"\"}]}}\n\n",
    );
    for (name, body) in [
        ("openai", openai),
        ("anthropic", anthropic),
        ("gemini", gemini),
        ("openai-responses", responses),
    ] {
        let deltas = parse_stream_body(name, &[body.as_bytes()]).unwrap();
        let arguments: String = deltas
            .iter()
            .filter_map(|delta| match delta {
                StreamDelta::ToolArguments {
                    index: 0, fragment, ..
                } => Some(fragment.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(arguments, "{}", "{name}");
        let Some(StreamDelta::Done(reply)) = deltas.last() else {
            panic!("{name}: {deltas:?}");
        };
        assert_eq!(reply.tool_calls[0].arguments, json!({}), "{name}");
        assert_eq!(reply.stop_reason, StopReason::ToolUse);
    }
}

/// An error event of the Responses API or Gemini: retried when it comes before any delta and its
/// code is one a status would have been retried for; after a delta it reaches the caller.
#[tokio::test]
async fn responses_and_gemini_error_events_are_retried_only_before_any_delta() {
    let errors = [
        (
            Provider::Responses,
            "event: error\ndata: {\"type\":\"error\",\"code\":\"server_error\",\"message\":\"The server had an error; key sk-streaming-secret echoed\",\"param\":null,\"sequence_number\":1}\n\n",
            500,
            "The server had an error",
        ),
        (
            Provider::Responses,
            "event: response.failed\ndata: {\"type\":\"response.failed\",\"response\":{\"status\":\"failed\",\"error\":{\"code\":\"rate_limit_exceeded\",\"message\":\"Slow down\"}}}\n\n",
            429,
            "Slow down",
        ),
        (
            Provider::Gemini,
            "data: {\"error\":{\"code\":503,\"message\":\"The model is overloaded. sk-streaming-secret\",\"status\":\"UNAVAILABLE\"}}\n\n",
            503,
            "The model is overloaded.",
        ),
    ];
    for (provider, error_event, status, said) in errors {
        let text = fixture(provider, "text");
        // The opening event carries no delta for either adapter.
        let server = serve(vec![
            sse(format!("{}{error_event}", first_events(text, 1))),
            sse(text),
        ])
        .await;
        let client = provider.client(&server.uri(), KEY, quick(2));
        let before = deltas(&*client).await;
        assert!(
            matches!(before.last(), Some(Ok(StreamDelta::Done(_)))),
            "{provider:?}: {before:?}"
        );
        assert_eq!(requests(&server).await.len(), 2, "{provider:?}: retried");

        let server = serve(vec![
            sse(format!("{}{error_event}", first_events(text, 3))),
            sse(text),
        ])
        .await;
        let client = provider.client(&server.uri(), KEY, quick(2));
        let after = deltas(&*client).await;
        assert!(matches!(after[0], Ok(StreamDelta::Text(_))), "{after:?}");
        let error = after.last().unwrap().as_ref().unwrap_err();
        assert!(
            matches!(error, AgentError::Provider { status: s, message, .. } if *s == status && message.contains(said)),
            "{provider:?}: {error}"
        );
        assert_eq!(
            requests(&server).await.len(),
            1,
            "{provider:?}: not retried"
        );
    }
}

/// The reasoning item streamed with a call goes back, byte for byte, on the next request.
#[tokio::test]
async fn a_streamed_responses_reasoning_item_goes_back_with_its_call() {
    let provider = Provider::Responses;
    let server = serve(vec![
        sse(fixture(provider, "calls")),
        sse(fixture(provider, "text")),
    ])
    .await;
    let ran = Arc::new(AtomicUsize::new(0));
    let builder = base_agent_builder(provider.client(&server.uri(), KEY, quick(0)))
        .register_tool(Weather(ran.clone()));
    let agent = PhiAgent::build(builder, AgentConfig::default()).unwrap();
    let events: Vec<_> = agent.run_stream("weather?").collect().await;
    assert!(matches!(events.last(), Some(Ok(StreamEvent::Finished(_)))));
    let bodies = requests(&server).await;
    let streamed = fixture(provider, "calls")
        .lines()
        .find(|line| line.contains("gAAAAB") && line.contains("output_item.done"))
        .unwrap();
    let event: Value = serde_json::from_str(streamed.trim_start_matches("data: ")).unwrap();
    let input = bodies[1]["input"].as_array().unwrap();
    let at = input
        .iter()
        .position(|item| item["type"] == "reasoning")
        .expect("the reasoning item is sent back");
    assert_eq!(
        serde_json::to_string(&input[at]).unwrap(),
        serde_json::to_string(&event["item"]).unwrap()
    );
    assert_eq!(
        input[at + 1]["call_id"],
        "call_paris",
        "just before its call"
    );
    assert_eq!(input[at + 1]["id"], "fc_1");
}

/// The index in `deltas` of the first delta `wanted` picks.
fn at(deltas: &[StreamDelta], wanted: impl Fn(&StreamDelta) -> bool) -> usize {
    deltas.iter().position(wanted).expect("the delta is there")
}

#[test]
fn a_call_is_ready_as_soon_as_the_stream_shows_it_whole_and_parses_as_a_plain_reply() {
    // The same two calls, answered whole.
    let plain_openai = json!({"choices": [{"message": {"content": "Checking both cities.", "tool_calls": [
        {"id": "call_paris", "type": "function", "function": {"name": "weather", "arguments": "{\"city\": \"Paris\"}"}},
        {"id": "call_oslo", "type": "function", "function": {"name": "weather", "arguments": "{\"city\": \"Oslo\"}"}}
    ]}, "finish_reason": "tool_calls"}]});
    let plain_anthropic = json!({"content": [
        {"type": "text", "text": "Checking both cities."},
        {"type": "tool_use", "id": "toolu_paris", "name": "weather", "input": {"city": "Paris"}},
        {"type": "tool_use", "id": "toolu_oslo", "name": "weather", "input": {"city": "Oslo"}}
    ], "stop_reason": "tool_use"});
    for (provider, body, plain) in [
        (
            "openai",
            fixture(Provider::OpenAi, "sequential"),
            plain_openai,
        ),
        (
            "anthropic",
            fixture(Provider::Anthropic, "calls"),
            plain_anthropic,
        ),
    ] {
        let deltas = parse_stream_body(provider, &[body.as_bytes()]).unwrap();
        let plain =
            phi_agent::llm::parse_response_body(provider, plain.to_string().as_bytes()).unwrap();
        let ready: Vec<&ToolCall> = deltas
            .iter()
            .filter_map(|delta| match delta {
                StreamDelta::ToolCallReady { call, .. } => Some(call),
                _ => None,
            })
            .collect();
        assert_eq!(
            ready,
            plain.tool_calls.iter().collect::<Vec<_>>(),
            "{provider}"
        );
        let first_ready = at(&deltas, |d| {
            matches!(d, StreamDelta::ToolCallReady { index: 0, .. })
        });
        let second_started = at(&deltas, |d| {
            matches!(d, StreamDelta::ToolCallStarted { index: 1, .. })
        });
        let last_piece_of_first = deltas
            .iter()
            .rposition(|d| matches!(d, StreamDelta::ToolArguments { index: 0, .. }))
            .unwrap();
        assert!(
            last_piece_of_first < first_ready && first_ready < second_started,
            "{provider}: the first call is ready before the second begins: {deltas:?}"
        );
        let StreamDelta::Done(reply) = deltas.last().unwrap() else {
            panic!("{provider}: Done last");
        };
        assert_eq!(reply.tool_calls, plain.tool_calls, "{provider}");
        // Cut anywhere, the body reads the same.
        for cut in 1..body.len() {
            if !body.is_char_boundary(cut) {
                continue;
            }
            let (head, tail) = body.split_at(cut);
            let again = parse_stream_body(provider, &[head.as_bytes(), tail.as_bytes()]).unwrap();
            assert_eq!(again, deltas, "{provider}: cut at {cut}");
        }
    }
}

#[test]
fn arguments_after_a_call_is_ready_are_a_malformed_stream() {
    // Anthropic: a piece for a tool_use block that has stopped.
    let body = fixture(Provider::Anthropic, "calls");
    let late = "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"x\"}}\n\n";
    let stop = "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":2,";
    let at_second = body.find(stop).unwrap();
    let broken = format!("{}{late}{}", &body[..at_second], &body[at_second..]);
    let error = parse_stream_body("anthropic", &[broken.as_bytes()]).unwrap_err();
    assert!(
        matches!(&error, AgentError::InvalidResponse { message, .. } if message.contains("stopped")),
        "{error}"
    );

    // OpenAI: the first call's object was whole when the second began; more text breaks it,
    // while whitespace is harmless.
    let body = fixture(Provider::OpenAi, "sequential");
    let piece = |text: &str| {
        format!(
            "data: {}\n\n",
            json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": text}}]}, "finish_reason": null}]})
        )
    };
    let before_finish = body.find("\"finish_reason\":\"tool_calls\"").unwrap();
    let cut = body[..before_finish].rfind("data: ").unwrap();
    for (text, fails) in [(",\"x\":1}", true), ("  \n", false)] {
        let changed = format!("{}{}{}", &body[..cut], piece(text), &body[cut..]);
        let read = parse_stream_body("openai", &[changed.as_bytes()]);
        match (read, fails) {
            (Err(AgentError::InvalidResponse { message, .. }), true) => {
                assert!(message.contains("complete"), "{message}")
            }
            (Ok(deltas), false) => {
                let StreamDelta::Done(reply) = deltas.last().unwrap() else {
                    panic!("Done last")
                };
                assert_eq!(reply.tool_calls[0].arguments, json!({"city": "Paris"}));
            }
            (other, _) => panic!("{text:?}: {other:?}"),
        }
    }
}
