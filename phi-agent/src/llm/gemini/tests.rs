//! The adapter's own tests: requests and replies without a network.

use std::sync::Arc;

use serde_json::json;

use super::content::STATE_KEY;
use super::{GeminiClient, GeminiSchemaForm, parse_response};
use crate::Content;
use crate::llm::adapter::FromSettings;
use crate::llm::definition;
use crate::llm::{
    LlmClient, LlmRequest, Message, ProviderState, StopReason, ToolCall, ToolSpec, Usage,
};

#[test]
fn calls_without_ids_get_positions_and_signatures_are_kept_as_provider_state() {
    let body = json!({
        "candidates": [{
            "content": {"role": "model", "parts": [
                {"text": "thinking...", "thought": true},
                {"text": "Let me compute."},
                {"functionCall": {"name": "calc", "args": {"a": 1}}, "thoughtSignature": "c2ln"},
                {"functionCall": {"name": "calc", "args": "oops"}},
                {"functionCall": {"id": "g-7", "name": "now"}}
            ]},
            "finishReason": "STOP"
        }],
        "usageMetadata": {"promptTokenCount": 9, "candidatesTokenCount": 4, "thoughtsTokenCount": 3}
    });
    let reply = parse_response(&body).unwrap();
    assert_eq!(reply.text, "Let me compute.");
    assert_eq!(reply.stop_reason, StopReason::ToolUse);
    let ids: Vec<&str> = reply.tool_calls.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["call_0", "call_1", "g-7"]);
    assert_eq!(
        reply.tool_calls[0].provider_state.get(STATE_KEY),
        Some(&json!({"thoughtSignature": "c2ln"}))
    );
    assert!(reply.tool_calls[1].provider_state.is_empty());
    assert_eq!(reply.tool_calls[1].arguments, json!("oops"));
    assert_eq!(reply.tool_calls[2].arguments, json!({}));
    assert_eq!(reply.usage, Usage::new(9, 7));
}

#[test]
fn blocked_prompts_and_empty_candidates_are_read() {
    let error = parse_response(&json!({"promptFeedback": {"blockReason": "SAFETY"}})).unwrap_err();
    assert!(error.to_string().contains("blocked (SAFETY)"), "{error}");
    let reply = parse_response(&json!({"candidates": [{"finishReason": "MAX_TOKENS"}]})).unwrap();
    assert_eq!(reply.stop_reason, StopReason::MaxTokens);
    assert!(reply.text.is_empty());
}

#[test]
fn history_sends_signatures_back_and_answers_by_name_and_order() {
    let client = GeminiClient::new("k", "models/gemini-test")
        .unwrap()
        .with_max_tokens(64);
    assert_eq!(client.model(), "gemini-test");
    let result = |id: &str, text: &str, is_error| Message::Tool {
        tool_call_id: id.into(),
        name: "calc".into(),
        content: vec![Content::text(text)],
        is_error,
    };
    let request = LlmRequest {
        system: Some("be brief".into()),
        messages: vec![
            Message::user("hi"),
            Message::Assistant {
                text: String::new(),
                tool_calls: vec![
                    ToolCall::new("call_0", "calc", json!({"a": 1})).with_provider_state(
                        ProviderState::default()
                            .with(STATE_KEY, json!({"thoughtSignature": "c2ln"}))
                            .with("other", json!("not ours")),
                    ),
                    ToolCall::new("g-7", "calc", json!("oops")),
                ],
            },
            result("call_0", "1", false),
            result("g-7", "not an object", true),
        ],
        tools: Arc::from(vec![ToolSpec::new(
            "calc",
            "Calculate",
            json!({"type": "object", "properties": {"a": {"type": "number"}}}),
        )]),
        ..Default::default()
    };
    let body = client.request_body(&request);
    assert_eq!(body["systemInstruction"]["parts"][0]["text"], "be brief");
    assert_eq!(body["generationConfig"]["maxOutputTokens"], 64);
    let contents = body["contents"].as_array().unwrap();
    assert_eq!(contents.len(), 3, "{contents:?}");
    assert_eq!(
        contents[1],
        json!({"role": "model", "parts": [
            {"functionCall": {"name": "calc", "args": {"a": 1}}, "thoughtSignature": "c2ln"},
            {"functionCall": {"name": "calc", "args": {}, "id": "g-7"}}
        ]})
    );
    assert_eq!(
        contents[2],
        json!({"role": "user", "parts": [
            {"functionResponse": {"name": "calc", "response": {"output": "1"}}},
            {"functionResponse": {"name": "calc", "response": {"error": "not an object"}, "id": "g-7"}}
        ]})
    );
    let declaration = &body["tools"][0]["functionDeclarations"][0];
    assert_eq!(
        declaration["parametersJsonSchema"],
        *request.tools[0].schema
    );
    assert!(declaration.get("parameters").is_none());
}

#[test]
fn the_openapi_form_falls_back_to_json_schema_for_a_tool_it_cannot_express() {
    let client = GeminiClient::new("k", "m")
        .unwrap()
        .with_schema_form(GeminiSchemaForm::OpenApi);
    let fits = ToolSpec::new(
        "fits",
        "",
        json!({"type": "object", "properties": {"n": {"type": ["integer", "null"]}}}),
    );
    let map = ToolSpec::new(
        "map",
        "",
        json!({"type": "object", "properties": {"m": {"type": "object", "additionalProperties": {"type": "string"}}}}),
    );
    let request = LlmRequest {
        tools: Arc::from(vec![fits.clone(), map.clone()]),
        ..LlmRequest::default()
    };
    let body = client.request_body(&request);
    let declarations = &body["tools"][0]["functionDeclarations"];
    assert_eq!(declarations[0], definition::gemini(&fits).unwrap());
    assert_eq!(declarations[1]["parametersJsonSchema"], *map.schema);
}

fn settings(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let pairs: Vec<(String, String)> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    move |name| {
        pairs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    }
}

#[test]
fn settings_are_read_from_the_environment() {
    let error = GeminiClient::from_lookup(settings(&[])).unwrap_err();
    assert!(
        error.to_string().contains("GEMINI_API_KEY is not set"),
        "{error}"
    );
    let client = GeminiClient::from_lookup(settings(&[("GEMINI_API_KEY", "k")])).unwrap();
    assert_eq!(client.base_url(), GeminiClient::DEFAULT_BASE_URL);
    assert_eq!(client.model(), GeminiClient::DEFAULT_MODEL);
    let client = GeminiClient::from_lookup(settings(&[
        ("GEMINI_API_KEY", "k"),
        ("GEMINI_BASE_URL", "http://127.0.0.1:9999/"),
        ("GEMINI_MODEL", "gemini-test"),
    ]))
    .unwrap();
    assert_eq!(
        client.endpoint(),
        "http://127.0.0.1:9999/v1beta/models/gemini-test:generateContent"
    );
}

mod explicit_cache {
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use async_trait::async_trait;
    use bytes::Bytes;
    use futures_util::StreamExt;
    use serde_json::{Value, json};

    use crate::llm::{
        GeminiCache, GeminiClient, HttpError, HttpReply, HttpRequest, HttpTransport, LlmRequest,
        Message, ToolSpec,
    };

    fn spec(name: &'static str) -> ToolSpec {
        ToolSpec::new(name, "A tool", json!({"type": "object", "properties": {}}))
    }

    fn request(tools: Vec<ToolSpec>) -> LlmRequest {
        LlmRequest {
            system: Some("You are terse.".into()),
            messages: vec![Message::user("hi")],
            tools: Arc::from(tools),
            ..LlmRequest::default()
        }
    }

    #[test]
    fn a_request_the_cache_holds_names_it_instead_of_its_system_and_tools() {
        let cache = GeminiCache::new("cachedContents/c1", Some("You are terse."), ["a", "b"]);
        let client = GeminiClient::new("k", "gemini-2.5-flash")
            .unwrap()
            .with_cache(cache);
        let body = client.request_body(&request(vec![spec("a"), spec("b")]));
        assert_eq!(body["cachedContent"], "cachedContents/c1");
        assert!(body.get("systemInstruction").is_none());
        assert!(body.get("tools").is_none());
        assert_eq!(body["contents"][0]["parts"][0]["text"], "hi");
    }

    #[test]
    fn a_request_with_other_tools_or_system_is_sent_whole_without_the_cache() {
        let cache = GeminiCache::new("cachedContents/c1", Some("You are terse."), ["a", "b"]);
        let client = GeminiClient::new("k", "gemini-2.5-flash")
            .unwrap()
            .with_cache(cache);
        // A Deferred tool activated since: the model must see it.
        let body = client.request_body(&request(vec![spec("a"), spec("b"), spec("c")]));
        assert!(body.get("cachedContent").is_none());
        assert_eq!(
            body["tools"][0]["functionDeclarations"]
                .as_array()
                .unwrap()
                .len(),
            3
        );
        let mut other_system = request(vec![spec("a"), spec("b")]);
        other_system.system = Some("You are chatty.".into());
        let body = client.request_body(&other_system);
        assert!(body.get("cachedContent").is_none());
        assert!(body.get("systemInstruction").is_some());
    }

    /// Answers every request with `reply`, keeping what it was sent.
    #[derive(Debug)]
    struct Answering {
        reply: Value,
        seen: Mutex<Vec<(String, Value)>>,
    }

    #[async_trait]
    impl HttpTransport for Answering {
        async fn send(&self, request: HttpRequest) -> Result<HttpReply, HttpError> {
            let body = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
            self.seen.lock().unwrap().push((request.url.clone(), body));
            let bytes = Bytes::from(self.reply.to_string());
            let body = futures_util::stream::once(async move { Ok(bytes) }).boxed();
            Ok(HttpReply::new(200, Vec::new(), body))
        }
    }

    #[tokio::test]
    async fn create_cache_stores_the_system_and_tools_and_remembers_them() {
        let transport = Arc::new(Answering {
            reply: json!({"name": "cachedContents/made", "model": "models/gemini-2.5-flash"}),
            seen: Mutex::default(),
        });
        let client = GeminiClient::new("k", "gemini-2.5-flash")
            .unwrap()
            .with_base_url("http://gemini.invalid")
            .with_http_transport(transport.clone());
        let asked = request(vec![spec("a"), spec("b")]);
        let cache = client
            .create_cache(&asked, Duration::from_secs(600))
            .await
            .unwrap();
        assert_eq!(
            cache,
            GeminiCache::new("cachedContents/made", Some("You are terse."), ["a", "b"])
        );
        let (url, body) = transport.seen.lock().unwrap()[0].clone();
        assert_eq!(url, "http://gemini.invalid/v1beta/cachedContents");
        assert_eq!(body["model"], "models/gemini-2.5-flash");
        assert_eq!(body["ttl"], "600s");
        assert_eq!(
            body["systemInstruction"]["parts"][0]["text"],
            "You are terse."
        );
        assert_eq!(body["tools"][0]["functionDeclarations"][1]["name"], "b");
        assert!(body.get("contents").is_none());

        // A reply without a name is a clear error, not a cache.
        let nameless = Arc::new(Answering {
            reply: json!({}),
            seen: Mutex::default(),
        });
        let client = client.with_http_transport(nameless);
        let error = client
            .create_cache(&asked, Duration::from_secs(60))
            .await
            .unwrap_err();
        assert!(error.to_string().contains("no `name`"), "{error}");
    }
}
