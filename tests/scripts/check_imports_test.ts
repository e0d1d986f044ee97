import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, it } from "node:test";
import { checkImports } from "../../scripts/check_imports.ts";
import { PROJECT } from "../_helpers/binary.ts";

/** A source tree of the given files, checked, then removed. */
function check(files: Record<string, string>): string[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "linewise-layout-"));
  try {
    for (const [name, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      fs.writeFileSync(path.join(dir, name), text);
    }
    return checkImports(dir);
  } finally {
    fs.rmSync(dir, { recursive: true });
  }
}

describe("scripts/check_imports.ts", () => {
  it("passes this project's src/", () => {
    assert.deepEqual(checkImports(path.join(PROJECT, "src")), []);
  });

  it("fails on an import across the rules, and names the file and the rule", () => {
    const problems = check({
      "core/lines.ts": 'import { x } from "../store/file_store.ts";\n',
      "store/file_store.ts": "export const x = 1;\n",
      "tools/read.ts": 'import type { y } from "../store/base_store.ts";\n',
      "store/base_store.ts": "export type y = 1;\n",
      "mcp/server.ts": 'export { z } from "../tools/read.ts";\n',
    });
    assert.deepEqual(problems, [
      "core/lines.ts: imports store/file_store.ts, but core/ may import only node:*",
      "mcp/server.ts: imports tools/read.ts; of tools/ it may import only tools/tool.ts",
      "tools/read.ts: imports store/base_store.ts; of store/ it may import only store/file_store.ts, store/errors.ts, store/flat_rows.ts",
    ]);
  });

  it("keeps the tools' subfolders apart, and to the files tools/ shares", () => {
    const problems = check({
      "tools/_results.ts": "export const ok = 1;\n",
      "tools/create_tools.ts": 'import { read } from "./read/read_tool.ts";\n',
      "tools/edit/edit_tools.ts":
        'import { ok } from "../_results.ts";\nimport { read } from "../read/read_tool.ts";\n',
      "tools/read/read_tool.ts": 'import { createTools } from "../create_tools.ts";\n',
      "tools/read/grep_tool.ts": 'import { ok } from "../_results.ts";\n',
      // (Of io/, the edit tools may start their worker, and no more.)
      "tools/edit/_edit_thread.ts":
        'import { startWorker } from "../../io/runtime.ts";\nimport { e } from "../../io/_errno.ts";\n',
      "io/runtime.ts": "export const startWorker = 1;\n",
      "io/_errno.ts": "export const e = 1;\n",
    });
    assert.deepEqual(problems.sort(), [
      "tools/create_tools.ts and tools/read/read_tool.ts import each other",
      "tools/edit/_edit_thread.ts: imports io/_errno.ts; of io/ it may import only io/runtime.ts",
      "tools/edit/edit_tools.ts: imports tools/read/read_tool.ts, but tools/edit/ may import only core, io, match, store, versions, tools",
      "tools/read/read_tool.ts: imports tools/create_tools.ts; of tools/ it may import only tools/tool.ts, tools/options.ts, tools/_args.ts, tools/_results.ts, tools/_session.ts",
    ]);
  });

  it("fails on two files that import each other, and on node:fs or runtime checks out of place", () => {
    const problems = check({
      "files/a.ts": 'import { b } from "./b.ts";\nexport const a = 1;\n',
      "files/b.ts": 'import { a } from "./a.ts";\nexport const b = 2;\n',
      "store/walk.ts": 'import * as fs from "node:fs";\n',
      "match/glob.ts": 'const bun = "Bun" in globalThis;\n',
      "core/doc.ts":
        '/** ```ts\n * import * as fs from "node:fs/promises";\n * ``` */\nexport {};\n',
    });
    assert.deepEqual(problems.sort(), [
      "files/a.ts and files/b.ts import each other",
      "match/glob.ts: checks which runtime this is; ask src/io/runtime.ts instead",
      "store/walk.ts: imports node:fs, which only io, files, search, disk, cli may use",
    ]);
  });

  it("fails on a slow built-in imported where the search threads load it", () => {
    const problems = check({
      "search/digest.ts": 'import { createHash } from "node:crypto";\n',
      "disk/cache.ts": 'import { crc32 } from "zlib";\n',
      "match/helper.ts": 'import { type Interface, createInterface } from "node:readline";\n',
      "store/types.ts": 'import type { Hash } from "node:crypto";\n',
      "io/lazy.ts": 'export const load = () => process.getBuiltinModule("node:zlib");\n',
      "tools/hash.ts": 'import { createHash } from "node:crypto";\n',
    });
    const start = "which every search thread would load as it starts; load it when first used";
    assert.deepEqual(problems, [
      `disk/cache.ts: imports zlib, ${start} (builtin in src/io/runtime.ts)`,
      `match/helper.ts: imports node:readline, ${start} (builtin in src/io/runtime.ts)`,
      `search/digest.ts: imports node:crypto, ${start} (builtin in src/io/runtime.ts)`,
    ]);
  });

  it("fails on a cycle of three files, and shows one way round it", () => {
    const problems = check({
      "files/a.ts": 'import { b } from "./b.ts";\nexport const a = 1;\n',
      "files/b.ts": 'import type { c } from "./c.ts";\nexport const b = 2;\n',
      "files/c.ts": 'export { a as c } from "./a.ts";\n',
      "files/d.ts": 'import { a } from "./a.ts";\n', // leads into the cycle, not part of it
    });
    assert.deepEqual(problems, [
      "files/a.ts, files/b.ts and files/c.ts form an import cycle (one way round: files/a.ts → files/b.ts → files/c.ts → files/a.ts)",
    ]);
  });

  it("fails on fs by its bare name as on node:fs, and on Bun's own API, out of place", () => {
    const problems = check({
      "store/walk.ts": 'import * as fs from "fs";\n',
      "store/read.ts": 'import { readFile } from "fs/promises";\n',
      "store/require.ts": 'const fs = require("fs");\n',
      "store/bun.ts": 'export const file = Bun.file("a.txt");\n',
      "disk/ok.ts": 'import * as fs from "fs";\nexport const file = Bun.file("a.txt");\n',
    });
    assert.deepEqual(problems, [
      "store/bun.ts: uses Bun's own API, which only io, files, search, disk, cli may use",
      "store/read.ts: imports fs/promises, which only io, files, search, disk, cli may use",
      "store/require.ts: imports fs, which only io, files, search, disk, cli may use",
      "store/walk.ts: imports fs, which only io, files, search, disk, cli may use",
    ]);
  });

  it("fails on each way of asking the runtime outside io/runtime.ts", () => {
    const sniffs = [
      '"Bun" in globalThis',
      "'Deno' in self",
      "globalThis.Bun",
      "globalThis?.Deno",
      "(globalThis as any).Bun",
      "(globalThis as { Bun?: { gc(force: boolean): void } }).Bun?.gc(true)",
      'globalThis["Deno"]',
      'Reflect.has(globalThis, "Bun")',
      'typeof Deno !== "undefined"',
      "process.versions.bun",
      'process.versions["deno"]',
      "navigator.userAgent",
    ];
    for (const sniff of sniffs) {
      const problems = check({
        "match/sniff.ts": `export const which = ${sniff};\n`,
        "io/libc.ts": `export const which = ${sniff};\n`,
        "io/runtime.ts": `export const which = ${sniff};\n`,
      });
      assert.deepEqual(problems, [
        "io/libc.ts: checks which runtime this is; ask src/io/runtime.ts instead",
        "match/sniff.ts: checks which runtime this is; ask src/io/runtime.ts instead",
      ], sniff);
    }
    const scope = "const scope = globalThis as unknown as WorkerScope;\nconst b = 'Bunny' in x;\n";
    assert.deepEqual(check({ "match/worker.ts": scope }), [], "a worker's scope is no check");
  });

  it("exits 1 with the list from the command line", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "linewise-layout-"));
    try {
      fs.mkdirSync(path.join(dir, "core"));
      fs.writeFileSync(path.join(dir, "core/a.ts"), 'import "../cli/main.ts";\n');
      const script = path.join(PROJECT, "scripts/check_imports.ts");
      const deno = path.join(PROJECT, "node_modules/.bin/deno");
      const run = spawnSync(deno, ["run", "--allow-read", script, dir], { encoding: "utf8" });
      assert.equal(run.status, 1, run.stderr);
      assert.match(run.stderr, /core\/a\.ts: imports cli\/main\.ts, but core\/ may import only/);
    } finally {
      fs.rmSync(dir, { recursive: true });
    }
  });
});
