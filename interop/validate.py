"""Validates every captured exchange with the official SDKs' own types.

Requests: openai's CompletionCreateParamsNonStreaming (or CompletionCreateParamsStreaming for a
request with `stream: true`) and ResponseCreateParamsNonStreaming (or ...Streaming), and anthropic's
MessageCreateParamsNonStreaming or MessageCreateParamsStreaming (TypedDicts validated by pydantic;
their `Iterable` fields are validated lazily, so every iterator is drained here); for Gemini, whose
SDK has no type for the request body, every part of it: google-genai's Content (each of
`contents`, and `systemInstruction`), Tool and GenerationConfig, with unknown fields refused (the
SDK's models forbid extras) and any SDK warning (an unknown enum value) turned into a failure.
Responses: openai's ChatCompletion and Response, anthropic's Message, google-genai's
GenerateContentResponse; a streamed response event by event, as openai's ChatCompletionChunk (then
`[DONE]`), anthropic's RawMessageStreamEvent, openai's ResponseStreamEvent (from
`response.created` to `response.completed`) and google-genai's GenerateContentResponse per chunk,
in the order each API defines. Then the conversation itself: every tool call the server returned
is answered, in call order, in the next request (by id, by `call_id`, or for Gemini calls without
ids by name), Gemini's thought signatures come back on the calls they came with, and the
Responses API's reasoning items (with their encrypted content) come back byte for byte, each just
before the call it preceded. Native tool search: the request's search tool and deferred
definitions pass the SDKs' request types (and every Anthropic custom tool's keys, `input_examples`
and `allowed_callers` among them, are ToolParam's), the provider's search (Responses: `tool_search_call`
and `tool_search_output`, which must come back as they came, without their ids; Anthropic:
`server_tool_use` and `tool_search_tool_result`, which must come back with the same id, input
and tool references) is read, and the tools it found are called and answered. Programmatic tool calling: a call the
model's code made comes back with its caller (Anthropic: after its `server_tool_use` block, with
the request naming the container; Responses: after its `program` item, which comes back as it
came, and its output with the caller too).

Streamed answers are also fed, as the bytes that came over the wire, to the SDKs' own stream
accumulators (accumulate.py), which must assemble the same message (text, tool calls' names and
parsed arguments) as our adapter did (ASSEMBLED_FILE, written by tests/http/interop.rs).

Usage: validate.py CAPTURE_FILE [ASSEMBLED_FILE]
"""

import collections.abc
import json
import sys
import typing
import warnings

import accumulate

from anthropic.types import Message, RawMessageStreamEvent, ToolParam
from anthropic.types.message_create_params import (
    MessageCreateParamsNonStreaming,
    MessageCreateParamsStreaming,
)
from anthropic.types.beta import BetaClearToolUses20250919EditParam
from anthropic.types.beta.message_create_params import (
    MessageCreateParamsNonStreaming as BetaMessageCreateParamsNonStreaming,
    MessageCreateParamsStreaming as BetaMessageCreateParamsStreaming,
)
from google.genai import types as genai
from openai.types.chat import ChatCompletion, ChatCompletionChunk
from openai.types.chat.completion_create_params import (
    CompletionCreateParamsNonStreaming,
    CompletionCreateParamsStreaming,
)
from openai.types.responses import Response, ResponseStreamEvent
from openai.types.responses.response_create_params import (
    ResponseCreateParamsNonStreaming,
    ResponseCreateParamsStreaming,
)
from pydantic import TypeAdapter

OPENAI_PARAMS = {False: CompletionCreateParamsNonStreaming, True: CompletionCreateParamsStreaming}
ANTHROPIC_PARAMS = {False: MessageCreateParamsNonStreaming, True: MessageCreateParamsStreaming}
# Server-side context editing is a beta: a request with `context_management` is the beta's.
ANTHROPIC_BETA_PARAMS = {False: BetaMessageCreateParamsNonStreaming, True: BetaMessageCreateParamsStreaming}
# Kept for the whole run: the lazily validated iterators refer to their adapter's validator.
ADAPTERS = {
    params: TypeAdapter(params)
    for params in [*OPENAI_PARAMS.values(), *ANTHROPIC_PARAMS.values(), *ANTHROPIC_BETA_PARAMS.values()]
}
ANTHROPIC_EVENT = TypeAdapter(RawMessageStreamEvent)
RESPONSES_PARAMS = {False: ResponseCreateParamsNonStreaming, True: ResponseCreateParamsStreaming}
RESPONSES_REQUEST = {stream: TypeAdapter(params) for stream, params in RESPONSES_PARAMS.items()}
RESPONSES_EVENT = TypeAdapter(ResponseStreamEvent)
# Reasoning items the next request sent back byte for byte, over the whole run.
REASONING_BACK = [0]
# Native tool searches sent back (per API), over the whole run.
SEARCHES_BACK = collections.Counter()
# Calls made by the model's code (programmatic tool calling) sent back with their caller.
CODE_BACK = collections.Counter()
# Requests that asked the provider's prompt cache (Anthropic breakpoints, OpenAI's prompt_cache_key).
CACHE_ASKED = collections.Counter()
# Requests that asked Anthropic to clear old tool results itself (context editing).
CONTEXT_EDITED = [0]
# The fields of a generateContent request body (GenerateContentRequest in the API reference).
GEMINI_REQUEST_KEYS = {
    "contents", "tools", "toolConfig", "safetySettings", "systemInstruction",
    "generationConfig", "cachedContent",
}
APIS = ("openai", "anthropic", "responses", "gemini")
RETRYABLE = {429, 500, 502, 503, 504, 529}


def drain(value):
    """Forces pydantic's lazy validation: walks the value and consumes every iterator."""
    if isinstance(value, (str, bytes)):
        return value
    if isinstance(value, collections.abc.Mapping):
        return {key: drain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [drain(item) for item in value]
    if isinstance(value, collections.abc.Iterator):
        return [drain(item) for item in value]
    return value


def check_keys(body, typed_dict, where):
    known = set(typing.get_type_hints(typed_dict))
    unknown = set(body) - known
    if unknown:
        raise AssertionError(f"{where}: keys the SDK does not know: {sorted(unknown)}")


def streamed(record, where):
    """Whether the exchange is a streamed one; the request and the response must agree."""
    asked = record["request"].get("stream") is True or record["path"].endswith("?alt=sse")
    assert asked == ("response_events" in record), f"{where}: stream asked {asked}, answer differs"
    return asked


def openai_stream_calls(events, where):
    """Validates a chat completion stream: chunks, then `[DONE]`; returns the calls' ids."""
    assert events and events[-1]["data"] == "[DONE]", f"{where}: the stream does not end with [DONE]"
    ids = {}
    finished = False
    for event in events[:-1]:
        chunk = ChatCompletionChunk.model_validate(event["data"])
        for choice in chunk.choices:
            assert not finished, f"{where}: a delta after the finish_reason"
            for call in choice.delta.tool_calls or []:
                if call.index not in ids:
                    assert call.id and call.function and call.function.name, (
                        f"{where}: the first fragment of call {call.index} lacks its id or name"
                    )
                    ids[call.index] = call.id
            finished = finished or choice.finish_reason is not None
    assert finished, f"{where}: no finish_reason"
    return [ids[index] for index in sorted(ids)]


def anthropic_stream_calls(events, where):
    """Validates a messages stream in the order the API defines; returns the tool_use ids."""
    kinds = [event["data"]["type"] for event in events]
    assert kinds[0] == "message_start" and kinds[-1] == "message_stop", f"{where}: {kinds}"
    open_blocks, calls = set(), []
    for event in events:
        data = event["data"]
        assert event["event"] == data["type"], f"{where}: event {event['event']} carries {data['type']}"
        if data["type"] in ("ping", "error"):
            continue
        parsed = ANTHROPIC_EVENT.validate_python(data)
        if parsed.type == "content_block_start":
            open_blocks.add(parsed.index)
            if parsed.content_block.type == "tool_use":
                calls.append(parsed.content_block.id)
        elif parsed.type == "content_block_delta":
            assert parsed.index in open_blocks, f"{where}: a delta of block {parsed.index}, not open"
        elif parsed.type == "content_block_stop":
            open_blocks.remove(parsed.index)
    assert not open_blocks, f"{where}: blocks never stopped: {open_blocks}"
    assert "message_delta" in kinds, f"{where}: no message_delta (stop reason)"
    return calls


def validate_openai(record, where):
    body = record["request"]
    stream = streamed(record, where)
    check_keys(body, OPENAI_PARAMS[stream], where)
    checked = drain(ADAPTERS[OPENAI_PARAMS[stream]].validate_python(body))
    assert len(checked["messages"]) == len(body["messages"]), where
    assert len(checked.get("tools", [])) == len(body.get("tools", [])), where
    assert record["secret_headers_present"] == ["authorization"], where
    answered = [m["tool_call_id"] for m in body["messages"] if m["role"] == "tool"]
    if "prompt_cache_key" in body:
        assert isinstance(body["prompt_cache_key"], str) and 0 < len(body["prompt_cache_key"]) <= 64, where
        CACHE_ASKED["openai"] += 1
    if stream:
        assert body.get("stream_options") == {"include_usage": True}, where
        return openai_stream_calls(record["response_events"], where), answered
    response = ChatCompletion.model_validate(record["response"])
    calls = response.choices[0].message.tool_calls or []
    return [call.id for call in calls], answered


def validate_anthropic(record, where, previous):
    body = record["request"]
    stream = streamed(record, where)
    params = ANTHROPIC_PARAMS[stream]
    if "context_management" in body:
        params = ANTHROPIC_BETA_PARAMS[stream]
        # The proxy records header names only; the beta's value is unit-tested in the adapter.
        assert "anthropic-beta" in record["headers"], f"{where}: context_management without its beta"
        for edit in body["context_management"]["edits"]:
            check_keys(edit, BetaClearToolUses20250919EditParam, f"{where}: context edit")
        CONTEXT_EDITED[0] += 1
    check_keys(body, params, where)
    checked = drain(ADAPTERS[params].validate_python(body))
    assert len(checked["messages"]) == len(body["messages"]), where
    assert len(checked.get("tools", [])) == len(body.get("tools", [])), where
    assert record["secret_headers_present"] == ["x-api-key"], where
    assert "anthropic-version" in record["headers"], where
    roles = [m["role"] for m in body["messages"]]
    assert all(a != b for a, b in zip(roles, roles[1:])), f"{where}: roles must alternate: {roles}"
    # Cache breakpoints: never more than the API's 4; when asked, the last user turn ends with one.
    marked = [
        block for part in (body.get("system") if isinstance(body.get("system"), list) else [],
                           body.get("tools", []),
                           *[m["content"] for m in body["messages"] if isinstance(m["content"], list)])
        for block in part if "cache_control" in block
    ]
    assert len(marked) <= 4, f"{where}: {len(marked)} cache breakpoints"
    if marked:
        last_user = [m for m in body["messages"] if m["role"] == "user"][-1]
        assert "cache_control" in last_user["content"][-1], f"{where}: the last user turn has no breakpoint"
        CACHE_ASKED["anthropic"] += 1
    answered = [
        block["tool_use_id"]
        for message in body["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]
    tools = body.get("tools", [])
    # A custom tool's own keys, `input_examples` among them, must be ToolParam's (the request's
    # TypedDict ignores keys it does not know inside a tool), and its examples need the beta.
    for tool in tools:
        if tool.get("type", "custom") == "custom":
            check_keys(tool, ToolParam, f"{where}: tool {tool.get('name')}")
            examples = tool.get("input_examples")
            if examples is not None:
                assert examples and all(isinstance(e, dict) for e in examples), f"{where}: {examples}"
                assert "anthropic-beta" in record["headers"], f"{where}: input_examples without the beta"
    if any(tool.get("type", "").startswith("tool_search_tool_") for tool in tools):
        assert any(tool.get("defer_loading") is True for tool in tools), f"{where}: a search, nothing deferred"
        assert not all(tool.get("defer_loading") is True for tool in tools), f"{where}: every tool deferred"
    if previous is not None:
        # The provider's search comes back with its id, input and tool references.
        searched = {
            block["id"]: block for block in previous["content"]
            if block["type"] == "server_tool_use" and block["name"].startswith("tool_search_tool")
        }
        found = {
            block["tool_use_id"]: block for block in previous["content"] if block["type"] == "tool_search_tool_result"
        }
        sent = [block for message in body["messages"] if message["role"] == "assistant"
                and isinstance(message["content"], list) for block in message["content"]]
        for search_id, block in searched.items():
            back = [b for b in sent if b.get("type") == "server_tool_use" and b.get("id") == search_id]
            assert back and back[0]["input"] == block["input"] and back[0]["name"] == block["name"], (
                f"{where}: server_tool_use {search_id} not sent back: {back}"
            )
            result = [b for b in sent if b.get("type") == "tool_search_tool_result" and b.get("tool_use_id") == search_id]
            assert result and result[0]["content"]["tool_references"] == found[search_id]["content"]["tool_references"], (
                f"{where}: tool_search_tool_result {search_id} not sent back: {result}"
            )
            SEARCHES_BACK["anthropic"] += 1
        # A call the model's code made comes back with its caller, after the code-execution
        # block that made it, and the request names the container the code ran in.
        for block in previous["content"]:
            caller = block.get("caller") or {"type": "direct"}
            if block["type"] != "tool_use" or caller["type"] == "direct":
                continue
            assert body.get("container") == previous["container"]["id"], f"{where}: container not carried back"
            back = [b for b in sent if b.get("type") == "tool_use" and b.get("id") == block["id"]]
            assert back and back[0].get("caller") == caller, f"{where}: {block['id']} back as {back}"
            server = [i for i, b in enumerate(sent) if b.get("type") == "server_tool_use" and b.get("id") == caller["tool_id"]]
            assert server and server[0] < sent.index(back[0]), f"{where}: the code of {block['id']} not sent back before it"
            CODE_BACK["anthropic"] += 1
    if stream:
        return anthropic_stream_calls(record["response_events"], where), answered, None
    response = Message.model_validate(record["response"])
    calls = [block.id for block in response.content if block.type == "tool_use"]
    return calls, answered, record["response"]


def responses_stream(events, where):
    """Validates a Responses stream in the order the API defines; returns the whole response."""
    kinds = [event["data"]["type"] for event in events]
    assert kinds[0] == "response.created" and kinds[-1] == "response.completed", f"{where}: {kinds}"
    added, done = {}, {}
    for number, event in enumerate(events):
        data = event["data"]
        assert event["event"] == data["type"], f"{where}: event {event['event']} carries {data['type']}"
        assert data["sequence_number"] == number, f"{where}: sequence number {data['sequence_number']} at {number}"
        parsed = RESPONSES_EVENT.validate_python(data)
        if parsed.type == "response.output_item.added":
            added[parsed.output_index] = parsed.item
        elif parsed.type in ("response.function_call_arguments.delta", "response.output_text.delta"):
            assert parsed.output_index in added and parsed.output_index not in done, (
                f"{where}: a delta of item {parsed.output_index}, which is not open"
            )
        elif parsed.type == "response.output_item.done":
            done[parsed.output_index] = data["item"]
    assert sorted(added) == sorted(done), f"{where}: items never finished"
    response = events[-1]["data"]["response"]
    assert [done[index] for index in sorted(done)] == response["output"], f"{where}: the items differ from the output"
    return response


def validate_responses(record, where, previous):
    body = record["request"]
    stream = streamed(record, where)
    check_keys(body, RESPONSES_PARAMS[stream], where)
    checked = drain(RESPONSES_REQUEST[stream].validate_python(body))
    assert len(checked["input"]) == len(body["input"]), where
    assert len(checked.get("tools", [])) == len(body.get("tools", [])), where
    assert body.get("store") is False, f"{where}: stateless requests say store: false"
    assert body.get("include", ["reasoning.encrypted_content"]) == ["reasoning.encrypted_content"], where
    assert record["secret_headers_present"] == ["authorization"], where
    if "prompt_cache_key" in body:
        assert isinstance(body["prompt_cache_key"], str) and 0 < len(body["prompt_cache_key"]) <= 64, where
        CACHE_ASKED["responses"] += 1
    replayed = [item for item in body["input"] if item.get("type") == "function_call"]
    # Without `store`, an item id names nothing the server kept, unless the reasoning item it
    # pairs with comes just before it.
    for index, item in enumerate(body["input"]):
        if item.get("type") == "function_call" and "id" in item:
            assert index > 0 and body["input"][index - 1].get("type") == "reasoning", f"{where}: {item}"
    if previous is not None:
        # Arguments that are JSON come back as the same value (written compactly), not
        # necessarily as the same text.
        def call(item):
            return (item["call_id"], item["name"], json.loads(item["arguments"]))

        sent = [call(item) for item in previous["output"] if item["type"] == "function_call"]
        back = [call(item) for item in replayed]
        assert back[-len(sent):] == sent if sent else True, f"{where}: calls replayed as {back}, sent {sent}"
        # Each reasoning item before a call comes back as it came, just before that call.
        output = previous["output"]
        for index, item in enumerate(output):
            following = output[index + 1] if index + 1 < len(output) else None
            if item["type"] != "reasoning" or not following or following["type"] != "function_call":
                continue
            texts = [json.dumps(entry) for entry in body["input"]]
            assert json.dumps(item) in texts, f"{where}: reasoning item {item['id']} not sent back as it came"
            at = texts.index(json.dumps(item))
            nxt = body["input"][at + 1]
            assert nxt.get("call_id") == following["call_id"] and nxt.get("id") == following["id"], (
                f"{where}: reasoning item {item['id']} not followed by its call: {nxt}"
            )
            REASONING_BACK[0] += 1
        # The provider's tool search items come back as they came, without the ids of items
        # the server never kept.
        texts = [json.dumps(entry) for entry in body["input"]]
        for item in output:
            if item["type"] in ("tool_search_call", "tool_search_output"):
                bare = {key: value for key, value in item.items() if key != "id"}
                assert json.dumps(bare) in texts, f"{where}: {item['type']} {item['id']} not sent back as it came"
                SEARCHES_BACK["responses"] += 1
        # A program comes back as it came, and each call it made (and the call's output) with
        # its caller.
        for item in output:
            if item["type"] == "program":
                assert json.dumps(item) in texts, f"{where}: program {item['id']} not sent back as it came"
            caller = item.get("caller") or {"type": "direct"}
            if item["type"] != "function_call" or caller["type"] == "direct":
                continue
            for kind in ("function_call", "function_call_output"):
                back = [i for i in body["input"] if i.get("type") == kind and i.get("call_id") == item["call_id"]]
                assert back and back[0].get("caller") == caller, f"{where}: {kind} {item['call_id']} back as {back}"
            CODE_BACK["responses"] += 1
    if any(tool.get("type") == "tool_search" for tool in body.get("tools", [])):
        # A tool group goes out as a namespace (NamespaceToolParam), its functions deferred inside.
        members = [inner for tool in body["tools"] if tool.get("type") == "namespace" for inner in tool["tools"]]
        assert any(tool.get("defer_loading") is True for tool in body["tools"] + members), f"{where}: a search, nothing deferred"
        assert all(inner.get("defer_loading") is True for inner in members), f"{where}: a namespace's tool not deferred"
    if stream:
        response_json = responses_stream(record["response_events"], where)
    else:
        response_json = record["response"]
    response = Response.model_validate(response_json)
    calls = [item.call_id for item in response.output if item.type == "function_call"]
    answered = [item["call_id"] for item in body["input"] if item.get("type") == "function_call_output"]
    return calls, answered, response_json


def strict_genai(model, value, where):
    """`value` read as JSON by the google-genai model, any SDK warning being a failure."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            return model.model_validate_json(json.dumps(value))
        except Exception as error:
            raise AssertionError(f"{where}: not a valid {model.__name__}: {error}\n{value}") from error


def validate_gemini(record, where, previous):
    body = record["request"]
    unknown = set(body) - GEMINI_REQUEST_KEYS
    assert not unknown, f"{where}: keys the API does not know: {sorted(unknown)}"
    contents = [strict_genai(genai.Content, content, where) for content in body["contents"]]
    assert len(contents) == len(body["contents"]), where
    for tool in body.get("tools", []):
        strict_genai(genai.Tool, tool, where)
    if "systemInstruction" in body:
        strict_genai(genai.Content, body["systemInstruction"], where)
    if "generationConfig" in body:
        strict_genai(genai.GenerationConfig, body["generationConfig"], where)
    roles = [content["role"] for content in body["contents"]]
    assert all(a != b for a, b in zip(roles, roles[1:])), f"{where}: roles must alternate: {roles}"
    assert record["secret_headers_present"] == ["x-goog-api-key"], where
    assert "key=" not in record["path"], f"{where}: the key must not be in the URL"
    if previous is not None:
        sent = [part for part in previous["candidates"][0]["content"]["parts"] if "functionCall" in part]
        if sent:
            model_turns = [content for content in body["contents"] if content["role"] == "model"]
            back = [part for part in model_turns[-1]["parts"] if "functionCall" in part]
            assert [p["functionCall"]["name"] for p in back] == [p["functionCall"]["name"] for p in sent], where
            for sent_part, back_part in zip(sent, back):
                assert back_part.get("thoughtSignature") == sent_part.get("thoughtSignature"), (
                    f"{where}: thought signature not sent back: {back_part}"
                )
                assert back_part["functionCall"].get("id") == sent_part["functionCall"].get("id"), where
    if streamed(record, where):
        response_json = gemini_stream(record["response_events"], where)
    else:
        response_json = record["response"]
    response = strict_genai(genai.GenerateContentResponse, response_json, where)
    calls = [part.function_call.name for part in response.candidates[0].content.parts if part.function_call]
    last = body["contents"][-1]
    answered = [part["functionResponse"]["name"] for part in last["parts"] if "functionResponse" in part]
    return calls, answered, response_json


def gemini_stream(events, where):
    """Validates a `streamGenerateContent?alt=sse` stream (each chunk a GenerateContentResponse,
    only the last with a finish reason); returns the chunks merged into one response."""
    parts = []
    for number, event in enumerate(events):
        chunk = strict_genai(genai.GenerateContentResponse, event["data"], where)
        candidate = chunk.candidates[0]
        last = number == len(events) - 1
        assert (candidate.finish_reason is not None) == last, f"{where}: finish reason on chunk {number}"
        parts += event["data"]["candidates"][0]["content"]["parts"]
    merged = dict(events[-1]["data"])
    merged["candidates"] = [dict(merged["candidates"][0], content={"role": "model", "parts": parts})]
    return merged


def api_of(path):
    if path.endswith("/chat/completions"):
        return "openai"
    if path.endswith("/responses"):
        return "responses"
    if path.endswith(":generateContent") or path.endswith(":streamGenerateContent?alt=sse"):
        return "gemini"
    return "anthropic"


def main():
    records = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
    if not records:
        raise SystemExit("no exchanges were captured")
    pending = {api: [] for api in APIS}
    previous = {api: None for api in APIS}
    counts = collections.Counter()
    retried = 0
    for index, record in enumerate(records):
        api = api_of(record["path"])
        where = f"exchange {index + 1} ({api} {record['path']})"
        if record["status"] != 200:
            # Only a retryable status is expected, and the next exchange must be the same request.
            assert record["status"] in RETRYABLE, f"{where}: status {record['status']}: {record.get('response')}"
            following = records[index + 1] if index + 1 < len(records) else None
            assert following and following["request"] == record["request"], f"{where}: not retried"
            retried += 1
            continue
        if api == "openai":
            calls, answered = validate_openai(record, where)
        elif api == "anthropic":
            calls, answered, previous[api] = validate_anthropic(record, where, previous[api])
        elif api == "responses":
            calls, answered, previous[api] = validate_responses(record, where, previous[api])
        else:
            calls, answered, previous[api] = validate_gemini(record, where, previous[api])
        # The results of the previous turn's calls come back in call order.
        expected = pending[api]
        assert answered[-len(expected):] == expected if expected else True, (
            f"{where}: expected results for {expected}, found {answered}"
        )
        pending[api] = calls
        counts[api] += 1
        if "response_events" in record:
            counts[api + " streamed"] += 1
    for api in APIS:
        if counts[api] < 2:
            raise SystemExit(f"expected a whole tool-calling run for {api}, saw {counts[api]} requests")
    for api in APIS:
        if counts[api + " streamed"] < 2:
            raise SystemExit(f"expected a whole streamed run for {api}, saw {counts[api + ' streamed']} requests")
    assembled_note = ""
    if len(sys.argv) > 2:
        assembled = [json.loads(line) for line in open(sys.argv[2], encoding="utf-8")]
        matched = accumulate.check(records, assembled)
        for api, count in matched.items():
            if count < 2:
                raise SystemExit(f"expected a whole streamed run for {api} to compare, saw {count} replies")
        assembled_note = (
            f"; the SDKs' stream accumulators assembled the same messages as our adapters: {matched}"
        )
    if retried < len(APIS):
        raise SystemExit(f"expected a retried 529 or 503 for each adapter, saw {retried}")
    for api in ("anthropic", "responses"):
        if SEARCHES_BACK[api] < 1:
            raise SystemExit(f"expected a native tool search sent back through {api}, saw none")
    for api in ("anthropic", "responses"):
        if CODE_BACK[api] < 1:
            raise SystemExit(f"expected a call made by code sent back through {api}, saw none")
    for api in ("anthropic", "openai", "responses"):
        if CACHE_ASKED[api] < 1:
            raise SystemExit(f"expected requests asking the prompt cache through {api}, saw none")
    if CONTEXT_EDITED[0] < 1:
        raise SystemExit("expected a request asking Anthropic's context editing, saw none")
    if REASONING_BACK[0] < 2:
        raise SystemExit(f"expected reasoning items sent back in a plain and a streamed run, saw {REASONING_BACK[0]}")
    print(
        f"validated {sum(counts.values())} exchanges with the official SDK types: {dict(counts)}; "
        f"{retried} retryable errors were retried with the same request; "
        f"{REASONING_BACK[0]} reasoning items came back byte for byte; "
        f"native tool search items sent back: {dict(SEARCHES_BACK)}; "
        f"calls made by code sent back with their caller: {dict(CODE_BACK)}; "
        f"requests asking the prompt cache: {dict(CACHE_ASKED)}; "
        f"requests asking Anthropic's context editing: {CONTEXT_EDITED[0]}{assembled_note}"
    )


if __name__ == "__main__":
    main()
