//! The adapter's own tests: requests and replies without a network.

use serde_json::{Value, json};

use super::{OpenAiClient, parse_response};
use crate::llm::adapter::FromSettings;
use crate::llm::{LlmClient, LlmRequest, Message, StopReason, ToolCall, Usage};

#[test]
fn tool_calls_and_usage_are_read() {
    let body = json!({
        "choices": [{
            "finish_reason": "tool_calls",
            "message": {"role": "assistant", "content": null, "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "calc", "arguments": "{\"a\":1}"}},
                {"id": "c2", "type": "function", "function": {"name": "calc", "arguments": "{oops"}},
                {"id": "c3", "type": "function", "function": {"name": "now", "arguments": ""}},
                {"id": "c4", "type": "function", "function": {"name": "calc", "arguments": {"a": 2}}}
            ]}
        }],
        "usage": {"prompt_tokens": 12, "completion_tokens": 3}
    });
    let reply = parse_response(&body).unwrap();
    assert_eq!(reply.stop_reason, StopReason::ToolUse);
    assert_eq!(reply.tool_calls[0].arguments, json!({"a": 1}));
    assert_eq!(reply.tool_calls[1].arguments, json!("{oops"));
    assert_eq!(reply.tool_calls[2].arguments, json!({}));
    assert_eq!(reply.tool_calls[3].arguments, json!({"a": 2}));
    assert_eq!(reply.usage, Usage::new(12, 3));
}

#[test]
fn a_body_without_choices_is_an_error() {
    let error = parse_response(&json!({"object": "list"})).unwrap_err();
    assert!(error.to_string().contains("choices"), "{error}");
}

#[test]
fn history_round_trips_raw_arguments_and_notes_images() {
    let client = OpenAiClient::new("k", "m").unwrap();
    let request = LlmRequest {
        system: Some("be brief".into()),
        messages: vec![
            Message::user("hi"),
            Message::Assistant {
                text: String::new(),
                tool_calls: vec![ToolCall::new("c1", "calc", json!("{oops"))],
            },
            Message::Tool {
                tool_call_id: "c1".into(),
                name: "calc".into(),
                content: vec![crate::Content::image("AAAA", "image/png")],
                is_error: false,
            },
        ],
        ..LlmRequest::default()
    };
    let body = client.request_body(&request);
    assert_eq!(body["messages"][0]["role"], "system");
    assert_eq!(body["messages"][2]["content"], Value::Null);
    assert_eq!(
        body["messages"][2]["tool_calls"][0]["function"]["arguments"],
        "{oops"
    );
    let note = body["messages"][3]["content"].as_str().unwrap();
    assert!(note.contains("image/png"), "{note}");
    assert!(body.get("tools").is_none(), "no tools, no `tools` key");
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
fn settings_are_read_like_the_official_sdk() {
    let error = OpenAiClient::from_lookup(settings(&[])).unwrap_err();
    assert!(
        error.to_string().contains("OPENAI_API_KEY is not set"),
        "{error}"
    );
    let client = OpenAiClient::from_lookup(settings(&[
        ("OPENAI_API_KEY", "k"),
        ("OPENAI_BASE_URL", " "),
    ]))
    .unwrap();
    assert_eq!(
        client.base_url(),
        OpenAiClient::DEFAULT_BASE_URL,
        "blank means unset"
    );
    assert_eq!(client.model(), OpenAiClient::DEFAULT_MODEL);
    let client = OpenAiClient::from_lookup(settings(&[
        ("OPENAI_API_KEY", "k"),
        ("OPENAI_BASE_URL", "http://127.0.0.1:9999/v1/"),
        ("OPENAI_MODEL", "local-model"),
    ]))
    .unwrap();
    assert_eq!(client.base_url(), "http://127.0.0.1:9999/v1");
    assert_eq!(client.model(), "local-model");
}
