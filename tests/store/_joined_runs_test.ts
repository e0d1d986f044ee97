import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { JoinedRuns, wholeLines } from "../../src/store/_joined_runs.ts";

describe("JoinedRuns", () => {
  it("joins runs and maps each line back to the file", () => {
    // Lines 3-4, then 10, then 12-13 (unterminated last line).
    const runs = JoinedRuns.of(["c\nd\n", 5, "j\n", 1, "l\nm"], 2)!;
    assert.equal(runs.text, "\nc\nd\nj\nl\nm");
    assert.deepEqual([2, 3, 4, 5, 6].map((line) => runs.lineOf(line)), [3, 4, 10, 12, 13]);
  });

  it("puts no empty line in front of runs that start the file", () => {
    const runs = JoinedRuns.of(["\uFEFFa\n", 3, "e\n"], 0)!;
    assert.equal(runs.text, "\uFEFFa\ne\n");
    assert.deepEqual([1, 2].map((line) => runs.lineOf(line)), [1, 5]);
  });

  it("keeps a U+FEFF after lines left out from reading as a BOM", () => {
    const runs = JoinedRuns.of([4, "\uFEFFe\n", 1, "g\n"], 0)!;
    assert.equal(runs.text, "\n\uFEFFe\ng\n");
    assert.deepEqual([1, 2, 3].map((line) => runs.lineOf(line)), [4, 5, 7]);
    // (An empty run first changes nothing: a helper's fuzz found the gap.)
    const after = JoinedRuns.of(["", 2, "\uFEFFc\n", 1, "e\n"], 0)!;
    assert.equal(after.text, "\n\uFEFFc\ne\n");
    assert.deepEqual([1, 2, 3].map((line) => after.lineOf(line)), [2, 3, 5]);
  });

  it("leaves alone what it cannot join", () => {
    assert.equal(JoinedRuns.of(["a\nb\n"], 0), undefined, "one run");
    assert.equal(JoinedRuns.of([3, "d\n", 2], 0), undefined, "one run between counts");
    assert.equal(JoinedRuns.of(["a\n", 1, { piece: "x" }, "c\n"], 0), undefined, "a long line");
    assert.equal(JoinedRuns.of(["a", 1, "c\n"], 0), undefined, "a run cut mid-line");
  });

  it("counts whole lines, an unterminated last one too", () => {
    assert.deepEqual(["", "a", "a\n", "a\nb", "\n\n"].map(wholeLines), [0, 1, 1, 2, 2]);
  });
});
