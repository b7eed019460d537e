"""The official SDKs' own stream accumulators, fed the bytes of a captured streamed answer.

Each SDK reads a stream the way its client does: its SSE decoder (`openai._streaming.SSEDecoder`,
`anthropic._streaming.SSEDecoder`), fed the body in small pieces as a network would cut it, then
its accumulator: openai's `ChatCompletionStreamState.handle_chunk` (what `client.chat.completions
.stream()` uses) and anthropic's `accumulate_event` (what `MessageStream` uses). The message each
assembles is reduced to what our adapter's assembled reply is compared on: the text (the text
blocks joined) and the tool calls in order, each its name and parsed arguments (an empty
arguments string is `{}`, as our adapter reads it).
"""

import json

from anthropic._streaming import SSEDecoder as AnthropicDecoder
from anthropic.lib.streaming._messages import accumulate_event
from anthropic.types import RawMessageStreamEvent
from openai._streaming import SSEDecoder as OpenAiDecoder
from openai.lib.streaming.chat import ChatCompletionStreamState
from openai.types.chat import ChatCompletionChunk
from pydantic import TypeAdapter

ANTHROPIC_EVENT = TypeAdapter(RawMessageStreamEvent)
# Bytes per piece handed to a decoder: small, so events and lines are cut across pieces.
PIECE = 7


def pieces(raw):
    data = raw.encode("utf-8")
    return iter([data[at:at + PIECE] for at in range(0, len(data), PIECE)])


def openai_message(raw):
    """What openai's ChatCompletionStreamState assembles from a chat completion stream."""
    state = ChatCompletionStreamState()
    done = False
    for sse in OpenAiDecoder().iter_bytes(pieces(raw)):
        if sse.data.startswith("[DONE]"):
            done = True
            break
        state.handle_chunk(ChatCompletionChunk.model_validate(json.loads(sse.data)))
    assert done, "the stream has no [DONE]"
    message = state.get_final_completion().choices[0].message
    calls = [
        {"name": call.function.name, "arguments": json.loads(call.function.arguments or "{}")}
        for call in message.tool_calls or []
    ]
    return {"text": message.content or "", "calls": calls}


def anthropic_message(raw):
    """What anthropic's accumulate_event assembles from a messages stream."""
    snapshot, json_bufs = None, {}
    for sse in AnthropicDecoder().iter_bytes(pieces(raw)):
        # As the SDK's Stream does: `ping` is skipped, `error` raised.
        if sse.event == "ping":
            continue
        assert sse.event != "error", f"an error event: {sse.data}"
        event = ANTHROPIC_EVENT.validate_python(json.loads(sse.data))
        snapshot = accumulate_event(event=event, current_snapshot=snapshot, json_bufs=json_bufs)
    assert snapshot is not None, "the stream has no message_start"
    text = "".join(block.text for block in snapshot.content if block.type == "text")
    calls = [
        {"name": block.name, "arguments": block.input}
        for block in snapshot.content
        if block.type == "tool_use"
    ]
    return {"text": text, "calls": calls}


ASSEMBLERS = {"openai": openai_message, "anthropic": anthropic_message}


def check(records, assembled):
    """Compares, per API and in order, what the SDK assembles from each streamed answer of
    `records` (captured exchanges with `response_sse`) with what our adapter assembled from it
    (`assembled`: JSON lines `{"api", "text", "calls"}`). Returns the count per API."""
    ours = {api: [line for line in assembled if line["api"] == api] for api in ASSEMBLERS}
    counts = {api: 0 for api in ASSEMBLERS}
    for index, record in enumerate(records):
        if record["status"] != 200 or "response_sse" not in record:
            continue
        path = record["path"]
        if path.endswith("/chat/completions"):
            api = "openai"
        elif path.endswith("/messages"):
            api = "anthropic"
        else:
            # The Responses and Gemini streams are checked event by event by validate.py;
            # fakellm's two wire formats are the ones compared with an SDK's accumulator here.
            continue
        where = f"streamed exchange {index + 1} ({api})"
        sdk = ASSEMBLERS[api](record["response_sse"])
        assert counts[api] < len(ours[api]), f"{where}: our adapter recorded no reply for it"
        mine = ours[api][counts[api]]
        assert sdk["text"] == mine["text"], f"{where}: text {sdk['text']!r} (SDK) != {mine['text']!r} (ours)"
        assert sdk["calls"] == mine["calls"], f"{where}: calls {sdk['calls']} (SDK) != {mine['calls']} (ours)"
        counts[api] += 1
    for api in ASSEMBLERS:
        assert counts[api] == len(ours[api]), (
            f"{api}: our adapter assembled {len(ours[api])} replies, the capture streamed {counts[api]}"
        )
    return counts
