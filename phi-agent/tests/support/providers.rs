//! Both HTTP adapters behind one switch, for tests that run one scenario against each provider:
//! a client aimed at a local server, and the provider's wire format for the replies it reads.
//!
//! Included by `#[path = "support/providers.rs"] mod providers;`; each test binary uses a part.
#![allow(dead_code)]

use std::time::Duration;

use phi_agent::llm::{AnthropicClient, HttpConfig, LlmClient, OpenAiClient};
use serde_json::{Value, json};

#[derive(Debug, Clone, Copy)]
pub enum Provider {
    OpenAi,
    Anthropic,
}

pub const BOTH: [Provider; 2] = [Provider::OpenAi, Provider::Anthropic];

/// Timeouts and backoffs short enough for fault tests.
pub fn http(timeout_ms: u64, max_retries: u32) -> HttpConfig {
    HttpConfig {
        timeout: Duration::from_millis(timeout_ms),
        max_retries,
        initial_backoff: Duration::from_millis(10),
        max_backoff: Duration::from_millis(200),
        ..HttpConfig::default()
    }
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
        }
    }

    /// A reply that calls each of `names` with `{}`.
    pub fn calls(self, names: &[&str]) -> Value {
        match self {
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
        }
    }

    /// The names of the tools offered in a request body.
    pub fn offered(self, body: &Value) -> Vec<String> {
        let tools = body["tools"].as_array().cloned().unwrap_or_default();
        tools
            .iter()
            .map(|tool| match self {
                Provider::OpenAi => tool["function"]["name"].as_str().unwrap().to_string(),
                Provider::Anthropic => tool["name"].as_str().unwrap().to_string(),
            })
            .collect()
    }
}
