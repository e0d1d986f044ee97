// End to end: a grep for a fixed string (or alternatives of them, or a regex more than its
// literal) finds long lines (bundles, source maps) in their bytes and decodes only the part it
// shows, and the stretch around the literal (src/search/_long_rows.ts).
// Driven by the official MCP SDK client, its answers must be those of a pattern that matches
// the same lines but is not a fixed string (so the lines are decoded whole and cut), first
// and repeated, whatever the lines hold: characters beyond ASCII, CRLF, a BOM, invalid UTF-8.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import { join } from "node:path";
// @ts-types="../../node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.d.ts"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { tempRoot } from "../_helpers/binary.ts";
import { sdkSession } from "../_helpers/sdk.ts";

describe("the binary's grep of long lines", () => {
  const root = tempRoot();
  const at = (name: string) => join(root.dir, name);
  let client: Client;
  before(async () => {
    const filler = (n: number) => "é😀 var a=1;".repeat(n);
    fs.writeFileSync(at("bundle.js"), `${filler(9000)}kiwi(${filler(9000)}kiwi(\n`);
    fs.writeFileSync(at("app.js.map"), `{"a":1}\r\n${filler(20_000)}kiwi(x)\r\n{"b":2}\r\n`);
    fs.writeFileSync(at("bom.js"), `\uFEFFkiwi(${filler(12_000)}\nkiwi(\n`);
    fs.writeFileSync(at("end.js"), `start\n${filler(15_000)}kiwi(`);
    fs.writeFileSync(
      at("bad.js"),
      Buffer.concat([Buffer.from(filler(10_000) + "kiwi("), Buffer.from([0xff, 10])]),
    );
    fs.writeFileSync(at("short.js"), "let kiwi = 1;\nkiwi(kiwi);\n");
    // (The part shown ends in a lone \r of the line's text, before its \n.)
    fs.writeFileSync(at("cr.js"), CR_LINE);
    fs.writeFileSync(at("cr.txt"), `${"x".repeat(2000)}\r${"y".repeat(6_000_000)}\nnext\n`);
    // (Files over 1 MB are then read as far as asked, not whole: a line over 4 MiB is kept in
    // part, as a piece.)
    ({ client } = await sdkSession(
      ["serve", "--root", root.dir, "--no-cache", "--max-edit-bytes", "1000000"],
      { name: "linewise-long-lines-e2e" },
    ));
  });
  after(async () => {
    await client.close();
    root.remove();
  });

  async function grep(args: Record<string, unknown>) {
    const result = await client.callTool({
      name: "grep",
      arguments: { max_matches: 100, ...args },
    });
    assert.ok(!result.isError, JSON.stringify(result.content));
    return {
      text: (result.content as { text: string }[])[0].text,
      structured: result.structuredContent,
    };
  }

  test("a lone \\r ending the part shown stays text, before the line's \\n", async () => {
    const row = `1\t[from column 801] ${"a".repeat(200)}kiwi(${"b".repeat(1794)}` +
      "\r … [line cut: 72800 code points; column=2801 shows more]\n";
    for (const args of [{ pattern: "kiwi(", literal: true }, { pattern: "kiwi\\(" }]) {
      const { text } = await grep({ ...args, path: "cr.js" });
      assert.ok(text.includes(row), text.slice(0, 300));
    }
    const read = await client.callTool({ name: "read", arguments: { path: "cr.txt" } });
    const rows = (read.content as { text: string }[])[0].text.split("\n");
    const first = rows.findIndex((row) => row.startsWith("1\t"));
    assert.equal(
      rows[first],
      `1\t${"x".repeat(2000)} … [line cut: 6002001 code points; column=2001 shows more]`,
    );
    assert.equal(rows[first + 1], "2\tnext");
  });

  test(
    "show what a pattern of the same lines shows, first and repeated",
    { timeout: 60_000 },
    async () => {
      // (`\x28` is read by no prefilter: the lines are decoded whole.)
      const decoded = await grep({ pattern: "kiwi\\x28" });
      assert.match(decoded.text, /line cut: \d+ code points/);
      // (Each file of valid UTF-8 has its version: its rows were found in its bytes again.)
      for (const name of ["app\\.js\\.map", "bom\\.js", "bundle\\.js", "end\\.js", "short\\.js"]) {
        assert.match(decoded.text, new RegExp(`^${name} @[0-9a-f]{8}$`, "m"));
      }
      // (Alternatives of fixed strings too: the leftmost occurrence is the match, "kiwi(" here
      // before the "i(" in it.)
      const fixed = [
        { pattern: "kiwi(", literal: true },
        { pattern: "kiwi\\(" },
        { pattern: "zebra\\(|kiwi\\(" },
        { pattern: "i\\(|kiwi\\(" },
        // (And a fixed string without case, checked in the bytes.)
        { pattern: "KIWI(", literal: true, ignore_case: true },
        { pattern: "Kiwi\\(", ignore_case: true },
        // (And regexes more than their literals, matched in the stretches around them.)
        { pattern: "kiwi[(]" },
        { pattern: "kiwi\\(\\s*" },
        { pattern: "KIWI\\(\\s*", ignore_case: true },
        { pattern: "zebra\\(\\s*|kiwi\\(\\s*" },
      ];
      for (const args of fixed) {
        for (let round = 0; round < 3; round++) {
          const windowed = await grep(args);
          assert.equal(windowed.text, decoded.text, `${JSON.stringify(args)}, round ${round}`);
          assertSameStructure(windowed.structured, decoded.structured);
        }
      }
      // A regex whose match reaches past the literal shows as the same regex decoded whole.
      const before = await grep({ pattern: "\\w*i\\x28" });
      const stretched = await grep({ pattern: "\\w*i\\(" });
      assert.equal(stretched.text, before.text);
      assert.match(stretched.text, /^1\taaaaaaaaaa/m, "the match starts at the line's start");
      // New patterns once the index knows the large files' blocks (past the racy rule's 2 s):
      // of a long line, only the bytes around the blocks that may hold the match are read.
      await new Promise((resolve) => setTimeout(resolve, 3000));
      await grep({ pattern: "walrus\\(" }); // (the index learns what it had to leave)
      await new Promise((resolve) => setTimeout(resolve, 1000));
      for (const other of ["yak", "gnu", "emu"]) {
        const windowed = await grep({ pattern: `kiwi\\(|${other}\\(` });
        assert.equal(windowed.text, decoded.text, `kiwi or ${other}`);
        assertSameStructure(windowed.structured, decoded.structured);
      }
    },
  );
});

/** Whether two greps' structured answers agree, but for the engine each ran on. */
function assertSameStructure(actual: unknown, expected: unknown): void {
  const { engine: _, ...rest } = actual as Record<string, unknown>;
  const { engine: __, ...wanted } = expected as Record<string, unknown>;
  assert.deepEqual(rest, wanted);
}

/** A line over 64 KiB whose window around `kiwi(` ends in a lone \r. */
const CR_LINE = `${"a".repeat(1000)}kiwi(${"b".repeat(1794)}\r${"c".repeat(70_000)}\n`;
