// scripts/compile.ts builds beside dist/linewise and renames over it: a build that fails
// halfway (here a stand-in for bun that writes part of its output, then fails) leaves the
// working binary as it was, and no half-written file.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import process from "node:process";
import { ensureBinary, PROJECT } from "../_helpers/binary.ts";

const digest = (file: string) => createHash("sha256").update(fs.readFileSync(file)).digest("hex");

test("a failed build keeps the working dist/linewise", { timeout: 60_000 }, () => {
  const binary = ensureBinary();
  const before = digest(binary);
  const fake = fs.mkdtempSync(path.join(os.tmpdir(), "linewise-fake-bun-"));
  try {
    // Writes a stub where --outfile points, as a build cut short does, and fails.
    fs.writeFileSync(
      path.join(fake, "bun"),
      '#!/bin/sh\nwhile [ "$1" != "--outfile" ]; do shift; done\necho partial > "$2"\nexit 1\n',
      { mode: 0o755 },
    );
    const deno = path.join(PROJECT, "node_modules/.bin/deno");
    const result = spawnSync(deno, ["run", "-A", "scripts/compile.ts"], {
      cwd: PROJECT,
      encoding: "utf8",
      env: { ...process.env, PATH: `${fake}:${process.env.PATH}` },
    });
    assert.equal(result.status, 1, result.stderr);
    assert.match(result.stderr, /building dist\/linewise failed/);
    assert.equal(digest(binary), before, "the binary is the one built before");
    assert.deepEqual(
      fs.readdirSync(path.dirname(binary)).filter((n) => n.includes("building")),
      [],
    );
  } finally {
    fs.rmSync(fake, { recursive: true, force: true });
  }
});
