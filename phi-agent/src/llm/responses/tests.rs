//! The adapter's own tests: requests, replies and streams without a network.

use std::sync::Arc;

use serde_json::{Value, json};

use super::item::STATE_KEY;
use super::reply::parse_reply;
use super::{ResponsesClient, decode_stream, parse_response};
use crate::Content;
use crate::llm::adapter::FromSettings;
use crate::llm::definition;
use crate::llm::{LlmClient, LlmRequest, Message, StopReason, StreamDelta, ToolCall, ToolSpec};

#[test]
fn programmatic_tool_calling_sends_allowed_callers_and_replays_the_program() {
    let client = ResponsesClient::new("k", "m")
        .unwrap()
        .with_programmatic_tool_calling(true);
    let schema = json!({"type": "object", "properties": {}});
    let request = LlmRequest {
        messages: vec![Message::user("sum them")],
        tools: Arc::from(vec![
            ToolSpec::new("lookup", "Look up", schema.clone())
                .with_callers(crate::ToolCallers::Code),
            ToolSpec::new("delete", "Delete", schema.clone())
                .with_callers(crate::ToolCallers::Direct),
        ]),
        ..LlmRequest::default()
    };
    let body = client.request_body(&request);
    let tools = body["tools"].as_array().unwrap();
    assert_eq!(tools[0]["allowed_callers"], json!(["programmatic"]));
    assert_eq!(tools[1]["allowed_callers"], json!(["direct"]));
    assert_eq!(tools[2], json!({"type": "programmatic_tool_calling"}));
    assert_eq!(tools.len(), 3);

    let reply = parse_response(&json!({
        "id": "resp_1", "object": "response", "status": "completed",
        "output": [
            {"type": "program", "id": "prog_1", "call_id": "pc_1", "code": "lookup({})", "fingerprint": "fp"},
            {"type": "function_call", "id": "fc_1", "call_id": "call_a", "name": "lookup", "arguments": "{}",
             "caller": {"type": "program", "caller_id": "pc_1"}}
        ]
    }))
    .unwrap();
    assert_eq!(reply.tool_calls.len(), 1);
    let next = LlmRequest {
        messages: vec![
            Message::user("sum them"),
            Message::Assistant {
                text: String::new(),
                tool_calls: reply.tool_calls.clone(),
            },
            Message::Tool {
                tool_call_id: "call_a".into(),
                name: "lookup".into(),
                content: vec![Content::text("7")],
                is_error: false,
            },
        ],
        ..request
    };
    let body = client.request_body(&next);
    let input = body["input"].as_array().unwrap();
    assert_eq!(input[1]["type"], "program");
    assert_eq!(input[1]["fingerprint"], "fp");
    assert_eq!(input[2]["type"], "function_call");
    assert_eq!(
        input[2]["caller"],
        json!({"type": "program", "caller_id": "pc_1"})
    );
    assert_eq!(input[3]["type"], "function_call_output");
    assert_eq!(
        input[3]["caller"],
        json!({"type": "program", "caller_id": "pc_1"})
    );
    // Off (the default): none of it.
    let plain = ResponsesClient::new("k", "m").unwrap();
    let body = plain.request_body(&next);
    assert!(body["tools"][0].get("allowed_callers").is_none());
    assert_eq!(body["tools"].as_array().unwrap().len(), 2);
}

#[test]
fn function_calls_text_and_usage_are_read() {
    let body = json!({
        "id": "resp_1", "object": "response", "status": "completed",
        "output": [
            {"type": "reasoning", "id": "rs_1", "summary": []},
            {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
             "content": [{"type": "output_text", "text": "Checking.", "annotations": []}]},
            {"type": "function_call", "id": "fc_1", "call_id": "call_a", "name": "calc", "arguments": "{\"a\":1}"},
            {"type": "function_call", "id": "fc_2", "call_id": "call_b", "name": "calc", "arguments": "{oops"}
        ],
        "usage": {"input_tokens": 11, "output_tokens": 4, "total_tokens": 15}
    });
    let reply = parse_response(&body).unwrap();
    assert_eq!(reply.text, "Checking.");
    assert_eq!(reply.stop_reason, StopReason::ToolUse);
    assert_eq!(
        reply.tool_calls,
        vec![
            ToolCall::new("call_a", "calc", json!({"a": 1})),
            ToolCall::new("call_b", "calc", json!("{oops")),
        ]
    );
    assert_eq!(reply.usage.input_tokens, 11);
    assert_eq!(reply.usage.output_tokens, 4);
}

#[test]
fn incomplete_and_failed_responses_are_read() {
    let cut = json!({"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}, "output": []});
    assert_eq!(
        parse_response(&cut).unwrap().stop_reason,
        StopReason::MaxTokens
    );
    let failed = json!({"status": "failed", "error": {"code": "server_error", "message": "boom"}, "output": []});
    let error = parse_response(&failed).unwrap_err();
    assert!(error.to_string().contains("boom"), "{error}");
    let error = parse_response(&json!({"choices": []})).unwrap_err();
    assert!(error.to_string().contains("`output`"), "{error}");
}

#[test]
fn history_becomes_items_keyed_by_call_id_and_nothing_is_stored() {
    let client = ResponsesClient::new("k", "m").unwrap().with_max_tokens(99);
    let request = LlmRequest {
        system: Some("be brief".into()),
        messages: vec![
            Message::user("hi"),
            Message::Assistant {
                text: "Let me see.".into(),
                tool_calls: vec![ToolCall::new("call_a", "calc", json!("{oops"))],
            },
            Message::Tool {
                tool_call_id: "call_a".into(),
                name: "calc".into(),
                content: vec![Content::text("bad arguments")],
                is_error: true,
            },
        ],
        tools: Arc::from(vec![ToolSpec::new(
            "calc",
            "Calculate",
            json!({"type": "object", "properties": {"a": {"type": "number"}}}),
        )]),
        ..Default::default()
    };
    let body = client.request_body(&request);
    assert_eq!(body["instructions"], "be brief");
    assert_eq!(body["store"], false);
    assert_eq!(body["max_output_tokens"], 99);
    assert_eq!(
        body["input"],
        json!([
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "Let me see."},
            {"type": "function_call", "call_id": "call_a", "name": "calc", "arguments": "{oops"},
            {"type": "function_call_output", "call_id": "call_a", "output": "Error: bad arguments"}
        ])
    );
    assert_eq!(
        body["tools"][0],
        definition::openai_responses(&request.tools[0])
    );
    assert_eq!(body["tools"][0]["strict"], true);
}

#[test]
fn a_schema_strict_mode_cannot_express_goes_out_without_strict() {
    let map = ToolSpec::new(
        "tag",
        "Tag things",
        json!({"type": "object", "properties": {"tags": {"type": "object", "additionalProperties": {"type": "string"}}}}),
    );
    let request = LlmRequest {
        tools: Arc::from(vec![map.clone()]),
        ..LlmRequest::default()
    };
    let body = ResponsesClient::new("k", "m")
        .unwrap()
        .request_body(&request);
    assert_eq!(body["tools"][0]["strict"], false);
    assert_eq!(body["tools"][0]["parameters"], *map.schema);
    assert_eq!(
        body["tools"][0]["parameters"],
        definition::openai(&map)["function"]["parameters"],
        "the same fallback as chat completions"
    );
}

fn reasoning_reply() -> Value {
    json!({
        "id": "resp_7", "object": "response", "status": "completed",
        "output": [
            {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Add."}], "encrypted_content": "gAAA-opaque-1"},
            {"type": "function_call", "id": "fc_1", "call_id": "call_a", "name": "calc", "arguments": "{}"},
            {"type": "reasoning", "id": "rs_2", "summary": []},
            {"type": "reasoning", "id": "rs_3", "summary": [], "encrypted_content": "gAAA-opaque-3"},
            {"type": "function_call", "id": "fc_2", "call_id": "call_b", "name": "calc", "arguments": "{}"},
            {"type": "function_call", "id": "fc_3", "call_id": "call_c", "name": "calc", "arguments": "{}"}
        ]
    })
}

#[test]
fn reasoning_items_go_back_unchanged_before_the_calls_they_preceded() {
    let body = reasoning_reply();
    let reply = parse_response(&body).unwrap();
    let state = |n: usize| reply.tool_calls[n].provider_state.get(STATE_KEY).cloned();
    assert_eq!(
        state(0),
        Some(json!({"items": [body["output"][0]], "id": "fc_1"}))
    );
    // An item without encrypted content names what a stateless server never kept.
    assert_eq!(
        state(1),
        Some(json!({"items": [body["output"][3]], "id": "fc_2"}))
    );
    assert_eq!(state(2), None);

    let client = ResponsesClient::new("k", "o4-mini").unwrap();
    let request = LlmRequest {
        messages: vec![
            Message::user("add"),
            Message::Assistant {
                text: String::new(),
                tool_calls: reply.tool_calls.clone(),
            },
        ],
        ..Default::default()
    };
    let sent = client.request_body(&request);
    assert_eq!(sent["include"], json!(["reasoning.encrypted_content"]));
    let input = sent["input"].as_array().unwrap();
    assert_eq!(input[1], body["output"][0], "byte for byte");
    assert_eq!(
        input[2],
        json!({"type": "function_call", "call_id": "call_a", "name": "calc", "arguments": "{}", "id": "fc_1"})
    );
    assert_eq!(input[3], body["output"][3]);
    assert_eq!(input[4]["id"], "fc_2");
    assert!(input[5].get("id").is_none(), "no reasoning, no item id");
    assert_eq!(input.len(), 6);
}

#[test]
fn encrypted_reasoning_is_asked_of_reasoning_models_only_unless_set() {
    let asks = |client: ResponsesClient| {
        client.request_body(&LlmRequest::default()).get("include")
            == Some(&json!(["reasoning.encrypted_content"]))
    };
    let client = |model: &str| ResponsesClient::new("k", model).unwrap();
    for model in ["o3", "o4-mini", "gpt-5", "gpt-5-mini", "openai/o1"] {
        assert!(asks(client(model)), "{model}");
    }
    for model in [
        "gpt-4o-mini",
        "gpt-4.1",
        "gpt-5-chat-latest",
        "omni",
        "local",
    ] {
        assert!(!asks(client(model)), "{model}");
    }
    assert!(asks(client("local").with_encrypted_reasoning(true)));
    assert!(!asks(client("o3").with_encrypted_reasoning(false)));
    assert!(
        !asks(client("o3").with_stored_responses(true)),
        "stored: kept on the server"
    );
}

#[test]
fn stored_responses_continue_from_the_last_reply_with_what_came_after() {
    let client = ResponsesClient::new("k", "o3")
        .unwrap()
        .with_stored_responses(true);
    let reply = parse_reply(&reasoning_reply(), true).unwrap();
    let first = client.request_body(&LlmRequest {
        messages: vec![Message::user("add")],
        ..Default::default()
    });
    assert_eq!(first["store"], true);
    assert!(first.get("previous_response_id").is_none());
    let result = |id: &str| Message::Tool {
        tool_call_id: id.into(),
        name: "calc".into(),
        content: vec![Content::text("2")],
        is_error: false,
    };
    let request = LlmRequest {
        messages: vec![
            Message::user("add"),
            Message::Assistant {
                text: String::new(),
                tool_calls: reply.tool_calls.clone(),
            },
            result("call_a"),
            result("call_b"),
            result("call_c"),
        ],
        ..Default::default()
    };
    let body = client.request_body(&request);
    assert_eq!(body["previous_response_id"], "resp_7");
    let kinds: Vec<&str> = body["input"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["function_call_output"; 3]);
}

#[test]
fn native_tool_search_sends_the_search_tool_and_deferred_functions() {
    let spec = |name: &'static str| {
        ToolSpec::new(name, "A tool", json!({"type": "object", "properties": {}}))
    };
    let client = ResponsesClient::new("k", "gpt-5.4")
        .unwrap()
        .with_native_tool_search(true);
    assert!(client.native_tool_search());
    assert!(!ResponsesClient::new("k", "m").unwrap().native_tool_search());
    let request = LlmRequest {
        tools: Arc::from(vec![spec("shown")]),
        deferred_tools: Arc::from(vec![spec("later"), spec("shown")]),
        ..Default::default()
    };
    let body = client.request_body(&request);
    let mut later = definition::openai_responses(&spec("later"));
    later["defer_loading"] = true.into();
    assert_eq!(
        body["tools"],
        json!([definition::openai_responses(&spec("shown")), {"type": "tool_search"}, later]),
        "a tool both shown and deferred is sent once, shown"
    );
    let plain = client.request_body(&LlmRequest {
        tools: Arc::from(vec![spec("shown")]),
        ..Default::default()
    });
    assert_eq!(
        plain["tools"].as_array().unwrap().len(),
        1,
        "no deferred tools, no search"
    );
}

/// A tool group (an MCP server's, a toolset's) goes out as one `namespace` with its
/// description, its functions deferred inside it; a call of one of them comes back with its
/// namespace, which goes back with the call.
#[test]
fn grouped_deferred_tools_go_out_as_one_namespace_and_calls_keep_it() {
    use crate::ToolGroup;
    let spec = |name: &'static str| {
        ToolSpec::new(name, "A tool", json!({"type": "object", "properties": {}}))
    };
    let crm = ToolGroup::new("crm", "Customers and their orders.");
    let client = ResponsesClient::new("k", "gpt-5.4")
        .unwrap()
        .with_native_tool_search(true);
    let request = LlmRequest {
        tools: Arc::from(vec![spec("shown")]),
        deferred_tools: Arc::from(vec![
            spec("crm_orders").with_group(crm.clone()),
            spec("alone"),
            spec("crm_customer").with_group(crm.clone()),
            spec("wiki_find").with_group(ToolGroup::new("team wiki", "")),
        ]),
        ..Default::default()
    };
    let body = client.request_body(&request);
    let deferred = |name| {
        let mut tool = definition::openai_responses(&spec(name));
        tool["defer_loading"] = true.into();
        tool
    };
    assert_eq!(
        body["tools"],
        json!([
            definition::openai_responses(&spec("shown")),
            {"type": "tool_search"},
            {"type": "namespace", "name": "crm", "description": "Customers and their orders.",
             "tools": [deferred("crm_orders"), deferred("crm_customer")]},
            deferred("alone"),
            {"type": "namespace", "name": "team_wiki", "description": "team wiki",
             "tools": [deferred("wiki_find")]},
        ])
    );

    let reply = parse_response(&json!({
        "id": "resp_1", "status": "completed",
        "output": [{"type": "function_call", "call_id": "c1", "name": "crm_orders", "namespace": "crm", "arguments": "{}"}]
    }))
    .unwrap();
    assert_eq!(reply.tool_calls[0].name, "crm_orders");
    let input = client.request_body(&LlmRequest {
        messages: vec![
            Message::user("orders?"),
            Message::Assistant {
                text: String::new(),
                tool_calls: reply.tool_calls.clone(),
            },
        ],
        ..Default::default()
    })["input"]
        .clone();
    assert_eq!(input[1]["type"], "function_call");
    assert_eq!(input[1]["namespace"], "crm", "{input}");
}

#[test]
fn tool_search_items_are_read_and_sent_back_as_they_came() {
    let body = json!({
        "id": "resp_9", "status": "completed",
        "output": [
            {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAA-1"},
            {"type": "tool_search_call", "id": "tsc_1", "call_id": null, "arguments": {"query": "weather"}, "execution": "server", "status": "completed"},
            {"type": "tool_search_output", "id": "tso_1", "call_id": null, "execution": "server", "status": "completed", "tools": [
                {"type": "function", "name": "get_weather", "parameters": {"type": "object"}, "defer_loading": true},
                {"type": "namespace", "name": "crm", "description": "CRM", "tools": [{"type": "function", "name": "list_orders"}]}
            ]},
            {"type": "function_call", "id": "fc_1", "call_id": "call_w", "name": "get_weather", "arguments": "{}"}
        ]
    });
    let reply = parse_response(&body).unwrap();
    let [search] = &reply.tool_searches[..] else {
        panic!("{:?}", reply.tool_searches);
    };
    assert_eq!(search.id, "tsc_1");
    assert_eq!(search.query(), "weather");
    assert_eq!(search.tools, ["get_weather", "list_orders"]);
    assert!(
        reply.tool_calls[0].provider_state.is_empty(),
        "the reasoning goes back before the search, not the call"
    );
    let error = parse_response(
        &json!({"output": [{"type": "tool_search_output", "call_id": "x", "tools": []}]}),
    )
    .unwrap_err();
    assert!(
        error.to_string().contains("answers no tool_search_call"),
        "{error}"
    );

    let client = ResponsesClient::new("k", "gpt-5.4").unwrap();
    let request = LlmRequest {
        messages: vec![
            Message::user("weather?"),
            Message::ToolSearch(search.clone()),
            Message::Assistant {
                text: String::new(),
                tool_calls: reply.tool_calls.clone(),
            },
        ],
        ..Default::default()
    };
    let input = client.request_body(&request)["input"].clone();
    let without_id = |n: usize| {
        let mut item = body["output"][n].clone();
        item.as_object_mut().unwrap().shift_remove("id");
        item
    };
    assert_eq!(
        input[1], body["output"][0],
        "reasoning with its id and content"
    );
    // Compared as text: the fields keep their order.
    assert_eq!(input[2].to_string(), without_id(1).to_string());
    assert_eq!(input[3].to_string(), without_id(2).to_string());
    assert_eq!(input[4]["type"], "function_call");
    assert_eq!(input.as_array().unwrap().len(), 5);
}

#[test]
fn streamed_arguments_find_their_call_by_index_or_item_id() {
    let event = |data: Value| format!("data: {data}\n\n");
    let added = event(
        json!({"type": "response.output_item.added", "item": {"type": "function_call", "id": "fc_1", "call_id": "c1", "name": "calc", "arguments": ""}}),
    );
    let delta = event(
        json!({"type": "response.function_call_arguments.delta", "item_id": "fc_1", "delta": "{\"a\":1}"}),
    );
    let done = event(
        json!({"type": "response.completed", "response": {"status": "completed", "output": [
            {"type": "function_call", "id": "fc_1", "call_id": "c1", "name": "calc", "arguments": "{\"a\":1}"}
        ]}}),
    );
    let body = format!("{added}{delta}{done}");
    let deltas = decode_stream(&[body.as_bytes()]).unwrap();
    assert_eq!(
        deltas[1],
        StreamDelta::ToolArguments {
            index: 0,
            fragment: "{\"a\":1}".into()
        }
    );
    assert!(
        matches!(&deltas[2], StreamDelta::ToolCallReady { index: 0, call } if call.id == "c1"),
        "{deltas:?}"
    );
    assert_eq!(
        deltas.len(),
        4,
        "started, arguments, ready, done: {deltas:?}"
    );

    let stray = event(
        json!({"type": "response.function_call_arguments.delta", "output_index": 4, "delta": "{}"}),
    );
    let error = decode_stream(&[format!("{added}{stray}").as_bytes()]).unwrap_err();
    assert!(error.to_string().contains("never began"), "{error}");
    let untyped = decode_stream(&[b"data: {\"delta\": \"x\"}\n\n"]).unwrap_err();
    assert!(untyped.to_string().contains("without `type`"), "{untyped}");
}

#[test]
fn settings_are_read_like_the_official_sdk() {
    let lookup = |pairs: &'static [(&'static str, &'static str)]| {
        move |name: &str| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    };
    let error = ResponsesClient::from_lookup(lookup(&[])).unwrap_err();
    assert!(error.to_string().contains("OPENAI_API_KEY"), "{error}");
    let client = ResponsesClient::from_lookup(lookup(&[
        ("OPENAI_API_KEY", "k"),
        ("OPENAI_BASE_URL", "http://127.0.0.1:9/v1/"),
        ("OPENAI_MODEL", "local"),
    ]))
    .unwrap();
    assert_eq!(client.endpoint(), "http://127.0.0.1:9/v1/responses");
    assert_eq!(client.model(), "local");
}
