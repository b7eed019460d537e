//! The adapter's own tests: requests, replies and streams without a network.

use std::sync::Arc;

use serde_json::{Value, json};

use super::client::TOOL_SEARCH_BETA;
use super::code_version::CodeExecutionVersion;
use super::content::{STATE_KEY, TOOL_SEARCH_NAME, TOOL_SEARCH_TYPE};
use super::{AnthropicClient, decode_stream, parse_response};
use crate::content::Content;
use crate::llm::adapter::FromSettings;
use crate::llm::{
    LlmClient, LlmRequest, Message, StopReason, StreamDelta, ToolCall, ToolSearchCall, ToolSpec,
};
#[test]
fn kinds_added_later_are_skipped_and_an_event_without_type_is_refused() {
    let body = concat!(
        "event: ping\ndata: {\"type\":\"ping\"}\n\n",
        "event: x\ndata: {\"type\":\"content_block_future\",\"index\":0,\"any\":[1,{}]}\n\n",
        "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"server_thing\",\"x\":1}}\n\n",
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"signature_delta\",\"signature\":\"s\"}}\n\n",
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\"hi\"}}\n\n",
        "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
    );
    let deltas = decode_stream(&[body.as_bytes()]).unwrap();
    assert_eq!(deltas[0], StreamDelta::Text("hi".into()));
    assert_eq!(deltas.len(), 2, "{deltas:?}");
    let error = decode_stream(&[b"data: {\"index\": 0}\n\n"]).unwrap_err();
    assert!(error.to_string().contains("without `type`"), "{error}");

    let reply = parse_response(&json!({"content": [
        {"type": "thinking", "thinking": "hmm", "signature": "c2ln"},
        {"type": "redacted_thinking", "data": "x"},
        {"type": "text", "text": "hi"}
    ], "usage": {"input_tokens": null, "output_tokens": 3}}))
    .unwrap();
    assert_eq!(reply.text, "hi");
    assert_eq!(reply.usage.output_tokens, 3);
    assert_eq!(
        reply.usage.input_tokens, 0,
        "a count of another type reads as none"
    );
}

#[test]
fn results_of_one_turn_share_a_user_message_and_keep_images() {
    let client = AnthropicClient::new("k", "m").unwrap();
    let call = |id: &str| ToolCall::new(id, "shot", json!({}));
    let result = |id: &str, content| Message::Tool {
        tool_call_id: id.into(),
        name: "shot".into(),
        content,
        is_error: false,
    };
    let request = LlmRequest {
        system: Some("sys".into()),
        messages: vec![
            Message::user("take two"),
            Message::Assistant {
                text: "ok".into(),
                tool_calls: vec![call("a"), call("b")],
            },
            result("a", vec![Content::image("AAAA", "image/png")]),
            result("b", vec![Content::text("done")]),
        ],
        ..LlmRequest::default()
    };
    let body = client.request_body(&request);
    // One text block, with the cache breakpoint that is on by default (`cache.rs`).
    assert_eq!(body["system"][0]["text"], "sys");
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 3);
    assert_eq!(messages[1]["content"][1]["type"], "tool_use");
    assert_eq!(messages[2]["role"], "user");
    assert_eq!(messages[2]["content"][0]["content"][0]["type"], "image");
    assert_eq!(messages[2]["content"][1]["tool_use_id"], "b");
}

fn spec(name: &'static str) -> ToolSpec {
    ToolSpec::new(name, "A tool", json!({"type": "object", "properties": {}}))
}

/// What Anthropic answers when the model's code calls a tool: the code-execution block, the
/// call with its `caller`, and the container.
fn programmatic_reply() -> Value {
    json!({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "m",
        "content": [
            {"type": "text", "text": "Summing the records."},
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "code_execution",
             "input": {"code": "print(sum(lookup(id=i) for i in range(3)))"}},
            {"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {"id": 0},
             "caller": {"type": "code_execution_20250825", "tool_id": "srvtoolu_1"}},
            {"type": "tool_use", "id": "toolu_2", "name": "delete", "input": {"id": 9},
             "caller": {"type": "direct"}}
        ],
        "container": {"id": "container_1", "expires_at": "2026-12-02T01:00:00Z"},
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 10, "output_tokens": 5}
    })
}

#[test]
fn code_execution_sends_the_server_tool_and_each_tools_allowed_callers() {
    let client = AnthropicClient::new("k", "m")
        .unwrap()
        .with_code_execution(true);
    let request = LlmRequest {
        messages: vec![Message::user("sum them")],
        tools: Arc::from(vec![
            spec("lookup").with_callers(crate::ToolCallers::Code),
            spec("delete").with_callers(crate::ToolCallers::Direct),
            spec("both"),
        ]),
        ..LlmRequest::default()
    };
    let body = client.request_body(&request);
    let schema = json!({"type": "object", "properties": {}});
    assert_eq!(
        body["tools"],
        json!([
            {"name": "lookup", "description": "A tool", "input_schema": schema,
             "allowed_callers": ["code_execution_20250825"]},
            {"name": "delete", "description": "A tool", "input_schema": schema,
             "allowed_callers": ["direct"]},
            {"name": "both", "description": "A tool", "input_schema": schema,
             "allowed_callers": ["direct", "code_execution_20250825"]},
            {"type": "code_execution_20250825", "name": "code_execution"}
        ])
    );
    assert_eq!(
        client.headers(&request).unwrap()["anthropic-beta"],
        TOOL_SEARCH_BETA
    );
    assert!(
        body.get("container").is_none(),
        "no container before one was used"
    );
    // With deferred tools too: the search tool, then the code-execution tool.
    let both = LlmRequest {
        deferred_tools: Arc::from(vec![spec("later")]),
        ..request
    };
    let tools = client.request_body(&both)["tools"].clone();
    assert_eq!(tools[3]["type"], TOOL_SEARCH_TYPE);
    assert_eq!(tools[4]["type"], "code_execution_20250825");
    assert_eq!(tools[5]["defer_loading"], true);
    // Off (the default): neither.
    let plain = AnthropicClient::new("k", "m").unwrap();
    let body = plain.request_body(&LlmRequest {
        tools: Arc::from(vec![spec("lookup")]),
        ..LlmRequest::default()
    });
    assert!(body["tools"][0].get("allowed_callers").is_none());
    assert_eq!(body["tools"].as_array().unwrap().len(), 1);
}

#[test]
fn a_newer_code_execution_version_names_itself_in_the_tool_and_the_callers() {
    let request = LlmRequest {
        messages: vec![Message::user("sum them")],
        tools: Arc::from(vec![
            spec("lookup").with_callers(crate::ToolCallers::Code),
            spec("both"),
        ]),
        deferred_tools: Arc::from(vec![spec("later")]),
        ..LlmRequest::default()
    };
    for (version, kind) in [
        (CodeExecutionVersion::V20260120, "code_execution_20260120"),
        (CodeExecutionVersion::V20260521, "code_execution_20260521"),
    ] {
        // A clone of a client used with another version: the tool-list cache is not shared.
        let before = AnthropicClient::new("k", "m")
            .unwrap()
            .with_code_execution(true);
        let _ = before.request_body(&request);
        let client = before.clone().with_code_execution_version(version);
        let tools = client.request_body(&request)["tools"].clone();
        assert_eq!(tools[0]["allowed_callers"], json!([kind]));
        assert_eq!(tools[1]["allowed_callers"], json!(["direct", kind]));
        assert_eq!(tools[3], json!({"type": kind, "name": "code_execution"}));
        assert_eq!(
            tools[4]["allowed_callers"],
            json!(["direct", kind]),
            "deferred too"
        );
        assert_eq!(
            before.request_body(&request)["tools"][3]["type"],
            "code_execution_20250825"
        );
    }
}

#[test]
fn a_streamed_reply_with_calls_from_code_carries_what_a_plain_one_does() {
    let events = [
        json!({"type": "message_start", "message": {"id": "msg_1", "type": "message",
            "role": "assistant", "model": "m", "content": [],
            "usage": {"input_tokens": 10, "output_tokens": 1}}}),
        json!({"type": "content_block_start", "index": 0,
            "content_block": {"type": "text", "text": ""}}),
        json!({"type": "content_block_delta", "index": 0,
            "delta": {"type": "text_delta", "text": "Summing the records."}}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "content_block_start", "index": 1, "content_block":
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "code_execution", "input": {}}}),
        json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta",
            "partial_json": "{\"code\": \"print(sum(lookup(id=i) "}}),
        json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta",
            "partial_json": "for i in range(3)))\"}"}}),
        json!({"type": "content_block_stop", "index": 1}),
        json!({"type": "content_block_start", "index": 2, "content_block":
            {"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {},
             "caller": {"type": "code_execution_20250825", "tool_id": "srvtoolu_1"}}}),
        json!({"type": "content_block_delta", "index": 2,
            "delta": {"type": "input_json_delta", "partial_json": "{\"id\": 0}"}}),
        json!({"type": "content_block_stop", "index": 2}),
        json!({"type": "content_block_start", "index": 3, "content_block":
            {"type": "tool_use", "id": "toolu_2", "name": "delete", "input": {},
             "caller": {"type": "direct"}}}),
        json!({"type": "content_block_delta", "index": 3,
            "delta": {"type": "input_json_delta", "partial_json": "{\"id\": 9}"}}),
        json!({"type": "content_block_stop", "index": 3}),
        json!({"type": "message_delta", "delta": {"stop_reason": "tool_use",
            "container": {"id": "container_1", "expires_at": "2026-12-02T01:00:00Z"}},
            "usage": {"output_tokens": 5}}),
        json!({"type": "message_stop"}),
    ];
    let body: String = events
        .iter()
        .map(|event| {
            format!(
                "event: {}\ndata: {event}\n\n",
                event["type"].as_str().unwrap()
            )
        })
        .collect();
    let deltas = decode_stream(&[body.as_bytes()]).unwrap();
    let Some(StreamDelta::Done(streamed)) = deltas.last() else {
        panic!("Done last: {deltas:?}")
    };
    let plain = parse_response(&programmatic_reply()).unwrap();
    assert_eq!(streamed.text, plain.text);
    assert_eq!(streamed.tool_calls, plain.tool_calls);
    let state = streamed.tool_calls[0]
        .provider_state
        .get(STATE_KEY)
        .unwrap();
    assert_eq!(state["caller"]["tool_id"], "srvtoolu_1");
    assert_eq!(state["container"], "container_1");
    // Each call is announced ready as the reply holds it, with what it carries back.
    let ready: Vec<&ToolCall> = deltas
        .iter()
        .filter_map(|delta| match delta {
            StreamDelta::ToolCallReady { call, .. } => Some(call),
            _ => None,
        })
        .collect();
    assert_eq!(ready, streamed.tool_calls.iter().collect::<Vec<_>>());
}

#[test]
fn a_call_from_code_carries_its_caller_and_container_into_the_next_request() {
    let reply = parse_response(&programmatic_reply()).unwrap();
    assert_eq!(reply.text, "Summing the records.");
    assert_eq!(reply.tool_calls.len(), 2);
    let state = reply.tool_calls[0].provider_state.get(STATE_KEY).unwrap();
    assert_eq!(state["caller"]["tool_id"], "srvtoolu_1");
    assert_eq!(state["container"], "container_1");
    assert_eq!(state["before"][0]["name"], "code_execution");
    // A direct call in the same reply carries nothing of its own.
    assert!(reply.tool_calls[1].provider_state.get(STATE_KEY).is_none());

    let client = AnthropicClient::new("k", "m")
        .unwrap()
        .with_code_execution(true);
    let next = LlmRequest {
        messages: vec![
            Message::user("sum them"),
            Message::Assistant {
                text: reply.text.clone(),
                tool_calls: reply.tool_calls.clone(),
            },
            Message::Tool {
                tool_call_id: "toolu_1".into(),
                name: "lookup".into(),
                content: vec![Content::text("7")],
                is_error: false,
            },
            Message::Tool {
                tool_call_id: "toolu_2".into(),
                name: "delete".into(),
                content: vec![Content::text("gone")],
                is_error: false,
            },
        ],
        ..LlmRequest::default()
    };
    let body = client.request_body(&next);
    assert_eq!(body["container"], "container_1");
    assert_eq!(
        body["messages"][1]["content"],
        json!([
            {"type": "text", "text": "Summing the records."},
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "code_execution",
             "input": {"code": "print(sum(lookup(id=i) for i in range(3)))"}},
            {"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {"id": 0},
             "caller": {"type": "code_execution_20250825", "tool_id": "srvtoolu_1"}},
            {"type": "tool_use", "id": "toolu_2", "name": "delete", "input": {"id": 9}}
        ])
    );
    let results = body["messages"][2]["content"].as_array().unwrap();
    assert!(results.iter().all(|block| block["type"] == "tool_result"));
}

#[test]
fn deferred_tools_go_after_the_search_tool_with_defer_loading() {
    let client = AnthropicClient::new("k", "m").unwrap();
    let request = LlmRequest {
        messages: vec![Message::user("hi")],
        tools: Arc::from(vec![spec("shown")]),
        deferred_tools: Arc::from(vec![spec("later"), spec("shown")]),
        ..LlmRequest::default()
    };
    let body = client.request_body(&request);
    assert_eq!(
        body["tools"],
        json!([
            {"name": "shown", "description": "A tool", "input_schema": {"type": "object", "properties": {}}},
            {"type": TOOL_SEARCH_TYPE, "name": TOOL_SEARCH_NAME},
            {"name": "later", "description": "A tool", "input_schema": {"type": "object", "properties": {}}, "defer_loading": true}
        ]),
        "a tool both shown and deferred is sent once, shown"
    );
    let headers = client.headers(&request).unwrap();
    assert_eq!(headers["anthropic-beta"], TOOL_SEARCH_BETA);

    // With every tool deferred, the search tool is still not: no request is all deferred.
    let only_deferred = LlmRequest {
        deferred_tools: Arc::from(vec![spec("later")]),
        ..LlmRequest::default()
    };
    let tools = client.request_body(&only_deferred)["tools"].clone();
    assert!(
        tools
            .as_array()
            .unwrap()
            .iter()
            .any(|tool| tool.get("defer_loading").is_none())
    );
    assert!(
        client
            .headers(&LlmRequest::default())
            .unwrap()
            .get("anthropic-beta")
            .is_none()
    );
    assert!(
        client
            .request_body(&LlmRequest::default())
            .get("tools")
            .is_none()
    );
}

#[test]
fn server_tool_searches_are_read_and_replayed() {
    let body = json!({
        "content": [
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "tool_search_tool_bm25", "input": {"query": "weather"}},
            {"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_1",
             "content": {"type": "tool_search_tool_search_result",
                         "tool_references": [{"type": "tool_reference", "tool_name": "get_weather"}]}},
            {"type": "tool_use", "id": "tu_1", "name": "get_weather", "input": {"city": "Oslo"}}
        ],
        "stop_reason": "tool_use"
    });
    let reply = parse_response(&body).unwrap();
    let search = ToolSearchCall {
        id: "srvtoolu_1".into(),
        input: json!({"query": "weather"}),
        tools: vec!["get_weather".into()],
        provider_state: Default::default(),
    };
    assert_eq!(reply.tool_searches, std::slice::from_ref(&search));
    assert_eq!(search.query(), "weather");
    assert_eq!(reply.tool_calls[0].name, "get_weather");

    let client = AnthropicClient::new("k", "m").unwrap();
    let request = LlmRequest {
        messages: vec![
            Message::user("weather in Oslo?"),
            Message::ToolSearch(search),
            Message::Assistant {
                text: String::new(),
                tool_calls: reply.tool_calls.clone(),
            },
        ],
        ..LlmRequest::default()
    };
    let messages = client.request_body(&request)["messages"].clone();
    assert_eq!(messages.as_array().unwrap().len(), 2, "one assistant turn");
    let blocks = &messages[1]["content"];
    assert_eq!(blocks[0]["type"], "server_tool_use");
    assert_eq!(blocks[0]["input"]["query"], "weather");
    assert_eq!(blocks[1]["type"], "tool_search_tool_result");
    assert_eq!(
        blocks[1]["content"]["tool_references"][0]["tool_name"],
        "get_weather"
    );
    assert_eq!(blocks[2]["type"], "tool_use");

    let failed = json!({"content": [
        {"type": "server_tool_use", "id": "s", "name": "tool_search_tool_bm25", "input": {}},
        {"type": "tool_search_tool_result", "tool_use_id": "s",
         "content": {"type": "tool_search_tool_result_error", "error_code": "unavailable"}}
    ]});
    assert_eq!(
        parse_response(&failed).unwrap().tool_searches[0].tools,
        Vec::<String>::new()
    );
}

#[test]
fn tool_use_blocks_are_read() {
    let body = json!({
        "content": [
            {"type": "text", "text": "Let me check."},
            {"type": "tool_use", "id": "tu_1", "name": "calc", "input": {"a": 2}}
        ],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 7, "output_tokens": 5}
    });
    let reply = parse_response(&body).unwrap();
    assert_eq!(reply.text, "Let me check.");
    assert_eq!(
        reply.tool_calls,
        vec![ToolCall::new("tu_1", "calc", json!({"a": 2}))]
    );
    assert_eq!(reply.stop_reason, StopReason::ToolUse);
    assert_eq!(reply.usage.output_tokens, 5);
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
    let error = AnthropicClient::from_lookup(settings(&[("ANTHROPIC_API_KEY", "")])).unwrap_err();
    assert!(
        error.to_string().contains("ANTHROPIC_API_KEY is not set"),
        "{error}"
    );
    let client = AnthropicClient::from_lookup(settings(&[
        ("ANTHROPIC_API_KEY", "k"),
        ("ANTHROPIC_BASE_URL", "http://127.0.0.1:9999"),
        ("ANTHROPIC_MODEL", "claude-test"),
    ]))
    .unwrap();
    assert_eq!(client.base_url(), "http://127.0.0.1:9999");
    assert_eq!(client.model(), "claude-test");
}

#[test]
fn context_editing_sends_its_edit_and_beta_only_when_picked() {
    use super::ContextEditing;
    let plain = AnthropicClient::new("k", "m").unwrap();
    let request = LlmRequest {
        messages: vec![Message::user("hi")],
        ..LlmRequest::default()
    };
    assert!(
        plain
            .request_body(&request)
            .get("context_management")
            .is_none()
    );

    let editing = ContextEditing::clear_tool_uses()
        .with_trigger_tokens(60_000)
        .with_keep_tool_uses(4)
        .with_clear_at_least(10_000)
        .with_excluded_tools(["read_plan"])
        .with_clear_tool_inputs(true);
    let client = plain.with_context_editing(editing);
    assert_eq!(
        client.request_body(&request)["context_management"],
        json!({"edits": [{
            "type": "clear_tool_uses_20250919",
            "trigger": {"type": "input_tokens", "value": 60_000},
            "keep": {"type": "tool_uses", "value": 4},
            "clear_at_least": {"type": "input_tokens", "value": 10_000},
            "exclude_tools": ["read_plan"],
            "clear_tool_inputs": true
        }]})
    );
    assert_eq!(
        client.headers(&request).unwrap()["anthropic-beta"],
        "context-management-2025-06-27"
    );
    let with_search = LlmRequest {
        deferred_tools: Arc::from(vec![spec("later")]),
        ..request.clone()
    };
    assert_eq!(
        client.headers(&with_search).unwrap()["anthropic-beta"],
        format!("{TOOL_SEARCH_BETA},context-management-2025-06-27").as_str()
    );
    // The API's defaults: only the strategy is named.
    let defaults = AnthropicClient::new("k", "m")
        .unwrap()
        .with_context_editing(ContextEditing::clear_tool_uses());
    assert_eq!(
        defaults.request_body(&request)["context_management"],
        json!({"edits": [{"type": "clear_tool_uses_20250919"}]})
    );
}
