import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ExpectedTextMismatchError, OldTextMatchError } from "../../src/core/edit_result.ts";

describe("ExpectedTextMismatchError", () => {
  test("ExpectedTextMismatchError names one line and says nothing was written", () => {
    const error = new ExpectedTextMismatchError([{ start: 4, end: 4, firstDifferentLine: 4 }]);
    assert.ok(error instanceof Error);
    assert.equal(error.name, "ExpectedTextMismatchError");
    assert.equal(
      error.message,
      "expected_text does not match the file at line 4 (first difference at line 4); nothing was written",
    );
  });

  test("ExpectedTextMismatchError names every range with its first differing line", () => {
    const ranges = [
      { start: 1, end: 3, firstDifferentLine: 2 },
      { start: 7, end: 9, firstDifferentLine: 9 },
    ];
    const error = new ExpectedTextMismatchError(ranges);
    assert.match(
      error.message,
      /^expected_text does not match the file at lines 1-3 \(first difference at line 2\), lines 7-9 \(first difference at line 9\); nothing was written/,
    );
    assert.deepEqual(error.ranges, ranges);
  });

  test("ExpectedTextMismatchError starts its message lower-case", () => {
    const error = new ExpectedTextMismatchError([{ start: 1, end: 1, firstDifferentLine: 1 }]);
    assert.match(error.message, /^[a-z]/);
  });
});

describe("OldTextMatchError", () => {
  test("OldTextMatchError for no occurrence says it was not found and how to retry", () => {
    const error = new OldTextMatchError([]);
    assert.ok(error instanceof Error);
    assert.equal(error.name, "OldTextMatchError");
    assert.deepEqual(error.lines, []);
    assert.match(
      error.message,
      /^old_text was not found; read the file again and copy the text exactly/,
    );
    assert.match(error.message, /use replace_lines/);
  });

  test("OldTextMatchError for several occurrences names each line", () => {
    const error = new OldTextMatchError([3, 9, 12]);
    assert.deepEqual(error.lines, [3, 9, 12]);
    assert.equal(
      error.message,
      "old_text occurs 3 times (at lines 3, 9, 12); include more surrounding text to make it unique, pass replace_all=true, or use replace_lines",
    );
  });

  test("OldTextMatchError names the first 20 lines of many, and counts the rest", () => {
    const lines = Array.from({ length: 262_144 }, (_, i) => i + 1);
    const error = new OldTextMatchError(lines, "edits[1]: ");
    assert.equal(error.lines.length, 262_144);
    assert.equal(
      error.message,
      `edits[1]: old_text occurs 262144 times (at lines ${
        lines.slice(0, 20).join(", ")
      } and 262124 more); include more surrounding text to make it unique, pass replace_all=true, or use replace_lines`,
    );
    assert.match(new OldTextMatchError(lines.slice(0, 21)).message, /20 and 1 more\)/);
    assert.match(new OldTextMatchError(lines.slice(0, 20)).message, /19, 20\); /);
  });
});
