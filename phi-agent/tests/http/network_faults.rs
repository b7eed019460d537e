//! The network faults that `http_faults.rs` does not cover, for both HTTP adapters: a refused
//! connection, a connection reset or closed in the middle of the body (a raw loopback socket),
//! a storm of 429s with `Retry-After`, headers that never come, a body that trickles, invalid
//! UTF-8, and valid JSON of the wrong shape.
//!
//! Real sockets: waits are measured on the wall clock and asserted with generous bounds. Every
//! server here listens on 127.0.0.1 only and serves a bounded number of connections.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use phi_agent::AgentError;
use phi_agent::llm::{LlmClient, LlmRequest, Message};
use serde_json::{Value, json};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::providers::{ALL, Provider, http};

const KEY: &str = "sk-network-fault-secret";

fn ask() -> LlmRequest {
    LlmRequest::default().with_messages(vec![Message::user("hi")])
}

/// What a raw server does with the connection it accepted (numbered from 0).
type Behaviour = dyn Fn(usize, TcpStream) + Send + Sync;

/// Serves up to `connections` connections on a loopback port, each on its own thread, and
/// returns the base URL and the count of connections accepted.
fn raw_server(connections: usize, behaviour: Arc<Behaviour>) -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let accepted = Arc::new(AtomicUsize::new(0));
    let count = accepted.clone();
    std::thread::spawn(move || {
        for index in 0..connections {
            let Ok((stream, _)) = listener.accept() else {
                return;
            };
            count.fetch_add(1, Ordering::SeqCst);
            let behaviour = behaviour.clone();
            std::thread::spawn(move || behaviour(index, stream));
        }
    });
    (base, accepted)
}

/// Reads the request head (up to the blank line) and returns its `content-length`.
fn read_head(stream: &mut TcpStream) -> usize {
    let mut head = Vec::new();
    let mut byte = [0u8];
    while !head.ends_with(b"\r\n\r\n") {
        if stream.read(&mut byte).unwrap_or(0) == 0 {
            break;
        }
        head.push(byte[0]);
    }
    String::from_utf8_lossy(&head)
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse().ok())?
        })
        .unwrap_or(0)
}

/// Reads the whole request, so that closing the socket afterwards sends FIN, not RST.
fn read_request(stream: &mut TcpStream) {
    let length = read_head(stream);
    let mut body = vec![0u8; length];
    let _ = stream.read_exact(&mut body);
}

fn respond(stream: &mut TcpStream, status: &str, headers: &str, body: &[u8]) {
    let head = format!(
        "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n{headers}\r\n",
        body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(body);
}

#[tokio::test]
async fn a_refused_connection_is_retried_then_reported() {
    for provider in ALL {
        // A port that was just free and is closed again: connecting is refused at once.
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let client = provider.client(&format!("http://127.0.0.1:{port}"), KEY, http(1_000, 2));
        let started = Instant::now();
        let error = client.complete(&ask()).await.unwrap_err();
        let AgentError::Http { message, .. } = &error else {
            panic!("{provider:?}: {error:?}");
        };
        assert!(
            message.contains("gave up after 3 attempts"),
            "{provider:?}: {message}"
        );
        assert!(
            message.to_lowercase().contains("connect"),
            "{provider:?}: says it could not connect: {message}"
        );
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{:?}",
            started.elapsed()
        );
        assert!(!format!("{error} {error:?}").contains(KEY));
    }
}

#[tokio::test]
async fn a_connection_reset_mid_body_is_retried_and_the_next_answer_is_used() {
    for provider in ALL {
        let good = provider.answer("after the reset").to_string();
        let (base, accepted) = raw_server(
            2,
            Arc::new(move |index, mut stream: TcpStream| {
                if index == 0 {
                    // Leave the request body unread and promise more body than is sent: closing
                    // a socket with unread input makes the kernel reset the connection.
                    read_head(&mut stream);
                    let head = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 4000\r\n\r\n";
                    let _ = stream.write_all(head.as_bytes());
                    let _ = stream.write_all(br#"{"choices": [{"message": {"content": "#);
                    std::thread::sleep(Duration::from_millis(50));
                    drop(stream);
                } else {
                    read_request(&mut stream);
                    respond(&mut stream, "200 OK", "", good.as_bytes());
                }
            }),
        );
        let reply = provider
            .client(&base, KEY, http(2_000, 2))
            .complete(&ask())
            .await;
        let reply = reply.unwrap_or_else(|e| panic!("{provider:?}: {e}"));
        assert_eq!(reply.text, "after the reset");
        assert_eq!(accepted.load(Ordering::SeqCst), 2, "{provider:?}");
    }
}

#[tokio::test]
async fn connections_that_always_break_mid_body_end_in_a_clear_error() {
    for (provider, reset) in [
        (Provider::OpenAi, true),
        (Provider::Anthropic, true),
        (Provider::OpenAi, false),
        (Provider::Anthropic, false),
    ] {
        let (base, accepted) = raw_server(
            3,
            Arc::new(move |_, mut stream: TcpStream| {
                if reset {
                    read_head(&mut stream);
                } else {
                    read_request(&mut stream);
                }
                let head = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 4000\r\n\r\n{\"content\": [";
                let _ = stream.write_all(head.as_bytes());
                std::thread::sleep(Duration::from_millis(20));
            }),
        );
        let error = provider
            .client(&base, KEY, http(2_000, 2))
            .complete(&ask())
            .await
            .unwrap_err();
        assert!(
            matches!(&error, AgentError::Http { message, .. } if message.contains("gave up after 3 attempts")),
            "{provider:?} reset={reset}: {error}"
        );
        assert_eq!(accepted.load(Ordering::SeqCst), 3);
    }
}

#[tokio::test]
async fn a_429_storm_is_waited_out_when_it_ends_and_reported_when_it_does_not() {
    for provider in ALL {
        let server = MockServer::start().await;
        let limited = ResponseTemplate::new(429)
            .insert_header("retry-after", "0.05")
            .set_body_json(json!({"error": {"type": "rate_limit_error", "message": "slow down"}}));
        Mock::given(method("POST"))
            .respond_with(limited.clone())
            .up_to_n_times(5)
            .mount(&server)
            .await;
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(200).set_body_json(provider.answer("at last")))
            .mount(&server)
            .await;
        let started = Instant::now();
        let reply = provider
            .client(&server.uri(), KEY, http(1_000, 5))
            .complete(&ask())
            .await
            .unwrap();
        assert_eq!(reply.text, "at last");
        assert_eq!(server.received_requests().await.unwrap().len(), 6);
        assert!(
            started.elapsed() >= Duration::from_millis(250),
            "five waits of 50 ms: {:?}",
            started.elapsed()
        );

        // A storm that outlasts the retries ends with the provider's own words.
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .respond_with(limited)
            .mount(&server)
            .await;
        let error = provider
            .client(&server.uri(), KEY, http(1_000, 3))
            .complete(&ask())
            .await
            .unwrap_err();
        assert!(
            matches!(&error, AgentError::Provider { status: 429, message, .. } if message == "rate_limit_error: slow down"),
            "{provider:?}: {error:?}"
        );
        assert_eq!(server.received_requests().await.unwrap().len(), 4);
    }
}

#[tokio::test]
async fn an_absurd_retry_after_is_capped_by_max_backoff() {
    for (provider, wait) in [(Provider::OpenAi, "86400"), (Provider::Anthropic, "1e300")] {
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(429).insert_header("retry-after", wait))
            .up_to_n_times(2)
            .mount(&server)
            .await;
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(200).set_body_json(provider.answer("ok")))
            .mount(&server)
            .await;
        let started = Instant::now();
        let reply = provider
            .client(&server.uri(), KEY, http(1_000, 3))
            .complete(&ask())
            .await
            .unwrap();
        assert_eq!(reply.text, "ok");
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{provider:?}: waited {:?} for Retry-After {wait}",
            started.elapsed()
        );
    }
}

#[tokio::test]
async fn headers_that_never_come_and_a_trickling_body_time_out() {
    for provider in ALL {
        for trickle in [false, true] {
            let (base, accepted) = raw_server(
                2,
                Arc::new(move |_, mut stream: TcpStream| {
                    read_request(&mut stream);
                    if trickle {
                        let head = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n";
                        let _ = stream.write_all(head.as_bytes());
                        for _ in 0..20 {
                            if stream.write_all(b" ").is_err() {
                                return;
                            }
                            std::thread::sleep(Duration::from_millis(100));
                        }
                    } else {
                        std::thread::sleep(Duration::from_secs(2));
                    }
                }),
            );
            let started = Instant::now();
            let error = provider
                .client(&base, KEY, http(300, 1))
                .complete(&ask())
                .await
                .unwrap_err();
            let elapsed = started.elapsed();
            assert!(
                matches!(&error, AgentError::Http { message, .. } if message.contains("timeout") && message.contains("2 attempts")),
                "{provider:?} trickle={trickle}: {error}"
            );
            assert!(elapsed >= Duration::from_millis(600), "{elapsed:?}");
            assert!(
                elapsed < Duration::from_millis(1_900),
                "did not wait for the server: {elapsed:?}"
            );
            assert_eq!(accepted.load(Ordering::SeqCst), 2);
        }
    }
}

#[tokio::test]
async fn invalid_utf8_in_body_or_headers_is_an_error_not_a_panic() {
    for provider in ALL {
        let mut body = provider.answer("x").to_string().into_bytes();
        let at = body.iter().position(|&b| b == b'x').unwrap();
        body.splice(at..=at, [0xff, 0xfe, 0xc3]);
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(200).set_body_raw(body, "application/json"))
            .mount(&server)
            .await;
        let error = provider
            .client(&server.uri(), KEY, http(1_000, 2))
            .complete(&ask())
            .await
            .unwrap_err();
        assert!(
            matches!(&error, AgentError::InvalidResponse { message, .. } if message.contains("not valid JSON") && message.contains('\u{fffd}')),
            "{provider:?}: {error}"
        );
        assert_eq!(
            server.received_requests().await.unwrap().len(),
            1,
            "not retried"
        );

        // An error body and a Retry-After header that are not UTF-8.
        let good = provider.answer("fine").to_string();
        let (base, _) = raw_server(
            2,
            Arc::new(move |index, mut stream: TcpStream| {
                read_request(&mut stream);
                if index == 0 {
                    let _ = stream.write_all(
                        b"HTTP/1.1 503 Busy\r\ncontent-length: 4\r\nretry-after: \xff\xfe\r\nconnection: close\r\n\r\n\xff\xfe\xfd\xfc",
                    );
                } else {
                    respond(&mut stream, "200 OK", "", good.as_bytes());
                }
            }),
        );
        let reply = provider
            .client(&base, KEY, http(1_000, 1))
            .complete(&ask())
            .await
            .unwrap();
        assert_eq!(reply.text, "fine");
    }
}

#[tokio::test]
async fn valid_json_of_the_wrong_shape_is_an_error_that_says_what_is_missing() {
    let cases: [(Provider, Value, &str); 10] = [
        (Provider::OpenAi, json!(null), "choices[0]"),
        (Provider::OpenAi, json!([1, 2]), "choices[0]"),
        (Provider::OpenAi, json!({"choices": "many"}), "choices[0]"),
        (
            Provider::OpenAi,
            json!({"choices": [{"text": "legacy"}]}),
            "no `message`",
        ),
        (
            Provider::OpenAi,
            json!({"choices": [{"message": {"tool_calls": [{"function": {"name": "x"}}]}}]}),
            "tool call 0 lacks `id`",
        ),
        (Provider::Anthropic, json!("text"), "no `content` array"),
        (
            Provider::Anthropic,
            json!({"content": "plain"}),
            "no `content` array",
        ),
        (
            Provider::Anthropic,
            json!({"type": "error", "error": {"message": "x"}}),
            "no `content` array",
        ),
        (
            Provider::Anthropic,
            json!({"content": [{"type": "tool_use", "name": "x"}]}),
            "tool_use block 0 lacks `id`",
        ),
        (
            Provider::Anthropic,
            json!({"content": [{"type": "tool_use", "id": 7, "name": ["x"]}]}),
            "lacks `id` or `name`",
        ),
    ];
    for (provider, body, expected) in cases {
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(200).set_body_json(&body))
            .mount(&server)
            .await;
        let error = provider
            .client(&server.uri(), KEY, http(1_000, 2))
            .complete(&ask())
            .await
            .unwrap_err();
        assert!(
            matches!(&error, AgentError::InvalidResponse { message, .. } if message.contains(expected)),
            "{provider:?} {body}: {error}"
        );
        assert_eq!(
            server.received_requests().await.unwrap().len(),
            1,
            "not retried"
        );
    }
}
