"""The Python servers of the MCP serving benchmark: `add` and `echo` on the Python SDK's
`MCPServer` (`--sdk mcp`) or on FastMCP (`--sdk fastmcp`), each as its own streamable HTTP
Starlette app on uvicorn (one worker, its default event loop), stateful or `--stateless`
(plain JSON answers).

Usage: python server.py --sdk mcp|fastmcp [--port 8808] [--stateless]
"""

import argparse
import logging

import uvicorn


def add(a: int, b: int) -> str:
    """Add two integers."""
    return str(a + b)


def echo(text: str) -> str:
    """Answer with the given text."""
    return text


def app_for(sdk: str, stateless: bool):
    if sdk == "mcp":
        from mcp.server.mcpserver import MCPServer

        server = MCPServer("bench", log_level="WARNING")
        server.tool()(add)
        server.tool()(echo)
        return server.streamable_http_app(json_response=stateless, stateless_http=stateless)
    from fastmcp import FastMCP

    server = FastMCP("bench")
    server.tool(add)
    server.tool(echo)
    return server.http_app(path="/mcp", json_response=stateless, stateless_http=stateless)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sdk", choices=["mcp", "fastmcp"], required=True)
    parser.add_argument("--port", type=int, default=8808)
    parser.add_argument("--stateless", action="store_true")
    args = parser.parse_args()
    app = app_for(args.sdk, args.stateless)
    print(f"Python {args.sdk} server listening on http://127.0.0.1:{args.port}/mcp", flush=True)
    # Access logs off: they would cost every request a formatted line on stderr.
    uvicorn.run(app, host="127.0.0.1", port=args.port, access_log=False, log_level="warning")
    logging.shutdown()


if __name__ == "__main__":
    main()
