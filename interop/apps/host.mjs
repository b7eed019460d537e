// A host of MCP Apps (SEP-1865) against the example server: the official MCP TypeScript SDK's
// client reads the server as a host does (the extension declared, a tool's `_meta.ui`, the
// view's resource and MIME type, the call's result), and the extension's own host package
// (@modelcontextprotocol/ext-apps's AppBridge) talks to the view. There is no browser here:
// the view's own script runs in a Node context whose `window.parent.postMessage` and `message`
// events stand in for the sandboxed frame's. Every message between them goes to the log.
//
//   node host.mjs <server URL> <log file>
import fs from "node:fs";
import vm from "node:vm";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { AppBridge } from "@modelcontextprotocol/ext-apps/app-bridge";

const [url, logPath] = process.argv.slice(2);
const log = [];
const note = (line) => {
  log.push(line);
  console.log(line);
};
const save = () => fs.writeFileSync(logPath, log.join("\n") + "\n");
const fail = (why) => {
  note(`FAIL: ${why}`);
  save();
  process.exit(1);
};
const check = (ok, why) => ok || fail(why);

const client = new Client({ name: "phi-agent-apps-host", version: "1.0.0" });
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
const extensions = client.getServerCapabilities()?.extensions ?? {};
check("io.modelcontextprotocol/ui" in extensions, `no MCP Apps extension in ${JSON.stringify(extensions)}`);
note(`server declares: ${JSON.stringify(Object.keys(extensions))}`);

const { tools } = await client.listTools();
const tool = tools.find((t) => t._meta?.ui?.resourceUri);
check(tool, "no tool names a view in _meta.ui.resourceUri");
const uri = tool._meta.ui.resourceUri;
check(uri.startsWith("ui://"), `the view ${uri} is not a ui:// resource`);
note(`tool ${tool.name} names its view ${uri}`);

const { contents } = await client.readResource({ uri });
const view = contents[0];
check(view.mimeType === "text/html;profile=mcp-app", `the view is served as ${view.mimeType}`);
check(view._meta?.ui?.prefersBorder === true, `the view's _meta: ${JSON.stringify(view._meta)}`);
note(`view ${uri}: ${view.mimeType}, ${view.text.length} characters, _meta ${JSON.stringify(view._meta)}`);

const args = { city: "Beijing" };
const result = await client.callTool({ name: tool.name, arguments: args });
check(!result.isError && result.structuredContent, `the call's result: ${JSON.stringify(result)}`);
note(`tools/call ${tool.name}: structuredContent ${JSON.stringify(result.structuredContent)}`);

// The frame: the view's script with a window whose parent is the host's end of the transport.
const card = { textContent: "" };
const listeners = [];
const hostEnd = {
  async start() {},
  async send(message) {
    note(`host -> view: ${JSON.stringify(message)}`);
    setImmediate(() => listeners.forEach((listener) => listener({ data: structuredClone(message) })));
  },
  async close() {
    this.onclose?.();
  },
};
const frame = {
  parent: {
    postMessage(message) {
      note(`view -> host: ${JSON.stringify(message)}`);
      setImmediate(() => hostEnd.onmessage?.(structuredClone(message)));
    },
  },
  addEventListener(type, listener) {
    if (type === "message") listeners.push(listener);
  },
};
const document = { getElementById: (id) => (id === "card" ? card : null) };
const script = view.text.match(/<script>([\s\S]*?)<\/script>/)?.[1];
check(script, "the view has no inline script");

const bridge = new AppBridge(null, { name: "phi-agent-apps-host", version: "1.0.0" }, {});
const shown = new Promise((resolve) => {
  bridge.oninitialized = async () => {
    note("host: the view is initialized");
    await bridge.sendToolInput({ arguments: args });
    await bridge.sendToolResult(result);
    const wait = () => (card.textContent ? resolve(card.textContent) : setTimeout(wait, 10));
    wait();
  };
});
await bridge.connect(hostEnd);
vm.runInNewContext(script, { window: frame, document, console });
const text = await Promise.race([
  shown,
  new Promise((resolve) => setTimeout(() => resolve(null), 5000)),
]);
check(text !== null, "the view never showed the result");
const report = result.structuredContent;
const expected = `${report.city}: ${report.temperature_c} °C, ${report.conditions}`;
check(text === expected, `the view shows ${JSON.stringify(text)}, not ${JSON.stringify(expected)}`);
note(`the view shows: ${text}`);
note("PASS");
save();
await client.close();
process.exit(0);
