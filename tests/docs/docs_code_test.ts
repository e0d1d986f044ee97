// The code in README.md and docs/ is checked: every TypeScript block type-checks against this
// project's modules, and the custom-store example is the code tests/store/custom_store_test.ts
// runs.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { PROJECT } from "../_helpers/binary.ts";
import { asProjectModule, fencedBlocks } from "../_helpers/doc_blocks.ts";
import { RUNTIME } from "../../src/io/runtime.ts";

const DOCS = [
  "README.md",
  ...fs.readdirSync(path.join(PROJECT, "docs")).filter((name) => name.endsWith(".md")).map((
    name,
  ) => `docs/${name}`),
];

/** The TypeScript blocks of a Markdown file. */
function tsBlocks(file: string): string[] {
  const text = fs.readFileSync(path.join(PROJECT, file), "utf8");
  return fencedBlocks(text).filter((block) => block.language === "ts").map((block) => block.code);
}

describe("the code in the docs", () => {
  // (`deno check` does the same whichever runtime starts it: it runs in the Deno suite only.)
  it("type-checks against this project's modules", {
    timeout: 120_000,
    skip: RUNTIME !== "deno" && "the Deno suite runs it",
  }, () => {
    const dir = fs.mkdtempSync(path.join(PROJECT, ".docs-check-"));
    try {
      const files: string[] = [];
      for (const doc of DOCS) {
        tsBlocks(doc).forEach((block, i) => {
          const file = path.join(dir, `${doc.replace(/\W/g, "_")}_${i}.ts`);
          fs.writeFileSync(file, asProjectModule(block));
          files.push(file);
        });
      }
      assert.ok(files.length >= 2, `${files.length} blocks found`);
      const deno = path.join(PROJECT, "node_modules/.bin/deno");
      const check = spawnSync(deno, ["check", "--quiet", ...files], {
        cwd: PROJECT,
        encoding: "utf8",
      });
      assert.equal(check.status, 0, check.stderr);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("shows the custom store that its test runs", () => {
    const block = tsBlocks("docs/custom-stores.md").find((b) => b.includes("class MapStore"));
    assert.ok(block, "docs/custom-stores.md shows MapStore");
    const test = fs.readFileSync(path.join(PROJECT, "tests/store/custom_store_test.ts"), "utf8");
    const tested = /\/\/ --- docs example starts ---\n([\s\S]*?)\/\/ --- docs example ends ---/
      .exec(test)![1];
    const shown = block.slice(block.indexOf("/** Files kept in a Map"));
    assert.equal(shown.trim(), tested.trim());
  });
});
