import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { codePointCount, columnAt, offsetOfColumn } from "../../src/core/columns.ts";
import { RUNS } from "../_helpers/arbitraries.ts";

describe("codePointCount()", () => {
  const ROWS: Array<[string, string, number]> = [
    ["empty text has 0 code points", "", 0],
    ["ASCII counts one per character", "abc", 3],
    ["an astral character counts once", "a😀b", 3],
    ["non-ASCII BMP characters count once", "é中", 2],
    ["a combining mark is its own code point", "e\u0301", 2],
    ["a lone high surrogate counts once", "\uD83Dx", 2],
    ["a lone low surrogate counts once", "\uDE00x", 2],
    ["reversed surrogates count twice", "\uDE00\uD83D", 2],
    ["a 100,000-character line", "x".repeat(100_000), 100_000],
    ["100,000 astral characters", "😀".repeat(100_000), 100_000],
  ];
  for (const [name, t, count] of ROWS) {
    test(`codePointCount(): ${name}`, () => {
      assert.equal(codePointCount(t), count);
    });
  }

  test("codePointCount() counts a range, splitting a pair at its edge", () => {
    assert.equal(codePointCount("a😀b", 1, 3), 1);
    assert.equal(codePointCount("a😀b", 1, 2), 1); // the high half alone
    assert.equal(codePointCount("a😀b", 2, 4), 2); // the low half alone, then b
    assert.equal(codePointCount("a😀b", 4), 0);
  });

  test("codePointCount() agrees with the string iterator", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (s) => codePointCount(s) === [...s].length),
      RUNS,
    );
  });
});

describe("columnAt() and offsetOfColumn()", () => {
  const ROWS: Array<[string, string, number, number]> = [
    ["column 1 is offset 0", "abc", 1, 0],
    ["ASCII columns are offsets + 1", "abc", 3, 2],
    ["the column after an astral character skips 2 units", "😀x", 2, 2],
    ["columns count code points after several astral characters", "😀😀😀x", 4, 6],
    ["the column just past the end is the text's length", "a😀", 3, 3],
  ];
  for (const [name, t, column, offset] of ROWS) {
    test(`columnAt() and offsetOfColumn(): ${name}`, () => {
      assert.equal(offsetOfColumn(t, column), offset);
      assert.equal(columnAt(t, offset), column);
    });
  }

  test("offsetOfColumn() clamps a column past the end to the length", () => {
    assert.equal(offsetOfColumn("abc", 99), 3);
    assert.equal(offsetOfColumn("", 2), 0);
  });

  test("offsetOfColumn() treats columns below 1 as column 1", () => {
    assert.equal(offsetOfColumn("abc", 0), 0);
    assert.equal(offsetOfColumn("abc", -5), 0);
  });

  test("offsetOfColumn() steps over a lone high surrogate as one column", () => {
    assert.equal(offsetOfColumn("\uD83Dx", 2), 1);
    assert.equal(offsetOfColumn("\uD83D", 2), 1);
  });

  test("columnAt() and offsetOfColumn() invert each other at code point boundaries", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), fc.nat(), (s, n) => {
        const points = [...s];
        const column = (n % (points.length + 1)) + 1;
        const offset = points.slice(0, column - 1).join("").length;
        return offsetOfColumn(s, column) === offset && columnAt(s, offset) === column;
      }),
      RUNS,
    );
  });
});
