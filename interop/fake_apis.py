"""A local fake of the two APIs fakellm does not speak: OpenAI's Responses API
(`POST /v1/responses`, plain or with `stream: true`) and Gemini's
`POST /v1beta/models/{model}:generateContent` and `:streamGenerateContent?alt=sse`; and of the
two things fakellm does not do with Anthropic's messages API (`POST /v1/messages`): its native
tool search, and programmatic tool calling (a request with the code-execution tool gets a call
made by the model's code, with its caller and a container; the request with its result must
name that container, and gets the code's result and the answer). A Responses request with the
`programmatic_tool_calling` tool likewise gets a `program` item and a call whose caller is that
program.

Every reply is built from the official SDKs' own types (openai's `Response`, its reasoning items
and stream events; google-genai's `GenerateContentResponse`, one per streamed chunk) and
serialized the way each API writes JSON, so what our adapters read is what the SDKs would
accept. The script is the interop suite's:

- the first request each API receives is answered 503 with `Retry-After: 0` (the retry must
  resend the same body);
- a request without tool results calls tools: the calculator twice (6 * 7 and 2 + 3) when it is
  offered, otherwise every offered tool once with no arguments. Gemini's calls come without ids,
  as older models send them, the first one with a thought signature, after a thought summary;
- a request with tool results answers from them: "6 times 7 is 42, and 2 plus 3 is 5." for the
  calculator, "snapshot seen, failure noted" otherwise;
- a Responses request that asks for `include: ["reasoning.encrypted_content"]` (a reasoning
  model, stateless) gets a reasoning item with encrypted content before its calls, which the
  next request must send back unchanged (validate.py checks it);
- a request that offers a native tool search (Responses: a `tool_search` tool; Anthropic: the
  `tool_search_tool_bm25` tool) with deferred tools (`defer_loading: true`) first gets the
  provider's search for them (Responses: `tool_search_call` and `tool_search_output` with the
  loaded definitions; Anthropic: `server_tool_use` and `tool_search_tool_result` with
  `tool_reference`s), then the calls of the found tools in the same reply;
- a streamed request gets the same reply as events: for Responses `response.created`, each
  item's `output_item.added`, its text or argument deltas and `output_item.done`, then
  `response.completed`; for Gemini one chunk per part (text in two pieces), the last with the
  finish reason.

Requests are checked by validate.py (through capture_proxy.py), not here.

Usage: fake_apis.py LISTEN_PORT
"""

import base64
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from google.genai import types as genai
from openai.types.responses import (
    Response,
    ResponseCompletedEvent,
    ResponseCreatedEvent,
    ResponseFunctionCallArgumentsDeltaEvent,
    ResponseFunctionCallArgumentsDoneEvent,
    ResponseFunctionToolCall,
    ResponseOutputItemAddedEvent,
    ResponseOutputItemDoneEvent,
    ResponseOutputMessage,
    ResponseOutputText,
    ResponseReasoningItem,
    ResponseTextDeltaEvent,
    ResponseToolSearchCall,
    ResponseToolSearchOutputItem,
    ResponseUsage,
)
from openai.types.responses import FunctionTool
from anthropic.types import (
    CodeExecutionResultBlock,
    CodeExecutionToolResultBlock,
    Container,
    Message,
    ServerToolCaller,
    ServerToolCaller20260120,
    ServerToolUseBlock,
    TextBlock,
    ToolReferenceBlock,
    ToolSearchToolResultBlock,
    ToolSearchToolSearchResultBlock,
    ToolUseBlock,
    Usage,
)
from openai.types.responses.response_function_tool_call import CallerProgram
from openai.types.responses.response_output_item import Program
from openai.types.responses.response_reasoning_item import Summary
from openai.types.responses.response_usage import InputTokensDetails, OutputTokensDetails

LISTEN_PORT = int(sys.argv[1])
# An opaque signature, as Gemini 3 attaches to a step's first function call.
THOUGHT_SIGNATURE = b"phi-agent interop thought signature \x00\x01\x02"
CALCULATOR_CALLS = [
    {"a": 6, "b": 7, "op": "multiply"},
    {"a": 2, "b": 3, "op": "add"},
]
LOCK = threading.Lock()
FAILED_ONCE = set()
REASONING_COUNTER = [0]


def first_time(api):
    with LOCK:
        if api in FAILED_ONCE:
            return False
        FAILED_ONCE.add(api)
        return True


def answer_from(results):
    """The final answer, from the tool results in call order."""
    if any("screen captured" in result for result in results):
        return "snapshot seen, failure noted"
    if len(results) >= 2:
        return f"6 times 7 is {results[0]}, and 2 plus 3 is {results[1]}."
    return "done: " + "; ".join(results)


def deferred(tools):
    """The deferred tools of a request's `tools` (those with `defer_loading: true`)."""
    return [tool for tool in tools if tool.get("defer_loading") is True]


def planned_calls(tool_names):
    if "calculator" in tool_names:
        return [("calculator", args) for args in CALCULATOR_CALLS]
    return [(name, {}) for name in tool_names]


def reasoning_item():
    """A reasoning item as a stateless reasoning model returns it: opaque encrypted content."""
    with LOCK:
        REASONING_COUNTER[0] += 1
        number = REASONING_COUNTER[0]
    opaque = base64.b64encode(f"phi-agent interop reasoning {number} \x00\x01".encode() * 4).decode()
    return ResponseReasoningItem(
        id=f"rs_interop_{number}",
        type="reasoning",
        summary=[Summary(type="summary_text", text="The user wants arithmetic; call the calculator.")],
        encrypted_content=opaque,
    )


def responses_reply(body):
    """The reply as openai's `Response` model."""
    outputs = [item["output"] for item in body["input"] if item.get("type") == "function_call_output"]
    reasoning = "reasoning.encrypted_content" in (body.get("include") or [])
    usage = ResponseUsage(
        input_tokens=20,
        input_tokens_details=InputTokensDetails(cached_tokens=0, cache_write_tokens=0),
        output_tokens=10,
        output_tokens_details=OutputTokensDetails(reasoning_tokens=4 if reasoning else 0),
        total_tokens=30,
    )
    output = [reasoning_item()] if reasoning else []
    if outputs:
        texts = [output if isinstance(output, str) else json.dumps(output) for output in outputs]
        output.append(
            ResponseOutputMessage(
                id="msg_interop_2",
                type="message",
                role="assistant",
                status="completed",
                content=[ResponseOutputText(type="output_text", text=answer_from(texts), annotations=[])],
            )
        )
    else:
        tools = body.get("tools", [])
        if any(tool.get("type") == "tool_search" for tool in tools):
            # The search loads the deferred tools, whose calls follow.
            loaded = deferred(tools)
            output += [
                ResponseToolSearchCall(
                    type="tool_search_call",
                    id="tsc_interop_1",
                    call_id=None,
                    arguments={"query": "arithmetic calculator"},
                    execution="server",
                    status="completed",
                ),
                ResponseToolSearchOutputItem(
                    type="tool_search_output",
                    id="tso_interop_1",
                    call_id=None,
                    execution="server",
                    status="completed",
                    tools=[FunctionTool.model_validate(tool) for tool in loaded],
                ),
            ]
            names = [tool["name"] for tool in loaded]
        else:
            names = [tool["name"] for tool in tools if tool.get("type") == "function"]
        program = any(tool.get("type") == "programmatic_tool_calling" for tool in tools)
        if program:
            # The model's program calls the tools code may call.
            names = [
                tool["name"] for tool in tools
                if tool.get("type") == "function" and "programmatic" in (tool.get("allowed_callers") or [])
            ]
            output.append(
                Program(type="program", id="prog_interop_1", call_id="pc_interop_1",
                        code="; ".join(f"await {name}()" for name in names), fingerprint="fp-interop")
            )
        output += [
            ResponseFunctionToolCall(
                type="function_call",
                id=f"fc_interop_{index}",
                call_id=f"call_interop_{index}",
                name=name,
                arguments=json.dumps(args),
                status="completed",
                caller=CallerProgram(type="program", caller_id="pc_interop_1") if program else None,
            )
            for index, (name, args) in enumerate(planned_calls(names))
        ]
    return Response(
        id=f"resp_interop_{int(time.time() * 1000)}",
        object="response",
        created_at=time.time(),
        model=body["model"],
        output=output,
        parallel_tool_calls=True,
        tool_choice="auto",
        tools=[],
        status="completed",
        usage=usage,
    )


def wire(model):
    """The API's JSON: wire names (`async`, not `async_`), unset fields as null, except in the
    items that go back as they came (reasoning and tool search items, loaded tools), written
    without them."""
    return tidy(model.model_dump(mode="json", by_alias=True))


def tidy(value):
    if isinstance(value, list):
        return [tidy(item) for item in value]
    if isinstance(value, dict):
        bare = value.get("type") in ("reasoning", "tool_search_call", "tool_search_output", "function")
        return {key: tidy(item) for key, item in value.items() if not (bare and item is None)}
    return value


def halves(text):
    return [text[: len(text) // 2], text[len(text) // 2 :]]


def responses_events(response):
    """`response` as the API streams it, every event one of the SDK's event types."""
    events = []

    def emit(event_type, **fields):
        events.append(event_type(sequence_number=len(events), **fields))

    opening = response.model_copy(update={"status": "in_progress", "output": [], "usage": None})
    emit(ResponseCreatedEvent, type="response.created", response=opening)
    for index, item in enumerate(response.output):
        if item.type == "reasoning":
            # The encrypted content is whole only in the item's `done` event.
            started = item.model_copy(update={"encrypted_content": None, "status": "in_progress"})
        elif item.type == "message":
            started = item.model_copy(update={"content": [], "status": "in_progress"})
        else:
            started = item.model_copy(update={"arguments": "", "status": "in_progress"})
        emit(ResponseOutputItemAddedEvent, type="response.output_item.added", output_index=index, item=started)
        if item.type == "message":
            for piece in halves(item.content[0].text):
                emit(
                    ResponseTextDeltaEvent,
                    type="response.output_text.delta",
                    item_id=item.id,
                    output_index=index,
                    content_index=0,
                    delta=piece,
                    logprobs=[],
                )
        elif item.type == "function_call":
            for piece in halves(item.arguments):
                emit(
                    ResponseFunctionCallArgumentsDeltaEvent,
                    type="response.function_call_arguments.delta",
                    item_id=item.id,
                    output_index=index,
                    delta=piece,
                )
            emit(
                ResponseFunctionCallArgumentsDoneEvent,
                type="response.function_call_arguments.done",
                item_id=item.id,
                output_index=index,
                arguments=item.arguments,
            )
        emit(ResponseOutputItemDoneEvent, type="response.output_item.done", output_index=index, item=item)
    emit(ResponseCompletedEvent, type="response.completed", response=response)
    return [(event.type, wire(event)) for event in events]


def gemini_reply(body):
    results = [
        part["functionResponse"]
        for content in body["contents"]
        for part in content["parts"]
        if "functionResponse" in part
    ]
    usage = genai.GenerateContentResponseUsageMetadata(
        prompt_token_count=20, candidates_token_count=10, thoughts_token_count=4, total_token_count=34
    )
    if results:
        texts = [
            str(result["response"].get("output", result["response"].get("error", "")))
            for result in results
        ]
        parts = [genai.Part(text=answer_from(texts))]
    else:
        names = [
            declaration["name"]
            for tool in body.get("tools", [])
            for declaration in tool.get("functionDeclarations", [])
        ]
        parts = [genai.Part(text="The user wants tool calls.", thought=True)]
        for index, (name, args) in enumerate(planned_calls(names)):
            parts.append(
                genai.Part(
                    function_call=genai.FunctionCall(name=name, args=args),
                    thought_signature=THOUGHT_SIGNATURE if index == 0 else None,
                )
            )
    return genai.GenerateContentResponse(
        candidates=[
            genai.Candidate(
                content=genai.Content(role="model", parts=parts),
                finish_reason=genai.FinishReason.STOP,
                index=0,
            )
        ],
        usage_metadata=usage,
        model_version="gemini-interop",
    )


def gemini_wire(response):
    """The API's JSON: camelCase names, bytes in base64, unset fields left out."""
    return json.loads(response.model_dump_json(by_alias=True, exclude_none=True))


def gemini_chunks(response):
    """`response` as `streamGenerateContent?alt=sse` sends it: a chunk per part (text in two),
    each a `GenerateContentResponse`; the finish reason and the whole usage on the last."""
    candidate = response.candidates[0]
    pieces = []
    for part in candidate.content.parts:
        if part.text and not part.thought:
            pieces += [genai.Part(text=text) for text in halves(part.text)]
        else:
            pieces.append(part)
    chunks = []
    for number, part in enumerate(pieces):
        last = number == len(pieces) - 1
        chunks.append(
            genai.GenerateContentResponse(
                candidates=[
                    genai.Candidate(
                        content=genai.Content(role="model", parts=[part]),
                        finish_reason=candidate.finish_reason if last else None,
                        index=0,
                    )
                ],
                usage_metadata=response.usage_metadata
                if last
                else genai.GenerateContentResponseUsageMetadata(prompt_token_count=20),
                model_version=response.model_version,
            )
        )
    return [(None, gemini_wire(chunk)) for chunk in chunks]


CONTAINER = "container_interop_1"


# The SDK's caller model of each code-execution version that has one.
CALLERS = {
    "code_execution_20250825": ServerToolCaller,
    "code_execution_20260120": ServerToolCaller20260120,
}


def anthropic_code_reply(body):
    """A messages reply for programmatic tool calling: the model's code calls each tool it may
    call from code; with the results (in the container it ran in), the code's output and the
    answer. `None` when the request does not carry the container back."""
    results = [
        block["content"] if isinstance(block["content"], str) else block["content"][0]["text"]
        for message in body["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]
    container = Container(id=CONTAINER, expires_at="2030-01-01T00:00:00Z")
    if results:
        if body.get("container") != CONTAINER:
            return None
        content = [
            CodeExecutionToolResultBlock(
                type="code_execution_tool_result",
                tool_use_id="srvtoolu_code_1",
                content=CodeExecutionResultBlock(
                    type="code_execution_result", stdout="\n".join(results), stderr="",
                    return_code=0, content=[],
                ),
            ),
            TextBlock(type="text", text=answer_from(results)),
        ]
        stop = "end_turn"
    else:
        # The code-execution version the request names, as the API answers with it.
        version = next(
            tool["type"] for tool in body.get("tools", []) if tool.get("type", "").startswith("code_execution_")
        )
        names = [
            tool["name"] for tool in body.get("tools", [])
            if version in tool.get("allowed_callers", [])
        ]
        content = [
            ServerToolUseBlock(
                type="server_tool_use", id="srvtoolu_code_1", name="code_execution",
                input={"code": "; ".join(f"{name}()" for name in names)},
            ),
        ] + [
            ToolUseBlock(
                type="tool_use", id=f"toolu_code_{index}", name=name, input=args,
                caller=CALLERS[version](type=version, tool_id="srvtoolu_code_1"),
            )
            for index, (name, args) in enumerate(planned_calls(names))
        ]
        stop = "tool_use"
    return Message(
        id=f"msg_interop_{int(time.time() * 1000)}",
        type="message",
        role="assistant",
        model=body["model"],
        content=content,
        stop_reason=stop,
        usage=Usage(input_tokens=30, output_tokens=12),
        container=container,
    )


def anthropic_search_reply(body):
    """A messages reply as anthropic's `Message` model: the native search finds the deferred
    tools and calls them; with tool results, the answer."""
    results = [
        block["content"] if isinstance(block["content"], str) else block["content"][0]["text"]
        for message in body["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]
    usage = Usage(input_tokens=30, output_tokens=12)
    if results:
        content = [TextBlock(type="text", text=answer_from(results))]
        stop = "end_turn"
    else:
        names = [tool["name"] for tool in deferred(body.get("tools", []))]
        content = [
            ServerToolUseBlock(
                type="server_tool_use",
                id="srvtoolu_interop_1",
                name="tool_search_tool_bm25",
                input={"query": "arithmetic calculator"},
            ),
            ToolSearchToolResultBlock(
                type="tool_search_tool_result",
                tool_use_id="srvtoolu_interop_1",
                content=ToolSearchToolSearchResultBlock(
                    type="tool_search_tool_search_result",
                    tool_references=[ToolReferenceBlock(type="tool_reference", tool_name=name) for name in names],
                ),
            ),
        ] + [
            ToolUseBlock(type="tool_use", id=f"toolu_interop_{index}", name=name, input=args)
            for index, (name, args) in enumerate(planned_calls(names))
        ]
        stop = "tool_use"
    return Message(
        id=f"msg_interop_{int(time.time() * 1000)}",
        type="message",
        role="assistant",
        model=body["model"],
        content=content,
        stop_reason=stop,
        usage=usage,
    )


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):  # noqa: N802 (the stdlib's naming)
        length = int(self.headers.get("content-length", "0"))
        body = json.loads(self.rfile.read(length))
        path = self.path
        if path == "/v1/responses":
            api, streamed = "responses", body.get("stream") is True
            reply = responses_reply(body)
            plain, events = wire, responses_events
            overloaded = {"error": {"message": "The server is overloaded.", "type": "server_error"}}
        elif path.startswith("/v1beta/models/") and (
            path.endswith(":generateContent") or path.endswith(":streamGenerateContent?alt=sse")
        ):
            api, streamed = "gemini", path.endswith("?alt=sse")
            reply = gemini_reply(body)
            plain, events = gemini_wire, gemini_chunks
            overloaded = {"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}}
        elif path == "/v1/messages":
            # Only the tool search and code execution scenarios come here (fakellm serves the rest).
            if any(tool.get("type", "").startswith("code_execution_") for tool in body.get("tools", [])):
                reply = anthropic_code_reply(body)
                if reply is None:
                    error = {"type": "error", "error": {"type": "invalid_request_error",
                                                        "message": "container missing"}}
                    return self.send(400, error)
                return self.send(200, reply.model_dump(mode="json", exclude_none=True))
            return self.send(200, anthropic_search_reply(body).model_dump(mode="json", exclude_none=True))
        else:
            return self.send(404, {"error": {"message": f"no route for {path}"}})
        # The first request of each API and mode is answered 503 (retried by the adapter).
        if first_time(api + (" streamed" if streamed else "")):
            return self.send(503, overloaded, {"retry-after": "0"})
        if streamed:
            return self.send_events(events(reply))
        self.send(200, plain(reply))

    def send(self, status, payload, headers=None):
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def send_events(self, events):
        """Server-sent events, `event:` named when the API names them (Responses), then closes."""
        data = b"".join(
            ((f"event: {name}\n" if name else "") + f"data: {json.dumps(payload)}\n\n").encode()
            for name, payload in events
        )
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


ThreadingHTTPServer(("127.0.0.1", LISTEN_PORT), Handler).serve_forever()
