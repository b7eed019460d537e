"""A tool that needs a person's approval, served over MCP, approved by the official MCP Python SDK.

Usage: python python_approval_client.py <conformance-fixture-binary>

The fixture's `test_approval` needs approval for every call. Over streamable HTTP, in the SDK's
`auto` mode (2026-07-28: the question is an input request of the call's `input_required`
result, which the SDK answers and resends) and its `legacy` mode (2025-11-25: an
`elicitation/create` request to the client), the SDK's elicitation callback sees the call's
arguments in the question and answers the form: approved, the tool runs; denied, it does not,
and the model reads why. A client with no elicitation callback (so no elicitation capability) is
refused with a result that says what would let the call run. Exits non-zero on the first failure.
"""

import asyncio
import socket
import subprocess
import sys

from mcp import Client, types
from mcp.client.streamable_http import streamable_http_client


def text_of(result) -> str:
    return "\n".join(block.text for block in result.content if getattr(block, "type", None) == "text")


def check(condition: bool, message: str) -> None:
    if not condition:
        raise AssertionError(message)


async def approve(url: str, mode: str) -> None:
    asked = []
    answers = iter([
        types.ElicitResult(action="accept", content={"approve": True}),
        types.ElicitResult(action="accept", content={"approve": False, "reason": "keep that file"}),
        types.ElicitResult(action="decline"),
    ])

    async def on_elicit(context, params):
        asked.append((params.message, params.requested_schema))
        return next(answers)

    async with Client(streamable_http_client(url), mode=mode, elicitation_callback=on_elicit) as client:
        version = client.protocol_version
        approved = await client.call_tool("test_approval", {"path": "/tmp/notes.txt"})
        check(not approved.is_error and text_of(approved) == "deleted /tmp/notes.txt",
              f"the approved call: {text_of(approved)!r}")
        message, schema = asked[0]
        check("test_approval" in message and "/tmp/notes.txt" in message,
              f"the question does not show the call's arguments: {message!r}")
        check(schema["properties"]["approve"]["type"] == "boolean", f"the form: {schema}")
        denied = await client.call_tool("test_approval", {"path": "/etc/passwd"})
        check(denied.is_error is True and "keep that file" in text_of(denied),
              f"the denied call: {text_of(denied)!r}")
        declined = await client.call_tool("test_approval", {"path": "/etc/hosts"})
        check(declined.is_error is True and "declined" in text_of(declined),
              f"the declined call: {text_of(declined)!r}")
        check(len(asked) == 3, f"the user was asked {len(asked)} times")
    print(f"python-sdk approval mode={mode} protocol={version}: approved ran, denied and declined did not")


async def cannot_ask(url: str, mode: str) -> None:
    async with Client(streamable_http_client(url), mode=mode) as client:
        refused = await client.call_tool("test_approval", {"path": "/tmp/notes.txt"})
        text = text_of(refused)
        check(refused.is_error is True and "declared no elicitation capability" in text,
              f"a client that cannot ask its user: {text!r}")
    print(f"python-sdk approval mode={mode}, no elicitation: refused, saying why")


async def main() -> None:
    fixture = sys.argv[1]
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen([fixture, f"127.0.0.1:{port}"], stderr=subprocess.PIPE, text=True)
    try:
        line = process.stderr.readline()
        check(line.startswith("conformance fixture: "), f"the fixture did not announce its endpoint: {line!r}")
        url = line.split()[2]
        for mode in ("auto", "legacy"):
            await approve(url, mode)
            await cannot_ask(url, mode)
    finally:
        process.terminate()
        process.wait(timeout=10)


if __name__ == "__main__":
    asyncio.run(main())
