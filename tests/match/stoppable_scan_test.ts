import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { PatternStoppedError, regexMatcher, type ScanRow, scanText } from "../../src/core/mod.ts";
import { stoppableScan } from "../../src/match/stoppable_scan.ts";

function localRows(source: string, text: string, context: number, maxMatches: number) {
  const rows: ScanRow[] = [];
  scanText(text, regexMatcher(source), (row) => void rows.push(row), { context, maxMatches });
  return rows;
}

describe("stoppableScan()", () => {
  const text = "one\nok two\nfoo bar\nfoofoo\n\r\nlast ok";
  for (const source of ["(?<=o)k", "(fo)\\1", "o(?!o)", "^(?=.*o).*$"]) {
    test(`scans ${source} in a helper as the core scanner does here`, async () => {
      for (const [context, maxMatches] of [[0, 100], [1, 100], [0, 1]]) {
        const rows = await stoppableScan(source, false).scan(text, { context, maxMatches }, {});
        assert.deepEqual(rows, localRows(source, text, context, maxMatches));
      }
    });
  }

  test("a pattern that would run for hours is stopped at the deadline", async () => {
    const line = "c" + "a".repeat(3000) + "\n";
    const scan = stoppableScan("(?=a)a*a*a*a*c", false);
    await assert.rejects(
      scan.scan(line, { context: 0, maxMatches: 10 }, { deadline: Date.now() + 300 }),
      PatternStoppedError,
    );
    // The helper was killed with it; a new one answers the next scan.
    assert.deepEqual(await scan.scan("ac\n", { context: 0, maxMatches: 10 }, {}), [
      { line: 1, text: "ac\n", match: { start: 0, end: 2 } },
    ]);
  });

  test("a cancelled scan rejects with the signal's reason and stops its helper", async () => {
    const controller = new AbortController();
    const line = "c" + "a".repeat(3000) + "\n";
    const running = stoppableScan("a*a*a*a*(?<=a)c", false).scan(
      line,
      { context: 0, maxMatches: 10 },
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(new Error("cancelled by the client")), 200);
    await assert.rejects(running, /cancelled by the client/);
  });
});
