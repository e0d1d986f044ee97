// The command line from source, as the README's first command runs it: `deno task start`,
// which may read and write the current folder only.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { PROJECT } from "../_helpers/binary.ts";

function start(args: string[]) {
  const deno = path.join(PROJECT, "node_modules/.bin/deno");
  return spawnSync(deno, ["task", "-q", "start", "--", ...args], {
    cwd: PROJECT,
    encoding: "utf8",
  });
}

test("deno task start -- read README.md 1:2 reads the README", { timeout: 60_000 }, () => {
  const out = start(["read", "README.md", "1:2"]);
  assert.equal(out.status, 0, out.stderr);
  assert.match(out.stdout, /^\[version [0-9a-f]{8}\]\n1\t# linewise\n2\t\n$/);
});

test("deno task start -- grep searches without access to the environment or above the folder", {
  timeout: 60_000,
}, () => {
  // (The ignore files above the folder and git's global one are out of its reach: they were
  // asked for with a prompt, and HOME without --allow-env failed the grep.)
  const out = start(["grep", "-l", "export function globalExcludes", "src"]);
  assert.equal(out.status, 0, out.stderr);
  assert.equal(out.stdout, "src/disk/_outer_ignores.ts\n");
  // On a terminal too (`script` gives it one), where Deno would prompt and wait.
  if (spawnSync("script", ["--version"]).status !== 0) return;
  const deno = path.join(PROJECT, "node_modules/.bin/deno");
  const command = `${deno} task -q start -- grep -l 'export function globalExcludes' src`;
  const tty = spawnSync("script", ["-qec", command, "/dev/null"], {
    cwd: PROJECT,
    encoding: "utf8",
    input: "",
    timeout: 30_000,
  });
  assert.equal(tty.status, 0, tty.stdout);
  assert.match(tty.stdout, /src\/disk\/_outer_ignores\.ts/);
  assert.doesNotMatch(tty.stdout, /Deno requests/);
});

test("deno task start with a root outside the folder says which permission to give", {
  timeout: 60_000,
}, () => {
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), "linewise-outside-"));
  try {
    const out = start(["read", "a.txt", "--root", outside]);
    assert.equal(out.status, 2);
    assert.match(out.stderr, /run deno run --allow-read=DIR --allow-write=DIR src\/cli\/bin\.ts/);
  } finally {
    fs.rmSync(outside, { recursive: true });
  }
});

test("deno task start -- serve works without FFI, and says once that it can be raced", {
  timeout: 60_000,
}, () => {
  const lines = [
    {
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "t", version: "1" },
      },
    },
    { method: "notifications/initialized" },
    { id: 2, method: "tools/call", params: { name: "read", arguments: { path: "README.md" } } },
    {
      id: 3,
      method: "tools/call",
      params: { name: "grep", arguments: { pattern: "^# linewise" } },
    },
  ];
  const deno = path.join(PROJECT, "node_modules/.bin/deno");
  const out = spawnSync(deno, ["task", "-q", "start", "--", "serve", "--root", "."], {
    cwd: PROJECT,
    encoding: "utf8",
    input: lines.map((line) => JSON.stringify({ jsonrpc: "2.0", ...line }) + "\n").join(""),
  });
  const answers = out.stdout.trim().split("\n").map((line) => JSON.parse(line));
  assert.deepEqual(answers.map((a) => a.id), [1, 2, 3], out.stderr);
  assert.match(answers[1].result.content[0].text, /\n1\t# linewise\n/);
  assert.match(answers[2].result.content[0].text, /^README\.md @[0-9a-f]{8}\n1\t# linewise\n/);
  const warnings = out.stderr.match(
    /path resolution can be raced here \(Deno without --allow-ffi\)/g,
  );
  assert.equal(warnings?.length, 1, out.stderr);
});
