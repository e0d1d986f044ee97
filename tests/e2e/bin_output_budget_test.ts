// End to end: a grep whose matches fill more than its answer can show stops searching there,
// says that more exist, and goes on from the offset it names; through the binary, its default
// budgets and the official MCP SDK client.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import { join } from "node:path";
// @ts-types="../../node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.d.ts"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { tempRoot } from "../_helpers/binary.ts";
import { sdkSession } from "../_helpers/sdk.ts";

const FILES = 600;
const LINES = 20;

describe("the binary's grep past its output budget", () => {
  const root = tempRoot();
  let client: Client;
  /** Every matching line, `path:line`, in the order grep shows them. */
  const all: string[] = [];
  before(async () => {
    // 12,000 matching rows of about 100 characters: twenty times what an answer shows.
    for (let f = 0; f < FILES; f++) {
      const name = `f${String(f).padStart(3, "0")}.txt`;
      const rows = Array.from({ length: LINES }, (_, l) => `needle ${"x".repeat(80)} ${f}-${l}`);
      fs.writeFileSync(join(root.dir, name), rows.join("\n") + "\n");
      for (let l = 1; l <= LINES; l++) all.push(`${name}:${l}`);
    }
    ({ client } = await sdkSession(["serve", "--root", root.dir], { name: "linewise-budget-e2e" }));
  });
  after(async () => {
    await client.close();
    root.remove();
  });

  type Found = { files: { path: string; lines: number[] }[]; [key: string]: unknown };
  const shown = (found: Found) => found.files.flatMap((f) => f.lines.map((l) => `${f.path}:${l}`));

  test("stops where its answer ends, and goes on from the offset it names", async () => {
    const args = { pattern: "needle", max_matches: 100_000 };
    const first = await client.callTool({ name: "grep", arguments: args });
    const text = (first.content as { text: string }[])[0].text;
    const note =
      /\[output budget reached: showing (\d+) matching lines in \d+ files; more matches exist: continue with offset=(\d+)/
        .exec(text);
    assert.ok(note, text.slice(-300));
    const found = first.structuredContent as Found;
    const count = Number(note[1]);
    assert.equal(Number(note[2]), count);
    assert.deepEqual(shown(found), all.slice(0, count));
    // The search stopped: most files were never read.
    const searched = found.files_searched as number;
    assert.ok(searched < FILES / 2, `${searched} of ${FILES} files searched`);
    assert.equal(found.files_not_searched, FILES - searched);
    const next = await client.callTool({ name: "grep", arguments: { ...args, offset: count } });
    const more = next.structuredContent as Found;
    const rows = shown(more);
    assert.ok(rows.length > 0);
    assert.deepEqual(rows, all.slice(count, count + rows.length));
    assert.equal(more.files_searched, FILES, "a grep with an offset searches on");
  });
});
