import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  appendNote,
  appendNotes,
  DEFAULT_CUT,
  DEFAULT_MAX_CHARS,
  DEFAULT_MAX_ROWS,
  formatRow,
  formatRows,
  type Row,
  type RowOptions,
  windowRow,
} from "../../src/core/format_rows.ts";
import { codePointCount, columnAt, offsetOfColumn } from "../../src/core/columns.ts";
import { splitLines } from "../../src/core/split_lines.ts";
import { RUNS, text } from "../_helpers/arbitraries.ts";

const marker = (length: number, next: number) =>
  ` … [line cut: ${length} code points; column=${next} shows more]`;

describe("formatRow()", () => {
  const x = (n: number) => "x".repeat(n);
  const ROWS: Array<{ name: string; row: Row; options?: RowOptions; text: string; cut: boolean }> =
    [
      {
        name: "a row is the number, a tab and the line verbatim with its terminator",
        row: { line: 7, text: "x = 1\n" },
        text: "7\tx = 1\n",
        cut: false,
      },
      {
        name: "a CRLF line keeps its \\r\\n as the row separator",
        row: { line: 7, text: "x = 1\r\n" },
        text: "7\tx = 1\r\n",
        cut: false,
      },
      {
        name: "a last line without a newline gives a row without one",
        row: { line: 3, text: "last" },
        text: "3\tlast",
        cut: false,
      },
      {
        name: "an empty line is the number and a tab",
        row: { line: 2, text: "\n" },
        text: "2\t\n",
        cut: false,
      },
      {
        name: "a context row has a dash after the number",
        row: { line: 4, text: "ctx\n", context: true },
        text: "4-\tctx\n",
        cut: false,
      },
      {
        name: "a lone CR inside a line stays",
        row: { line: 1, text: "a\rb\n" },
        text: "1\ta\rb\n",
        cut: false,
      },
      {
        name: "whitespace is kept verbatim",
        row: { line: 1, text: " \t \n" },
        text: "1\t \t \n",
        cut: false,
      },
      {
        name: "a line of exactly 2,000 code points is not cut",
        row: { line: 1, text: `${x(2000)}\n` },
        text: `1\t${x(2000)}\n`,
        cut: false,
      },
      {
        name:
          "a line of 2,001 code points is cut after 2,000, then the marker, then the terminator",
        row: { line: 1, text: `${x(2001)}\n` },
        text: `1\t${x(2000)}${marker(2001, 2001)}\n`,
        cut: true,
      },
      {
        name: "a cut CRLF line ends with its \\r\\n after the marker",
        row: { line: 9, text: `${x(2500)}\r\n` },
        text: `9\t${x(2000)}${marker(2500, 2001)}\r\n`,
        cut: true,
      },
      {
        name: "a cut last line without a newline ends with the marker",
        row: { line: 9, text: x(2500) },
        text: `9\t${x(2000)}${marker(2500, 2001)}`,
        cut: true,
      },
      {
        name: "a 100,000-character line is cut",
        row: { line: 1, text: `${x(100_000)}\n` },
        text: `1\t${x(2000)}${marker(100_000, 2001)}\n`,
        cut: true,
      },
      {
        name: "1,500 astral characters (3,000 UTF-16 units) are not cut",
        row: { line: 1, text: `${"😀".repeat(1500)}\n` },
        text: `1\t${"😀".repeat(1500)}\n`,
        cut: false,
      },
      {
        name: "an astral line is cut by code points, never inside a pair",
        row: { line: 1, text: `${"😀".repeat(2001)}\n` },
        text: `1\t${"😀".repeat(2000)}${marker(2001, 2001)}\n`,
        cut: true,
      },
      {
        name: "a smaller cut applies",
        row: { line: 1, text: "abcdef\n" },
        options: { cut: 3 },
        text: `1\tabc${marker(6, 4)}\n`,
        cut: true,
      },
      {
        name: "a column window starts at the column, marked, and shows the rest",
        row: { line: 1, text: `${x(2000)}${"y".repeat(500)}\n` },
        options: { column: 2001 },
        text: `1\t[from column 2001] ${"y".repeat(500)}\n`,
        cut: true,
      },
      {
        name: "a column window in the middle is cut with the next column",
        row: { line: 1, text: "abcdef\n" },
        options: { column: 2, cut: 3 },
        text: `1\t[from column 2] bcd${marker(6, 5)}\n`,
        cut: true,
      },
      {
        name: "a column window counts astral characters as one column",
        row: { line: 1, text: "😀😀abc\r\n" },
        options: { column: 2, cut: 2 },
        text: `1\t[from column 2] 😀a${marker(5, 4)}\r\n`,
        cut: true,
      },
      {
        name: "a column past the end shows nothing of the line",
        row: { line: 1, text: "abc\n" },
        options: { column: 10 },
        text: "1\t[from column 10] \n",
        cut: true,
      },
      {
        name: "a short matching line is shown whole",
        row: { line: 5, text: "a needle\n", match: { start: 2, end: 8 } },
        text: "5\ta needle\n",
        cut: false,
      },
      {
        name: "a long matching line shows a window around its match, marked with its column",
        row: { line: 5, text: `${x(3000)}NEEDLE${x(2000)}\n`, match: { start: 3000, end: 3006 } },
        text: `5\t[from column 2801] ${x(200)}NEEDLE${x(1794)}${marker(5006, 4801)}\n`,
        cut: true,
      },
      {
        name: "a match near the start of a long line needs no column mark",
        row: { line: 5, text: `${x(50)}NEEDLE${x(3000)}\n`, match: { start: 50, end: 56 } },
        text: `5\t${x(50)}NEEDLE${x(1944)}${marker(3056, 2001)}\n`,
        cut: true,
      },
      {
        name: "a match near the end of a long line shows the last 2,000 code points",
        row: { line: 5, text: `${x(3000)}NEEDLE\n`, match: { start: 3000, end: 3006 } },
        text: `5\t[from column 1007] ${x(1994)}NEEDLE\n`,
        cut: true,
      },
      {
        name: "a match window counts columns in code points",
        row: {
          line: 5,
          text: `${"😀".repeat(3000)}NEEDLE${x(3000)}\n`,
          match: { start: 6000, end: 6006 },
        },
        text: `5\t[from column 2801] ${"😀".repeat(200)}NEEDLE${x(1794)}${marker(6006, 4801)}\n`,
        cut: true,
      },
    ];
  for (const row of ROWS) {
    test(`formatRow(): ${row.name}`, () => {
      assert.deepEqual(formatRow(row.row, row.options), { text: row.text, cut: row.cut });
    });
  }

  test("formatRow() of an uncut line is the number, a tab and the line", () => {
    fc.assert(
      fc.property(
        text,
        fc.integer({ min: 1, max: 1e6 }),
        (t, n) =>
          splitLines(t).every((line) =>
            formatRow({ line: n, text: line }).text === `${n}\t${line}`
          ),
      ),
      RUNS,
    );
  });

  test("formatRow() cuts every line as counting code points one by one would", () => {
    // The reference counts columns for every step, as the spec words it; formatRow skips
    // the counting on lines without surrogates.
    const reference = (row: Row, cut: number, column: number): string => {
      const end = row.text.search(/\r?\n|$/);
      const line = row.text.slice(0, end);
      const length = codePointCount(line);
      if (column === 1 && length <= cut) return `${row.line}\t${row.text}`;
      let first = column;
      if (row.match && column === 1) {
        const lead = Math.min(Math.floor(cut / 10), 200);
        first = Math.max(1, Math.min(columnAt(line, row.match.start) - lead, length - cut + 1));
      }
      const from = offsetOfColumn(line, first);
      const to = offsetOfColumn(line, cut + 1, from);
      return `${row.line}\t${first > 1 ? `[from column ${first}] ` : ""}${line.slice(from, to)}${
        to < line.length ? marker(length, columnAt(line, to)) : ""
      }${row.text.slice(end)}`;
    };
    const piece = fc.constantFrom("a", "b", "😀", "é", "\uD800", " ");
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 60 }),
        fc.constantFrom("\n", "\r\n", ""),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1, max: 70 }),
        fc.nat(),
        fc.boolean(),
        (pieces, end, cut, column, at, matched) => {
          const line = pieces.join("");
          // A match starts at a code point (never inside a pair).
          const starts = [...line].map((_, i) => [...line].slice(0, i).join("").length);
          const start = starts.length === 0 ? 0 : starts[at % starts.length];
          const row: Row = { line: 3, text: line + end };
          if (matched) row.match = { start, end: start };
          const want = reference(row, cut, column);
          assert.equal(formatRow(row, { cut, column }).text, want);
        },
      ),
      RUNS,
    );
  });

  test("the defaults are 2,000 code points, 2,000 rows and 60,000 characters", () => {
    assert.equal(DEFAULT_CUT, 2000);
    assert.equal(DEFAULT_MAX_ROWS, 2000);
    assert.equal(DEFAULT_MAX_CHARS, 60000);
  });
});

describe("formatRows()", () => {
  const numbered = (lines: string[]): Row[] => lines.map((t, i) => ({ line: i + 1, text: t }));

  test("formatRows() concatenates rows, the terminators separating them", () => {
    const out = formatRows(numbered(["a\n", "b\r\n", "c"]));
    assert.deepEqual(out, { text: "1\ta\n2\tb\r\n3\tc", rows: 3, cutLines: [] });
  });

  test("formatRows() of no rows is empty", () => {
    assert.deepEqual(formatRows([]), { text: "", rows: 0, cutLines: [] });
  });

  test("formatRows() stops at maxRows", () => {
    const out = formatRows(numbered(["a\n", "b\n", "c\n"]), { maxRows: 2 });
    assert.deepEqual(out, { text: "1\ta\n2\tb\n", rows: 2, cutLines: [] });
  });

  test("formatRows() stops before the row that would pass maxChars", () => {
    // "1\ta\n" is 4 characters: 2 rows are 8, a third would be 12.
    const out = formatRows(numbered(["a\n", "b\n", "c\n"]), { maxChars: 11 });
    assert.deepEqual(out, { text: "1\ta\n2\tb\n", rows: 2, cutLines: [] });
  });

  test("formatRows() takes a row that fills maxChars exactly", () => {
    const out = formatRows(numbered(["a\n", "b\n", "c\n"]), { maxChars: 12 });
    assert.equal(out.rows, 3);
  });

  test("formatRows() shows at least one row even when it alone passes maxChars", () => {
    const out = formatRows(numbered(["a long line\n", "b\n"]), { maxChars: 3 });
    assert.deepEqual(out, { text: "1\ta long line\n", rows: 1, cutLines: [] });
  });

  test("formatRows() stops at the default of 2,000 rows", () => {
    const rows = numbered(Array.from({ length: 2500 }, () => "x\n"));
    assert.equal(formatRows(rows).rows, 2000);
  });

  test("formatRows() stops at the default of 60,000 characters", () => {
    // Each row is "<n>\t" + 1,000 x's + "\n": about 1,006 characters.
    const out = formatRows(numbered(Array.from({ length: 100 }, () => `${"x".repeat(1000)}\n`)));
    assert.ok(out.text.length <= 60000);
    assert.equal(out.rows, 59);
  });

  test("formatRows() lists the line numbers of cut rows", () => {
    const long = `${"x".repeat(2001)}\n`;
    const out = formatRows([{ line: 4, text: "a\n" }, { line: 5, text: long }, {
      line: 6,
      text: long,
    }]);
    assert.deepEqual(out.cutLines, [5, 6]);
    assert.equal(out.rows, 3);
  });

  test("formatRows() passes the cut and column on to every row", () => {
    const out = formatRows(numbered(["abcdef\n", "ab\n"]), { cut: 3 });
    assert.equal(out.text, `1\tabc${marker(6, 4)}\n2\tab\n`);
  });

  test("formatRows() pulls no row past the budget from a lazy source", () => {
    let pulled = 0;
    function* rows(): Generator<Row> {
      for (let line = 1; line <= 10; line++) {
        pulled++;
        yield { line, text: "x\n" };
      }
    }
    assert.equal(formatRows(rows(), { maxRows: 3 }).rows, 3);
    assert.ok(pulled <= 4, `pulled ${pulled} rows`);
  });

  test("formatRows() always shows at least one row and keeps the budget after it", () => {
    fc.assert(
      fc.property(
        fc.array(text, { minLength: 1, maxLength: 10 }),
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 80 }),
        (texts, maxRows, maxChars) => {
          const rows = texts.map((t, i) => ({ line: i + 1, text: t }));
          const out = formatRows(rows, { maxRows, maxChars });
          const first = formatRow(rows[0]).text;
          return out.rows >= 1 && out.rows <= maxRows &&
            (out.rows === 1 ? out.text === first : out.text.length <= maxChars);
        },
      ),
      RUNS,
    );
  });
});

describe("appendNote()", () => {
  const ROWS: Array<[string, string, string]> = [
    ["a note on empty text is its own line", "", "[empty file: 0 lines]\n"],
    [
      "a note after a terminated row needs no extra newline",
      "1\ta\n",
      "1\ta\n[empty file: 0 lines]\n",
    ],
    [
      "a note after a CRLF row needs no extra newline",
      "1\ta\r\n",
      "1\ta\r\n[empty file: 0 lines]\n",
    ],
    [
      "a note after a last row with no terminator gets a newline first",
      "1\ta",
      "1\ta\n[empty file: 0 lines]\n",
    ],
    [
      "a note after a cut row without a terminator gets a newline first",
      `1\tx${marker(9, 2)}`,
      `1\tx${marker(9, 2)}\n[empty file: 0 lines]\n`,
    ],
    ["a note after a note needs no extra newline", "[a]\n", "[a]\n[empty file: 0 lines]\n"],
  ];
  for (const [name, before, after] of ROWS) {
    test(`appendNote(): ${name}`, () => {
      assert.equal(appendNote(before, "empty file: 0 lines"), after);
    });
  }
});

describe("appendNotes()", () => {
  test("gives what appendNote gives note by note, with the text in any pieces", () => {
    const piece = fc.constantFrom("", "1\ta", "\n", "\r\n", "2\tb\n", "[c]\n", "x");
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 8 }),
        fc.array(fc.constantFrom("a note", "empty file: 0 lines", ""), { maxLength: 3 }),
        (pieces, notes) => {
          assert.equal(appendNotes(pieces, notes), notes.reduce(appendNote, pieces.join("")));
        },
      ),
      RUNS,
    );
  });
});

describe("windowRow()", () => {
  test("a long row's window is shown exactly as the whole row would be, and is short", () => {
    const unit = fc.constantFrom("a", "é", "😀", "\t", " ", "\r");
    fc.assert(
      fc.property(
        fc.array(unit, { minLength: 1, maxLength: 3000, size: "max" }),
        fc.integer({ min: 1, max: 300 }),
        fc.option(fc.tuple(fc.nat(), fc.nat(5)), { nil: undefined }),
        fc.constantFrom("\n", "\r\n", ""),
        fc.boolean(),
        (units, cut, at, terminator, context) => {
          const text = units.join("");
          let match: Row["match"];
          if (at !== undefined) {
            const first = at[0] % units.length;
            const start = units.slice(0, first).join("").length;
            const end = units.slice(0, Math.min(units.length, first + at[1])).join("").length;
            match = { start, end };
          }
          const row: Row = { line: 9, text: text + terminator, match, context };
          const windowed = windowRow(row, cut);
          assert.equal(formatRow(windowed, { cut }).text, formatRow(row, { cut }).text);
          assert.ok(windowed.text.length <= Math.max(4 * cut, 2 * cut + terminator.length));
          assert.equal(windowed.match === undefined, match === undefined);
        },
      ),
      { numRuns: 500 },
    );
  });

  test("a short row and a row that is already a piece stay as they are", () => {
    const short = { line: 1, text: "abc\n" };
    assert.equal(windowRow(short, 2), short);
    const piece = {
      line: 1,
      text: "x".repeat(100),
      piece: { from: 5, codePoints: 1000, terminator: "" },
    };
    assert.equal(windowRow(piece, 10), piece);
  });
});
