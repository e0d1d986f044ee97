import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { type LineEdit, replaceLines } from "../../src/core/replace_lines.ts";
import { ExpectedTextMismatchError } from "../../src/core/edit_result.ts";
import { splitBom } from "../../src/core/bom.ts";
import {
  countLines,
  endsWithTerminator,
  lineText,
  splitLines,
} from "../../src/core/split_lines.ts";
import { anyText, breakText, pureText, RUNS, text } from "../_helpers/arbitraries.ts";

const LONG = "z".repeat(100_000);

describe("replaceLines() edits", () => {
  const ROWS: Array<{
    name: string;
    text: string;
    edits: LineEdit[];
    exact?: boolean;
    result: string;
    lineDelta: number;
  }> = [
    {
      name: "replaces one line",
      text: "a\nb\nc\n",
      edits: [{ start_line: 2, new_text: "B\n" }],
      result: "a\nB\nc\n",
      lineDelta: 0,
    },
    {
      name: "gives new text without a final newline a terminator, so lines never join",
      text: "a\nb\nc\n",
      edits: [{ start_line: 2, new_text: "B" }],
      result: "a\nB\nc\n",
      lineDelta: 0,
    },
    {
      name: "replaces one line by several",
      text: "a\nb\nc\n",
      edits: [{ start_line: 2, new_text: "B1\nB2" }],
      result: "a\nB1\nB2\nc\n",
      lineDelta: 1,
    },
    {
      name: "replaces a range by one line",
      text: "a\nb\nc\nd\n",
      edits: [{ start_line: 2, end_line: 3, new_text: "X" }],
      result: "a\nX\nd\n",
      lineDelta: -1,
    },
    {
      name: "deletes a line with empty new text",
      text: "a\nb\nc\n",
      edits: [{ start_line: 2, new_text: "" }],
      result: "a\nc\n",
      lineDelta: -1,
    },
    {
      name: "deletes every line",
      text: "a\nb\n",
      edits: [{ start_line: 1, end_line: 2, new_text: "" }],
      result: "",
      lineDelta: -2,
    },
    {
      name: "replaces the only line of a one-line text without a newline",
      text: "abc",
      edits: [{ start_line: 1, new_text: "x\ny" }],
      result: "x\ny",
      lineDelta: 1,
    },
    {
      name: "gives LF new text the CRLF of a CRLF file",
      text: "a\r\nb\r\nc\r\n",
      edits: [{ start_line: 2, new_text: "x\ny\n" }],
      result: "a\r\nx\r\ny\r\nc\r\n",
      lineDelta: 1,
    },
    {
      name: "gives CRLF new text the LF of an LF file",
      text: "a\nb\n",
      edits: [{ start_line: 1, new_text: "x\r\ny" }],
      result: "x\ny\nb\n",
      lineDelta: 1,
    },
    {
      name: "gives new text the terminator of the line it replaces in a mixed file",
      text: "a\r\nb\nc\r\n",
      edits: [{ start_line: 2, new_text: "x\r\ny" }],
      result: "a\r\nx\ny\nc\r\n",
      lineDelta: 1,
    },
    {
      name: "uses the CRLF style for the unterminated last line of a CRLF file",
      text: "a\r\nb",
      edits: [{ start_line: 2, new_text: "x\ny" }],
      result: "a\r\nx\r\ny",
      lineDelta: 1,
    },
    {
      name: "keeps no final newline when new text for the last line has one",
      text: "a\nb",
      edits: [{ start_line: 2, new_text: "B\n" }],
      result: "a\nB",
      lineDelta: 0,
    },
    {
      name: "keeps the final newline when new text for the last line has none",
      text: "a\nb\n",
      edits: [{ start_line: 2, new_text: "B" }],
      result: "a\nB\n",
      lineDelta: 0,
    },
    {
      name: "keeps no final newline when the last line is deleted",
      text: "a\nb",
      edits: [{ start_line: 2, new_text: "" }],
      result: "a",
      lineDelta: -1,
    },
    {
      name: "keeps no final CRLF when the last line of a CRLF file is deleted",
      text: "a\r\nb",
      edits: [{ start_line: 2, new_text: "" }],
      result: "a",
      lineDelta: -1,
    },
    {
      name: "keeps an empty line that becomes the last line, final newline and all",
      text: "x\n\ny",
      edits: [{ start_line: 3, new_text: "" }],
      result: "x\n\n",
      lineDelta: -1,
    },
    {
      name: "writes an empty last line with its newline, which it cannot exist without",
      text: "a\nb",
      edits: [{ start_line: 2, new_text: "\n" }],
      result: "a\n\n",
      lineDelta: 0,
    },
    {
      name: "keeps the BOM",
      text: "\uFEFFa\r\nb\r\n",
      edits: [{ start_line: 1, new_text: "x" }],
      result: "\uFEFFx\r\nb\r\n",
      lineDelta: 0,
    },
    {
      name: "keeps the BOM when every line is deleted",
      text: "\uFEFFa\r\nb\r\n",
      edits: [{ start_line: 1, end_line: 2, new_text: "" }],
      result: "\uFEFF",
      lineDelta: -2,
    },
    {
      name: "numbers several edits by the text before the call, in any order",
      text: "1\n2\n3\n4\n5\n",
      edits: [{ start_line: 4, new_text: "four\nfour+" }, { start_line: 2, new_text: "" }],
      result: "1\n3\nfour\nfour+\n5\n",
      lineDelta: 0,
    },
    {
      name: "edits adjacent ranges",
      text: "1\n2\n3\n",
      edits: [{ start_line: 1, new_text: "a" }, { start_line: 2, new_text: "b" }],
      result: "a\nb\n3\n",
      lineDelta: 0,
    },
    {
      name: "keeps a lone CR inside a line of new text",
      text: "a\nb\n",
      edits: [{ start_line: 1, new_text: "x\ry" }],
      result: "x\ry\nb\n",
      lineDelta: 0,
    },
    {
      name: "keeps a lone CR that ends new text as text, with a CRLF after it",
      text: "a\nb\n",
      edits: [{ start_line: 1, new_text: "x\r" }],
      result: "x\r\r\nb\n",
      lineDelta: 0,
    },
    {
      name: "keeps a lone CR that ends a line of new text as text",
      text: "a\nb\n",
      edits: [{ start_line: 1, new_text: "x\r\ny\r\r\nz" }],
      result: "x\ny\r\r\nz\nb\n",
      lineDelta: 2,
    },
    {
      name: "leaves a last line ending in a lone CR alone",
      text: "a\nb\r",
      edits: [{ start_line: 1, new_text: "x" }],
      result: "x\nb\r",
      lineDelta: 0,
    },
    {
      name: "replaces a 100,000-character line",
      text: `a\n${LONG}\nc`,
      edits: [{ start_line: 2, new_text: "b" }],
      result: "a\nb\nc",
      lineDelta: 0,
    },
    {
      name: "writes a 100,000-character line",
      text: "a\nb\nc",
      edits: [{ start_line: 2, new_text: LONG }],
      result: `a\n${LONG}\nc`,
      lineDelta: 0,
    },
    {
      name: "replaces whitespace-only lines and keeps whitespace-only new text",
      text: "a\n  \n\t\n",
      edits: [{ start_line: 2, end_line: 3, new_text: " " }],
      result: "a\n \n",
      lineDelta: -1,
    },
    {
      name: "writes an empty line for new text \\n",
      text: "a\nb\n",
      edits: [{ start_line: 1, new_text: "\n" }],
      result: "\nb\n",
      lineDelta: 0,
    },
    {
      name: "keeps non-ASCII and astral characters",
      text: "é\n😀\n",
      edits: [{ start_line: 2, new_text: "中😀" }],
      result: "é\n中😀\n",
      lineDelta: 0,
    },
    {
      name: "accepts expected_text in LF for a CRLF file",
      text: "a\r\nb\r\nc\r\n",
      edits: [{ start_line: 1, end_line: 2, new_text: "x", expected_text: "a\nb\n" }],
      result: "x\r\nc\r\n",
      lineDelta: -1,
    },
    {
      name: "accepts expected_text without a final newline",
      text: "a\nb\nc\n",
      edits: [{ start_line: 1, end_line: 2, new_text: "x", expected_text: "a\nb" }],
      result: "x\nc\n",
      lineDelta: -1,
    },
    {
      name: 'accepts expected_text "" for an empty line',
      text: "a\n\nc\n",
      edits: [{ start_line: 2, new_text: "b", expected_text: "" }],
      result: "a\nb\nc\n",
      lineDelta: 0,
    },
    {
      name: "accepts expected_text with a lone CR",
      text: "a\rb\nc\n",
      edits: [{ start_line: 1, new_text: "x", expected_text: "a\rb" }],
      result: "x\nc\n",
      lineDelta: 0,
    },
    {
      name: "in exact mode writes new text byte for byte, LF in a CRLF file",
      text: "a\r\nb\r\n",
      edits: [{ start_line: 1, new_text: "x\ny\n" }],
      exact: true,
      result: "x\ny\nb\r\n",
      lineDelta: 1,
    },
    {
      name: "in exact mode still gives new text a terminator so lines never join",
      text: "a\r\nb\r\n",
      edits: [{ start_line: 1, new_text: "x\ny" }],
      exact: true,
      result: "x\ny\r\nb\r\n",
      lineDelta: 1,
    },
    {
      name: "in exact mode still terminates new text for a terminated last line",
      text: "a\nb\n",
      edits: [{ start_line: 2, new_text: "B" }],
      exact: true,
      result: "a\nB\n",
      lineDelta: 0,
    },
    {
      name: "in exact mode lets new text add a final newline",
      text: "a\nb",
      edits: [{ start_line: 2, new_text: "B\n" }],
      exact: true,
      result: "a\nB\n",
      lineDelta: 0,
    },
    {
      name: "in exact mode leaves the final newline of the line before a deleted last line",
      text: "a\nb",
      edits: [{ start_line: 2, new_text: "" }],
      exact: true,
      result: "a\n",
      lineDelta: -1,
    },
    {
      name: "in exact mode keeps the BOM",
      text: "\uFEFFa\nb\n",
      edits: [{ start_line: 1, new_text: "x\r\n" }],
      exact: true,
      result: "\uFEFFx\r\nb\n",
      lineDelta: 0,
    },
  ];
  for (const row of ROWS) {
    test(`replaceLines() ${row.name}`, () => {
      const out = replaceLines(row.text, row.edits, { exact: row.exact });
      assert.equal(out.text, row.result);
      assert.equal(out.lineDelta, row.lineDelta);
    });
  }

  test("replaceLines() reports regions in line order with old and new numbers", () => {
    const out = replaceLines("1\n2\n3\n4\n5\n6\n", [
      { start_line: 5, end_line: 6, new_text: "x" },
      { start_line: 1, new_text: "a\nb\nc" },
      { start_line: 3, new_text: "" },
    ]);
    assert.equal(out.text, "a\nb\nc\n2\n4\nx\n");
    assert.deepEqual(out.regions, [
      { oldStart: 1, oldEnd: 1, newStart: 1, newEnd: 3 },
      { oldStart: 3, oldEnd: 3, newStart: 5, newEnd: 4 },
      { oldStart: 5, oldEnd: 6, newStart: 6, newEnd: 6 },
    ]);
    assert.equal(out.lineDelta, 0);
  });
});

describe("replaceLines() errors", () => {
  const ERRORS: Array<
    { name: string; text: string; edits: LineEdit[]; error: typeof Error; message: RegExp }
  > = [
    {
      name: "refuses overlapping ranges, naming both",
      text: "1\n2\n3\n4\n",
      edits: [{ start_line: 1, end_line: 2, new_text: "" }, {
        start_line: 2,
        end_line: 3,
        new_text: "",
      }],
      error: RangeError,
      message: /edits\[0\] \(lines 1-2\) and edits\[1\] \(lines 2-3\) overlap; merge them/,
    },
    {
      name: "refuses the same line twice",
      text: "1\n2\n",
      edits: [{ start_line: 2, new_text: "a" }, { start_line: 2, new_text: "b" }],
      error: RangeError,
      message: /overlap/,
    },
    {
      name: "refuses a line past the end, naming the line count",
      text: "1\n2\n3\n",
      edits: [{ start_line: 4, new_text: "x" }],
      error: RangeError,
      message: /lines 4-4 fall outside the file, which has 3 lines/,
    },
    {
      name: "refuses an end_line past the end",
      text: "1\n2\n3",
      edits: [{ start_line: 2, end_line: 5, new_text: "x" }],
      error: RangeError,
      message: /lines 2-5 fall outside the file, which has 3 lines/,
    },
    {
      name: "refuses a range past the end of a 1-line file in the singular",
      text: "1\n",
      edits: [{ start_line: 2, new_text: "x" }],
      error: RangeError,
      message: /which has 1 line$/,
    },
    {
      name: "names the edit at fault among several",
      text: "1\n2\n",
      edits: [{ start_line: 1, new_text: "x" }, { start_line: 9, new_text: "x" }],
      error: RangeError,
      message: /^edits\[1\]: lines 9-9 fall outside/,
    },
    {
      name: "refuses start_line 0",
      text: "1\n",
      edits: [{ start_line: 0, new_text: "x" }],
      error: RangeError,
      message: /start_line 0 and end_line 0 are not a valid range/,
    },
    {
      name: "refuses end_line before start_line",
      text: "1\n2\n",
      edits: [{ start_line: 2, end_line: 1, new_text: "x" }],
      error: RangeError,
      message: /start_line 2 and end_line 1 are not a valid range/,
    },
    {
      name: "refuses a fractional line number",
      text: "1\n2\n",
      edits: [{ start_line: 1.5, new_text: "x" }],
      error: RangeError,
      message: /not a valid range/,
    },
    {
      name: "refuses an empty file and points to insert_lines",
      text: "",
      edits: [{ start_line: 1, new_text: "x" }],
      error: RangeError,
      message: /has 0 lines; use insert_lines with after_line=0/,
    },
    {
      name: "treats a BOM-only file as empty",
      text: "\uFEFF",
      edits: [{ start_line: 1, new_text: "x" }],
      error: RangeError,
      message: /has 0 lines/,
    },
    {
      name: "refuses an empty list of edits",
      text: "1\n",
      edits: [],
      error: TypeError,
      message: /edits is empty/,
    },
  ];
  for (const row of ERRORS) {
    test(`replaceLines() ${row.name}`, () => {
      assert.throws(() => replaceLines(row.text, row.edits), (error: unknown) => {
        assert.ok(error instanceof row.error, `${error} is a ${row.error.name}`);
        assert.match((error as Error).message, row.message);
        return true;
      });
    });
  }

  const secret = "public\nSECRET_TOKEN=hunter2\nmore\nlast\n";
  const MISMATCHES: Array<{ name: string; edits: LineEdit[]; ranges: unknown[]; message: RegExp }> =
    [
      {
        name: "refuses the whole call when one expected_text differs",
        edits: [
          { start_line: 1, new_text: "x", expected_text: "public" },
          { start_line: 2, new_text: "y", expected_text: "SECRET_TOKEN=old" },
        ],
        ranges: [{ start: 2, end: 2, firstDifferentLine: 2 }],
        message: /at line 2 \(first difference at line 2\); nothing was written/,
      },
      {
        name: "names every range that differs and its first differing line",
        edits: [
          { start_line: 1, end_line: 2, new_text: "x", expected_text: "public\nwrong" },
          { start_line: 3, end_line: 4, new_text: "y", expected_text: "wrong\nlast" },
        ],
        ranges: [
          { start: 1, end: 2, firstDifferentLine: 2 },
          { start: 3, end: 4, firstDifferentLine: 3 },
        ],
        message:
          /lines 1-2 \(first difference at line 2\), lines 3-4 \(first difference at line 3\)/,
      },
      {
        name: "refuses expected_text with fewer lines than the range",
        edits: [{
          start_line: 1,
          end_line: 3,
          new_text: "x",
          expected_text: "public\nSECRET_TOKEN=hunter2",
        }],
        ranges: [{ start: 1, end: 3, firstDifferentLine: 3 }],
        message: /lines 1-3/,
      },
      {
        name: "refuses expected_text with more lines than the range",
        edits: [{ start_line: 1, new_text: "x", expected_text: "public\nSECRET_TOKEN=hunter2" }],
        ranges: [{ start: 1, end: 1, firstDifferentLine: 2 }],
        message: /line 1 \(first difference at line 2\)/,
      },
      {
        name: "refuses expected_text that differs only in trailing whitespace",
        edits: [{ start_line: 1, new_text: "x", expected_text: "public " }],
        ranges: [{ start: 1, end: 1, firstDifferentLine: 1 }],
        message: /line 1/,
      },
      {
        name: 'refuses expected_text "" for a line that is not empty',
        edits: [{ start_line: 2, new_text: "x", expected_text: "" }],
        ranges: [{ start: 2, end: 2, firstDifferentLine: 2 }],
        message: /line 2/,
      },
    ];
  for (const row of MISMATCHES) {
    test(`replaceLines() ${row.name}, without echoing the file`, () => {
      assert.throws(() => replaceLines(secret, row.edits), (error: unknown) => {
        assert.ok(error instanceof ExpectedTextMismatchError);
        assert.deepEqual(error.ranges, row.ranges);
        assert.match(error.message, row.message);
        assert.match(error.message, /nothing was written$/);
        for (const leak of ["hunter2", "SECRET", "public", "more", "last"]) {
          assert.ok(!error.message.includes(leak), `the message shows ${JSON.stringify(leak)}`);
        }
        return true;
      });
    });
  }

  test("replaceLines() checks ranges before expected_text", () => {
    assert.throws(
      () => replaceLines("a\n", [{ start_line: 2, new_text: "x", expected_text: "b" }]),
      RangeError,
    );
  });
});

/** Non-overlapping edits laid out over `total` lines from (gap, length, new text) triples. */
function layEdits(
  total: number,
  specs: Array<{ gap: number; length: number; newText: string }>,
  reverse: boolean,
): LineEdit[] {
  const edits: LineEdit[] = [];
  let next = 1;
  for (const { gap, length, newText } of specs) {
    const start = next + gap;
    const end = Math.min(start + length - 1, total);
    if (start > total) break;
    edits.push({ start_line: start, end_line: end, new_text: newText });
    next = end + 1;
  }
  if (edits.length === 0) edits.push({ start_line: 1, new_text: specs[0].newText });
  return reverse ? edits.reverse() : edits;
}

const editSpecs = (newText: fc.Arbitrary<string>) =>
  fc.array(
    fc.record({
      gap: fc.integer({ min: 0, max: 3 }),
      length: fc.integer({ min: 1, max: 3 }),
      newText,
    }),
    { minLength: 1, maxLength: 4 },
  );

describe("replaceLines() properties", () => {
  test("replaceLines() changes only the named lines; the others keep their bytes at shifted positions", () => {
    fc.assert(
      fc.property(
        text,
        editSpecs(anyText),
        fc.boolean(),
        fc.boolean(),
        (t, specs, reverse, exact) => {
          const { bom, body } = splitBom(t);
          const old = splitLines(body);
          fc.pre(old.length > 0);
          const edits = layEdits(old.length, specs, reverse);
          const out = replaceLines(t, edits, { exact });
          assert.equal(out.text.slice(0, bom.length), bom, "the BOM is kept");
          const now = splitLines(out.text.slice(bom.length));
          assert.equal(out.lineDelta, now.length - old.length);

          const sorted = [...edits].sort((a, b) => a.start_line - b.start_line);
          assert.equal(out.regions.length, sorted.length);
          let shift = 0;
          let oldLine = 1;
          const keeps = (upTo: number) => {
            for (; oldLine < upTo; oldLine++) {
              const j = oldLine + shift;
              if (!exact && (j === now.length || oldLine === old.length)) {
                // Only the line next to an edit at the end may gain or lose its terminator.
                assert.equal(lineText(now[j - 1]), lineText(old[oldLine - 1]));
              } else {
                assert.equal(now[j - 1], old[oldLine - 1], `old line ${oldLine} at new line ${j}`);
              }
            }
          };
          sorted.forEach((edit, i) => {
            const end = edit.end_line ?? edit.start_line;
            keeps(edit.start_line);
            const region = out.regions[i];
            const wanted = splitLines(edit.new_text);
            assert.deepEqual(region, {
              oldStart: edit.start_line,
              oldEnd: end,
              newStart: edit.start_line + shift,
              newEnd: edit.start_line + shift + wanted.length - 1,
            });
            const got = now.slice(region.newStart - 1, region.newEnd);
            assert.deepEqual(got.map(lineText), wanted.map(lineText));
            if (exact) {
              const bytes = got.join("");
              assert.ok(
                [edit.new_text, `${edit.new_text}\n`, `${edit.new_text}\r\n`].includes(bytes),
                "exact mode writes the new text byte for byte, plus at most a terminator",
              );
            }
            shift += wanted.length - (end - edit.start_line + 1);
            oldLine = end + 1;
          });
          keeps(old.length + 1);
          assert.equal(shift, out.lineDelta);
        },
      ),
      RUNS,
    );
  });

  test("replaceLines() keeps the final-newline state", () => {
    fc.assert(
      fc.property(text, editSpecs(anyText), (t, specs) => {
        const { body } = splitBom(t);
        fc.pre(body.length > 0);
        const out = splitBom(replaceLines(t, layEdits(countLines(body), specs, false)).text).body;
        // An empty last line cannot lose its terminator without ceasing to exist.
        const emptyLast = /(^|\n)\r?\n$/.test(out);
        return out === "" || emptyLast || endsWithTerminator(out) === endsWithTerminator(body);
      }),
      RUNS,
    );
  });

  test("replaceLines() keeps a pure-CRLF text pure CRLF when new text uses LF", () => {
    fc.assert(
      fc.property(pureText("\r\n"), editSpecs(breakText), (t, specs) => {
        const out = replaceLines(t, layEdits(countLines(splitBom(t).body), specs, false)).text;
        return !/(^|[^\r])\n/.test(out);
      }),
      RUNS,
    );
  });

  test("replaceLines() keeps a pure-LF text pure LF when new text uses CRLF", () => {
    fc.assert(
      fc.property(pureText("\n"), editSpecs(breakText), (t, specs) => {
        const out = replaceLines(t, layEdits(countLines(splitBom(t).body), specs, false)).text;
        return !out.includes("\r");
      }),
      RUNS,
    );
  });

  test("replaceLines() with expected_text equal to the lines succeeds, and with any change refuses", () => {
    fc.assert(
      fc.property(text, fc.nat(), fc.nat(), (t, a, b) => {
        const lines = splitLines(splitBom(t).body);
        fc.pre(lines.length > 0);
        const start = (a % lines.length) + 1;
        const end = Math.min(start + (b % 3), lines.length);
        // The lines as read shows them, terminators and all.
        const expected_text = lines.slice(start - 1, end).join("");
        const edit = { start_line: start, end_line: end, new_text: "x" };
        replaceLines(t, [{ ...edit, expected_text }]);
        assert.throws(
          () => replaceLines(t, [{ ...edit, expected_text: `${expected_text}!` }]),
          ExpectedTextMismatchError,
        );
      }),
      RUNS,
    );
  });
});
