import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  keepFinalState,
  lineStarts,
  terminated,
  terminatorAt,
  withBreaks,
  withTerminator,
} from "../../src/core/_edit_text.ts";
import { lineText, splitLines } from "../../src/core/split_lines.ts";
import { RUNS, text } from "../_helpers/arbitraries.ts";

describe("lineStarts()", () => {
  const ROWS: Array<[string, string, number[]]> = [
    ["empty text has only its end", "", [0]],
    ["one line without a newline", "abc", [0, 3]],
    ["LF lines", "a\nb\n", [0, 2, 4]],
    ["CRLF lines", "a\r\nb", [0, 3, 4]],
    ["a lone CR starts no line", "a\rb\n", [0, 4]],
  ];
  for (const [name, t, starts] of ROWS) {
    test(`lineStarts(): ${name}`, () => {
      assert.deepEqual(lineStarts(t), starts);
    });
  }
});

describe("terminatorAt()", () => {
  const body = "a\r\nb\nc";
  const starts = lineStarts(body);
  const ROWS: Array<[string, number, string]> = [
    ["a CRLF line", 1, "\r\n"],
    ["an LF line", 2, "\n"],
    ["an unterminated last line", 3, ""],
    ["line 0, which does not exist", 0, ""],
    ["a line past the end", 4, ""],
  ];
  for (const [name, line, terminator] of ROWS) {
    test(`terminatorAt() of ${name}`, () => {
      assert.equal(terminatorAt(body, starts, line), terminator);
    });
  }
});

describe("withBreaks()", () => {
  const ROWS: Array<[string, string, string, string]> = [
    ["gives LF breaks CRLF", "a\nb\n", "\r\n", "a\r\nb\r\n"],
    ["gives CRLF breaks LF", "a\r\nb\r\n", "\n", "a\nb\n"],
    ["leaves a lone CR alone", "a\rb", "\r\n", "a\rb"],
    ["keeps CRLF after a line ending in a lone CR", "a\r\r\nb", "\n", "a\r\r\nb"],
    ["gives LF after a line ending in a lone CR a CRLF", "a\r\nb", "\n", "a\nb"],
    ["converts a break at offset 0", "\nb", "\r\n", "\r\nb"],
    ["leaves text without breaks alone", "abc", "\r\n", "abc"],
  ];
  for (const [name, t, eol, out] of ROWS) {
    test(`withBreaks() ${name}`, () => {
      assert.equal(withBreaks(t, eol), out);
    });
  }

  test("withBreaks() keeps every line's text and count", () => {
    fc.assert(
      fc.property(text, fc.constantFrom("\n", "\r\n"), (t, eol) => {
        const before = splitLines(t);
        const after = splitLines(withBreaks(t, eol));
        assert.deepEqual(after.map(lineText), before.map(lineText));
      }),
      RUNS,
    );
  });
});

describe("withTerminator() and terminated()", () => {
  test("withTerminator() appends the terminator", () => {
    assert.equal(withTerminator("a", "\n"), "a\n");
    assert.equal(withTerminator("a", "\r\n"), "a\r\n");
    assert.equal(withTerminator("", "\n"), "\n");
  });

  test("withTerminator() gives text ending in a lone CR a CRLF, so the CR stays text", () => {
    assert.equal(withTerminator("a\r", "\n"), "a\r\r\n");
    assert.equal(lineText(withTerminator("a\r", "\n")), "a\r");
  });

  test("terminated() adds a terminator only to non-empty text without one", () => {
    assert.equal(terminated("a", "\n"), "a\n");
    assert.equal(terminated("a\n", "\r\n"), "a\n");
    assert.equal(terminated("a\r\n", "\n"), "a\r\n");
    assert.equal(terminated("", "\n"), "");
    assert.equal(terminated("a\r", "\n"), "a\r\r\n");
  });
});

describe("keepFinalState()", () => {
  const ROWS: Array<[string, string, string, string, string]> = [
    ["keeps the state when it did not change", "a\n", "b\n", "\n", "b\n"],
    ["adds a terminator the text had", "a\n", "b", "\n", "b\n"],
    ["adds the given terminator", "a\r\n", "b", "\r\n", "b\r\n"],
    ["counts empty text as ending with a terminator", "", "b", "\n", "b\n"],
    ["removes an LF the text did not have", "a", "b\n", "\n", "b"],
    ["removes a CRLF the text did not have", "a", "b\r\n", "\n", "b"],
    ["leaves an empty result alone", "a", "", "\n", ""],
    [
      "keeps the terminator of an empty last line, which would vanish without it",
      "a",
      "b\n\n",
      "\n",
      "b\n\n",
    ],
    ["keeps a lone empty line", "a", "\n", "\n", "\n"],
    ["keeps a lone CR as text when adding a terminator", "a\n", "b\r", "\n", "b\r\r\n"],
  ];
  for (const [name, before, after, eol, out] of ROWS) {
    test(`keepFinalState() ${name}`, () => {
      assert.equal(keepFinalState(before, after, eol), out);
    });
  }
});
