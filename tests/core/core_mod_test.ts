import { describe, test } from "node:test";
import assert from "node:assert/strict";
import * as core from "../../src/core/mod.ts";

describe("the core module", () => {
  const FUNCTIONS = [
    "appendNote",
    "appendNotes",
    "checkLineRange",
    "codePointCount",
    "columnAt",
    "countLineBreaks",
    "countLines",
    "dominantTerminator",
    "endsWithTerminator",
    "escapeRegExp",
    "formatRow",
    "formatRows",
    "insertLines",
    "lineSpanAt",
    "lineTerminator",
    "lineText",
    "literalMatcher",
    "offsetOfColumn",
    "plural",
    "regexMatcher",
    "replaceLines",
    "replaceText",
    "scanText",
    "sliceLines",
    "splitBom",
    "splitLines",
  ];
  for (const name of FUNCTIONS) {
    test(`the core module exports ${name}()`, () => {
      assert.equal(typeof (core as Record<string, unknown>)[name], "function");
    });
  }

  test("the core module exports the error classes and constants", () => {
    assert.equal(typeof core.ExpectedTextMismatchError, "function");
    assert.equal(typeof core.OldTextMatchError, "function");
    assert.equal(core.BOM, "\uFEFF");
    assert.equal(core.DEFAULT_CUT, 2000);
    assert.equal(core.DEFAULT_MAX_ROWS, 2000);
    assert.equal(core.DEFAULT_MAX_CHARS, 60000);
  });

  test("the core module does not export the private edit helpers", () => {
    assert.equal((core as Record<string, unknown>).withBreaks, undefined);
    assert.equal((core as Record<string, unknown>).keepFinalState, undefined);
  });

  test("the core module's example works: read lines 2-3 of a CRLF text as rows", () => {
    const { lines, start } = core.sliceLines("a\r\nb\r\nc", 2, 3);
    const rows = lines.map((text, i) => ({ line: start + i, text }));
    assert.equal(core.formatRows(rows).text, "2\tb\r\n3\tc");
  });
});
