//! Provider responses: any body a server can send after a 2xx status.
//!
//! Every adapter reads it; whatever one accepts goes back into a conversation and is turned
//! into every provider's request body, as the agent loop would on the next turn. Nothing may
//! panic; an accepted reply's tool calls must survive the round trip unchanged in name and id.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use phi_agent::llm::{
    AnthropicClient, GeminiClient, LlmRequest, Message, OpenAiClient, ResponsesClient,
    parse_response_body,
};

type Clients = (OpenAiClient, AnthropicClient, GeminiClient, ResponsesClient);

/// The adapters, built once: a client sets up TLS, which would dwarf the parsing under test.
fn clients() -> &'static Clients {
    static CLIENTS: OnceLock<Clients> = OnceLock::new();
    CLIENTS.get_or_init(|| {
        (
            OpenAiClient::new("k", "m").unwrap(),
            AnthropicClient::new("k", "m").unwrap(),
            GeminiClient::new("k", "m").unwrap(),
            ResponsesClient::new("k", "m").unwrap(),
        )
    })
}

fuzz_target!(|data: &[u8]| {
    for provider in ["openai", "anthropic", "gemini", "openai-responses"] {
        let Ok(reply) = parse_response_body(provider, data) else {
            continue;
        };
        let results = reply.tool_calls.iter().map(|call| Message::Tool {
            tool_call_id: call.id.clone(),
            name: call.name.clone(),
            content: vec![phi_agent::Content::text(call.arguments.to_string())],
            is_error: true,
        });
        let mut messages = vec![
            Message::user("go"),
            Message::Assistant {
                text: reply.text.clone(),
                tool_calls: reply.tool_calls.clone(),
            },
        ];
        messages.extend(results);
        let request = LlmRequest::default()
            .with_system("fuzz")
            .with_messages(messages);
        let (openai, anthropic, gemini, responses) = clients();
        let openai = openai.request_body(&request);
        let anthropic = anthropic.request_body(&request);
        let sent_calls = openai["messages"][2]["tool_calls"]
            .as_array()
            .map_or(0, Vec::len);
        assert_eq!(sent_calls, reply.tool_calls.len());
        for (index, call) in reply.tool_calls.iter().enumerate() {
            let sent = &openai["messages"][2]["tool_calls"][index];
            assert_eq!(sent["id"], call.id.as_str());
            assert_eq!(sent["function"]["name"], call.name.as_str());
        }
        let blocks = anthropic["messages"][1]["content"]
            .as_array()
            .map_or(0, Vec::len);
        assert!(blocks >= reply.tool_calls.len(), "every call is sent back");
        serde_json::to_string(&anthropic).unwrap();
        let gemini = gemini.request_body(&request);
        let calls = gemini["contents"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|content| content["parts"].as_array().into_iter().flatten())
            .filter(|part| part.get("functionCall").is_some())
            .count();
        assert_eq!(calls, reply.tool_calls.len(), "every call is sent back to Gemini");
        let responses = responses.request_body(&request);
        let calls: Vec<&str> = responses["input"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|item| item["type"] == "function_call")
            .filter_map(|item| item["call_id"].as_str())
            .collect();
        let ids: Vec<&str> = reply.tool_calls.iter().map(|call| call.id.as_str()).collect();
        assert_eq!(calls, ids, "every call is sent back by its call_id");
    }
});
