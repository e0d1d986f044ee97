import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import process from "node:process";
import { describe, it } from "node:test";
import { keepOffTopTier } from "../../src/io/runtime.ts";

const ON_BUN = "Bun" in globalThis;

describe("keepOffTopTier()", () => {
  it("does nothing where JavaScriptCore does not run", { skip: ON_BUN }, () => {
    const f = (x: number) => x + 1;
    keepOffTopTier(f);
    assert.equal(f(1), 2);
  });

  it("refuses what it cannot keep off: async functions and generators", () => {
    for (const fn of [async () => {}, function* () {}, async function* () {}, 1]) {
      assert.throws(() => keepOffTopTier(fn), TypeError, String(fn));
    }
    keepOffTopTier(function plain() {}, { method() {} }.method);
  });

  it("keeps a hot function out of the top tier that an unmarked twin reaches", {
    skip: !ON_BUN,
    timeout: 60_000,
  }, () => {
    // A child reports every JIT compile; the unmarked twin shows that the work is hot enough.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "linewise-jit-"));
    const script = path.join(dir, "hot.ts");
    const jit = new URL("../../src/io/runtime.ts", import.meta.url).pathname;
    fs.writeFileSync(
      script,
      `import { keepOffTopTier } from ${JSON.stringify(jit)};
      function markedSum(a) { let s = 0; for (let i = 0; i < a.length; i++) s += a[i]; return s; }
      function twinSum(a) { let s = 0; for (let i = 0; i < a.length; i++) s += a[i]; return s; }
      keepOffTopTier(markedSum);
      const a = new Uint8Array(1000).fill(1);
      let total = 0;
      for (let i = 0; i < 200000; i++) total += markedSum(a) + twinSum(a);
      console.log(total);`,
    );
    try {
      const child = spawnSync(process.execPath, [script], {
        encoding: "utf8",
        env: { ...process.env, BUN_JSC_reportCompileTimes: "1" },
      });
      assert.equal(child.status, 0, child.stderr);
      assert.equal(child.stdout.trim(), String(200000 * 2000));
      const topTier = (name: string) =>
        child.stderr.split("\n").some((line) => line.includes(name) && line.includes("using FTL"));
      assert.ok(topTier("twinSum"), "the unmarked twin reached the top tier");
      assert.ok(!topTier("markedSum"), "the marked function did not");
    } finally {
      fs.rmSync(dir, { recursive: true });
    }
  });
});
