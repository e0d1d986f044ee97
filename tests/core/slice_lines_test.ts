import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { checkLineRange, plural, sliceLines } from "../../src/core/slice_lines.ts";
import { splitBom } from "../../src/core/bom.ts";
import { countLines, splitLines } from "../../src/core/split_lines.ts";
import { RUNS, text } from "../_helpers/arbitraries.ts";

const LONG = "y".repeat(100_000);

describe("sliceLines()", () => {
  const ROWS: Array<
    { name: string; text: string; start: number; end?: number; lines: string[]; total: number }
  > = [
    { name: "empty text from line 1 is no lines", text: "", start: 1, lines: [], total: 0 },
    {
      name: "empty text from line 1 with an end is no lines",
      text: "",
      start: 1,
      end: 5,
      lines: [],
      total: 0,
    },
    {
      name: "one line without a newline",
      text: "abc",
      start: 1,
      lines: ["abc"],
      total: 1,
    },
    {
      name: '"a\\nb\\n" line 2 is "b\\n"',
      text: "a\nb\n",
      start: 2,
      end: 2,
      lines: ["b\n"],
      total: 2,
    },
    {
      name: "an end past the last line is clamped",
      text: "a\nb\n",
      start: 1,
      end: 99,
      lines: ["a\n", "b\n"],
      total: 2,
    },
    {
      name: "CRLF lines keep their terminators",
      text: "a\r\nb\r\nc",
      start: 2,
      end: 3,
      lines: ["b\r\n", "c"],
      total: 3,
    },
    {
      name: "a lone CR does not start a line",
      text: "a\rb\nc",
      start: 1,
      end: 1,
      lines: ["a\rb\n"],
      total: 2,
    },
    {
      name: "mixed endings",
      text: "a\nb\r\nc\n",
      start: 2,
      lines: ["b\r\n", "c\n"],
      total: 3,
    },
    {
      name: "a BOM + CRLF text gives line 1 without the BOM",
      text: "\uFEFFa\r\nb\r\n",
      start: 1,
      end: 1,
      lines: ["a\r\n"],
      total: 2,
    },
    {
      name: "a BOM-only text is empty",
      text: "\uFEFF",
      start: 1,
      lines: [],
      total: 0,
    },
    {
      name: "a 100,000-character line comes whole",
      text: `x\n${LONG}\nz`,
      start: 2,
      end: 2,
      lines: [`${LONG}\n`],
      total: 3,
    },
    {
      name: "whitespace-only lines",
      text: "a\n \t\n\n",
      start: 2,
      lines: [" \t\n", "\n"],
      total: 3,
    },
    {
      name: "non-ASCII and astral characters",
      text: "é\n😀x\n",
      start: 2,
      lines: ["😀x\n"],
      total: 2,
    },
    {
      name: "no phantom line after a final newline",
      text: "a\nb\n",
      start: 2,
      lines: ["b\n"],
      total: 2,
    },
  ];
  for (const row of ROWS) {
    test(`sliceLines(): ${row.name}`, () => {
      const slice = sliceLines(row.text, row.start, row.end);
      assert.deepEqual(slice.lines, row.lines);
      assert.equal(slice.start, row.start);
      assert.equal(slice.end, row.start + row.lines.length - 1);
      assert.equal(slice.total, row.total);
    });
  }

  test("sliceLines() takes a deep range of a large text", () => {
    const big = Array.from({ length: 50_000 }, (_, i) => `line ${i + 1}\n`).join("");
    const slice = sliceLines(big, 49_999);
    assert.deepEqual(slice.lines, ["line 49999\n", "line 50000\n"]);
    assert.equal(slice.total, 50_000);
  });

  test("sliceLines() gives every line as splitLines() numbers it", () => {
    fc.assert(
      fc.property(text, fc.nat(), fc.nat(), (t, a, b) => {
        const lines = splitLines(splitBom(t).body);
        if (lines.length === 0) return sliceLines(t, 1).lines.length === 0;
        const start = (a % lines.length) + 1;
        const end = start + (b % 3);
        const slice = sliceLines(t, start, end);
        assert.deepEqual(slice.lines, lines.slice(start - 1, end));
        assert.equal(slice.total, lines.length);
        return true;
      }),
      RUNS,
    );
  });
});

describe("checkLineRange()", () => {
  const ERRORS: Array<[string, number, number | undefined, number, RegExp]> = [
    [
      "start_line 0",
      0,
      undefined,
      3,
      /start_line must be a whole number of 1 or more, got 0; the file has 3 lines/,
    ],
    ["a negative start_line", -2, 5, 3, /got -2; the file has 3 lines/],
    ["a fractional start_line", 1.5, undefined, 3, /got 1\.5/],
    [
      "end_line before start_line",
      3,
      2,
      5,
      /end_line 2 is before start_line 3.*the file has 5 lines/,
    ],
    ["a fractional end_line", 1, 2.5, 5, /end_line 2\.5/],
    [
      "start_line past the end",
      4,
      undefined,
      3,
      /start_line 4 is past the end: the file has 3 lines; read from start_line=1 to 3/,
    ],
    ["start_line past the end of a 1-line file", 2, 9, 1, /the file has 1 line;/],
    [
      "start_line 2 of an empty file",
      2,
      undefined,
      0,
      /start_line 2 is past the end: the file has 0 lines$/,
    ],
  ];
  for (const [name, start, end, total, message] of ERRORS) {
    test(`checkLineRange() refuses ${name} with a RangeError naming the line count`, () => {
      assert.throws(() => checkLineRange(start, end, total), (error: unknown) => {
        assert.ok(error instanceof RangeError);
        assert.match(error.message, message);
        return true;
      });
    });
  }

  const ALLOWED: Array<[string, number, number | undefined, number]> = [
    ["an empty file read from line 1", 1, undefined, 0],
    ["an empty file read from line 1 with an end", 1, 10, 0],
    ["the last line alone", 3, 3, 3],
    ["an end past the last line", 2, 100, 3],
    ["start and end on line 1", 1, 1, 1],
  ];
  for (const [name, start, end, total] of ALLOWED) {
    test(`checkLineRange() allows ${name}`, () => {
      assert.doesNotThrow(() => checkLineRange(start, end, total));
    });
  }

  test("sliceLines() refuses the same ranges, counting lines without the BOM", () => {
    assert.throws(() => sliceLines("\uFEFFa\nb\n", 3), /the file has 2 lines/);
    assert.throws(() => sliceLines("a", 0), RangeError);
    assert.throws(() => sliceLines("a\nb", 2, 1), RangeError);
  });

  test("checkLineRange() accepts exactly the starts within the text", () => {
    fc.assert(
      fc.property(text, fc.integer({ min: -2, max: 50 }), (t, start) => {
        const total = countLines(splitBom(t).body);
        const ok = start >= 1 && (start <= total || (start === 1 && total === 0));
        let threw = false;
        try {
          checkLineRange(start, undefined, total);
        } catch (error) {
          threw = error instanceof RangeError;
        }
        return threw === !ok;
      }),
      RUNS,
    );
  });
});

describe("plural()", () => {
  test("plural() agrees with the count", () => {
    assert.equal(plural(0), "lines");
    assert.equal(plural(1), "line");
    assert.equal(plural(2), "lines");
  });
});
