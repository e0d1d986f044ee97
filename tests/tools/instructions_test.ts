import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { instructions } from "../../src/tools/instructions.ts";
import { LINE_RULE } from "../../src/tools/options.ts";

describe("instructions()", () => {
  test("instructions() teach the loop: grep, then read the range, then replace_lines checked against the version shown", () => {
    const text = instructions(false);
    const grep = text.indexOf("grep for line numbers");
    const read = text.indexOf("read the range");
    const edit = text.indexOf("edit with replace_lines");
    assert.ok(grep >= 0 && grep < read && read < edit, text);
    assert.match(text, /version/);
  });

  test("instructions() state the line rule", () => {
    assert.ok(instructions(false).includes(LINE_RULE));
    assert.ok(instructions(true).includes(LINE_RULE));
  });

  test("instructions() explain rows, context rows and notes", () => {
    const text = instructions(false);
    assert.ok(text.includes("`<n>\\t<line>`"));
    assert.ok(text.includes("`<n>-\\t<line>`"));
    assert.match(text, /\[bracketed\] lines are notes/);
  });

  test("instructions() for a read-only server name only the read-only tools", () => {
    const text = instructions(true);
    assert.match(text, /read-only: grep, read, glob and list/);
    assert.doesNotMatch(text, /replace_lines|expected_text|Edit results/);
  });

  test("instructions() say edit results carry new numbers, and what every edit keeps", () => {
    const text = instructions(false);
    assert.match(text, /Edit results give the new numbers: edit on without re-reading/);
    assert.match(text, /line endings, BOM, final newline and mode, never join two lines/);
  });
});
