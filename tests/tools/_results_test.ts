import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  ExpectedTextMismatchError,
  InputError,
  LineRangeError,
  OldTextMatchError,
} from "../../src/core/mod.ts";
import { PatternError } from "../../src/match/safe_matcher.ts";
import { DeniedPathError, NotFoundError } from "../../src/store/errors.ts";
import { ArgumentError } from "../../src/tools/_args.ts";
import { capped, errorResult, failure, ok, rowChars } from "../../src/tools/_results.ts";
import { NOTE_ROOM, settings } from "../../src/tools/options.ts";

describe("results", () => {
  test("ok() carries the text for the model and the structured data for programs", () => {
    assert.deepEqual(ok("1\ta\n", { path: "a" }), {
      content: [{ type: "text", text: "1\ta\n" }],
      structuredContent: { path: "a" },
    });
  });

  test("failure() carries one sentence and isError, without structured content", () => {
    assert.deepEqual(failure("no such file"), {
      content: [{ type: "text", text: "no such file" }],
      isError: true,
    });
  });

  const EXPECTED: Array<{ name: string; error: Error; path?: string; text: string }> = [
    {
      name: "a store error keeps its message as it is (it names the path already)",
      error: new NotFoundError("a.txt"),
      path: "a.txt",
      text: new NotFoundError("a.txt").message,
    },
    {
      name: "a denied path keeps the store's message",
      error: new DeniedPathError(".env"),
      path: ".env",
      text: 'path ".env" is not accessible: the server denies it',
    },
    {
      name: "an argument error keeps its message",
      error: new ArgumentError('missing required argument "path"'),
      text: 'missing required argument "path"',
    },
    {
      name: "a LineRangeError from the core is prefixed with the path",
      error: new LineRangeError("start_line 9 is past the end: the file has 3 lines"),
      path: "a.txt",
      text: "a.txt: start_line 9 is past the end: the file has 3 lines",
    },
    {
      name: "a LineRangeError without a path stays as it is",
      error: new LineRangeError("bad range"),
      text: "bad range",
    },
    {
      name: "an InputError from the core is prefixed with the path",
      error: new InputError("text is empty"),
      path: "b.txt",
      text: "b.txt: text is empty",
    },
    {
      name: "a plain TypeError is a bug: an internal error, not the caller's mistake",
      error: new TypeError("Cannot read properties of undefined (reading 'x')"),
      path: "a.txt",
      text: "internal error: Cannot read properties of undefined (reading 'x'); please report it",
    },
    {
      name: "a plain RangeError is a bug too",
      error: new RangeError("Invalid array length"),
      text: "internal error: Invalid array length; please report it",
    },
    {
      name: "a plain SyntaxError (JSON.parse in a bug, say) is a bug too",
      error: new SyntaxError("Unexpected token"),
      text: "internal error: Unexpected token; please report it",
    },
    {
      name: "an expected-text mismatch is prefixed with the path",
      error: new ExpectedTextMismatchError([{ start: 2, end: 3, firstDifferentLine: 3 }]),
      path: "c.txt",
      text:
        "c.txt: expected_text does not match the file at lines 2-3 (first difference at line 3); nothing was written",
    },
    {
      name: "an old_text match error is prefixed with the path",
      error: new OldTextMatchError([4, 9]),
      path: "d.txt",
      text:
        "d.txt: old_text occurs 2 times (at lines 4, 9); include more surrounding text to make it unique, pass replace_all=true, or use replace_lines",
    },
    {
      name: "a PatternError (a bad pattern) keeps its message",
      error: new PatternError('pattern "(" is not a valid regular expression'),
      path: "e.txt",
      text: 'pattern "(" is not a valid regular expression',
    },
  ];
  for (const row of EXPECTED) {
    test(`errorResult(): ${row.name}`, () => {
      const result = errorResult(row.error, row.path);
      assert.equal(result.isError, true);
      assert.equal(result.content[0].text, row.text);
      assert.equal(result.structuredContent, undefined);
    });
  }

  test("errorResult() reports an unexpected error as an internal error, without a stack trace", () => {
    const error = new Error("boom");
    const result = errorResult(error, "a.txt");
    assert.equal(result.isError, true);
    assert.equal(result.content[0].text, "internal error: boom; please report it");
    assert.doesNotMatch(result.content[0].text, /\bat /);
  });

  test("errorResult() reports a thrown non-error value as an internal error", () => {
    assert.equal(
      errorResult("oops").content[0].text,
      "internal error: oops; please report it",
    );
  });

  const BUDGETS: Array<{ name: string; maxChars: number; rows: number }> = [
    {
      name: "the default budget keeps NOTE_ROOM for notes",
      maxChars: 60000,
      rows: 60000 - NOTE_ROOM,
    },
    { name: "a budget of twice NOTE_ROOM splits evenly", maxChars: 2 * NOTE_ROOM, rows: NOTE_ROOM },
    { name: "the CLI's smallest budget (200) keeps half for rows", maxChars: 200, rows: 100 },
    { name: "a tiny budget still leaves rows some room", maxChars: 41, rows: 21 },
  ];
  for (const row of BUDGETS) {
    test(`rowChars(): ${row.name}`, () => {
      assert.equal(rowChars(settings({ maxChars: row.maxChars })), row.rows);
    });
  }
});

describe("capped()", () => {
  const ROWS: Array<
    { name: string; lines: string[]; maxLines: number; maxChars: number; count: number }
  > = [
    {
      name: "keeps every line within the budget",
      lines: ["a", "b"],
      maxLines: 10,
      maxChars: 1000,
      count: 2,
    },
    { name: "stops at maxLines", lines: ["a", "b", "c"], maxLines: 2, maxChars: 1000, count: 2 },
    {
      name: "stops before the line that passes the character budget",
      lines: ["x".repeat(40), "y".repeat(40)],
      maxLines: 10,
      maxChars: 100,
      count: 1,
    },
    { name: "keeps nothing of an empty list", lines: [], maxLines: 10, maxChars: 1000, count: 0 },
  ];
  for (const row of ROWS) {
    test(`capped() ${row.name}`, () => {
      const out = capped(row.lines, settings({ maxLines: row.maxLines, maxChars: row.maxChars }));
      assert.equal(out.count, row.count);
      assert.equal(out.text, row.lines.slice(0, row.count).map((l) => l + "\n").join(""));
    });
  }
});
