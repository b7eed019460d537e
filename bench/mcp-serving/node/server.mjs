// The TypeScript SDK's server of the MCP serving benchmark: `add` and `echo` on the SDK's
// `McpServer` with its `StreamableHTTPServerTransport`, on express, as the SDK's README serves
// them. Stateless (`--stateless`): a new server and transport per request, answering plain
// JSON. Stateful: one server and transport per session, kept by session id.
//
// Usage: node server.mjs [--port 8808] [--stateless]
import { randomUUID } from "node:crypto";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { createMcpExpressApp } from "@modelcontextprotocol/sdk/server/express.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

const args = process.argv.slice(2);
const stateless = args.includes("--stateless");
const portAt = args.indexOf("--port");
const port = portAt >= 0 ? Number(args[portAt + 1]) : 8808;

function newServer() {
  const server = new McpServer({ name: "bench", version: "1.0.0" });
  server.registerTool(
    "add",
    { description: "Add two integers.", inputSchema: { a: z.number().int(), b: z.number().int() } },
    async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }),
  );
  server.registerTool(
    "echo",
    { description: "Answer with the given text.", inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: "text", text }] }),
  );
  return server;
}

const app = createMcpExpressApp();
const transports = new Map();

app.post("/mcp", async (req, res) => {
  try {
    if (stateless) {
      const server = newServer();
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      res.on("close", () => {
        transport.close();
        server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
      return;
    }
    const id = req.headers["mcp-session-id"];
    let transport = id ? transports.get(id) : undefined;
    if (!transport) {
      if (id || !isInitializeRequest(req.body)) {
        res.status(400).json({ jsonrpc: "2.0", error: { code: -32000, message: "Bad Request: no valid session" }, id: null });
        return;
      }
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId) => transports.set(sessionId, transport),
      });
      transport.onclose = () => {
        if (transport.sessionId) transports.delete(transport.sessionId);
      };
      await newServer().connect(transport);
    }
    await transport.handleRequest(req, res, req.body);
  } catch (error) {
    if (!res.headersSent) {
      res.status(500).json({ jsonrpc: "2.0", error: { code: -32603, message: String(error) }, id: null });
    }
  }
});

app.delete("/mcp", async (req, res) => {
  const transport = transports.get(req.headers["mcp-session-id"]);
  if (!transport) {
    res.status(404).end();
    return;
  }
  await transport.handleRequest(req, res);
});

app.listen(port, "127.0.0.1", () => {
  console.error(`TypeScript SDK server listening on http://127.0.0.1:${port}/mcp${stateless ? " (stateless)" : ""}`);
});
