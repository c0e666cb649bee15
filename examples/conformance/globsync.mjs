// The conformance suite imports fs.globSync, which Node added in 22, for its
// client scenarios only; Debian's Node 20 refuses to load the suite for it.
// This script, run after npm ci, makes the installed copy take globSync
// from fs when fs has it and otherwise a stub that throws when called
// (no server scenario calls it). It changes nothing when run twice.
import { readFileSync, writeFileSync } from "node:fs";

const file = new URL("node_modules/@modelcontextprotocol/conformance/dist/index.js", import.meta.url);
const text = readFileSync(file, "utf8");
const marker = "/* globSync stub */";
if (!text.includes(marker)) {
  const match = /globSync as ([\w$]+),/.exec(text);
  if (!match) {
    console.error("globsync.mjs: the suite no longer imports globSync as expected; update this script");
    process.exit(1);
  }
  const [shebang, ...rest] = text.split("\n");
  const stub = `${marker}const ${match[1]}=(await import("node:fs")).globSync??(()=>{throw new Error("fs.globSync needs Node 22 or later")});`;
  writeFileSync(file, [shebang, stub + rest.join("\n").replace(match[0], "")].join("\n"));
}
