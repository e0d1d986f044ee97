import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { insertLines } from "../../src/core/insert_lines.ts";
import { replaceLines } from "../../src/core/replace_lines.ts";
import { splitBom } from "../../src/core/bom.ts";
import {
  countLines,
  endsWithTerminator,
  lineText,
  splitLines,
} from "../../src/core/split_lines.ts";
import { anyText, breakText, pureText, RUNS, text } from "../_helpers/arbitraries.ts";

describe("insertLines() edits", () => {
  const ROWS: Array<{
    name: string;
    text: string;
    after: number;
    insert: string;
    exact?: boolean;
    result: string;
  }> = [
    {
      name: "inserts before line 1 with after_line 0",
      text: "a\n",
      after: 0,
      insert: "x",
      result: "x\na\n",
    },
    { name: "inserts between lines", text: "a\nc\n", after: 1, insert: "b", result: "a\nb\nc\n" },
    { name: "appends after the last line", text: "a\n", after: 1, insert: "x", result: "a\nx\n" },
    {
      name: "appends after a last line without a newline, keeping no final newline",
      text: "a",
      after: 1,
      insert: "x",
      result: "a\nx",
    },
    {
      name: "appends text with a newline after a last line without one, keeping no final newline",
      text: "a\nb",
      after: 2,
      insert: "c\n",
      result: "a\nb\nc",
    },
    {
      name: "inserts into empty text, which counts as ending with a newline",
      text: "",
      after: 0,
      insert: "x",
      result: "x\n",
    },
    {
      name: "inserts several lines into empty text",
      text: "",
      after: 0,
      insert: "x\r\ny",
      result: "x\ny\n",
    },
    {
      name: "inserts into a BOM-only text after the BOM",
      text: "\uFEFF",
      after: 0,
      insert: "x",
      result: "\uFEFFx\n",
    },
    {
      name: "inserts before line 1 after the BOM, with the CRLF of the file",
      text: "\uFEFFa\r\n",
      after: 0,
      insert: "x\ny",
      result: "\uFEFFx\r\ny\r\na\r\n",
    },
    {
      name: "gives LF text the CRLF of a CRLF file",
      text: "a\r\nb\r\n",
      after: 1,
      insert: "x\ny",
      result: "a\r\nx\r\ny\r\nb\r\n",
    },
    {
      name: "appends to a CRLF file without a final newline in CRLF",
      text: "a\r\nb",
      after: 2,
      insert: "x\ny",
      result: "a\r\nb\r\nx\r\ny",
    },
    {
      name: "gives CRLF text the LF of an LF file",
      text: "a\nb\n",
      after: 2,
      insert: "x\r\ny\r\n",
      result: "a\nb\nx\ny\n",
    },
    {
      name: "takes the terminator of the line it follows in a mixed file",
      text: "a\nb\r\n",
      after: 1,
      insert: "x",
      result: "a\nx\nb\r\n",
    },
    {
      name: "takes the terminator of line 1 when inserting before it",
      text: "a\r\nb\n",
      after: 0,
      insert: "x",
      result: "x\r\na\r\nb\n",
    },
    {
      name: "uses LF in a text with no terminators",
      text: "abc",
      after: 1,
      insert: "x\r\ny",
      result: "abc\nx\ny",
    },
    { name: "inserts an empty line", text: "a\nb\n", after: 1, insert: "\n", result: "a\n\nb\n" },
    {
      name: "appends an empty line after a last line without a newline, which needs its newline",
      text: "a",
      after: 1,
      insert: "\n",
      result: "a\n\n",
    },
    {
      name: "inserts whitespace-only lines",
      text: "a\n",
      after: 1,
      insert: " \n\t",
      result: "a\n \n\t\n",
    },
    {
      name: "keeps a lone CR inside inserted text",
      text: "a\n",
      after: 0,
      insert: "x\ry",
      result: "x\ry\na\n",
    },
    {
      name: "keeps a last line ending in a lone CR as text when appending after it",
      text: "a\r",
      after: 1,
      insert: "x",
      result: "a\r\r\nx",
    },
    {
      name: "keeps non-ASCII and astral characters",
      text: "é\n",
      after: 1,
      insert: "😀中",
      result: "é\n😀中\n",
    },
    {
      name: "inserts a 100,000-character line",
      text: "a\n",
      after: 1,
      insert: "y".repeat(100_000),
      result: `a\n${"y".repeat(100_000)}\n`,
    },
    {
      name: "in exact mode writes LF text into a CRLF file byte for byte",
      text: "a\r\nb\r\n",
      after: 1,
      insert: "x\ny",
      exact: true,
      result: "a\r\nx\ny\r\nb\r\n",
    },
    {
      name: "in exact mode does not add a final newline",
      text: "a\n",
      after: 1,
      insert: "x",
      exact: true,
      result: "a\nx",
    },
    {
      name: "in exact mode still never joins the text to the line after it",
      text: "a\nb\n",
      after: 0,
      insert: "x",
      exact: true,
      result: "x\na\nb\n",
    },
    {
      name: "in exact mode still never joins a last line without a newline to the text",
      text: "a",
      after: 1,
      insert: "x\n",
      exact: true,
      result: "a\nx\n",
    },
    {
      name: "in exact mode keeps the BOM",
      text: "\uFEFFa\n",
      after: 0,
      insert: "x\r\n",
      exact: true,
      result: "\uFEFFx\r\na\n",
    },
  ];
  for (const row of ROWS) {
    test(`insertLines() ${row.name}`, () => {
      const out = insertLines(row.text, row.after, row.insert, { exact: row.exact });
      assert.equal(out.text, row.result);
      const added = countLines(row.insert);
      assert.equal(out.lineDelta, added);
      assert.deepEqual(out.regions, [{
        oldStart: row.after + 1,
        oldEnd: row.after,
        newStart: row.after + 1,
        newEnd: row.after + added,
      }]);
    });
  }
});

describe("insertLines() errors", () => {
  const ERRORS: Array<[string, string, number, string, typeof Error, RegExp]> = [
    [
      "refuses after_line past the end, naming the line count",
      "a\nb\n",
      3,
      "x",
      RangeError,
      /after_line 3 is outside the file, which has 2 lines; use 0 to insert before line 1 or 2 to append/,
    ],
    [
      "refuses a negative after_line",
      "a\n",
      -1,
      "x",
      RangeError,
      /after_line -1 is outside the file, which has 1 line;/,
    ],
    ["refuses a fractional after_line", "a\n", 0.5, "x", RangeError, /after_line 0\.5/],
    ["refuses after_line 1 in an empty file", "", 1, "x", RangeError, /which has 0 lines; use 0/],
    ["refuses empty text", "a\n", 1, "", TypeError, /text is empty; there is nothing to insert/],
  ];
  for (const [name, t, after, insert, type, message] of ERRORS) {
    test(`insertLines() ${name}`, () => {
      assert.throws(() => insertLines(t, after, insert), (error: unknown) => {
        assert.ok(error instanceof type);
        assert.match((error as Error).message, message);
        return true;
      });
    });
  }
});

describe("insertLines() properties", () => {
  const insertion = fc.tuple(text, fc.nat(), anyText.filter((s) => s.length > 0), fc.boolean());

  test("insertLines() then deleting the inserted lines with replaceLines() gives the text back", () => {
    fc.assert(
      fc.property(insertion, ([t, n, insert]) => {
        const after = n % (countLines(splitBom(t).body) + 1);
        // A U+FEFF inserted at the very start of a text without a BOM reads back as a BOM.
        fc.pre(!(after === 0 && insert.startsWith("\uFEFF") && !t.startsWith("\uFEFF")));
        const inserted = insertLines(t, after, insert);
        // Appending an empty line to text without a final newline has to add one ("a" gives
        // "a\n\n"); deleting that line cannot know the newline was not there before.
        fc.pre(
          endsWithTerminator(splitBom(inserted.text).body) === endsWithTerminator(splitBom(t).body),
        );
        const [region] = inserted.regions;
        const back = replaceLines(inserted.text, [
          { start_line: region.newStart, end_line: region.newEnd, new_text: "" },
        ]);
        assert.equal(back.text, t);
        assert.equal(back.lineDelta, -inserted.lineDelta);
      }),
      RUNS,
    );
  });

  test("insertLines() keeps every old line, adds exactly the inserted lines, and reports them", () => {
    fc.assert(
      fc.property(insertion, ([t, n, insert, exact]) => {
        const { bom, body } = splitBom(t);
        const old = splitLines(body);
        const after = n % (old.length + 1);
        const out = insertLines(t, after, insert, { exact });
        assert.equal(out.text.slice(0, bom.length), bom);
        const now = splitLines(out.text.slice(bom.length));
        const wanted = splitLines(insert);
        assert.equal(out.lineDelta, wanted.length);
        assert.equal(now.length, old.length + wanted.length);
        assert.deepEqual(
          now.slice(after, after + wanted.length).map(lineText),
          wanted.map(lineText),
        );
        old.forEach((line, i) => {
          const j = i < after ? i : i + wanted.length;
          // The line before the insertion point may gain a terminator, the new last line lose one.
          if (i === old.length - 1 || j === now.length - 1) {
            assert.equal(lineText(now[j]), lineText(line));
          } else {
            assert.equal(now[j], line);
          }
        });
      }),
      RUNS,
    );
  });

  test("insertLines() keeps the final-newline state", () => {
    fc.assert(
      fc.property(insertion, ([t, n, insert]) => {
        const { body } = splitBom(t);
        const out = splitBom(insertLines(t, n % (countLines(body) + 1), insert).text).body;
        const emptyLast = /(^|\n)\r?\n$/.test(out);
        return emptyLast || endsWithTerminator(out) === endsWithTerminator(body);
      }),
      RUNS,
    );
  });

  test("insertLines() keeps a pure-CRLF text pure CRLF when the text uses LF", () => {
    fc.assert(
      fc.property(
        pureText("\r\n"),
        fc.nat(),
        breakText.filter((s) => s.length > 0),
        (t, n, insert) => {
          const out = insertLines(t, n % (countLines(splitBom(t).body) + 1), insert).text;
          return !/(^|[^\r])\n/.test(out);
        },
      ),
      RUNS,
    );
  });

  test("insertLines() keeps a pure-LF text pure LF when the text uses CRLF", () => {
    fc.assert(
      fc.property(
        pureText("\n"),
        fc.nat(),
        breakText.filter((s) => s.length > 0),
        (t, n, insert) => {
          const out = insertLines(t, n % (countLines(splitBom(t).body) + 1), insert).text;
          return !out.includes("\r");
        },
      ),
      RUNS,
    );
  });
});
