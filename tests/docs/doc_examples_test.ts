// The examples in the documentation comments (and docs/*.md) run, as `deno test --doc` runs
// them, but in one test module: `--doc` made each example a module of its own, and starting
// 85 of them took 14 s of the suite's 2 cores (0.34 CPU-s each). Here they share one module
// graph. An example marked `ignore` is not run; its imports still type-check (deno task check).
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { after, describe, it } from "node:test";
import { PROJECT } from "../_helpers/binary.ts";
import { asProjectModule, fencedBlocks } from "../_helpers/doc_blocks.ts";

/** An example: where it is (as `--doc` names it) and its code. */
type Example = { name: string; source: string; code: string };

/** The languages `deno test --doc` runs. */
const RUN = new Set(["ts", "typescript", "js", "javascript", "tsx", "jsx", "mts", "mjs"]);

/** The fenced blocks of `text` that are run, named by the source's lines they span. */
function fenced(text: string, file: string, firstLine: number): Example[] {
  const out: Example[] = [];
  for (const { language, attributes, code, index } of fencedBlocks(text)) {
    if (!RUN.has(language) || /\bignore\b/.test(attributes)) continue;
    const start = firstLine + text.slice(0, index).split("\n").length - 1;
    const end = start + code.split("\n").length;
    out.push({ name: `${file}#${start}-${end}`, source: file, code });
  }
  return out;
}

/** The examples in a module's documentation comments, or in a Markdown file. */
function examplesOf(file: string): Example[] {
  const text = fs.readFileSync(path.join(PROJECT, file), "utf8");
  if (file.endsWith(".md")) return fenced(text, file, 1);
  const out: Example[] = [];
  for (const comment of text.matchAll(/\/\*\*[\s\S]*?\*\//g)) {
    const line = text.slice(0, comment.index).split("\n").length;
    const body = comment[0].split("\n").map((l) => l.replace(/^\s*(?:\/\*\*|\*\/|\*) ?/, ""));
    out.push(...fenced(body.join("\n"), file, line));
  }
  return out;
}

/** The project's modules and Markdown documents, as `--doc` finds them. */
function documented(): string[] {
  const files = ["mod.ts", "README.md"];
  for (const dir of ["src", "docs"]) {
    for (const name of fs.readdirSync(path.join(PROJECT, dir), { recursive: true }) as string[]) {
      if (/\.(ts|md)$/.test(name) && !name.endsWith("_test.ts")) files.push(`${dir}/${name}`);
    }
  }
  return files.sort();
}

const EXAMPLES = documented().flatMap(examplesOf);

describe("the examples in the documentation", () => {
  // (Inside the project, so that its import map resolves what the examples import.)
  const dir = fs.mkdtempSync(path.join(PROJECT, ".docs-check-"));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("are found: every module documents its exports with one", () => {
    assert.ok(EXAMPLES.length >= 80, `${EXAMPLES.length} examples`);
  });

  EXAMPLES.forEach((example, i) => {
    it(`${example.name} runs`, async () => {
      const file = path.join(dir, `example_${i}.ts`);
      fs.writeFileSync(
        file,
        asProjectModule(example.code, path.dirname(path.join(PROJECT, example.source))),
      );
      await import(pathToFileURL(file).href);
    });
  });
});
