import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  countLineBreaks,
  countLines,
  dominantTerminator,
  endsWithTerminator,
  lineSpanAt,
  lineTerminator,
  lineText,
  splitLines,
} from "../../src/core/split_lines.ts";
import { RUNS, text } from "../_helpers/arbitraries.ts";

const LONG = "x".repeat(100_000);

/** One row per case: the text, its lines, and each line's text without terminator. */
const CASES: Array<{ name: string; text: string; lines: string[]; texts: string[] }> = [
  { name: "empty text has 0 lines", text: "", lines: [], texts: [] },
  { name: "one line without a newline is 1 line", text: "abc", lines: ["abc"], texts: ["abc"] },
  {
    name: '"a\\nb\\n" is 2 lines, with no empty line after the final newline',
    text: "a\nb\n",
    lines: ["a\n", "b\n"],
    texts: ["a", "b"],
  },
  {
    name: "CRLF lines keep \\r\\n with their line",
    text: "a\r\nb\r\n",
    lines: ["a\r\n", "b\r\n"],
    texts: ["a", "b"],
  },
  {
    name: "a lone CR inside a line is ordinary text",
    text: "a\rb\nc",
    lines: ["a\rb\n", "c"],
    texts: ["a\rb", "c"],
  },
  {
    name: "a lone CR at the end of the text is text of the last line",
    text: "a\nb\r",
    lines: ["a\n", "b\r"],
    texts: ["a", "b\r"],
  },
  {
    name: "a CR before a CRLF is text, the CRLF the terminator",
    text: "a\r\r\n",
    lines: ["a\r\r\n"],
    texts: ["a\r"],
  },
  {
    name: "mixed endings each stay with their line",
    text: "a\r\nb\nc\rd\r\n\n",
    lines: ["a\r\n", "b\n", "c\rd\r\n", "\n"],
    texts: ["a", "b", "c\rd", ""],
  },
  {
    name: "a BOM + CRLF text keeps the BOM in the first line (splitBom sets it aside)",
    text: "\uFEFFa\r\nb",
    lines: ["\uFEFFa\r\n", "b"],
    texts: ["\uFEFFa", "b"],
  },
  {
    name: "a 100,000-character line is one line",
    text: `${LONG}\n${LONG}`,
    lines: [`${LONG}\n`, LONG],
    texts: [LONG, LONG],
  },
  {
    name: "whitespace-only lines are lines",
    text: " \t\n\n  \r\n",
    lines: [" \t\n", "\n", "  \r\n"],
    texts: [" \t", "", "  "],
  },
  {
    name: "non-ASCII and astral characters are ordinary text",
    text: "é😀\n中\u2028文\n",
    lines: ["é😀\n", "中\u2028文\n"],
    texts: ["é😀", "中\u2028文"],
  },
  { name: "a lone newline is one empty line", text: "\n", lines: ["\n"], texts: [""] },
  { name: "a lone CRLF is one empty line", text: "\r\n", lines: ["\r\n"], texts: [""] },
  {
    name: "LF then a lone CR is 2 lines",
    text: "\n\r",
    lines: ["\n", "\r"],
    texts: ["", "\r"],
  },
];

describe("splitLines()", () => {
  for (const c of CASES) {
    test(`splitLines(): ${c.name}`, () => {
      assert.deepEqual(splitLines(c.text), c.lines);
    });
  }

  test("splitLines() gives lines that join back to the text", () => {
    fc.assert(fc.property(text, (t) => splitLines(t).join("") === t), RUNS);
  });

  test("splitLines() gives lines that each end at their only \\n", () => {
    fc.assert(
      fc.property(text, (t) =>
        splitLines(t).every((line) => {
          const lf = line.indexOf("\n");
          return lf === -1 || lf === line.length - 1;
        })),
      RUNS,
    );
  });
});

describe("lineText() and lineTerminator()", () => {
  for (const c of CASES) {
    test(`lineText() and lineTerminator(): ${c.name}`, () => {
      assert.deepEqual(c.lines.map(lineText), c.texts);
      for (const line of c.lines) {
        assert.equal(lineText(line) + lineTerminator(line), line);
      }
    });
  }

  const TERMINATORS: Array<[string, string, string]> = [
    ["x\n", "\n", "LF"],
    ["x\r\n", "\r\n", "CRLF"],
    ["x", "", "none on an unterminated last line"],
    ["x\r", "", "none for a lone CR"],
    ["\r\r\n", "\r\n", "CRLF after a CR that is text"],
    ["", "", "none for an empty string"],
  ];
  for (const [line, terminator, name] of TERMINATORS) {
    test(`lineTerminator() of ${JSON.stringify(line)} is ${name}`, () => {
      assert.equal(lineTerminator(line), terminator);
    });
  }
});

describe("countLines()", () => {
  for (const c of CASES) {
    test(`countLines(): ${c.name}`, () => {
      assert.equal(countLines(c.text), c.lines.length);
    });
  }

  test("countLines() equals splitLines().length", () => {
    fc.assert(fc.property(text, (t) => countLines(t) === splitLines(t).length), RUNS);
  });
});

describe("countLineBreaks()", () => {
  test("countLineBreaks() counts \\n in a half-open range", () => {
    assert.equal(countLineBreaks("a\nb\r\nc", 0, 6), 2);
    assert.equal(countLineBreaks("a\nb\r\nc", 0, 1), 0);
    assert.equal(countLineBreaks("a\nb\r\nc", 0, 2), 1);
    assert.equal(countLineBreaks("a\nb\r\nc", 2, 6), 1);
    assert.equal(countLineBreaks("\n\n\n", 1, 1), 0);
    assert.equal(countLineBreaks("", 0, 0), 0);
  });

  test("countLineBreaks() ignores a lone CR", () => {
    assert.equal(countLineBreaks("a\rb\rc", 0, 5), 0);
  });
});

describe("lineSpanAt()", () => {
  const SPANS: Array<[string, number, { start: number; end: number; next: number }, string]> = [
    ["a\r\nb", 0, { start: 0, end: 1, next: 3 }, "a CRLF line ends before the \\r"],
    ["a\r\nb", 3, { start: 3, end: 4, next: 4 }, "an unterminated last line ends at the end"],
    ["a\nb\n", 2, { start: 2, end: 3, next: 4 }, "an LF line ends before the \\n"],
    ["\n", 0, { start: 0, end: 0, next: 1 }, "an empty line is empty"],
    ["a\rb", 0, { start: 0, end: 3, next: 3 }, "a lone CR does not end the line"],
    ["\r\n", 0, { start: 0, end: 0, next: 2 }, "an empty CRLF line"],
    ["", 0, { start: 0, end: 0, next: 0 }, "empty text gives an empty span"],
  ];
  for (const [t, start, span, name] of SPANS) {
    test(`lineSpanAt(): ${name}`, () => {
      assert.deepEqual(lineSpanAt(t, start), span);
    });
  }
});

describe("endsWithTerminator()", () => {
  const ROWS: Array<[string, boolean, string]> = [
    ["", true, "empty text counts as ending with one"],
    ["a\n", true, "LF"],
    ["a\r\n", true, "CRLF"],
    ["a", false, "no terminator"],
    ["a\r", false, "a lone CR is not a terminator"],
    ["\uFEFF", false, "a BOM alone is text here (callers set it aside first)"],
  ];
  for (const [t, expected, name] of ROWS) {
    test(`endsWithTerminator(): ${name}`, () => {
      assert.equal(endsWithTerminator(t), expected);
    });
  }
});

describe("dominantTerminator()", () => {
  const ROWS: Array<[string, "\n" | "\r\n", string]> = [
    ["", "\n", "empty text is LF"],
    ["abc", "\n", "text without terminators is LF"],
    ["a\nb\n", "\n", "LF text is LF"],
    ["a\r\nb\r\n", "\r\n", "CRLF text is CRLF"],
    ["a\r\nb\r\nc\n", "\r\n", "mostly CRLF is CRLF"],
    ["a\r\nb\nc\n", "\n", "mostly LF is LF"],
    ["a\r\nb\n", "\n", "a tie is LF"],
    ["a\rb\rc\n", "\n", "lone CRs do not count as CRLF"],
    ["\uFEFFa\r\nb\r\n", "\r\n", "BOM + CRLF is CRLF"],
    ["\r\n", "\r\n", "a CRLF at offset 0 counts"],
    ["\n\r\n\r\n", "\r\n", "an LF at offset 0 counts as LF, outvoted by 2 CRLF"],
  ];
  for (const [t, expected, name] of ROWS) {
    test(`dominantTerminator(): ${name}`, () => {
      assert.equal(dominantTerminator(t), expected);
    });
  }
});
