"""Sends N `tools/call` requests, one after another on one keep-alive connection, and checks each
answer: the driver of the per-request instruction counts (a server under
`valgrind --tool=callgrind`, where wrk's timing would only measure valgrind).

Usage: python3 send-calls.py PORT TOOL N [--stateful]   (TOOL: add or echo; standard library only)
"""

import http.client
import json
import sys


def main() -> None:
    port, tool, count = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    stateful = "--stateful" in sys.argv[4:]
    text = ("abcdefghijklmnopqrstuvwxyz" * 400)[:10240]
    arguments = {"text": text} if tool == "echo" else {"a": 2, "b": 3}
    expected = json.dumps(text) if tool == "echo" else '"text":"5"'
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2025-06-18",
    }
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)

    def post(message: dict) -> tuple[int, str, http.client.HTTPResponse]:
        connection.request("POST", "/mcp", json.dumps(message, separators=(",", ":")), headers)
        response = connection.getresponse()
        return response.status, response.read().decode(), response

    if stateful:
        status, _, response = post(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "send-calls", "version": "1"},
                },
            }
        )
        headers["Mcp-Session-Id"] = response.getheader("Mcp-Session-Id")
        post({"jsonrpc": "2.0", "method": "notifications/initialized"})
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }
    for _ in range(count):
        status, body, _ = post(call)
        if status != 200 or expected not in body or '"isError":true' in body:
            sys.exit(f"bad answer (status {status}): {body[:300]}")
    print(f"{count} calls of {tool} answered")


if __name__ == "__main__":
    main()
