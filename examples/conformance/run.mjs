// run.mjs runs the official MCP conformance suite's server scenarios
// against a server directly over HTTP, stateless and stateful, and through
// the example gateway (the same server as the gateway's one stdio
// downstream, the gateway on HTTP), prints a table of the three, and fails
// when a scenario that passes directly, either way, fails through the
// gateway: the gateway must let a client see through it what it sees
// directly.
//
//	node run.mjs SERVER GATEWAY
//	node run.mjs -example EXAMPLE
//
// SERVER is the go-sdk's conformance server (everything-server), which
// serves streamable HTTP with -http ADDR (stateless unless
// -stateless=false) and stdio otherwise; GATEWAY is the example gateway.
// All run on free loopback ports and are stopped at the end.
//
// With -example, it runs the suite against EXAMPLE, the example search and
// fetch server, over HTTP on each SDK (-sdk gosdk, -sdk mcpgo), and fails
// unless both pass every scenario in exampleScenarios: those a server
// passes without the conformance server's own tools, prompts and
// resources.
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer, connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const [server, gateway] = process.argv.slice(2);
if (!server || !gateway) {
  console.error("usage: node run.mjs SERVER GATEWAY | node run.mjs -example EXAMPLE");
  process.exit(2);
}
const exampleScenarios = ["server-initialize", "ping", "logging-set-level", "tools-list",
  "dns-rebinding-protection", "server-sse-multiple-streams"];
const suite = new URL("node_modules/@modelcontextprotocol/conformance/dist/index.js", import.meta.url).pathname;

// freePort returns a loopback port that nothing listens on now.
function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

// listening resolves once something accepts connections on port, and
// rejects after 20 s.
async function listening(port, child) {
  for (const end = Date.now() + 20_000; Date.now() < end; ) {
    if (child.exitCode !== null) throw new Error(`${child.spawnfile} exited with status ${child.exitCode}`);
    const ok = await new Promise((resolve) => {
      const c = connect(port, "127.0.0.1", () => { c.destroy(); resolve(true); });
      c.once("error", () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nothing listens on port ${port} after 20 s`);
}

// start runs argv with its output kept for a failure's report.
function start(argv) {
  const child = spawn(argv[0], argv.slice(1), { stdio: ["ignore", "pipe", "pipe"] });
  child.log = "";
  for (const s of [child.stdout, child.stderr]) s.on("data", (d) => { child.log = (child.log + d).slice(-4000); });
  return child;
}

// scenarios runs every server scenario against url and returns, by
// scenario, whether it passed: none of its checks failed.
async function scenarios(url) {
  const out = mkdtempSync(join(tmpdir(), "conformance-"));
  try {
    const run = spawn(process.execPath, [suite, "server", "--url", url, "-o", out], { stdio: ["ignore", "pipe", "inherit"] });
    let text = "";
    run.stdout.on("data", (d) => { text += d; });
    await new Promise((resolve) => run.on("close", resolve));
    const passed = new Map();
    for (const dir of readdirSync(out)) {
      const name = dir.replace(/^server-/, "").replace(/-\d{4}-\d\d-\d\dT[\d-]+Z$/, "");
      const checks = JSON.parse(readFileSync(join(out, dir, "checks.json"), "utf8"));
      passed.set(name, checks.every((c) => c.status !== "FAILURE"));
    }
    if (passed.size === 0) throw new Error(`the suite ran no scenario against ${url}:\n${text}`);
    return passed;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

const children = [];
let status = 0;
try {
  if (server === "-example") {
    const sdks = ["gosdk", "mcpgo"];
    const results = [];
    for (const sdk of sdks) {
      const port = await freePort();
      const child = start([gateway, "-http", `127.0.0.1:${port}`, "-sdk", sdk]);
      children.push(child);
      await listening(port, child);
      results.push(await scenarios(`http://127.0.0.1:${port}/mcp`));
    }
    const width = Math.max(...exampleScenarios.map((n) => n.length));
    console.log(`${"example scenario".padEnd(width)}  ${sdks.join("  ")}`);
    const failed = [];
    for (const n of exampleScenarios) {
      const marks = results.map((m, i) => (m.get(n) ? "pass" : "FAIL").padEnd(sdks[i].length));
      console.log(`${n.padEnd(width)}  ${marks.join("  ")}`);
      results.forEach((m, i) => { if (!m.get(n)) failed.push(`${n} (${sdks[i]})`); });
    }
    if (failed.length > 0) {
      console.error(`the example server fails: ${failed.join(", ")}`);
      status = 1;
    }
  } else {
    const [statelessPort, statefulPort, gatewayPort] = [await freePort(), await freePort(), await freePort()];
    const stateless = start([server, "-http", `127.0.0.1:${statelessPort}`]);
    const stateful = start([server, "-http", `127.0.0.1:${statefulPort}`, "-stateless=false"]);
    const relayed = start([gateway, "-http", `127.0.0.1:${gatewayPort}`, "-server", `conformance=${server}`]);
    children.push(stateless, stateful, relayed);
    await listening(statelessPort, stateless);
    await listening(statefulPort, stateful);
    await listening(gatewayPort, relayed);
    const a = await scenarios(`http://127.0.0.1:${statelessPort}/mcp`);
    const s = await scenarios(`http://127.0.0.1:${statefulPort}/mcp`);
    const b = await scenarios(`http://127.0.0.1:${gatewayPort}/mcp`);
    const names = [...new Set([...a.keys(), ...s.keys(), ...b.keys()])].sort();
    const mark = (m, n) => (m.has(n) ? (m.get(n) ? "pass" : "FAIL") : "-");
    const width = Math.max(...names.map((n) => n.length));
    console.log(`${"scenario".padEnd(width)}  stateless  stateful  gateway`);
    const lost = [];
    for (const n of names) {
      console.log(`${n.padEnd(width)}  ${mark(a, n).padEnd(9)}  ${mark(s, n).padEnd(8)}  ${mark(b, n)}`);
      if ((a.get(n) || s.get(n)) && !b.get(n)) lost.push(n);
    }
    const count = (m) => [...m.values()].filter(Boolean).length;
    console.log(`passed: ${count(a)} directly stateless, ${count(s)} directly stateful, ${count(b)} through the gateway`);
    if (lost.length > 0) {
      console.error(`pass directly but fail through the gateway: ${lost.join(", ")}`);
      status = 1;
    }
  }
} catch (err) {
  console.error(String(err));
  for (const c of children) if (c.log) console.error(`--- ${c.spawnfile}:\n${c.log}`);
  status = 1;
} finally {
  for (const c of children) c.kill();
}
process.exit(status);
