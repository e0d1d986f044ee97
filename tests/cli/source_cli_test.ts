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
