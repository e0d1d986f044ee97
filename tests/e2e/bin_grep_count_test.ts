// End to end: the grep tool's output "files" and "count" through the binary and the official
// MCP client, on the search thread with its reading workers (a tree past 256 files), counting
// every matching line, past the 100,000 it once stopped at, without holding them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sdkSession } from "../_helpers/sdk.ts";

type Result = {
  content: Array<{ text: string }>;
  structuredContent?: { files: Array<{ path: string; count: number }>; matched_lines: number };
};

test("grep output files and count give every file's matching lines, as content rows tell them", {
  timeout: 120_000,
}, async () => {
  const root = mkdtempSync(join(tmpdir(), "linewise-count-"));
  try {
    mkdirSync(join(root, "many"));
    const expected: Array<{ path: string; count: number }> = [];
    for (let i = 0; i < 300; i++) {
      const name = `many/f${String(i).padStart(3, "0")}.txt`;
      const lines = i % 4; // (a quarter of them hold none)
      writeFileSync(join(root, name), "x foo y\nbar\n".repeat(lines) + "food\n");
      expected.push({ path: name, count: lines + 1 });
    }
    writeFileSync(join(root, "many/z.bin"), "foo\0foo\n"); // (binary: not counted)
    writeFileSync(join(root, "long.txt"), "foo\n".repeat(150_000));
    expected.unshift({ path: "long.txt", count: 150_000 });
    const total = expected.reduce((sum, file) => sum + file.count, 0);
    const { client } = await sdkSession(["serve", "--no-cache", "--root", root]);
    try {
      const call = async (args: Record<string, unknown>) =>
        await client.callTool({ name: "grep", arguments: args }) as Result;
      // An exact literal (counted in the bytes) and a regex (scanned) count alike.
      for (const pattern of ["foo", "fo+"]) {
        const files = await call({ pattern, output: "files" });
        assert.deepEqual(files.structuredContent?.files, expected, pattern);
        assert.equal(files.structuredContent?.matched_lines, total, pattern);
        const count = await call({ pattern, output: "count" });
        assert.equal(
          count.content[0].text,
          `${total} matching lines in 301 files\n[1 binary file skipped]\n`,
          pattern,
        );
      }
      // (The rows, for a file, say the same.)
      const rows = await call({ pattern: "foo", path: "many/f003.txt" });
      assert.equal(rows.structuredContent?.matched_lines, 4);
      // max_matches still stops a count, and says so.
      const capped = await call({ pattern: "foo", output: "files", max_matches: 150_002 });
      assert.deepEqual(capped.structuredContent?.files, [
        { path: "long.txt", count: 150_000 },
        { path: "many/f000.txt", count: 1 },
        { path: "many/f001.txt", count: 1 },
      ]);
      assert.match(capped.content[0].text, /\[stopped at max_matches=150002/);
    } finally {
      await client.close();
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
