// Journeys through the official TypeScript MCP client against the example
// server (examples/searchfetch -stdio), for both SDKs and both modes. The
// client validates every structuredContent against the tool's outputSchema,
// error results included, and throws on a mismatch; each journey also
// checks that every id search shows, in the text and in structuredContent,
// fetches a document that echoes it.
//
// Usage: node journey.mjs PATH_TO_SEARCHFETCH_BINARY
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const binary = process.argv[2];
if (!binary) {
  console.error("usage: node journey.mjs PATH_TO_SEARCHFETCH_BINARY");
  process.exit(2);
}

const wantAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
let passed = 0;
let failed = 0;

function check(ok, what) {
  if (ok) {
    passed++;
  } else {
    failed++;
    console.error("FAIL " + what);
  }
}

// idsOfText reads the ids of a text preview: the prose form's "N. id=" lines
// or the JSON form's results.
function idsOfText(text, chatgpt) {
  if (chatgpt) {
    return JSON.parse(text).results.map((r) => r.id);
  }
  const ids = [];
  for (const line of text.split("\n")) {
    const m = /^\d+\. id=("(?:[^"\\]|\\.)*"|\S+)/.exec(line);
    if (m) ids.push(m[1].startsWith('"') ? JSON.parse(m[1]) : m[1]);
  }
  return ids;
}

async function journey(sdk, chatgpt) {
  const name = `${sdk}/${chatgpt ? "chatgpt" : "default"}`;
  const args = ["-stdio", "-sdk", sdk];
  if (chatgpt) args.push("-chatgpt");
  const client = new Client({ name: "ts-journey", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: binary, args, stderr: "ignore" }));
  try {
    const { tools } = await client.listTools();
    for (const tool of tools) {
      check(tool.outputSchema !== undefined, `${name}: ${tool.name} declares an outputSchema`);
      check(JSON.stringify(tool.annotations) === JSON.stringify({ ...tool.annotations, ...wantAnnotations }) &&
        Object.keys(wantAnnotations).every((k) => tool.annotations[k] === wantAnnotations[k]),
        `${name}: ${tool.name} annotations ${JSON.stringify(tool.annotations)}`);
    }
    for (const query of ["espresso", "descaling"]) {
      const res = await client.callTool({ name: "search", arguments: { query } });
      check(!res.isError, `${name}: search ${query}`);
      const textIDs = idsOfText(res.content[0].text, chatgpt);
      const structuredIDs = res.structuredContent.results.map((r) => r.id);
      check(textIDs.length > 0, `${name}: search ${query} shows ids`);
      check(JSON.stringify(textIDs) === JSON.stringify(structuredIDs), `${name}: text and structuredContent show the same ids`);
      for (const id of textIDs) {
        const doc = await client.callTool({ name: "fetch", arguments: { id } });
        check(!doc.isError && doc.structuredContent.id === id, `${name}: fetch ${id}`);
      }
    }
    // Error results: the client validates their structuredContent too.
    for (const id of ["orders", "cin_4f2a/orders:../../etc/passwd", "cin_4f2a/orders:nope"]) {
      const res = await client.callTool({ name: "fetch", arguments: { id } });
      check(res.isError && res.structuredContent.type === "adapter_error", `${name}: fetch ${id} is a tool error`);
    }
  } catch (err) {
    check(false, `${name}: ${err}`);
  } finally {
    await client.close();
  }
}

for (const sdk of ["gosdk", "mcpgo"]) {
  for (const chatgpt of [false, true]) {
    await journey(sdk, chatgpt);
  }
}
console.log(`journeys: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
