"""Drives the example MCP server with the official MCP Python SDK.

Usage: python python_sdk_client.py <server-binary>

Runs the same checks in the SDK's `auto` mode (server/discover, falling back to the initialize
handshake) and in its `legacy` mode (initialize handshake), over stdio and over streamable HTTP
with a bearer token. Exits non-zero on the first failure.
"""

import asyncio
import json
import logging
import os
import subprocess
import sys

from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

TOKEN = "interop-token-5d1c"

EXPECTED_TOOLS = ["calculator", "get_weather", "import_rows"]


def text_of(result) -> str:
    return "\n".join(block.text for block in result.content if getattr(block, "type", None) == "text")


def check(condition: bool, message: str) -> None:
    if not condition:
        raise AssertionError(message)


async def run(server, transport: str, mode: str) -> None:
    events = []

    async def on_log(params) -> None:
        events.append(("log", params.data))

    # On 2026-07-28 a request opts in to log messages with `log_level`; earlier protocols use the
    # session's level (info by default on our server).
    async with Client(server, mode=mode, logging_callback=on_log, log_level="info") as client:
        version = client.protocol_version
        listed = await client.list_tools()
        names = [tool.name for tool in listed.tools]
        check(names == EXPECTED_TOOLS, f"tools/list gave {names}, expected {EXPECTED_TOOLS} (the hidden tool must not be listed)")

        calculator = listed.tools[0]
        schema = calculator.input_schema
        check(schema.get("type") == "object", f"calculator schema has no object root: {schema}")
        check(set(schema.get("required", [])) == {"a", "b", "op"}, f"calculator schema requires {schema.get('required')}")
        check(calculator.annotations is not None and calculator.annotations.read_only_hint is True,
              f"calculator annotations: {calculator.annotations}")
        weather = listed.tools[1]
        check(weather.output_schema is not None and weather.output_schema.get("type") == "object",
              f"get_weather output schema: {weather.output_schema}")

        result = await client.call_tool("calculator", {"a": 6, "b": 7, "op": "multiply"})
        check(not result.is_error, f"valid calculator call failed: {text_of(result)}")
        check(float(text_of(result)) == 42.0, f"6 * 7 gave {text_of(result)!r}")

        result = await client.call_tool("get_weather", {"city": "Beijing"})
        check(not result.is_error, f"valid get_weather call failed: {text_of(result)}")
        check(result.structured_content == {"city": "Beijing", "temperature_c": 21.0, "conditions": "sunny"},
              f"structuredContent: {result.structured_content}")
        check(json.loads(text_of(result)) == result.structured_content, "the text does not repeat the structured content")

        result = await client.call_tool("calculator", {"a": 1, "op": "power"})
        message = text_of(result)
        check(result.is_error is True, f"invalid arguments did not give isError: {message}")
        check("invalid arguments for tool `calculator`" in message and "op" in message,
              f"the invalid-arguments message does not say what is wrong: {message!r}")

        result = await client.call_tool("calculator", {"a": 1, "b": 0, "op": "divide"})
        check(result.is_error is True and "division by zero" in text_of(result), f"tool failure: {text_of(result)}")

        result = await client.call_tool("audit_log", {"limit": 3})
        message = text_of(result)
        check(result.is_error is True, f"the hidden tool was callable: {message}")
        check(message.startswith("tool `audit_log` is not available"), f"hidden tool refusal: {message!r}")
        check("calculator, get_weather" in message, f"refusal does not list the available tools: {message!r}")

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            events.append(("progress", (progress, total, message)))

        result = await client.call_tool("import_rows", {"rows": 3}, progress_callback=on_progress)
        check(not result.is_error and text_of(result) == "imported 3 rows", f"import_rows: {text_of(result)}")
        await asyncio.sleep(0.3)  # over HTTP, log messages may ride another stream than the result
        progress = [event for kind, event in events if kind == "progress"]
        logs = [event for kind, event in events if kind == "log"]
        check(progress == [(1.0, 3.0, "1 of 3 rows"), (2.0, 3.0, "2 of 3 rows"), (3.0, 3.0, "3 of 3 rows")],
              f"progress reports: {progress}")
        check(logs == ["row 1 imported", "row 2 imported", "row 3 imported"], f"log messages: {logs}")
        if transport == "stdio":
            # One pipe: the client hears everything in the order the tool said it.
            expected = [kind for _ in range(3) for kind in ("log", "progress")]
            check([kind for kind, _ in events] == expected, f"progress and logs out of order: {events}")
        print(f"python-sdk {transport} mode={mode} protocol={version}: ok ({len(names)} tools, 6 calls, "
              f"{len(progress)} progress reports and {len(logs)} log messages in order)")


def http_server(url: str, token: str | None):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return streamable_http_client(url, http_client=create_mcp_http_client(headers=headers))


class Warnings(logging.Handler):
    """Collects what the SDK logs at warning level and above (e.g. a refused session DELETE)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


async def main() -> None:
    binary = sys.argv[1]
    warnings = Warnings()
    logging.getLogger().addHandler(warnings)
    for mode in ("auto", "legacy"):
        await run(StdioServerParameters(command=binary, args=[]), "stdio", mode)

    process = subprocess.Popen(
        [binary, "--http", "127.0.0.1:0"],
        env={**os.environ, "PHI_MCP_TOKEN": TOKEN},
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = process.stderr.readline()
        check(line.startswith("MCP endpoint: "), f"the HTTP server did not announce its endpoint: {line!r}")
        url = line.split()[2]
        for mode in ("auto", "legacy"):
            await run(http_server(url, TOKEN), "http", mode)
        try:
            async with Client(http_server(url, None), mode="legacy") as client:
                await client.list_tools()
        except Exception as error:  # the SDK reports the 401 as an error response, in a group
            check("Server returned an error response" in repr(error), f"unexpected failure: {error!r}")
        else:
            raise AssertionError("the HTTP server accepted a client without the token")
        async with create_mcp_http_client() as http:
            response = await http.post(url, json={}, headers={"Accept": "application/json, text/event-stream"})
            check(response.status_code == 401, f"a request without the token got {response.status_code}")
        print("python-sdk http without token: refused with 401")
        terminations = [message for message in warnings.messages if "termination" in message.lower()]
        check(not terminations, f"the SDK could not end its HTTP sessions: {terminations}")
        print("python-sdk http sessions ended with DELETE: no SDK warning")
    finally:
        process.terminate()
        process.wait(timeout=10)


if __name__ == "__main__":
    asyncio.run(main())
