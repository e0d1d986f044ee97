// serveStdio() on real pipes: a child process of the runtime running the tests (deno eval or
// bun -e) serves a fake tool on its stdin and stdout.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import process from "node:process";

const stdioModule = new URL("../../src/mcp/stdio.ts", import.meta.url).href;

const childCode = `
import { serveStdio } from ${JSON.stringify(stdioModule)};
const echo = {
  name: "echo",
  title: "Echo",
  description: "Says its text back.",
  inputSchema: { type: "object" },
  outputSchema: { type: "object" },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  call: (args) => new Promise((resolve) =>
    setTimeout(() => resolve({ content: [{ type: "text", text: String(args.text) }], structuredContent: {} }), 0)
  ),
};
await serveStdio({ tools: [echo], serverInfo: { name: "stdio-test", version: "1.0.0" } });
console.error("serveStdio resolved");
`;

function spawnServer() {
  const isDeno = "Deno" in globalThis;
  const args = isDeno ? ["eval", "--ext=ts", childCode] : ["-e", childCode];
  const child = spawn(process.execPath, args, { stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (text: string) => stderr += text);
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, exited, stderr: () => stderr };
}

const requests = [
  {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {} },
  },
  { jsonrpc: "2.0", method: "notifications/initialized" },
  {
    jsonrpc: "2.0",
    id: 2,
    method: "tools/call",
    params: { name: "echo", arguments: { text: "é" } },
  },
].map((message) => JSON.stringify(message) + "\n").join("");

test("serveStdio() answers on stdout and exits cleanly when stdin closes", async () => {
  const server = spawnServer();
  let stdout = "";
  server.child.stdout.setEncoding("utf8");
  server.child.stdout.on("data", (text: string) => stdout += text);
  // The call is still running when stdin closes; its answer must still be written.
  server.child.stdin.end(requests);
  assert.equal(await server.exited, 0, server.stderr());
  const messages = stdout.trimEnd().split("\n").map((line) => JSON.parse(line));
  assert.deepEqual(messages.map((m) => m.id), [1, 2]);
  assert.equal(messages[0].result.serverInfo.name, "stdio-test");
  assert.deepEqual(messages[1].result.content, [{ type: "text", text: "é" }]);
  assert.match(server.stderr(), /serveStdio resolved/);
});

test("serveStdio() survives a reader that goes away (EPIPE) and exits cleanly", async () => {
  const server = spawnServer();
  server.child.stdout.destroy();
  server.child.stdin.on("error", () => {}); // the child may be gone before we finish writing
  server.child.stdin.end(requests + requests);
  assert.equal(await server.exited, 0, server.stderr());
  assert.match(server.stderr(), /stopped writing: the output failed \(.*EPIPE/);
  assert.match(server.stderr(), /serveStdio resolved/);
});
