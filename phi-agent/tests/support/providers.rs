//! The HTTP adapters behind one switch, for tests that run one scenario against each provider:
//! a client aimed at a local server, and the provider's wire format for the replies it reads.
//!
//! Included by `#[path = "support/providers.rs"] mod providers;`; each test binary uses a part.
#![allow(dead_code)]

use std::time::Duration;

use phi_agent::llm::{
    AnthropicClient, GeminiClient, HttpConfig, LlmClient, OpenAiClient, ResponsesClient,
};
use serde_json::{Value, json};

#[derive(Debug, Clone, Copy)]
pub enum Provider {
    /// OpenAI chat completions.
    OpenAi,
    Anthropic,
    Gemini,
    /// The OpenAI Responses API.
    Responses,
}

/// The first two adapters, for the scenarios written against them before the others existed.
pub const BOTH: [Provider; 2] = [Provider::OpenAi, Provider::Anthropic];

/// Every HTTP adapter.
pub const ALL: [Provider; 4] = [
    Provider::OpenAi,
    Provider::Anthropic,
    Provider::Gemini,
    Provider::Responses,
];

/// Timeouts and backoffs short enough for fault tests.
pub fn http(timeout_ms: u64, max_retries: u32) -> HttpConfig {
    HttpConfig::default()
        .with_timeout(Duration::from_millis(timeout_ms))
        .with_max_retries(max_retries)
        .with_initial_backoff(Duration::from_millis(10))
        .with_max_backoff(Duration::from_millis(200))
}

impl Provider {
    /// A client of this provider with `key`, sending to the server at `base`.
    pub fn client(self, base: &str, key: &str, config: HttpConfig) -> Box<dyn LlmClient> {
        match self {
            Provider::OpenAi => Box::new(
                OpenAiClient::new(key, "gpt-test")
                    .unwrap()
                    .with_base_url(format!("{base}/v1"))
                    .with_http_config(config),
            ),
            Provider::Anthropic => Box::new(
                AnthropicClient::new(key, "claude-test")
                    .unwrap()
                    .with_base_url(base)
                    .with_http_config(config),
            ),
            Provider::Gemini => Box::new(
                GeminiClient::new(key, "gemini-test")
                    .unwrap()
                    .with_base_url(base)
                    .with_http_config(config),
            ),
            Provider::Responses => Box::new(
                ResponsesClient::new(key, "gpt-test")
                    .unwrap()
                    .with_base_url(format!("{base}/v1"))
                    .with_http_config(config),
            ),
        }
    }

    /// The path this provider's client posts to.
    pub fn path(self) -> &'static str {
        match self {
            Provider::OpenAi => "/v1/chat/completions",
            Provider::Anthropic => "/v1/messages",
            Provider::Gemini => "/v1beta/models/gemini-test:generateContent",
            Provider::Responses => "/v1/responses",
        }
    }

    /// A reply that calls `name` with each of `arguments`, written as the model wrote them:
    /// a JSON text for the OpenAI APIs, the value itself for Anthropic and Gemini.
    pub fn raw_calls(self, calls: &[(&str, Value)]) -> Value {
        let text = |arguments: &Value| match arguments {
            Value::String(raw) => raw.clone(),
            other => other.to_string(),
        };
        match self {
            Provider::OpenAi => {
                let calls: Vec<Value> = calls
                    .iter()
                    .enumerate()
                    .map(|(i, (name, arguments))| json!({"id": format!("c{i}"), "type": "function", "function": {"name": name, "arguments": text(arguments)}}))
                    .collect();
                json!({"choices": [{"finish_reason": "tool_calls", "message": {"role": "assistant", "content": null, "tool_calls": calls}}]})
            }
            Provider::Anthropic => {
                let blocks: Vec<Value> = calls
                    .iter()
                    .enumerate()
                    .map(|(i, (name, input))| json!({"type": "tool_use", "id": format!("c{i}"), "name": name, "input": input}))
                    .collect();
                json!({"content": blocks, "stop_reason": "tool_use"})
            }
            Provider::Gemini => {
                // Without ids, as older Gemini models send them.
                let parts: Vec<Value> = calls
                    .iter()
                    .map(|(name, args)| json!({"functionCall": {"name": name, "args": args}}))
                    .collect();
                json!({"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}]})
            }
            Provider::Responses => {
                let items: Vec<Value> = calls
                    .iter()
                    .enumerate()
                    .map(|(i, (name, arguments))| json!({"type": "function_call", "id": format!("fc_{i}"), "call_id": format!("c{i}"), "name": name, "arguments": text(arguments), "status": "completed"}))
                    .collect();
                json!({"id": "resp_0", "object": "response", "status": "completed", "output": items})
            }
        }
    }

    /// A reply that calls each of `names` with `{}`.
    pub fn calls(self, names: &[&str]) -> Value {
        match self {
            Provider::Gemini | Provider::Responses => {
                let calls: Vec<(&str, Value)> =
                    names.iter().map(|name| (*name, json!({}))).collect();
                self.raw_calls(&calls)
            }
            Provider::OpenAi => {
                let calls: Vec<Value> = names
                    .iter()
                    .enumerate()
                    .map(|(i, name)| json!({"id": format!("c{i}"), "type": "function", "function": {"name": name, "arguments": "{}"}}))
                    .collect();
                json!({"choices": [{"finish_reason": "tool_calls", "message": {"role": "assistant", "content": null, "tool_calls": calls}}]})
            }
            Provider::Anthropic => {
                let blocks: Vec<Value> = names
                    .iter()
                    .enumerate()
                    .map(|(i, name)| json!({"type": "tool_use", "id": format!("c{i}"), "name": name, "input": {}}))
                    .collect();
                json!({"content": blocks, "stop_reason": "tool_use"})
            }
        }
    }

    /// A final answer `text`, with usage.
    pub fn answer(self, text: &str) -> Value {
        match self {
            Provider::OpenAi => json!({
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": text}}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1}
            }),
            Provider::Anthropic => json!({
                "type": "message", "role": "assistant",
                "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
                "usage": {"input_tokens": 1, "output_tokens": 1}
            }),
            Provider::Gemini => json!({
                "candidates": [{"content": {"role": "model", "parts": [{"text": text}]},
                                "finishReason": "STOP"}],
                "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1}
            }),
            Provider::Responses => json!({
                "id": "resp_1", "object": "response", "status": "completed",
                "output": [{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                            "content": [{"type": "output_text", "text": text, "annotations": []}]}],
                "usage": {"input_tokens": 1, "output_tokens": 1}
            }),
        }
    }

    /// The names of the tools offered in a request body.
    pub fn offered(self, body: &Value) -> Vec<String> {
        let tools = match self {
            Provider::Gemini => &body["tools"][0]["functionDeclarations"],
            _ => &body["tools"],
        };
        let tools = tools.as_array().cloned().unwrap_or_default();
        tools
            .iter()
            .map(|tool| match self {
                Provider::OpenAi => tool["function"]["name"].as_str().unwrap().to_string(),
                Provider::Anthropic | Provider::Gemini | Provider::Responses => {
                    tool["name"].as_str().unwrap().to_string()
                }
            })
            .collect()
    }
}
