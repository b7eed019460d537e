//! Cost per delta of a streamed reply: from the bytes of a server-sent event body to the
//! adapter's deltas (`decode`, per provider), from the model's deltas to the owned events a
//! `run_stream` consumer receives (`run_stream`), the two together (`bytes_to_event`: the
//! adapter's decoder under `run_stream`, no socket), and a 10,000-delta reply end to end
//! (`end_to_end`: the adapter's HTTP request to a loopback server, the body read as it arrives,
//! every event taken). Each group counts deltas as its elements, so criterion's throughput line
//! is deltas per second; BENCHMARKS.md divides it into a time per delta.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use futures_util::StreamExt;
use phi_agent::llm::{
    AnthropicClient, DeltaStream, LlmClient, LlmRequest, LlmResponse, OpenAiClient, ScriptedLlm,
    StreamDelta, parse_stream_body,
};
use phi_agent::{AgentConfig, AgentResult, PhiAgent, StreamEvent, base_agent_builder};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

/// Deltas per reply: enough that the per-reply costs (the final `Done`, the request) fade.
const DELTAS: usize = 1_000;

/// Deltas of the reply the `end_to_end` group streams.
const LONG: usize = 10_000;

/// A body of `DELTAS` text pieces of four characters in the provider's wire format, as the
/// providers send them (one event per piece).
fn text_body(provider: &str) -> String {
    text_body_of(provider, DELTAS)
}

/// A body of `deltas` text pieces of four characters in the provider's wire format.
fn text_body_of(provider: &str, deltas: usize) -> String {
    let mut body = String::new();
    match provider {
        "openai" => {
            for _ in 0..deltas {
                body.push_str(r#"data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-test","choices":[{"index":0,"delta":{"content":"word"},"finish_reason":null}]}"#);
                body.push_str("\n\n");
            }
            body.push_str(r#"data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-test","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#);
            body.push_str("\n\ndata: [DONE]\n\n");
        }
        "gemini" => {
            // One `GenerateContentResponse` chunk per piece, with the usage so far, as Gemini
            // sends them; the last one says why it finished.
            for _ in 0..DELTAS {
                body.push_str(r#"data: {"candidates":[{"content":{"role":"model","parts":[{"text":"word"}]},"index":0}],"usageMetadata":{"promptTokenCount":9,"candidatesTokenCount":1,"totalTokenCount":10},"modelVersion":"gemini-test","responseId":"r-1"}"#);
                body.push_str("\n\n");
            }
            body.push_str(r#"data: {"candidates":[{"content":{"role":"model","parts":[{"text":""}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":9,"candidatesTokenCount":1000,"totalTokenCount":1009},"modelVersion":"gemini-test","responseId":"r-1"}"#);
            body.push_str("\n\n");
        }
        "openai-responses" => {
            for n in 0..DELTAS {
                body.push_str(&format!("event: response.output_text.delta\ndata: {{\"type\":\"response.output_text.delta\",\"sequence_number\":{n},\"item_id\":\"msg_1\",\"output_index\":0,\"content_index\":0,\"delta\":\"word\",\"logprobs\":[]}}\n\n"));
            }
            // The last event carries the whole response, its text included.
            let text = "word".repeat(DELTAS);
            body.push_str(&format!("event: response.completed\ndata: {{\"type\":\"response.completed\",\"sequence_number\":{DELTAS},\"response\":{{\"id\":\"resp_1\",\"object\":\"response\",\"status\":\"completed\",\"model\":\"gpt-test\",\"output\":[{{\"id\":\"msg_1\",\"type\":\"message\",\"status\":\"completed\",\"role\":\"assistant\",\"content\":[{{\"type\":\"output_text\",\"text\":\"{text}\",\"annotations\":[]}}]}}],\"usage\":{{\"input_tokens\":9,\"output_tokens\":1000,\"total_tokens\":1009}}}}}}\n\n"));
        }
        _ => {
            body.push_str("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-test\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n\n");
            body.push_str("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n");
            for _ in 0..deltas {
                body.push_str("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"word\"}}\n\n");
            }
            body.push_str("event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":1000}}\n\n");
            body.push_str("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
        }
    }
    body
}

fn bench_decode(c: &mut Criterion) {
    let mut group = c.benchmark_group("decode");
    group.throughput(Throughput::Elements(DELTAS as u64));
    for provider in ["openai", "anthropic", "gemini", "openai-responses"] {
        let body = text_body(provider);
        // 16 KiB reads, about what one TLS record and a socket read hand over at a time.
        let chunks: Vec<&[u8]> = body.as_bytes().chunks(16 * 1024).collect();
        let deltas = parse_stream_body(provider, &chunks).expect("the body reads");
        assert_eq!(
            deltas.len(),
            DELTAS + 1,
            "{provider}: every piece, then Done"
        );
        assert!(
            matches!(deltas.last(), Some(StreamDelta::Done(reply)) if reply.text.len() == 4 * DELTAS)
        );
        group.bench_function(provider, |b| {
            b.iter(|| black_box(parse_stream_body(provider, black_box(&chunks)).ok()))
        });
    }
    group.finish();
}

fn bench_run_stream(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let text = "word".repeat(DELTAS);
    // A rule-based model answers every request, so one agent serves every iteration.
    let answer = LlmResponse::text(text.clone());
    let llm = ScriptedLlm::from_fn(move |_| Ok(answer.clone())).with_pieces(4);
    let agent = PhiAgent::build(base_agent_builder(llm), AgentConfig::default()).expect("agent");
    let events = rt.block_on(agent.run_stream("go").count());
    assert_eq!(events, DELTAS + 2, "every delta, the turn's end, Finished");

    let mut group = c.benchmark_group("run_stream");
    group.throughput(Throughput::Elements(DELTAS as u64));
    group.bench_function("text_deltas", |b| {
        b.iter(|| rt.block_on(async { black_box(agent.run_stream("go").count().await) }))
    });
    // The same reply unstreamed, so the difference is what the events cost.
    group.bench_function("plain_run", |b| {
        b.iter(|| rt.block_on(async { black_box(agent.run("go").await.ok()) }))
    });
    group.finish();
}

/// A model whose stream is the adapter's decoder reading `body` from memory (in 16 KiB
/// pieces): the bytes-to-event path without a socket.
struct Decoding {
    provider: &'static str,
    body: String,
}

#[async_trait::async_trait]
impl LlmClient for Decoding {
    async fn complete(&self, _: &LlmRequest) -> AgentResult<LlmResponse> {
        unreachable!("streamed only")
    }
    fn stream<'a>(&'a self, _: &'a LlmRequest) -> DeltaStream<'a> {
        let chunks: Vec<&[u8]> = self.body.as_bytes().chunks(16 * 1024).collect();
        let deltas = parse_stream_body(self.provider, &chunks);
        match deltas {
            Ok(deltas) => futures_util::stream::iter(deltas.into_iter().map(Ok)).boxed(),
            Err(error) => futures_util::stream::iter([Err(error)]).boxed(),
        }
    }
}

fn bench_bytes_to_event(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let mut group = c.benchmark_group("bytes_to_event");
    group.throughput(Throughput::Elements(DELTAS as u64));
    for provider in ["openai", "anthropic"] {
        let llm = Decoding {
            provider,
            body: text_body(provider),
        };
        let agent =
            PhiAgent::build(base_agent_builder(llm), AgentConfig::default()).expect("agent");
        let events = rt.block_on(agent.run_stream("go").count());
        assert_eq!(events, DELTAS + 2, "every delta, the turn's end, Finished");
        group.bench_function(provider, |b| {
            b.iter(|| rt.block_on(async { black_box(agent.run_stream("go").count().await) }))
        });
    }
    group.finish();
}

fn bench_end_to_end(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    let mut group = c.benchmark_group("end_to_end");
    group.throughput(Throughput::Elements(LONG as u64));
    group.sample_size(20);
    for provider in ["openai", "anthropic"] {
        let body = text_body_of(provider, LONG);
        let server = rt.block_on(async {
            let server = MockServer::start().await;
            Mock::given(method("POST"))
                .respond_with(
                    ResponseTemplate::new(200).set_body_raw(body.into_bytes(), "text/event-stream"),
                )
                .mount(&server)
                .await;
            server
        });
        let llm: Box<dyn LlmClient> = match provider {
            "openai" => Box::new(
                OpenAiClient::new("sk-bench", "gpt-test")
                    .expect("client")
                    .with_base_url(format!("{}/v1", server.uri())),
            ),
            _ => Box::new(
                AnthropicClient::new("sk-ant-bench", "claude-test")
                    .expect("client")
                    .with_base_url(server.uri()),
            ),
        };
        let agent =
            PhiAgent::build(base_agent_builder(llm), AgentConfig::default()).expect("agent");
        let run = || async {
            let mut text = 0;
            let mut events = agent.run_stream("go");
            while let Some(event) = events.next().await {
                match event.expect("the stream reads") {
                    StreamEvent::TextDelta { text: piece, .. } => text += piece.len(),
                    StreamEvent::Finished(output) => assert_eq!(output.text.len(), text),
                    _ => {}
                }
            }
            text
        };
        assert_eq!(
            rt.block_on(run()),
            4 * LONG,
            "{provider}: every piece arrived"
        );
        group.bench_function(format!("{provider}_10k"), |b| {
            b.iter(|| black_box(rt.block_on(run())))
        });
        drop(agent);
        drop(server);
    }
    group.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
}

criterion_group! {
    name = benches;
    config = config();
    targets = bench_decode, bench_run_stream, bench_bytes_to_event, bench_end_to_end
}
criterion_main!(benches);
