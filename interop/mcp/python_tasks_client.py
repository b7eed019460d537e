"""Drives the example MCP server's task tool with FastMCP's client and its tasks extension.

Usage: python python_tasks_client.py <server-binary> <conformance-fixture-binary>

`fastmcp-tasks` implements the client half of MCP's tasks extension (`io.modelcontextprotocol/tasks`,
SEP-2663) on the official Python SDK: it declares the extension on each request, and polls
`tasks/get` when a call is answered with a task. Over streamable HTTP, on protocol 2026-07-28:

- `import_rows` (task support "optional") called as a task: the call answers at once with a task
  id, `tasks/get` shows it working or completed, and its result is the tool's;
- the same tool called plainly through the same client: the extension resolves the task, and the
  caller gets the tool's result as from any call;
- a plain MCP SDK client (no extension) calling it gets the result directly, no task;
- the conformance fixture's `test_task_elicitation` (task support "required") asks the user a
  question from inside the task: the client sees `input_required`, its elicitation handler
  answers, the answer goes back with `tasks/update`, and the task completes with it.

Exits non-zero on the first failure.
"""

import asyncio
import os
import socket
import subprocess
import sys

import fastmcp_tasks  # noqa: F401 (registers the tasks extension on every FastMCP client)
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport
from fastmcp_tasks import call_tool_task

TOKEN = "tasks-token-93b2"


def check(condition: bool, message: str) -> None:
    if not condition:
        raise AssertionError(message)


def text_of(result) -> str:
    return "\n".join(block.text for block in result.content if getattr(block, "type", None) == "text")


async def main() -> None:
    binary = sys.argv[1]
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
        transport = StreamableHttpTransport(url, headers={"Authorization": f"Bearer {TOKEN}"})
        async with Client(transport) as client:
            tools = {tool.name: tool for tool in await client.list_tools()}
            meta = tools["import_rows"].meta or {}
            check(meta.get("execution", {}).get("taskSupport") == "optional",
                  f"import_rows does not say it may run as a task: {meta}")
            check(not (tools["calculator"].meta or {}).get("execution"), "calculator says it may run as a task")

            task = await call_tool_task(client, "import_rows", {"rows": 3})
            check(bool(task.task_id), "no task id")
            status = await task.status()
            check(status.status in ("working", "completed"), f"tasks/get gave {status.status}")
            result = await task.result()
            check(text_of(result) == "imported 3 rows", f"the task's result: {text_of(result)!r}")
            final = await task.status()
            check(final.status == "completed", f"the task ended {final.status}")
            print(f"fastmcp-tasks: import_rows as task {task.task_id}: {status.status} -> completed, "
                  f"result {text_of(result)!r}")

            result = await client.call_tool("import_rows", {"rows": 2})
            check(text_of(result) == "imported 2 rows", f"the resolved task's result: {text_of(result)!r}")
            print("fastmcp-tasks: import_rows through call_tool: the extension polled the task to its result")

        # The plain SDK client declares no extension: no task, the result itself.
        from mcp import Client as SdkClient
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import create_mcp_http_client

        http = streamable_http_client(url, http_client=create_mcp_http_client(
            headers={"Authorization": f"Bearer {TOKEN}"}))
        async with SdkClient(http) as client:
            result = await client.call_tool("import_rows", {"rows": 1})
            check(text_of(result) == "imported 1 rows", f"a plain client's result: {text_of(result)!r}")
        print("mcp sdk without the extension: import_rows answered with its result, no task")
    finally:
        process.terminate()
        process.wait(timeout=10)
    await question_in_a_task(sys.argv[2])


async def question_in_a_task(fixture: str) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen([fixture, f"127.0.0.1:{port}"], stderr=subprocess.PIPE, text=True)
    try:
        line = process.stderr.readline()
        check(line.startswith("conformance fixture: "), f"the fixture did not announce its endpoint: {line!r}")
        url = line.split()[2]
        asked = []

        async def on_elicit(message, response_type, params, context):
            asked.append(message)
            return {"username": "ada", "email": "ada@example.com"}

        async with Client(StreamableHttpTransport(url), elicitation_handler=on_elicit) as client:
            task = await call_tool_task(client, "test_task_elicitation", {"message": "Who are you?"})
            result = await task.result()
            text = text_of(result)
            check(asked == ["Who are you?"], f"the elicitation handler was asked {asked}")
            check("username: ada" in text and "email: ada@example.com" in text, f"the task's result: {text!r}")
            final = await task.status()
            check(final.status == "completed", f"the task ended {final.status}")
        print(f"fastmcp-tasks: a question from inside task {task.task_id} answered through tasks/update: {text!r}")
    finally:
        process.terminate()
        process.wait(timeout=10)


if __name__ == "__main__":
    asyncio.run(main())
