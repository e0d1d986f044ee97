import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { LINE_RULE, NOTE_ROOM, settings } from "../../src/tools/options.ts";

describe("settings()", () => {
  test("settings() fills in the defaults of SPEC §3", () => {
    const { log, ...budgets } = settings({});
    assert.equal(typeof log, "function", "internal errors go to stderr by default");
    assert.deepEqual(budgets, {
      readOnly: false,
      maxLines: 2000,
      maxChars: 60000,
      cut: 2000,
      maxEditBytes: 64 * 1024 * 1024,
      timeBudgetMs: 10000,
      sessionBytes: 32 * 1024 * 1024,
      force: false,
    });
  });

  const ROWS: Array<
    { name: string; options: Parameters<typeof settings>[0]; field: string; value: unknown }
  > = [
    { name: "keeps readOnly", options: { readOnly: true }, field: "readOnly", value: true },
    { name: "keeps maxLines", options: { maxLines: 5 }, field: "maxLines", value: 5 },
    { name: "keeps maxChars", options: { maxChars: 500 }, field: "maxChars", value: 500 },
    { name: "keeps the cut", options: { cut: 10 }, field: "cut", value: 10 },
    {
      name: "keeps a cut given with a small budget",
      options: { cut: 400, maxChars: 200 },
      field: "cut",
      value: 400,
    },
    // (A budget of 1,000 keeps 600 for rows: a row of 260 code points, two units each, plus
    // its number, the cut note and the terminator fits.)
    {
      name: "cuts lines shorter when a row of 2,000 would not fit",
      options: { maxChars: 1000 },
      field: "cut",
      value: 260,
    },
    {
      name: "cuts at 2,000 when the budget holds such a row",
      options: { maxChars: 4480 },
      field: "cut",
      value: 2000,
    },
    { name: "keeps maxEditBytes", options: { maxEditBytes: 1 }, field: "maxEditBytes", value: 1 },
    {
      name: "keeps timeBudgetMs, even 0",
      options: { timeBudgetMs: 0 },
      field: "timeBudgetMs",
      value: 0,
    },
    {
      name: "treats an undefined field as unset",
      options: { maxLines: undefined },
      field: "maxLines",
      value: 2000,
    },
  ];
  for (const row of ROWS) {
    test(`settings() ${row.name}`, () => {
      assert.equal(
        (settings(row.options) as unknown as Record<string, unknown>)[row.field],
        row.value,
      );
    });
  }
});

describe("LINE_RULE", () => {
  test("LINE_RULE says lines end at \\n, a \\r before it is part of the terminator, and a lone \\r is text", () => {
    assert.match(LINE_RULE, /count from 1/);
    assert.match(LINE_RULE, /end at \\n/);
    assert.match(LINE_RULE, /\\r\\n is one terminator/);
    assert.match(LINE_RULE, /a lone \\r is text/);
  });

  test("LINE_RULE is one sentence", () => {
    assert.equal(LINE_RULE.split(/\.\s/).length, 1);
    assert.ok(LINE_RULE.endsWith("."));
  });
});

describe("NOTE_ROOM", () => {
  test("NOTE_ROOM leaves most of the default budget to rows", () => {
    assert.ok(NOTE_ROOM > 0 && NOTE_ROOM < settings({}).maxChars / 10);
  });
});
