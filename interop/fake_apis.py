"""A local fake of the two APIs fakellm does not speak: OpenAI's Responses API
(`POST /v1/responses`) and Gemini's `POST /v1beta/models/{model}:generateContent`.

Every reply is built from the official SDKs' own types (openai's `Response`, google-genai's
`GenerateContentResponse`) and serialized the way each API writes JSON, so what our adapters read
is what the SDKs would accept. The script is the interop suite's:

- the first request each API receives is answered 503 with `Retry-After: 0` (the retry must
  resend the same body);
- a request without tool results calls tools: the calculator twice (6 * 7 and 2 + 3) when it is
  offered, otherwise every offered tool once with no arguments. Gemini's calls come without ids,
  as older models send them, the first one with a thought signature, after a thought summary;
- a request with tool results answers from them: "6 times 7 is 42, and 2 plus 3 is 5." for the
  calculator, "snapshot seen, failure noted" otherwise.

Requests are checked by validate.py (through capture_proxy.py), not here.

Usage: fake_apis.py LISTEN_PORT
"""

import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from google.genai import types as genai
from openai.types.responses import (
    Response,
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
    ResponseUsage,
)
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


def planned_calls(tool_names):
    if "calculator" in tool_names:
        return [("calculator", args) for args in CALCULATOR_CALLS]
    return [(name, {}) for name in tool_names]


def responses_reply(body):
    outputs = [item["output"] for item in body["input"] if item.get("type") == "function_call_output"]
    usage = ResponseUsage(
        input_tokens=20,
        input_tokens_details=InputTokensDetails(cached_tokens=0, cache_write_tokens=0),
        output_tokens=10,
        output_tokens_details=OutputTokensDetails(reasoning_tokens=0),
        total_tokens=30,
    )
    if outputs:
        texts = [output if isinstance(output, str) else json.dumps(output) for output in outputs]
        output = [
            ResponseOutputMessage(
                id="msg_interop_2",
                type="message",
                role="assistant",
                status="completed",
                content=[ResponseOutputText(type="output_text", text=answer_from(texts), annotations=[])],
            )
        ]
    else:
        names = [tool["name"] for tool in body.get("tools", [])]
        output = [
            ResponseFunctionToolCall(
                type="function_call",
                id=f"fc_interop_{index}",
                call_id=f"call_interop_{index}",
                name=name,
                arguments=json.dumps(args),
                status="completed",
            )
            for index, (name, args) in enumerate(planned_calls(names))
        ]
    response = Response(
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
    # The API's JSON: wire names (`async`, not `async_`), unset fields as null.
    return response.model_dump(mode="json", by_alias=True)


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
    response = genai.GenerateContentResponse(
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
    # The API's JSON: camelCase names, bytes in base64, unset fields left out.
    return json.loads(response.model_dump_json(by_alias=True, exclude_none=True))


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):  # noqa: N802 (the stdlib's naming)
        length = int(self.headers.get("content-length", "0"))
        body = json.loads(self.rfile.read(length))
        if self.path == "/v1/responses":
            api, reply = "responses", responses_reply
            overloaded = {"error": {"message": "The server is overloaded.", "type": "server_error"}}
        elif self.path.startswith("/v1beta/models/") and self.path.endswith(":generateContent"):
            api, reply = "gemini", gemini_reply
            overloaded = {"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}}
        else:
            return self.send(404, {"error": {"message": f"no route for {self.path}"}})
        if first_time(api):
            return self.send(503, overloaded, {"retry-after": "0"})
        self.send(200, reply(body))

    def send(self, status, payload, headers=None):
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


ThreadingHTTPServer(("127.0.0.1", LISTEN_PORT), Handler).serve_forever()
