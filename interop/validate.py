"""Validates every captured exchange with the official SDKs' own types.

Requests: openai's CompletionCreateParamsNonStreaming and anthropic's
MessageCreateParamsNonStreaming (TypedDicts validated by pydantic; their `Iterable` fields are
validated lazily, so every iterator is drained here). Responses: openai's ChatCompletion and
anthropic's Message. Then the conversation itself: every tool call the server returned is answered,
in call order, in the next request.

Usage: validate.py CAPTURE_FILE
"""

import collections.abc
import json
import sys
import typing

from anthropic.types import Message
from anthropic.types.message_create_params import MessageCreateParamsNonStreaming
from openai.types.chat import ChatCompletion
from openai.types.chat.completion_create_params import CompletionCreateParamsNonStreaming
from pydantic import TypeAdapter

OPENAI_REQUEST = TypeAdapter(CompletionCreateParamsNonStreaming)
ANTHROPIC_REQUEST = TypeAdapter(MessageCreateParamsNonStreaming)
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


def main():
    records = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
    if not records:
        raise SystemExit("no exchanges were captured")
    pending = {"openai": [], "anthropic": []}
    counts = collections.Counter()
    retried = 0
    for index, record in enumerate(records):
        api = "openai" if record["path"].endswith("/chat/completions") else "anthropic"
        where = f"exchange {index + 1} ({api} {record['path']})"
        if record["status"] != 200:
            # Only a retryable status is expected, and the next exchange must be the same request.
            assert record["status"] in RETRYABLE, f"{where}: status {record['status']}: {record['response']}"
            following = records[index + 1] if index + 1 < len(records) else None
            assert following and following["request"] == record["request"], f"{where}: not retried"
            retried += 1
            continue
        validate = validate_openai if api == "openai" else validate_anthropic
        calls, answered = validate(record, where)
        # The results of the previous turn's calls come back in call order.
        expected = pending[api]
        assert answered[-len(expected):] == expected if expected else True, (
            f"{where}: expected results for {expected}, found {answered}"
        )
        pending[api] = calls
        counts[api] += 1
    for api in ("openai", "anthropic"):
        if counts[api] < 2:
            raise SystemExit(f"expected a whole tool-calling run for {api}, saw {counts[api]} requests")
    if retried < 2:
        raise SystemExit(f"expected a retried 529 for each adapter, saw {retried}")
    print(
        f"validated {sum(counts.values())} exchanges with the official SDK types: {dict(counts)}; "
        f"{retried} retryable errors were retried with the same request"
    )


if __name__ == "__main__":
    main()
