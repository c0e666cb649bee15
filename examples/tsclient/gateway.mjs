// The official TypeScript MCP client's own calls through the example
// gateway: listTools(), listPrompts() and ping(), which it sends without
// params, listResources() and callTool(). It prints one JSON line with
// what each answered, or the error it threw. The gateway's Go tests run
// it against a stateful and a -stateless gateway (TestTSClientCalls).
//
// Usage: node gateway.mjs MCP_URL TOOL
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, tool] = process.argv.slice(2);
if (!url || !tool) {
  console.error("usage: node gateway.mjs MCP_URL TOOL");
  process.exit(2);
}

const client = new Client({ name: "gateway-calls", version: "1.0.0" });
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
const out = {};
const calls = {
  listTools: async () => (await client.listTools()).tools.map((t) => t.name),
  listPrompts: async () => (await client.listPrompts()).prompts.map((p) => p.name),
  listResources: async () => (await client.listResources()).resources.map((r) => r.uri),
  ping: async () => await client.ping(),
  callTool: async () => (await client.callTool({ name: tool, arguments: {} })).content.map((c) => c.text),
};
for (const [name, call] of Object.entries(calls)) {
  try {
    out[name] = await call();
  } catch (e) {
    out[name] = { error: e.name + ": " + e.message };
  }
}
await client.close();
console.log(JSON.stringify(out));
