// End to end: an edit of a large file is computed off the thread that answers requests, so a
// server answers pings while it runs (replace_all of 1,048,576 occurrences in 8 MB held a ping
// for 1.5 s of its 1.7 s), and the worker's refusals reach the agent as its own would.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
// @ts-types="../../node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.d.ts"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { tempRoot } from "../_helpers/binary.ts";
import { sdkSession } from "../_helpers/sdk.ts";

type Result = {
  content: Array<{ text: string }>;
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
};

const LINES = 1 << 20;
const LONG = { timeout: 120_000 };

describe("edits of large files", () => {
  const root = tempRoot();
  let client: Client;

  before(async () => {
    ({ client } = await sdkSession(["serve", "--root", root.dir]));
  });

  after(async () => {
    await client.close();
    root.remove();
  });

  test("pings are answered while replace_all changes a million places", LONG, async () => {
    const file = join(root.dir, "big.txt");
    writeFileSync(file, "abc def\n".repeat(LINES));
    const started = performance.now();
    let done = false;
    const editing = client.callTool(
      {
        name: "replace",
        arguments: { path: "big.txt", old_text: "def", new_text: "xyz", replace_all: true },
      },
      undefined,
      LONG,
    ).finally(() => done = true);
    const pings: number[] = [];
    while (!done) {
      const sent = performance.now();
      await client.ping();
      pings.push(performance.now() - sent);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const result = await editing as Result;
    const took = performance.now() - started;
    assert.ok(!result.isError, result.content[0].text);
    assert.equal(result.structuredContent?.occurrences, LINES);
    assert.equal(result.structuredContent?.regions_total, LINES);
    assert.ok(readFileSync(file, "utf8") === "abc xyz\n".repeat(LINES), "every place replaced");
    // (Side by side, not against a clock: on this thread the edit held the pings for most of
    // its time, off it for a few percent.)
    const longest = Math.max(...pings);
    assert.ok(pings.length >= 3, `${pings.length} pings in ${took.toFixed(0)} ms`);
    assert.ok(
      longest < took / 4,
      `a ping waited ${longest.toFixed(0)} ms of the edit's ${took.toFixed(0)} ms`,
    );
  });

  test("the worker's refusals read as the tools' own", LONG, async () => {
    writeFileSync(join(root.dir, "two.txt"), "abc def\n".repeat(LINES / 4) + "end\n");
    const call = async (name: string, args: Record<string, unknown>) =>
      await client.callTool(
        { name, arguments: { path: "two.txt", ...args } },
        undefined,
        LONG,
      ) as Result;
    const once = await call("replace", { old_text: "end", new_text: "END" });
    assert.ok(!once.isError, once.content[0].text);
    const missing = await call("replace", { old_text: "no such text", new_text: "x" });
    assert.equal(missing.isError, true);
    assert.match(missing.content[0].text, /old_text was not found/);
    const twice = await call("replace", { old_text: "abc def", new_text: "x" });
    // (The first 20 lines named, not all 262,144.)
    assert.match(
      twice.content[0].text,
      /old_text occurs 262144 times \(at lines 1, 2, 3, .*, 20 and 262124 more\)/,
    );
    assert.ok(twice.content[0].text.length < 500, `${twice.content[0].text.length} characters`);
    const mismatch = await call("replace_lines", {
      edits: [{ start_line: 5, new_text: "B", expected_text: "not this" }],
    });
    assert.equal(mismatch.isError, true);
    // (The session's own refusal, built from the worker's error: with the rows as they are.)
    assert.match(mismatch.content[0].text, /expected_text/);
    assert.match(mismatch.content[0].text, /5\tabc def/);
    const after = readFileSync(join(root.dir, "two.txt"), "utf8");
    assert.ok(after === "abc def\n".repeat(LINES / 4) + "END\n", "only the one edit was written");
  });
});
