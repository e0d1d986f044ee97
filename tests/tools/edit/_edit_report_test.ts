import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { insertLines, type LineEdit, replaceLines } from "../../../src/core/mod.ts";
import { editReport } from "../../../src/tools/edit/_edit_report.ts";
import { settings } from "../../../src/tools/options.ts";

const SIX = "l1\nl2\nl3\nl4\nl5\nl6\n";

function lines(count: number): string {
  return Array.from({ length: count }, (_, i) => `l${i + 1}\n`).join("");
}

function report(before: string, edits: LineEdit[], dryRun = false, options = {}) {
  const result = editReport(
    "f.txt",
    before,
    replaceLines(before, edits),
    dryRun,
    settings(options),
  );
  return { text: result.content[0].text, structured: result.structuredContent! };
}

describe("editReport()", () => {
  const ROWS: Array<{ name: string; before: string; edits: LineEdit[]; text: string }> = [
    {
      name: "shows a replaced line with two lines of context and says later numbers are unchanged",
      before: SIX,
      edits: [{ start_line: 3, new_text: "X" }],
      text:
        "[line 3 replaced, now line 3; later line numbers are unchanged]\n1\tl1\n2\tl2\n3\tX\n4\tl4\n5\tl5\n",
    },
    {
      name: "says how far lines after a growing region moved",
      before: SIX,
      edits: [{ start_line: 3, new_text: "X\nY\nZ" }],
      text:
        "[line 3 replaced, now lines 3-5; lines after 3 moved by +2]\n1\tl1\n2\tl2\n3\tX\n4\tY\n5\tZ\n6\tl4\n7\tl5\n",
    },
    {
      name: "says how far lines after a shrinking region moved",
      before: SIX,
      edits: [{ start_line: 2, end_line: 4, new_text: "X" }],
      text:
        "[lines 2-4 replaced, now line 2; lines after 4 moved by -2]\n1\tl1\n2\tX\n3\tl5\n4\tl6\n",
    },
    {
      name: "shows a deletion by the lines around it",
      before: SIX,
      edits: [{ start_line: 3, end_line: 4, new_text: "" }],
      text: "[deleted lines 3-4; lines after 4 moved by -2]\n1\tl1\n2\tl2\n3\tl5\n4\tl6\n",
    },
    {
      name: "clamps context at the start and the end of the file",
      before: "a\nb\n",
      edits: [{ start_line: 1, end_line: 2, new_text: "A\nB" }],
      text: "[lines 1-2 replaced, now lines 1-2; later line numbers are unchanged]\n1\tA\n2\tB\n",
    },
    {
      name: "adds up the movement region by region",
      before: SIX,
      edits: [{ start_line: 1, new_text: "A\nA2" }, { start_line: 6, new_text: "F\nF2" }],
      text:
        "[line 1 replaced, now lines 1-2; lines after 1 moved by +1]\n1\tA\n2\tA2\n3\tl2\n4\tl3\n[line 6 replaced, now lines 7-8; lines after 6 moved by +2]\n5\tl4\n6\tl5\n7\tF\n8\tF2\n",
    },
    {
      name: "says the file is now empty after deleting everything",
      before: "a\nb\n",
      edits: [{ start_line: 1, end_line: 2, new_text: "" }],
      text: "[deleted lines 1-2; lines after 2 moved by -2]\n[the file is now empty: 0 lines]\n",
    },
    {
      name: "shows rows of a CRLF file with their terminators",
      before: "a\r\nb\r\n",
      edits: [{ start_line: 2, new_text: "B" }],
      text: "[line 2 replaced, now line 2; later line numbers are unchanged]\n1\ta\r\n2\tB\r\n",
    },
    {
      name: "leaves a last row without a terminator as it is",
      before: "a\nb",
      edits: [{ start_line: 2, new_text: "B" }],
      text: "[line 2 replaced, now line 2; later line numbers are unchanged]\n1\ta\n2\tB",
    },
    {
      name: "shows regions whose rows overlap once: their notes, then each row once",
      before: "a\nb",
      edits: [{ start_line: 1, new_text: "A" }, { start_line: 2, new_text: "B" }],
      text:
        "[line 1 replaced, now line 1; later line numbers are unchanged]\n[line 2 replaced, now line 2; later line numbers are unchanged]\n1\tA\n2\tB",
    },
    {
      name: "shows regions whose rows only touch one after the other",
      before: lines(12),
      edits: [{ start_line: 3, new_text: "C" }, { start_line: 8, new_text: "H" }],
      text:
        "[line 3 replaced, now line 3; later line numbers are unchanged]\n1\tl1\n2\tl2\n3\tC\n4\tl4\n5\tl5\n[line 8 replaced, now line 8; later line numbers are unchanged]\n6\tl6\n7\tl7\n8\tH\n9\tl9\n10\tl10\n",
    },
  ];
  for (const row of ROWS) {
    test(`editReport() ${row.name}`, () => {
      assert.equal(report(row.before, row.edits).text, row.text);
    });
  }

  test("editReport() shows an insert and how later lines moved", () => {
    const before = "a\nb\nc\n";
    const result = editReport("f.txt", before, insertLines(before, 1, "x\ny"), false, settings({}));
    assert.equal(
      result.content[0].text,
      "[inserted lines 2-3; lines after 1 moved by +2]\n1\ta\n2\tx\n3\ty\n4\tb\n5\tc\n",
    );
  });

  test("editReport() carries regions, delta and totals, never text, in structuredContent", () => {
    const { structured } = report(SIX, [{ start_line: 3, new_text: "distinctive\nmore" }]);
    assert.deepEqual(structured, {
      path: "f.txt",
      written: true,
      dry_run: false,
      regions: [{ old_start: 3, old_end: 3, new_start: 3, new_end: 4 }],
      line_delta: 1,
      total_lines: 7,
    });
  });

  test("editReport() counts lines after the BOM", () => {
    const { structured } = report("\uFEFFa\nb\n", [{ start_line: 1, new_text: "A" }]);
    assert.equal(structured.total_lines, 2);
  });

  test("editReport() shows twenty regions and sums up the rest in a note", () => {
    const edits = Array.from(
      { length: 25 },
      (_, i) => ({ start_line: 2 * i + 2, new_text: `X${i}\nY` }),
    );
    const { text, structured } = report(lines(60), edits);
    const notes = text.split("\n").filter((line) => line.startsWith("["));
    assert.equal(notes.length, 21);
    assert.equal(notes[19], "[line 40 replaced, now lines 59-60; lines after 40 moved by +20]");
    assert.equal(
      notes[20],
      "[5 more changed regions not shown; lines after the last one moved by +25]",
    );
    assert.equal((structured.regions as unknown[]).length, 20);
    assert.equal(structured.regions_total, 25);
  });

  test("editReport() dry run shows a unified diff and says nothing was written", () => {
    const { text, structured } = report(SIX, [{ start_line: 3, new_text: "X\nY" }], true);
    assert.equal(
      text,
      "--- f.txt\tbefore\n+++ f.txt\tafter\n@@ -1,6 +1,7 @@\n l1\n l2\n-l3\n+X\n+Y\n l4\n l5\n l6\n[dry run: nothing was written; the file would have 7 lines (+1)]\n",
    );
    assert.equal(structured.written, false);
    assert.equal(structured.dry_run, true);
  });

  test("editReport() dry run of a file without a final newline says so in the diff", () => {
    const { text } = report("a\nb", [{ start_line: 1, new_text: "A" }], true);
    assert.equal(
      text,
      "--- f.txt\tbefore\n+++ f.txt\tafter\n@@ -1,2 +1,2 @@\n-a\n+A\n b\n\\ No newline at end of file\n[dry run: nothing was written; the file would have 2 lines (+0)]\n",
    );
  });

  test("editReport() dry run keeps a large diff within the row budget and says it was cut", () => {
    const { text } = report(lines(5000), [{ start_line: 1, end_line: 5000, new_text: "" }], true, {
      maxLines: 100,
    });
    const rows = text.split("\n");
    assert.ok(rows.length <= 103, `${rows.length} lines`);
    assert.match(
      text,
      /\n\[diff cut: showing 100 of 5003 lines; dry-run a smaller part of the change to see the rest\]\n\[dry run: nothing was written; the file would have 0 lines \(-5000\)\]\n$/,
    );
  });

  test("editReport() dry run keeps a large diff within the character budget", () => {
    const { text } = report(lines(5000), [{ start_line: 1, end_line: 5000, new_text: "" }], true, {
      maxChars: 2000,
    });
    assert.ok(text.length <= 2000, `${text.length} characters`);
    assert.match(text, /\[diff cut: showing \d+ of 5003 lines/);
  });

  test("editReport() lists the first 20 regions in its structured content, and counts them all", () => {
    const edits = Array.from(
      { length: 5000 },
      (_, i) => ({ start_line: 2 * i + 1, new_text: "X" }),
    );
    const { text, structured } = report(lines(10_000), edits);
    assert.equal((structured.regions as unknown[]).length, 20);
    assert.equal(structured.regions_total, 5000);
    assert.ok(JSON.stringify(structured).length < 2000, `${JSON.stringify(structured).length}`);
    assert.match(text, /\[4980 more changed regions not shown/);
    const few = report(SIX, [{ start_line: 2, new_text: "X" }]).structured;
    assert.equal(few.regions_total, undefined);
  });

  test("editReport() shows at least one row per region on a tiny budget", () => {
    const { text } = report(lines(50), [{ start_line: 10, new_text: "X" }], false, {
      maxChars: 40,
    });
    assert.match(
      text,
      /^\[line 10 replaced, now line 10; later line numbers are unchanged\]\n8\tl8\n/,
    );
  });
});
