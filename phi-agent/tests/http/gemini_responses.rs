//! The Gemini and OpenAI Responses adapters against a local server that misbehaves on purpose:
//! rate limits with `Retry-After`, server errors, broken bodies, slow answers, and models whose
//! arguments are not JSON; and what goes back on the next turn (calls without ids answered by
//! name and order, thought signatures, `call_id`s); and a run whose deferred tool the Responses
//! API's own tool search finds.
//!
//! Real sockets: waits are measured on the wall clock and asserted only from below.

use std::time::{Duration, Instant};

use async_trait::async_trait;
use phi_agent::llm::{HttpConfig, LlmRequest, Message, StopReason};
use phi_agent::{
    AgentConfig, AgentError, AgentResult, Content, PhiAgent, Tool, ToolContext, base_agent_builder,
};
use serde_json::{Value, json};
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::providers::Provider;

const KEY: &str = "AIza-and-sk-both-very-secret";
const NEW: [Provider; 2] = [Provider::Gemini, Provider::Responses];

fn quick() -> HttpConfig {
    HttpConfig::default()
        .with_timeout(Duration::from_millis(500))
        .with_max_retries(2)
        .with_initial_backoff(Duration::from_millis(10))
        .with_max_backoff(Duration::from_secs(2))
}

fn ask() -> LlmRequest {
    LlmRequest::default().with_messages(vec![Message::user("hi")])
}

/// The header that carries the key, and its value.
fn key_header(provider: Provider) -> (&'static str, String) {
    match provider {
        Provider::Gemini => ("x-goog-api-key", KEY.to_string()),
        _ => ("authorization", format!("Bearer {KEY}")),
    }
}

async fn requests(server: &MockServer) -> Vec<wiremock::Request> {
    server.received_requests().await.unwrap()
}

#[tokio::test]
async fn a_429_is_retried_after_the_retry_after_wait() {
    for provider in NEW {
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .and(path(provider.path()))
            .respond_with(
                ResponseTemplate::new(429)
                    .insert_header("retry-after", "0.6")
                    .set_body_json(json!({"error": {"code": 429, "message": "Quota exceeded", "status": "RESOURCE_EXHAUSTED"}})),
            )
            .up_to_n_times(1)
            .mount(&server)
            .await;
        Mock::given(method("POST"))
            .and(path(provider.path()))
            .respond_with(ResponseTemplate::new(200).set_body_json(provider.answer("hello")))
            .mount(&server)
            .await;
        let started = Instant::now();
        let reply = provider
            .client(&server.uri(), KEY, quick())
            .complete(&ask())
            .await
            .unwrap();
        assert_eq!(reply.text, "hello", "{provider:?}");
        assert_eq!(requests(&server).await.len(), 2, "{provider:?}");
        assert!(
            started.elapsed() >= Duration::from_millis(600),
            "{provider:?} waited {:?}",
            started.elapsed()
        );
    }
}

/// Gemini says how long to wait in the body, not in a header.
#[tokio::test]
async fn a_gemini_429_waits_for_the_retry_info_in_its_body() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(429).set_body_json(json!({"error": {
            "code": 429, "message": "Quota exceeded", "status": "RESOURCE_EXHAUSTED",
            "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "0.6s"}]
        }})))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(Provider::Gemini.answer("waited")))
        .mount(&server)
        .await;
    let started = Instant::now();
    let reply = Provider::Gemini
        .client(&server.uri(), KEY, quick())
        .complete(&ask())
        .await
        .unwrap();
    assert_eq!(reply.text, "waited");
    assert!(
        started.elapsed() >= Duration::from_millis(600),
        "waited {:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn a_500_then_success_succeeds_with_the_key_in_a_header_only() {
    for provider in NEW {
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(500).set_body_string("upstream exploded"))
            .up_to_n_times(1)
            .mount(&server)
            .await;
        let (name, value) = key_header(provider);
        Mock::given(method("POST"))
            .and(path(provider.path()))
            .and(header(name, value.as_str()))
            .respond_with(ResponseTemplate::new(200).set_body_json(provider.answer("fine")))
            .mount(&server)
            .await;
        let reply = provider
            .client(&server.uri(), KEY, quick())
            .complete(&ask())
            .await
            .unwrap();
        assert_eq!(reply.text, "fine", "{provider:?}");
        assert_eq!(reply.usage.input_tokens, 1, "{provider:?}");
        assert_eq!(reply.stop_reason, StopReason::EndTurn);
        let sent = requests(&server).await;
        assert_eq!(sent.len(), 2, "{provider:?}");
        for request in &sent {
            assert!(!request.url.as_str().contains(KEY), "{}", request.url);
        }
        if let Provider::Responses = provider {
            let body: Value = sent[1].body_json().unwrap();
            assert_eq!(body["store"], false, "stateless by default");
        }
    }
}

#[tokio::test]
async fn a_client_error_quotes_the_provider_and_is_not_retried() {
    for (provider, body, expected) in [
        (
            Provider::Gemini,
            json!({"error": {"code": 400, "message": "API key not valid. Please pass a valid API key.", "status": "INVALID_ARGUMENT"}}),
            "HTTP 400: INVALID_ARGUMENT: API key not valid",
        ),
        (
            Provider::Responses,
            json!({"error": {"message": "Unknown parameter: 'input[0].foo'.", "type": "invalid_request_error", "param": "input[0].foo", "code": "unknown_parameter"}}),
            "HTTP 400: invalid_request_error: Unknown parameter",
        ),
    ] {
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(400).set_body_json(body))
            .mount(&server)
            .await;
        let client = provider.client(&server.uri(), KEY, quick());
        let error = client.complete(&ask()).await.unwrap_err();
        assert_eq!(requests(&server).await.len(), 1, "{provider:?}");
        let shown = format!("{error} {error:?}");
        assert!(shown.contains(expected), "{shown}");
        assert!(!shown.contains(KEY), "{shown}");
    }
}

#[tokio::test]
async fn malformed_and_truncated_bodies_are_errors_that_say_so() {
    for provider in NEW {
        let whole = provider.answer("a long answer").to_string();
        for (body, expected) in [
            ("<html>oops</html>".to_string(), "not valid JSON"),
            (whole[..whole.len() / 2].to_string(), "truncated"),
        ] {
            let server = MockServer::start().await;
            Mock::given(method("POST"))
                .respond_with(ResponseTemplate::new(200).set_body_raw(body, "application/json"))
                .mount(&server)
                .await;
            let error = provider
                .client(&server.uri(), KEY, quick())
                .complete(&ask())
                .await
                .unwrap_err();
            assert!(
                matches!(&error, AgentError::InvalidResponse { message, .. } if message.contains(expected)),
                "{provider:?}: {error}"
            );
            assert_eq!(requests(&server).await.len(), 1, "not retried");
        }
    }
}

#[tokio::test]
async fn valid_json_of_the_wrong_shape_says_what_is_missing() {
    for (provider, body, expected) in [
        (Provider::Gemini, json!({}), "no `candidates[0]`"),
        (
            Provider::Gemini,
            json!({"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"}}),
            "blocked (PROHIBITED_CONTENT)",
        ),
        (
            Provider::Gemini,
            json!({"candidates": [{"content": {"parts": [{"functionCall": {"args": {}}}]}}]}),
            "lacks `name`",
        ),
        (
            Provider::Gemini,
            json!({"candidates": [{"content": {"parts": "text"}}]}),
            "not an array",
        ),
        (
            Provider::Responses,
            json!({"choices": []}),
            "no `output` array",
        ),
        (
            Provider::Responses,
            json!({"output": [{"type": "function_call", "name": "x"}]}),
            "lacks `call_id`",
        ),
        (
            Provider::Responses,
            json!({"status": "failed", "error": {"code": "server_error", "message": "it broke"}, "output": []}),
            "failed: it broke",
        ),
    ] {
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(200).set_body_json(&body))
            .mount(&server)
            .await;
        let error = provider
            .client(&server.uri(), KEY, quick())
            .complete(&ask())
            .await
            .unwrap_err();
        assert!(
            matches!(&error, AgentError::InvalidResponse { message, .. } if message.contains(expected)),
            "{provider:?} {body}: {error}"
        );
    }
}

#[tokio::test]
async fn an_answer_slower_than_the_timeout_fails_after_the_retries() {
    for provider in NEW {
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .respond_with(
                ResponseTemplate::new(200)
                    .set_body_json(provider.answer("too late"))
                    .set_delay(Duration::from_secs(3)),
            )
            .mount(&server)
            .await;
        let config = quick()
            .with_timeout(Duration::from_millis(300))
            .with_max_retries(1);
        let started = Instant::now();
        let error = provider
            .client(&server.uri(), KEY, config)
            .complete(&ask())
            .await
            .unwrap_err();
        let elapsed = started.elapsed();
        assert!(
            matches!(&error, AgentError::Http { message, .. } if message.contains("timeout") && message.contains("2 attempts")),
            "{provider:?}: {error}"
        );
        assert!(elapsed >= Duration::from_millis(600), "{elapsed:?}");
        assert!(elapsed < Duration::from_secs(3), "{elapsed:?}");
    }
}

/// Adds two numbers.
struct Add;

#[async_trait]
impl Tool for Add {
    fn name(&self) -> &'static str {
        "add"
    }
    fn description(&self) -> &'static str {
        "Add a and b"
    }
    fn schema(&self) -> Value {
        json!({"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}})
    }
    async fn call(&self, args: &Value, _: &ToolContext) -> AgentResult<Vec<Content>> {
        let sum = args["a"].as_f64().unwrap_or(0.0) + args["b"].as_f64().unwrap_or(0.0);
        Ok(vec![Content::text(sum.to_string())])
    }
}

/// Runs an agent with [`Add`] whose model first answers `first`, then "done"; returns the body
/// of the second request.
async fn second_request(provider: Provider, first: Value) -> Value {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(first))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(provider.answer("done")))
        .mount(&server)
        .await;
    let agent = PhiAgent::build(
        base_agent_builder(provider.client(&server.uri(), KEY, quick())).register_tool(Add),
        AgentConfig::default(),
    )
    .unwrap();
    let output = agent.run("add things").await.unwrap();
    assert_eq!(output.text, "done");
    let [bad, good] = &output.tool_calls[..] else {
        panic!("{:?}", output.tool_calls);
    };
    assert!(bad.is_error && !good.is_error, "{:?}", output.tool_calls);
    assert_eq!(good.result, [Content::text("3")]);
    requests(&server).await[1].body_json().unwrap()
}

#[tokio::test]
async fn responses_arguments_that_are_not_json_go_back_verbatim_with_an_error_output() {
    let first = Provider::Responses.raw_calls(&[
        ("add", json!("{\"a\": 1, \"b\":")),
        ("add", json!({"a": 1, "b": 2})),
    ]);
    let body = second_request(Provider::Responses, first).await;
    let input = body["input"].as_array().unwrap();
    assert_eq!(input.len(), 5, "{input:?}");
    assert_eq!(
        input[1],
        json!({"type": "function_call", "call_id": "c0", "name": "add", "arguments": "{\"a\": 1, \"b\":"}),
        "the model's own text goes back unchanged, without the unstored item id"
    );
    assert_eq!(input[3]["type"], "function_call_output");
    assert_eq!(input[3]["call_id"], "c0");
    let error = input[3]["output"].as_str().unwrap();
    assert!(
        error.starts_with("Error: invalid arguments for tool `add`"),
        "{error}"
    );
    assert_eq!(
        input[4],
        json!({"type": "function_call_output", "call_id": "c1", "output": "3"})
    );
}

#[tokio::test]
async fn gemini_calls_without_ids_are_answered_by_name_and_order() {
    // Arguments that are not an object (Gemini's `args` is a Struct; a broken server may send a
    // string), then a good call; neither has an id.
    let first = Provider::Gemini.raw_calls(&[
        ("add", json!("{\"a\": 1, \"b\":")),
        ("add", json!({"a": 1, "b": 2})),
    ]);
    let body = second_request(Provider::Gemini, first).await;
    let contents = body["contents"].as_array().unwrap();
    assert_eq!(contents.len(), 3, "{contents:?}");
    assert_eq!(
        contents[1],
        json!({"role": "model", "parts": [
            {"functionCall": {"name": "add", "args": {}}},
            {"functionCall": {"name": "add", "args": {"a": 1, "b": 2}}}
        ]}),
        "no made-up ids go back to Gemini"
    );
    let results = contents[2]["parts"].as_array().unwrap();
    assert_eq!(contents[2]["role"], "user");
    assert_eq!(results.len(), 2, "both results in one turn, in call order");
    let error = results[0]["functionResponse"]["response"]["error"]
        .as_str()
        .unwrap();
    assert!(
        error.contains("invalid arguments for tool `add`"),
        "{error}"
    );
    assert_eq!(
        results[1],
        json!({"functionResponse": {"name": "add", "response": {"output": "3"}}})
    );
}

#[tokio::test]
async fn gemini_thought_signatures_and_ids_go_back_with_their_calls() {
    let first = json!({
        "candidates": [{"content": {"role": "model", "parts": [
            {"text": "I should add.", "thought": true},
            {"functionCall": {"id": "g1", "name": "add", "args": "x"}, "thoughtSignature": "U0lHMQ=="},
            {"functionCall": {"id": "g2", "name": "add", "args": {"a": 1, "b": 2}}}
        ]}, "finishReason": "STOP"}],
        "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 2, "thoughtsTokenCount": 5}
    });
    let body = second_request(Provider::Gemini, first).await;
    let contents = body["contents"].as_array().unwrap();
    assert_eq!(
        contents[1]["parts"][0],
        json!({"functionCall": {"name": "add", "args": {}, "id": "g1"}, "thoughtSignature": "U0lHMQ=="})
    );
    assert!(contents[1]["parts"][1].get("thoughtSignature").is_none());
    let results = contents[2]["parts"].as_array().unwrap();
    assert_eq!(results[0]["functionResponse"]["id"], "g1");
    assert_eq!(results[1]["functionResponse"]["id"], "g2");
    assert_eq!(results[1]["functionResponse"]["response"]["output"], "3");
}

/// A tool found only by a search: Deferred, so never sent whole until found.
struct Weather;

#[async_trait]
impl Tool for Weather {
    fn name(&self) -> &'static str {
        "get_weather"
    }
    fn description(&self) -> &'static str {
        "The weather in a city"
    }
    fn schema(&self) -> Value {
        json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]})
    }
    fn exposure(&self) -> phi_agent::ToolExposure {
        phi_agent::ToolExposure::Deferred
    }
    async fn call(&self, args: &Value, _: &ToolContext) -> AgentResult<Vec<Content>> {
        Ok(vec![Content::text(format!("sun in {}", args["city"]))])
    }
}

#[tokio::test]
async fn the_responses_tool_search_finds_a_deferred_tool_that_then_runs() {
    let server = MockServer::start().await;
    let search_call = json!({"type": "tool_search_call", "id": "tsc_1", "call_id": null, "arguments": {"query": "weather"}, "execution": "server", "status": "completed"});
    let search_output = json!({"type": "tool_search_output", "id": "tso_1", "call_id": null, "execution": "server", "status": "completed", "tools": [
        {"type": "function", "name": "get_weather", "description": "The weather in a city", "parameters": {"type": "object"}, "defer_loading": true}
    ]});
    let found = json!({"id": "resp_1", "status": "completed", "output": [
        search_call, search_output.clone(),
        {"type": "function_call", "id": "fc_1", "call_id": "call_w", "name": "get_weather", "arguments": "{\"city\":\"Oslo\"}"}
    ]});
    let answer = json!({"id": "resp_2", "status": "completed", "output": [
        {"type": "message", "id": "msg_1", "role": "assistant", "content": [{"type": "output_text", "text": "Sunny.", "annotations": []}]}
    ]});
    for reply in [found, answer] {
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(200).set_body_json(reply))
            .up_to_n_times(1)
            .mount(&server)
            .await;
    }
    let client = phi_agent::llm::ResponsesClient::new(KEY, "gpt-5.4")
        .unwrap()
        .with_base_url(format!("{}/v1", server.uri()))
        .with_native_tool_search(true)
        .with_http_config(quick());
    let config = AgentConfig::default().with_tool_search(phi_agent::ToolSearch::Native);
    let agent = PhiAgent::build(base_agent_builder(client).register_tool(Weather), config).unwrap();
    let output = agent.run("weather in Oslo?").await.unwrap();
    assert_eq!(output.text, "Sunny.");
    assert_eq!(
        output.tool_calls[0].result[0].as_text(),
        Some("sun in \"Oslo\"")
    );

    let bodies: Vec<Value> = requests(&server)
        .await
        .iter()
        .map(|request| serde_json::from_slice(&request.body).unwrap())
        .collect();
    let tools = &bodies[0]["tools"];
    assert_eq!(tools[0], json!({"type": "tool_search"}), "{tools}");
    assert_eq!(tools[1]["name"], "get_weather");
    assert_eq!(tools[1]["defer_loading"], true);
    assert_eq!(
        bodies[1]["tools"], *tools,
        "the tools array is unchanged by the search"
    );
    let input = bodies[1]["input"].as_array().unwrap();
    let kinds: Vec<&str> = input
        .iter()
        .map(|item| item["type"].as_str().unwrap_or("message"))
        .collect();
    assert_eq!(
        kinds,
        [
            "message",
            "tool_search_call",
            "tool_search_output",
            "function_call",
            "function_call_output"
        ]
    );
    let mut expected = search_output;
    expected.as_object_mut().unwrap().shift_remove("id");
    assert_eq!(
        input[2].to_string(),
        expected.to_string(),
        "sent back as it came (in its order), without the id"
    );
}
