import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { carryInsertPoint, carryRange, changedRegions, mapLines } from "../../src/versions/mod.ts";

describe("mapLines()", () => {
  test("maps unchanged lines to their new numbers and changed ones to 0", () => {
    const m = mapLines("a\nb\nc\nd\n", "new\na\nB\nc\nd\nend\n")!;
    assert.deepEqual([...m.newLine].slice(1), [2, 0, 4, 5]);
    assert.equal(m.changed, 1);
    assert.equal(m.added, 3);
  });

  test("compares lines with their terminators, and leaves the BOM aside", () => {
    assert.deepEqual([...mapLines("a\nb\n", "a\r\nb\n")!.newLine].slice(1), [0, 2]);
    assert.deepEqual([...mapLines("\uFEFFa\n", "a\n")!.newLine].slice(1), [1]);
  });

  test("gives undefined when more lines changed than it may diff", () => {
    const before = Array.from({ length: 50 }, (_, i) => `a${i}\n`).join("");
    const after = Array.from({ length: 50 }, (_, i) => `b${i}\n`).join("");
    assert.equal(mapLines(before, after, { maxEditLength: 10, timeout: 1000 }), undefined);
    assert.ok(mapLines(before, after, { maxEditLength: 1000, timeout: 1000 }));
  });

  // (Every other line of 200,000 changed: 125 s of diffing each without the time bound, which
  // the test's own timeout catches.)
  test("gives up within its time bound however the lines changed", { timeout: 60_000 }, () => {
    const before = Array.from({ length: 200_000 }, (_, i) => `l${i}\n`).join("");
    const after = Array.from({ length: 200_000 }, (_, i) => i % 2 ? `x${i}\n` : `l${i}\n`).join("");
    assert.equal(mapLines(before, after), undefined);
    assert.deepEqual(changedRegions(before, after), [
      { oldStart: 2, oldEnd: 200_000, newStart: 2, newEnd: 200_000 },
    ]);
  });
});

describe("carrying edits over", () => {
  const m = mapLines("a\nb\nc\nd\ne\n", "x\na\nb\nC\nd\ne\n")!;

  test("a range of unchanged lines moves with them", () => {
    assert.deepEqual(carryRange(m, 1, 2), { ok: true, start: 2 });
    assert.deepEqual(carryRange(m, 4, 5), { ok: true, start: 5 });
  });

  test("a range with a changed line conflicts, naming the region it became", () => {
    assert.deepEqual(carryRange(m, 3, 3), { ok: false, from: 4, to: 4 });
    assert.deepEqual(carryRange(m, 2, 4), { ok: false, from: 3, to: 5 });
  });

  test("a range split by lines inserted inside it conflicts", () => {
    const split = mapLines("a\nb\n", "a\nnew\nb\n")!;
    assert.deepEqual(carryRange(split, 1, 2), { ok: false, from: 1, to: 3 });
  });

  test("an insert point moves when both its neighbours are unchanged and still adjacent", () => {
    assert.deepEqual(carryInsertPoint(m, 1), { ok: true, start: 2 });
    assert.equal(carryInsertPoint(m, 2).ok, false, "line 3 next to it changed");
    assert.equal(carryInsertPoint(m, 0).ok, false, "a line was added before line 1");
    assert.deepEqual(carryInsertPoint(m, 5), { ok: true, start: 6 });
    const grown = mapLines("a\n", "a\nz\n")!;
    assert.equal(carryInsertPoint(grown, 1).ok, false, "a line was appended after the end");
  });
});
