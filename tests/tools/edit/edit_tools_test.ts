import assert from "node:assert/strict";
import { describe, test } from "node:test";
import * as fs from "node:fs/promises";
import {
  assertFitsSchema,
  bytes,
  errorText,
  type Files,
  memoryTools,
  okText,
  rowsText,
  withTempRoot,
} from "../../_helpers/tools.ts";

const EIGHT = "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n";

const FILES: Files = {
  "a.txt": EIGHT,
  "crlf.txt": "a\r\nb\r\nc\r\n",
  "bom.txt": "\uFEFFa\nb\nc\n",
  "nofinal.txt": "a\nb",
  "empty.txt": "",
  "dup.txt": "x\ny\nx\nz\nx\n",
  "secret.txt": "one\nsecret two\nthree\n",
  "bin.dat": new Uint8Array([0x61, 0x00, 0x0a]),
  "bad.txt": new Uint8Array([0x61, 0xff, 0x0a]),
  "dir/x.txt": "x\n",
  "private.env": "TOKEN=1\n",
};

/**
 * The tools over the files. These tests are about the edit rules, so numbered edits of files
 * the session never showed go through (`force`); versions_test.ts is about the guard.
 */
function tools(files: Files = FILES, options: Parameters<typeof memoryTools>[1] = {}) {
  return memoryTools(files, { deny: ["*.env"], force: true, ...options });
}

async function contentOf(h: ReturnType<typeof tools>, path: string): Promise<Uint8Array> {
  return await h.store.readBytes(path);
}

async function textOf(h: ReturnType<typeof tools>, path: string): Promise<string> {
  return new TextDecoder("utf-8", { ignoreBOM: true }).decode(await contentOf(h, path));
}

describe("replace", () => {
  const EDITS: Array<
    { name: string; path: string; args: Record<string, unknown>; after: string; shown: string }
  > = [
    {
      name: "replaces text that occurs once and shows the region with new numbers",
      path: "a.txt",
      args: { old_text: "three", new_text: "3\n3b" },
      after: "one\ntwo\n3\n3b\nfour\nfive\nsix\nseven\neight\n",
      shown:
        "[line 3 replaced, now lines 3-4; lines after 3 moved by +1]\n1\tone\n2\ttwo\n3\t3\n4\t3b\n5\tfour\n6\tfive\n",
    },
    {
      name: "says later numbers are unchanged when the line count stays",
      path: "a.txt",
      args: { old_text: "two", new_text: "TWO" },
      after: "one\nTWO\nthree\nfour\nfive\nsix\nseven\neight\n",
      shown:
        "[line 2 replaced, now line 2; later line numbers are unchanged]\n1\tone\n2\tTWO\n3\tthree\n4\tfour\n",
    },
    {
      name: "replaces every occurrence with replace_all",
      path: "dup.txt",
      args: { old_text: "x", new_text: "X", replace_all: true },
      after: "X\ny\nX\nz\nX\n",
      shown:
        "[replaced 3 occurrences]\n[line 1 replaced, now line 1; later line numbers are unchanged]\n[line 3 replaced, now line 3; later line numbers are unchanged]\n[line 5 replaced, now line 5; later line numbers are unchanged]\n1\tX\n2\ty\n3\tX\n4\tz\n5\tX\n",
    },
    {
      name:
        "matches a \\n in old_text against \\r\\n and writes new breaks as \\r\\n in a CRLF file",
      path: "crlf.txt",
      args: { old_text: "a\nb\n", new_text: "A\nB1\nB2\n" },
      after: "A\r\nB1\r\nB2\r\nc\r\n",
      shown:
        "[lines 1-2 replaced, now lines 1-3; lines after 2 moved by +1]\n1\tA\r\n2\tB1\r\n3\tB2\r\n4\tc\r\n",
    },
    {
      name: "keeps the BOM when replacing text on line 1",
      path: "bom.txt",
      args: { old_text: "a", new_text: "A" },
      after: "\uFEFFA\nb\nc\n",
      shown: "[line 1 replaced, now line 1; later line numbers are unchanged]\n1\tA\n2\tb\n3\tc\n",
    },
    {
      name: "keeps a file without a final newline without one",
      path: "nofinal.txt",
      args: { old_text: "b", new_text: "B\nC" },
      after: "a\nB\nC",
      shown: "[line 2 replaced, now lines 2-3; lines after 2 moved by +1]\n1\ta\n2\tB\n3\tC",
    },
    {
      name: "deletes text with an empty new_text",
      path: "a.txt",
      args: { old_text: "two\n", new_text: "" },
      after: "one\nthree\nfour\nfive\nsix\nseven\neight\n",
      shown: "[deleted line 2; lines after 2 moved by -1]\n1\tone\n2\tthree\n3\tfour\n",
    },
  ];
  for (const row of EDITS) {
    test(`replace ${row.name}`, async () => {
      const h = tools();
      const result = await h.call("replace", { path: row.path, ...row.args });
      assert.equal(rowsText(result), row.shown);
      assert.equal(await textOf(h, row.path), row.after);
      assert.equal(result.structuredContent?.written, true);
    });
  }

  const REFUSED: Array<{ name: string; args: Record<string, unknown>; message: RegExp }> = [
    {
      name: "old_text that is not found",
      args: { path: "a.txt", old_text: "zzz", new_text: "x" },
      message: /^a\.txt: old_text was not found; read the file again/,
    },
    {
      name: "old_text that occurs several times, naming each line",
      args: { path: "dup.txt", old_text: "x", new_text: "X" },
      message:
        /^dup\.txt: old_text occurs 3 times \(at lines 1, 3, 5\); include more surrounding text/,
    },
    {
      name: "an empty old_text",
      args: { path: "a.txt", old_text: "", new_text: "x" },
      message: /^a\.txt: old_text is empty; give the exact text to replace, or use insert_lines/,
    },
    {
      name: "a missing new_text",
      args: { path: "a.txt", old_text: "one" },
      message: /^a\.txt: missing new_text: give old_text and new_text, or edits$/,
    },
    {
      name: "replace_all given as a string",
      args: { path: "a.txt", old_text: "one", new_text: "1", replace_all: "true" },
      message: /^argument "replace_all" must be true or false/,
    },
    {
      name: "an unknown argument, naming those there are",
      args: { path: "a.txt", old_text: "one", new_text: "1", dryrun: true },
      message:
        /^unknown argument "dryrun"; the arguments are path, old_text, new_text, replace_all, edits, dry_run, exact$/,
    },
    {
      name: "a file that does not exist",
      args: { path: "nope.txt", old_text: "a", new_text: "b" },
      message: /^no file or directory at "nope\.txt"/,
    },
    {
      name: "a directory",
      args: { path: "dir", old_text: "a", new_text: "b" },
      message: /^"dir" is a directory, not a regular file$/,
    },
    {
      name: "a binary file, giving its size",
      args: { path: "bin.dat", old_text: "a", new_text: "b" },
      message: /^"bin\.dat" is a binary file \(3 bytes/,
    },
    {
      name: "a file that is not valid UTF-8",
      args: { path: "bad.txt", old_text: "a", new_text: "b" },
      message:
        /^"bad\.txt" is not valid UTF-8; edit tools refuse it so that no byte changes by accident$/,
    },
    {
      name: "a denied file",
      args: { path: "private.env", old_text: "TOKEN", new_text: "x" },
      message: /^path "private\.env" is not accessible: the server denies it$/,
    },
    {
      name: "a path outside the root",
      args: { path: "../a.txt", old_text: "a", new_text: "b" },
      message: /outside the allowed roots/,
    },
  ];
  for (const row of REFUSED) {
    test(`replace refuses ${row.name} and writes nothing`, async () => {
      const h = tools();
      const before = await h.store.readBytes(row.args.path as string).catch(() => undefined);
      assert.match(errorText(await h.call("replace", row.args)), row.message);
      const after = await h.store.readBytes(row.args.path as string).catch(() => undefined);
      assert.deepEqual(after, before);
    });
  }

  test("replace refuses a file over the edit cap", async () => {
    const h = tools({ "big.txt": "x".repeat(100) + "\n" }, { maxEditBytes: 50 });
    assert.match(
      errorText(
        await h.call("replace", {
          path: "big.txt",
          old_text: "x",
          new_text: "y",
          replace_all: true,
        }),
      ),
      /^"big\.txt" is 101 bytes, over the 50-byte limit for edits; read and grep still work on it$/,
    );
  });
});

describe("replace_lines", () => {
  const EDITS: Array<
    {
      name: string;
      path: string;
      args: Record<string, unknown>;
      after: string;
      shown: string;
      delta: number;
    }
  > = [
    {
      name: "replaces one line, giving new text a terminator so lines never join",
      path: "a.txt",
      args: { edits: [{ start_line: 2, new_text: "TWO" }] },
      after: "one\nTWO\nthree\nfour\nfive\nsix\nseven\neight\n",
      shown:
        "[line 2 replaced, now line 2; later line numbers are unchanged]\n1\tone\n2\tTWO\n3\tthree\n4\tfour\n",
      delta: 0,
    },
    {
      name: "deletes a range with empty new_text",
      path: "a.txt",
      args: { edits: [{ start_line: 2, end_line: 3, new_text: "" }] },
      after: "one\nfour\nfive\nsix\nseven\neight\n",
      shown: "[deleted lines 2-3; lines after 3 moved by -2]\n1\tone\n2\tfour\n3\tfive\n",
      delta: -2,
    },
    {
      name: "numbers several ranges as the file was before the call",
      path: "a.txt",
      args: { edits: [{ start_line: 6, new_text: "SIX" }, { start_line: 2, new_text: "A\nB\nC" }] },
      after: "one\nA\nB\nC\nthree\nfour\nfive\nSIX\nseven\neight\n",
      shown:
        "[line 2 replaced, now lines 2-4; lines after 2 moved by +2]\n[line 6 replaced, now line 8; lines after 6 moved by +2]\n1\tone\n2\tA\n3\tB\n4\tC\n5\tthree\n6\tfour\n7\tfive\n8\tSIX\n9\tseven\n10\teight\n",
      delta: 2,
    },
    {
      name: "accepts expected_text that still matches, terminators ignored",
      path: "crlf.txt",
      args: { edits: [{ start_line: 2, end_line: 3, new_text: "X", expected_text: "b\nc\n" }] },
      after: "a\r\nX\r\n",
      shown: "[lines 2-3 replaced, now line 2; lines after 3 moved by -1]\n1\ta\r\n2\tX\r\n",
      delta: -1,
    },
    {
      name: "writes line breaks of new text as \\r\\n in a CRLF file",
      path: "crlf.txt",
      args: { edits: [{ start_line: 2, new_text: "B1\nB2" }] },
      after: "a\r\nB1\r\nB2\r\nc\r\n",
      shown:
        "[line 2 replaced, now lines 2-3; lines after 2 moved by +1]\n1\ta\r\n2\tB1\r\n3\tB2\r\n4\tc\r\n",
      delta: 1,
    },
    {
      name: "keeps the BOM when replacing line 1",
      path: "bom.txt",
      args: { edits: [{ start_line: 1, new_text: "A" }] },
      after: "\uFEFFA\nb\nc\n",
      shown: "[line 1 replaced, now line 1; later line numbers are unchanged]\n1\tA\n2\tb\n3\tc\n",
      delta: 0,
    },
    {
      name: "keeps a file without a final newline without one, even when new text ends with one",
      path: "nofinal.txt",
      args: { edits: [{ start_line: 2, new_text: "B\nC\n" }] },
      after: "a\nB\nC",
      shown: "[line 2 replaced, now lines 2-3; lines after 2 moved by +1]\n1\ta\n2\tB\n3\tC",
      delta: 1,
    },
    {
      name: "writes new text byte for byte with exact",
      path: "crlf.txt",
      args: { edits: [{ start_line: 2, new_text: "B1\nB2\n" }], exact: true },
      after: "a\r\nB1\nB2\nc\r\n",
      shown:
        "[line 2 replaced, now lines 2-3; lines after 2 moved by +1]\n1\ta\r\n2\tB1\n3\tB2\n4\tc\r\n",
      delta: 1,
    },
    {
      name: "says the file is now empty after deleting every line",
      path: "nofinal.txt",
      args: { edits: [{ start_line: 1, end_line: 2, new_text: "" }] },
      after: "",
      shown: "[deleted lines 1-2; lines after 2 moved by -2]\n[the file is now empty: 0 lines]\n",
      delta: -2,
    },
  ];
  for (const row of EDITS) {
    test(`replace_lines ${row.name}`, async () => {
      const h = tools();
      const result = await h.call("replace_lines", { path: row.path, ...row.args });
      assert.equal(rowsText(result), row.shown);
      assert.equal(await textOf(h, row.path), row.after);
      assert.equal(result.structuredContent?.line_delta, row.delta);
    });
  }

  const REFUSED: Array<{ name: string; path?: string; edits: unknown; message: RegExp }> = [
    {
      name: "overlapping ranges",
      edits: [{ start_line: 2, end_line: 4, new_text: "x" }, { start_line: 4, new_text: "y" }],
      message:
        /^a\.txt: edits\[0\] \(lines 2-4\) and edits\[1\] \(lines 4-4\) overlap; merge them into one range$/,
    },
    {
      name: "a range past the end, naming the line count",
      edits: [{ start_line: 9, new_text: "x" }],
      message: /^a\.txt: lines 9-9 fall outside the file, which has 8 lines$/,
    },
    {
      name: "a range that runs past the end",
      edits: [{ start_line: 7, end_line: 12, new_text: "x" }],
      message: /lines 7-12 fall outside the file, which has 8 lines/,
    },
    {
      name: "end_line before start_line",
      edits: [{ start_line: 3, end_line: 2, new_text: "x" }],
      message: /^a\.txt: start_line 3 and end_line 2 are not a valid range/,
    },
    {
      name: "start_line 0",
      edits: [{ start_line: 0, new_text: "x" }],
      message: /^argument "edits\[0\]\.start_line" must be 1 or more, got number 0$/,
    },
    {
      name: "a negative end_line",
      edits: [{ start_line: 1, end_line: -1, new_text: "x" }],
      message: /^argument "edits\[0\]\.end_line" must be 1 or more, got number -1$/,
    },
    {
      name: "an edit without new_text",
      edits: [{ start_line: 1 }],
      message: /^missing required argument "edits\[0\]\.new_text"$/,
    },
    {
      name: "an edit with an unknown field",
      edits: [{ start_line: 1, new_text: "", text: "x" }],
      message: /^unknown argument "edits\[0\]\.text"/,
    },
    {
      name: "an edit that is not an object",
      edits: [2],
      message: /^argument "edits\[0\]" must be an object, got number 2$/,
    },
    {
      name: "an empty list of edits",
      edits: [],
      message: /^argument "edits" must be a non-empty array, got an empty array$/,
    },
    {
      name: "edits that are not a list",
      edits: { start_line: 1, new_text: "" },
      message: /^argument "edits" must be an array, got an object$/,
    },
    {
      name: "any line of an empty file, pointing to insert_lines",
      path: "empty.txt",
      edits: [{ start_line: 1, new_text: "x" }],
      message:
        /^empty\.txt: lines 1-1 fall outside the file, which has 0 lines; use insert_lines with after_line=0/,
    },
    {
      name: "a binary file",
      path: "bin.dat",
      edits: [{ start_line: 1, new_text: "x" }],
      message: /is a binary file \(3 bytes/,
    },
    {
      name: "a file that is not valid UTF-8",
      path: "bad.txt",
      edits: [{ start_line: 1, new_text: "x" }],
      message: /is not valid UTF-8; edit tools refuse it/,
    },
    {
      name: "a denied file",
      path: "private.env",
      edits: [{ start_line: 1, new_text: "x" }],
      message: /^path "private\.env" is not accessible/,
    },
  ];
  for (const row of REFUSED) {
    test(`replace_lines refuses ${row.name} and writes nothing`, async () => {
      const h = tools();
      const path = row.path ?? "a.txt";
      const before = await h.store.readBytes(path).catch(() => undefined);
      assert.match(
        errorText(await h.call("replace_lines", { path, edits: row.edits })),
        row.message,
      );
      assert.deepEqual(await h.store.readBytes(path).catch(() => undefined), before);
    });
  }

  const STALE: Array<{ name: string; edits: unknown[]; message: RegExp }> = [
    {
      name: "one stale range",
      edits: [{ start_line: 2, new_text: "x", expected_text: "two" }],
      message:
        /^secret\.txt: expected_text does not match line 2 \(first difference at line 2\); nothing was written\. The lines there now \(version [0-9a-f]{8}\):\n2\tsecret two\n$/,
    },
    {
      name: "a stale range after a good one",
      edits: [{ start_line: 1, new_text: "1", expected_text: "one" }, {
        start_line: 2,
        end_line: 3,
        new_text: "x",
        expected_text: "two\nthree",
      }],
      message: /lines 2-3 \(first difference at line 2\).*\n2\tsecret two\n3\tthree\n/,
    },
    {
      name: "expected_text with one line too many",
      edits: [{ start_line: 3, new_text: "x", expected_text: "three\nfour" }],
      message: /does not match line 3 \(first difference at line 4\)/,
    },
  ];
  for (const row of STALE) {
    test(`replace_lines refuses the whole call for ${row.name}, showing the rows now`, async () => {
      const h = tools();
      const message = errorText(
        await h.call("replace_lines", { path: "secret.txt", edits: row.edits }),
      );
      assert.match(message, row.message);
      assert.equal(await textOf(h, "secret.txt"), "one\nsecret two\nthree\n");
    });
  }

  test("replace_lines dry_run shows a unified diff and leaves the file byte-identical", async () => {
    const h = tools();
    const before = await contentOf(h, "a.txt");
    const result = await h.call("replace_lines", {
      path: "a.txt",
      edits: [{ start_line: 2, new_text: "x" }],
      dry_run: true,
    });
    assert.equal(
      okText(result),
      "--- a.txt\tbefore\n+++ a.txt\tafter\n@@ -1,5 +1,5 @@\n one\n-two\n+x\n three\n four\n five\n[dry run: nothing was written; the file would have 8 lines (+0)]\n",
    );
    assert.deepEqual(await contentOf(h, "a.txt"), before);
    assert.equal(result.structuredContent?.written, false);
    assert.equal(result.structuredContent?.dry_run, true);
  });

  test("replace_lines dry_run on a CRLF file with a BOM leaves every byte as it was", async () => {
    const h = tools({ "w.txt": "\uFEFFa\r\nb\r\nc" });
    const before = await contentOf(h, "w.txt");
    const result = await h.call("replace_lines", {
      path: "w.txt",
      edits: [{ start_line: 3, new_text: "C\nD" }],
      dry_run: true,
    });
    assert.match(okText(result), /^--- w\.txt\tbefore\n\+\+\+ w\.txt\tafter\n@@ /);
    assert.match(
      okText(result),
      /\[dry run: nothing was written; the file would have 4 lines \(\+1\)\]\n$/,
    );
    assert.deepEqual(await contentOf(h, "w.txt"), before);
  });

  test("replace_lines serialises edits to one file: a second stale edit is refused", async () => {
    const h = tools();
    const edit = (text: string) =>
      h.call("replace_lines", {
        path: "a.txt",
        edits: [{ start_line: 2, new_text: text, expected_text: "two" }],
      });
    const results = await Promise.all([edit("first"), edit("second")]);
    assert.deepEqual(results.map((r) => r.isError ?? false).sort(), [false, true]);
    const content = await textOf(h, "a.txt");
    assert.ok(
      content === EIGHT.replace("two", "first") || content === EIGHT.replace("two", "second"),
    );
  });

  test("replace_lines's structuredContent fits the output schema and never carries file text", async () => {
    const h = tools();
    const schema = h.tools.find((t) => t.name === "replace_lines")!.outputSchema;
    const result = await h.call("replace_lines", {
      path: "a.txt",
      edits: [{ start_line: 3, new_text: "distinctive line" }],
    });
    assertFitsSchema(result.structuredContent, schema);
    assert.match(okText(result), /distinctive line/);
    assert.doesNotMatch(JSON.stringify(result.structuredContent), /distinctive|four|two/);
    assert.deepEqual(result.structuredContent?.regions, [{
      old_start: 3,
      old_end: 3,
      new_start: 3,
      new_end: 3,
    }]);
    assert.equal(result.structuredContent?.total_lines, 8);
  });
});

describe("insert_lines", () => {
  const EDITS: Array<
    { name: string; path: string; args: Record<string, unknown>; after: string; shown: string }
  > = [
    {
      name: "inserts before line 1 with after_line 0",
      path: "a.txt",
      args: { after_line: 0, text: "zero" },
      after: "zero\n" + EIGHT,
      shown: "[inserted line 1; lines after 0 moved by +1]\n1\tzero\n2\tone\n3\ttwo\n",
    },
    {
      name: "appends with after_line = the line count",
      path: "a.txt",
      args: { after_line: 8, text: "nine\nten" },
      after: EIGHT + "nine\nten\n",
      shown:
        "[inserted lines 9-10; lines after 8 moved by +2]\n7\tseven\n8\teight\n9\tnine\n10\tten\n",
    },
    {
      name: "inserts in the middle, moving later lines down",
      path: "a.txt",
      args: { after_line: 3, text: "x\n" },
      after: "one\ntwo\nthree\nx\nfour\nfive\nsix\nseven\neight\n",
      shown:
        "[inserted line 4; lines after 3 moved by +1]\n2\ttwo\n3\tthree\n4\tx\n5\tfour\n6\tfive\n",
    },
    {
      name: "takes the CRLF style of its neighbour",
      path: "crlf.txt",
      args: { after_line: 1, text: "x\ny" },
      after: "a\r\nx\r\ny\r\nb\r\nc\r\n",
      shown:
        "[inserted lines 2-3; lines after 1 moved by +2]\n1\ta\r\n2\tx\r\n3\ty\r\n4\tb\r\n5\tc\r\n",
    },
    {
      name: "keeps the BOM in front of an insert before line 1",
      path: "bom.txt",
      args: { after_line: 0, text: "first" },
      after: "\uFEFFfirst\na\nb\nc\n",
      shown: "[inserted line 1; lines after 0 moved by +1]\n1\tfirst\n2\ta\n3\tb\n",
    },
    {
      name: "keeps a file without a final newline without one when appending",
      path: "nofinal.txt",
      args: { after_line: 2, text: "c" },
      after: "a\nb\nc",
      shown: "[inserted line 3; lines after 2 moved by +1]\n1\ta\n2\tb\n3\tc",
    },
    {
      name: "fills an empty file, which counts as ending with a terminator",
      path: "empty.txt",
      args: { after_line: 0, text: "c" },
      after: "c\n",
      shown: "[inserted line 1; lines after 0 moved by +1]\n1\tc\n",
    },
  ];
  for (const row of EDITS) {
    test(`insert_lines ${row.name}`, async () => {
      const h = tools();
      const result = await h.call("insert_lines", { path: row.path, ...row.args });
      assert.equal(rowsText(result), row.shown);
      assert.equal(await textOf(h, row.path), row.after);
    });
  }

  const REFUSED: Array<{ name: string; args: Record<string, unknown>; message: RegExp }> = [
    {
      name: "after_line past the end, naming the line count",
      args: { path: "a.txt", after_line: 9, text: "x" },
      message:
        /^a\.txt: after_line 9 is outside the file, which has 8 lines; use 0 to insert before line 1 or 8 to append$/,
    },
    {
      name: "a negative after_line",
      args: { path: "a.txt", after_line: -1, text: "x" },
      message: /^argument "after_line" must be 0 or more, got number -1$/,
    },
    {
      name: "empty text",
      args: { path: "a.txt", after_line: 2, text: "" },
      message: /^a\.txt: text is empty; there is nothing to insert$/,
    },
    {
      name: "a missing after_line",
      args: { path: "a.txt", text: "x" },
      message: /^missing required argument "after_line"$/,
    },
    {
      name: "a file that is not valid UTF-8",
      args: { path: "bad.txt", after_line: 0, text: "x" },
      message: /is not valid UTF-8; edit tools refuse it/,
    },
    {
      name: "a file that does not exist",
      args: { path: "new.txt", after_line: 0, text: "x" },
      message: /^no file or directory at "new\.txt"/,
    },
  ];
  for (const row of REFUSED) {
    test(`insert_lines refuses ${row.name} and writes nothing`, async () => {
      const h = tools();
      const before = await h.store.readBytes(row.args.path as string).catch(() => undefined);
      assert.match(errorText(await h.call("insert_lines", row.args)), row.message);
      assert.deepEqual(
        await h.store.readBytes(row.args.path as string).catch(() => undefined),
        before,
      );
    });
  }

  test("insert_lines dry_run shows a diff and writes nothing", async () => {
    const h = tools();
    const result = await h.call("insert_lines", {
      path: "a.txt",
      after_line: 3,
      text: "x",
      dry_run: true,
    });
    assert.equal(
      okText(result),
      "--- a.txt\tbefore\n+++ a.txt\tafter\n@@ -1,6 +1,7 @@\n one\n two\n three\n+x\n four\n five\n six\n[dry run: nothing was written; the file would have 9 lines (+1)]\n",
    );
    assert.equal(await textOf(h, "a.txt"), EIGHT);
  });
});

describe("edit tools over a directory store", () => {
  const INVALID = new Uint8Array([0x61, 0x0a, 0xc3, 0x28, 0x0a, 0x62, 0x0a]);
  const CALLS: Array<[string, Record<string, unknown>]> = [
    ["replace", { old_text: "a", new_text: "b" }],
    ["replace_lines", { edits: [{ start_line: 1, new_text: "b" }] }],
    ["insert_lines", { after_line: 0, text: "b" }],
  ];
  for (const [name, args] of CALLS) {
    test(`${name} refuses a file with invalid UTF-8 and leaves it byte for byte`, async () => {
      await withTempRoot({ "bad.txt": INVALID }, async (root, h) => {
        assert.match(
          errorText(await h.call(name, { path: "bad.txt", ...args })),
          /not valid UTF-8/,
        );
        assert.deepEqual(new Uint8Array(await fs.readFile(root.at("bad.txt"))), INVALID);
      });
    });
  }

  test("edits keep CRLF, the BOM and a missing final newline on disk", async () => {
    await withTempRoot({ "w.txt": "\uFEFFa\r\nb\r\nc" }, async (root, h) => {
      okText(await h.call("read", { path: "w.txt" }));
      okText(
        await h.call("replace_lines", {
          path: "w.txt",
          edits: [{ start_line: 2, new_text: "B1\nB2\n" }],
        }),
      );
      okText(await h.call("insert_lines", { path: "w.txt", after_line: 4, text: "d\n" }));
      okText(await h.call("replace", { path: "w.txt", old_text: "a\n", new_text: "A\n" }));
      assert.deepEqual(
        new Uint8Array(await fs.readFile(root.at("w.txt"))),
        bytes("\uFEFFA\r\nB1\r\nB2\r\nc\r\nd"),
      );
    });
  });

  test("edits keep the file mode", async () => {
    if (process.platform === "win32") return;
    await withTempRoot({ "run.sh": "#!/bin/sh\necho a\n" }, async (root, h) => {
      await fs.chmod(root.at("run.sh"), 0o751);
      okText(await h.call("read", { path: "run.sh" }));
      okText(
        await h.call("replace_lines", {
          path: "run.sh",
          edits: [{ start_line: 2, new_text: "echo b" }],
        }),
      );
      assert.equal((await fs.stat(root.at("run.sh"))).mode & 0o777, 0o751);
      assert.equal(await fs.readFile(root.at("run.sh"), "utf8"), "#!/bin/sh\necho b\n");
    });
  });

  test("an edit through an in-root symlink writes the target and keeps the link", async () => {
    await withTempRoot({ "real.txt": "a\n" }, async (root, h) => {
      await fs.symlink(root.at("real.txt"), root.at("link.txt"));
      okText(await h.call("read", { path: "link.txt" }));
      okText(
        await h.call("replace_lines", {
          path: "link.txt",
          edits: [{ start_line: 1, new_text: "b" }],
        }),
      );
      assert.equal(await fs.readFile(root.at("real.txt"), "utf8"), "b\n");
      assert.ok((await fs.lstat(root.at("link.txt"))).isSymbolicLink());
    });
  });

  test("edits name an absolute path inside the root relative to it", async () => {
    await withTempRoot({ "sub/a.txt": "a\n" }, async (root, h) => {
      okText(await h.call("read", { path: "sub/a.txt" }));
      const result = await h.call("insert_lines", {
        path: root.at("sub/a.txt"),
        after_line: 1,
        text: "b",
        dry_run: true,
      });
      assert.equal(result.structuredContent?.path, "sub/a.txt");
      assert.match(okText(result), /^--- sub\/a\.txt\tbefore\n\+\+\+ sub\/a\.txt\tafter\n/);
    });
  });

  test("edits of a root itself are refused as edits of a directory, not as internal errors", async () => {
    await withTempRoot({ "a.txt": "a\n" }, async (root, h) => {
      const edit = { start_line: 1, new_text: "x\n", expected_text: "a\n" };
      for (const path of [".", root.dir, "sub/.."]) {
        const calls: Array<[string, Record<string, unknown>]> = [
          ["replace", { path, old_text: "a", new_text: "b" }],
          ["replace_lines", { path, edits: [edit] }],
          ["insert_lines", { path, after_line: 0, text: "x\n", expected_text: "" }],
          ["write", { path, content: "x", overwrite: true }],
          ["delete", { path }],
        ];
        for (const [tool, args] of calls) {
          const result = await h.call(tool, args);
          assert.equal(result.isError, true, `${tool} ${path}`);
          assert.match(errorText(result), /is a directory, not a regular file/, `${tool} ${path}`);
        }
      }
      assert.equal(await fs.readFile(root.at("a.txt"), "utf8"), "a\n");
    });
  });

  test("edits refuse a binary file on disk with its size", async () => {
    await withTempRoot({ "b.bin": new Uint8Array([0x61, 0, 0x0a]) }, async (_root, h) => {
      assert.match(
        errorText(await h.call("insert_lines", { path: "b.bin", after_line: 0, text: "x" })),
        /"b\.bin" is a binary file \(3 bytes/,
      );
    });
  });
});
