"""Validates every captured exchange with the official SDKs' own types.

Requests: openai's CompletionCreateParamsNonStreaming and ResponseCreateParamsNonStreaming, and
anthropic's MessageCreateParamsNonStreaming (TypedDicts validated by pydantic; their `Iterable`
fields are validated lazily, so every iterator is drained here); for Gemini, whose SDK has no type
for the request body, every part of it: google-genai's Content (each of `contents`, and
`systemInstruction`), Tool and GenerationConfig, with unknown fields refused (the SDK's models
forbid extras) and any SDK warning (an unknown enum value) turned into a failure. Responses:
openai's ChatCompletion and Response, anthropic's Message, google-genai's GenerateContentResponse.
Then the conversation itself: every tool call the server returned is answered, in call order, in
the next request (by id, by `call_id`, or for Gemini calls without ids by name), and Gemini's
thought signatures come back on the calls they came with.

Usage: validate.py CAPTURE_FILE
"""

import collections.abc
import json
import sys
import typing
import warnings

from anthropic.types import Message
from anthropic.types.message_create_params import MessageCreateParamsNonStreaming
from google.genai import types as genai
from openai.types.chat import ChatCompletion
from openai.types.chat.completion_create_params import CompletionCreateParamsNonStreaming
from openai.types.responses import Response
from openai.types.responses.response_create_params import ResponseCreateParamsNonStreaming
from pydantic import TypeAdapter

OPENAI_REQUEST = TypeAdapter(CompletionCreateParamsNonStreaming)
ANTHROPIC_REQUEST = TypeAdapter(MessageCreateParamsNonStreaming)
RESPONSES_REQUEST = TypeAdapter(ResponseCreateParamsNonStreaming)
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


def validate_openai(record, where):
    body = record["request"]
    check_keys(body, CompletionCreateParamsNonStreaming, where)
    checked = drain(OPENAI_REQUEST.validate_python(body))
    assert len(checked["messages"]) == len(body["messages"]), where
    assert len(checked.get("tools", [])) == len(body.get("tools", [])), where
    assert record["secret_headers_present"] == ["authorization"], where
    response = ChatCompletion.model_validate(record["response"])
    calls = response.choices[0].message.tool_calls or []
    answered = [m["tool_call_id"] for m in body["messages"] if m["role"] == "tool"]
    return [call.id for call in calls], answered


def validate_anthropic(record, where):
    body = record["request"]
    check_keys(body, MessageCreateParamsNonStreaming, where)
    checked = drain(ANTHROPIC_REQUEST.validate_python(body))
    assert len(checked["messages"]) == len(body["messages"]), where
    assert len(checked.get("tools", [])) == len(body.get("tools", [])), where
    assert record["secret_headers_present"] == ["x-api-key"], where
    assert "anthropic-version" in record["headers"], where
    roles = [m["role"] for m in body["messages"]]
    assert all(a != b for a, b in zip(roles, roles[1:])), f"{where}: roles must alternate: {roles}"
    response = Message.model_validate(record["response"])
    calls = [block.id for block in response.content if block.type == "tool_use"]
    answered = [
        block["tool_use_id"]
        for message in body["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]
    return calls, answered


def validate_responses(record, where, previous):
    body = record["request"]
    check_keys(body, ResponseCreateParamsNonStreaming, where)
    checked = drain(RESPONSES_REQUEST.validate_python(body))
    assert len(checked["input"]) == len(body["input"]), where
    assert len(checked.get("tools", [])) == len(body.get("tools", [])), where
    assert body.get("store") is False, f"{where}: stateless requests say store: false"
    assert record["secret_headers_present"] == ["authorization"], where
    replayed = [item for item in body["input"] if item.get("type") == "function_call"]
    # Without `store`, an item id names nothing the server kept.
    assert all("id" not in item for item in replayed), f"{where}: {replayed}"
    if previous is not None:
        # Arguments that are JSON come back as the same value (written compactly), not
        # necessarily as the same text.
        def call(item):
            return (item["call_id"], item["name"], json.loads(item["arguments"]))

        sent = [call(item) for item in previous["output"] if item["type"] == "function_call"]
        back = [call(item) for item in replayed]
        assert back[-len(sent):] == sent if sent else True, f"{where}: calls replayed as {back}, sent {sent}"
    response = Response.model_validate(record["response"])
    calls = [item.call_id for item in response.output if item.type == "function_call"]
    answered = [item["call_id"] for item in body["input"] if item.get("type") == "function_call_output"]
    return calls, answered


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
    response = strict_genai(genai.GenerateContentResponse, record["response"], where)
    calls = [part.function_call.name for part in response.candidates[0].content.parts if part.function_call]
    last = body["contents"][-1]
    answered = [part["functionResponse"]["name"] for part in last["parts"] if "functionResponse" in part]
    return calls, answered


def api_of(path):
    if path.endswith("/chat/completions"):
        return "openai"
    if path.endswith("/responses"):
        return "responses"
    if path.endswith(":generateContent"):
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
            assert record["status"] in RETRYABLE, f"{where}: status {record['status']}: {record['response']}"
            following = records[index + 1] if index + 1 < len(records) else None
            assert following and following["request"] == record["request"], f"{where}: not retried"
            retried += 1
            continue
        if api == "openai":
            calls, answered = validate_openai(record, where)
        elif api == "anthropic":
            calls, answered = validate_anthropic(record, where)
        elif api == "responses":
            calls, answered = validate_responses(record, where, previous[api])
        else:
            calls, answered = validate_gemini(record, where, previous[api])
        previous[api] = record["response"]
        # The results of the previous turn's calls come back in call order.
        expected = pending[api]
        assert answered[-len(expected):] == expected if expected else True, (
            f"{where}: expected results for {expected}, found {answered}"
        )
        pending[api] = calls
        counts[api] += 1
    for api in APIS:
        if counts[api] < 2:
            raise SystemExit(f"expected a whole tool-calling run for {api}, saw {counts[api]} requests")
    if retried < len(APIS):
        raise SystemExit(f"expected a retried 529 or 503 for each adapter, saw {retried}")
    print(
        f"validated {sum(counts.values())} exchanges with the official SDK types: {dict(counts)}; "
        f"{retried} retryable errors were retried with the same request"
    )


if __name__ == "__main__":
    main()
