import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { LineIndex } from "../../src/core/line_index.ts";
import { splitLines } from "../../src/core/split_lines.ts";
import { takeLines } from "../../src/core/line_budget.ts";
import { piece, RUNS } from "../_helpers/arbitraries.ts";

/** Texts of up to 600 pieces: several of the index's strides of 64 lines. */
const longText = fc.array(piece, { maxLength: 600 }).map((p) => p.join(""));

/** Every line as the index gives it, in the order of `order`. */
function linesIn(index: LineIndex, order: number[]): Array<string | undefined> {
  return order.map((i) => index.at(i));
}

describe("LineIndex", () => {
  test("has the lines splitLines gives, whatever order they are asked in", () => {
    fc.assert(
      fc.property(longText, fc.array(fc.integer({ min: -700, max: 700 })), (text, picks) => {
        const lines = splitLines(text);
        const index = new LineIndex(text);
        assert.equal(index.length, lines.length);
        const all = lines.map((_, i) => i);
        assert.deepEqual(linesIn(index, all), lines, "in order");
        assert.deepEqual(linesIn(index, [...all].reverse()), [...lines].reverse(), "backwards");
        assert.deepEqual(linesIn(index, picks), picks.map((i) => lines.at(i)), `at ${picks}`);
      }),
      RUNS,
    );
  });

  test("lines past a stride's end, at the text's end, and on either side of it", () => {
    for (const count of [63, 64, 65, 127, 128, 129, 1000]) {
      for (const last of ["", "tail", "\r"]) {
        const text = Array.from({ length: count }, (_, i) => `${i}\n`).join("") + last;
        const lines = splitLines(text);
        const index = new LineIndex(text);
        assert.equal(index.length, lines.length, `${count} lines + ${JSON.stringify(last)}`);
        for (const i of [0, 62, 63, 64, 65, count - 1, count, count + 1, -1, -count]) {
          assert.equal(index.at(i), lines.at(i), `line ${i} of ${count}+${JSON.stringify(last)}`);
        }
      }
    }
  });

  test("reads an index as an array does, and gives nothing past either end", () => {
    const index = new LineIndex("a\nb\n");
    const lines = ["a\n", "b\n"];
    for (const i of [2, -3, Infinity, -Infinity, NaN, 1.5, -0.5, -1.5, -2.5, 0.9]) {
      assert.equal(index.at(i), lines.at(i), `at(${i}), as an array's`);
      // (Whatever came before, the next line asked for is that line.)
      assert.equal(index.at(1), "b\n", `at(1) after at(${i})`);
      assert.equal(index.at(0), "a\n", `at(0) after at(${i})`);
    }
    assert.equal(new LineIndex("").length, 0);
    assert.equal(new LineIndex("").at(0), undefined);
  });

  test("holds a start for every 64th line, not a string for each", () => {
    assert.equal(new LineIndex("x\n".repeat(63)).bytes, 4);
    assert.equal(new LineIndex("x\n".repeat(65)).bytes, 8);
    assert.equal(new LineIndex("x\n".repeat(64_000)).bytes, 4000);
  });

  test("a read takes the same lines from it as from an array", () => {
    fc.assert(
      fc.property(
        longText,
        fc.integer({ min: 1, max: 700 }),
        fc.integer({ min: 1, max: 100 }),
        fc.integer({ min: 1, max: 300 }),
        (text, start, maxLines, maxChars) => {
          const limits = { maxLines, maxChars, cut: 50 };
          const lines = splitLines(text);
          if (start > lines.length + 1) return;
          assert.deepEqual(
            takeLines(new LineIndex(text), start, limits),
            takeLines(lines, start, limits),
          );
        },
      ),
      RUNS,
    );
  });
});
