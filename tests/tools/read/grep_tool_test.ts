import { setImmediate } from "node:timers";
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { versionOf } from "../../../src/versions/mod.ts";
import type { SearchResult } from "../../../src/store/file_store.ts";
import { freezeResult } from "../../../src/store/frozen_result.ts";
import { referenceLines, text as anyText } from "../../_helpers/arbitraries.ts";
import {
  assertFitsSchema,
  errorText,
  type Files,
  grepText,
  memoryTools,
  okText,
  rowsText,
  withTempRoot,
} from "../../_helpers/tools.ts";

const EIGHT = "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n";

const FILES: Files = {
  "b.txt": "foo bar\nbaz\nfoo\n",
  "a.txt": EIGHT,
  "crlf.txt": "foo\r\nbar\r\n",
  "cr.txt": "x\ry\n",
  "nofinal.txt": "a\nfoo",
  "sub/deep.txt": "x foo\n",
  "long.txt": "abcdefghijklmnopqrstuvwxyzfoo0123456789abcdefghijklmnop\n",
  "bin.dat": new Uint8Array([0x66, 0x6f, 0x6f, 0x00, 0x0a]),
  "bad.txt": new Uint8Array([0x66, 0x6f, 0x6f, 0xff, 0x0a]),
  ".hidden.txt": "foo hidden\n",
  "secret.env": "foo TOKEN=hunter2\n",
};

function tools(files: Files = FILES, options: Parameters<typeof memoryTools>[1] = {}) {
  return memoryTools(files, { cut: 10, deny: ["*.env"], ...options });
}

describe("grep layout", () => {
  test("grep lists each file's path, then its matching rows; files in path order, a blank line between", async () => {
    const h = tools({ "b.txt": "foo\nx\nfoo\n", "a.txt": "foo\n", "sub/c.txt": "x foo\n" });
    assert.equal(
      grepText(await h.call("grep", { pattern: "foo" })),
      "a.txt\n1\tfoo\n\nb.txt\n1\tfoo\n3\tfoo\n\nsub/c.txt\n1\tx foo\n",
    );
  });

  test("grep of one file lists its path and rows", async () => {
    assert.equal(
      grepText(await tools().call("grep", { pattern: "foo", path: "b.txt" })),
      "b.txt\n1\tfoo bar\n3\tfoo\n",
    );
  });

  test("grep keeps a CRLF terminator in the row, and $ matches before it", async () => {
    assert.equal(
      grepText(await tools().call("grep", { pattern: "o$", path: "crlf.txt" })),
      "crlf.txt\n1\tfoo\r\n",
    );
  });

  test("grep matches . against a lone \\r, which is text inside a line", async () => {
    assert.equal(
      grepText(await tools().call("grep", { pattern: "^x.y$", path: "cr.txt" })),
      "cr.txt\n1\tx\ry\n",
    );
  });

  test("grep shows a last matching line without a terminator verbatim, adding nothing", async () => {
    assert.equal(
      grepText(await tools().call("grep", { pattern: "foo", path: "nofinal.txt" })),
      "nofinal.txt\n2\tfoo",
    );
  });

  test("grep ends a last line without a terminator before the next file's path", async () => {
    const h = tools({ "a.txt": "foo", "b.txt": "foo\n" });
    assert.equal(
      grepText(await h.call("grep", { pattern: "foo" })),
      "a.txt\n1\tfoo\n\nb.txt\n1\tfoo\n",
    );
  });

  test("grep puts a \\n before a note after a last row without a terminator", async () => {
    const h = tools({ "a.txt": "foo", "b.dat": new Uint8Array([0]) });
    assert.equal(
      grepText(await h.call("grep", { pattern: "foo" })),
      "a.txt\n1\tfoo\n[1 binary file skipped]\n",
    );
  });

  const CONTEXT: Array<{ name: string; pattern: string; context: number; text: string }> = [
    {
      name: "shows context rows as <n>-\\t and -- between groups that are not adjacent",
      pattern: "^(one|six)$",
      context: 1,
      text: "a.txt\n1\tone\n2-\ttwo\n--\n5-\tfive\n6\tsix\n7-\tseven\n",
    },
    {
      name: "puts no -- between groups whose context touches",
      pattern: "^(one|four)$",
      context: 1,
      text: "a.txt\n1\tone\n2-\ttwo\n3-\tthree\n4\tfour\n5-\tfive\n",
    },
    {
      name: "shows overlapping context once",
      pattern: "^(two|three)$",
      context: 2,
      text: "a.txt\n1-\tone\n2\ttwo\n3\tthree\n4-\tfour\n5-\tfive\n",
    },
    {
      name: "puts no -- between non-adjacent matches without context",
      pattern: "^(one|six)$",
      context: 0,
      text: "a.txt\n1\tone\n6\tsix\n",
    },
    {
      name: "clamps context at the ends of the file and joins groups that meet",
      pattern: "^(one|eight)$",
      context: 3,
      text: "a.txt\n1\tone\n2-\ttwo\n3-\tthree\n4-\tfour\n5-\tfive\n6-\tsix\n7-\tseven\n8\teight\n",
    },
  ];
  for (const row of CONTEXT) {
    test(`grep ${row.name}`, async () => {
      const result = await tools().call("grep", {
        pattern: row.pattern,
        path: "a.txt",
        context: row.context,
      });
      assert.equal(grepText(result), row.text);
    });
  }

  test("grep shows a long matching line as a window around the match, marked with its column", async () => {
    assert.equal(
      grepText(await tools().call("grep", { pattern: "foo", path: "long.txt" })),
      "long.txt\n1\t[from column 26] zfoo012345 … [line cut: 55 code points; column=36 shows more]\n",
    );
  });

  test("grep with no match answers with a note, not an error", async () => {
    const result = await tools().call("grep", { pattern: "zzz", path: "a.txt" });
    assert.equal(
      grepText(result),
      '[no match for "zzz" in a.txt (1 file searched)]\n',
    );
    assert.deepEqual(result.structuredContent?.files, []);
    assert.equal(result.structuredContent?.matched_lines, 0);
  });

  test("grep skips binary files and counts them", async () => {
    const result = await tools().call("grep", { pattern: "foo", glob: "*.dat" });
    assert.equal(
      grepText(result),
      '[no match for "foo" in . (0 files searched)]\n[1 binary file skipped]\n[1 hidden entry left out; include_ignored=true searches them]\n',
    );
    assert.equal(result.structuredContent?.binary_files_skipped, 1);
  });

  test("grep searches a file with invalid UTF-8 and names it in a note", async () => {
    const result = await tools().call("grep", { pattern: "foo", path: "bad.txt" });
    assert.equal(
      grepText(result),
      "bad.txt\n1\tfoo\uFFFD\n[not valid UTF-8 (shown with U+FFFD; edit tools refuse them): bad.txt]\n",
    );
    assert.deepEqual(result.structuredContent?.files, [{
      path: "bad.txt",
      lines: [1],
      invalid_utf8: true,
    }]);
  });
});

describe("grep options", () => {
  const OPTIONS: Array<{ name: string; args: Record<string, unknown>; paths: string[] }> = [
    {
      name: "walks . by default, skipping hidden and denied files",
      args: { pattern: "foo" },
      paths: ["b.txt", "bad.txt", "crlf.txt", "long.txt", "nofinal.txt", "sub/deep.txt"],
    },
    {
      name: "includes hidden files with include_ignored, never denied ones",
      args: { pattern: "foo", include_ignored: true },
      paths: [
        ".hidden.txt",
        "b.txt",
        "bad.txt",
        "crlf.txt",
        "long.txt",
        "nofinal.txt",
        "sub/deep.txt",
      ],
    },
    {
      name: "keeps to a directory given as path",
      args: { pattern: "foo", path: "sub" },
      paths: ["sub/deep.txt"],
    },
    {
      name: "filters by a glob without / at any depth",
      args: { pattern: "foo", glob: "deep.*" },
      paths: ["sub/deep.txt"],
    },
    {
      name: "filters by a glob with / against the path",
      args: { pattern: "foo", glob: "sub/*.txt" },
      paths: ["sub/deep.txt"],
    },
    {
      name: "matches regardless of case with ignore_case",
      args: { pattern: "FOO B", ignore_case: true },
      paths: ["b.txt"],
    },
    { name: "is case-sensitive by default", args: { pattern: "FOO" }, paths: [] },
    {
      name: "takes regex characters as text with literal",
      args: { pattern: "o b", literal: true },
      paths: ["b.txt"],
    },
    {
      name: "takes a literal pattern that is not a valid regex",
      args: { pattern: "foo(", literal: true },
      paths: [],
    },
  ];
  for (const row of OPTIONS) {
    test(`grep ${row.name}`, async () => {
      const result = await tools().call("grep", row.args);
      grepText(result);
      const files = result.structuredContent?.files as Array<{ path: string }>;
      assert.deepEqual(files.map((f) => f.path), row.paths);
    });
  }

  test("grep stops at max_matches with a note that more matches exist", async () => {
    const result = await tools().call("grep", { pattern: "o", path: "a.txt", max_matches: 2 });
    assert.equal(
      grepText(result),
      "a.txt\n1\tone\n2\ttwo\n[stopped at max_matches=2: showing 2 matching lines in 1 file; more matches exist. Continue with offset=2, or narrow the search]\n",
    );
    assert.equal(result.structuredContent?.stopped, "max_matches");
  });

  test("grep with exactly max_matches matches adds no note", async () => {
    const result = await tools().call("grep", { pattern: "o", path: "a.txt", max_matches: 3 });
    assert.equal(grepText(result), "a.txt\n1\tone\n2\ttwo\n4\tfour\n");
    assert.equal(result.structuredContent?.stopped, undefined);
  });

  test("grep counts max_matches across files and names the files left unsearched", async () => {
    const h = tools({ "a.txt": "foo\n", "b.txt": "foo\n", "c.txt": "foo\n", "d.txt": "foo\n" });
    const result = await h.call("grep", { pattern: "foo", max_matches: 2 });
    const shown = grepText(result);
    assert.match(
      shown,
      /^a\.txt\n1\tfoo\n\nb\.txt\n1\tfoo\n\[stopped at max_matches=2: showing 2 matching lines in 2 files; more matches exist/,
    );
    assert.equal(result.structuredContent?.matched_lines, 2);
  });

  test("grep stops at the row budget with a note, never past it", async () => {
    const h = tools({ "a.txt": "foo\nfoo\n", "b.txt": "foo\nfoo\n", "c.txt": "foo\n" }, {
      maxLines: 3,
    });
    const result = await h.call("grep", { pattern: "foo" });
    assert.equal(
      grepText(result),
      "a.txt\n1\tfoo\n2\tfoo\n\nb.txt\n1\tfoo\n[output budget reached: showing 3 matching lines in 2 files; more matches exist: continue with offset=3, or narrow the search]\n",
    );
    assert.equal(result.structuredContent?.stopped, "output_budget");
    assert.equal(result.structuredContent?.matched_lines, 3);
  });

  test("grep that cuts only context rows says every match is shown", async () => {
    const h = tools({ "a.txt": "a\nb\nfoo\nc\nd\n" }, { maxLines: 3 });
    const result = await h.call("grep", { pattern: "foo", context: 2 });
    assert.equal(
      grepText(result),
      "a.txt\n1-\ta\n2-\tb\n3\tfoo\n[output budget reached: showing all 1 matching line in 1 file, but some of their context lines are cut. Ask for less context, or read the lines with read]\n",
    );
    assert.doesNotMatch(grepText(result), /more matches exist/);
    // (From an offset, they are the last ones.)
    const two = tools({ "a.txt": "foo\na\nb\nfoo\nc\nd\n" }, { maxLines: 3 });
    const last = grepText(await two.call("grep", { pattern: "foo", context: 2, offset: 1 }));
    assert.match(last, /\[output budget reached: showing the last 1 matching line in 1 file, but/);
  });

  test("grep shows the first match when its context before it fills the budget", async () => {
    const h = tools({ "a.txt": "a\nb\nc\nd\nfoo\ne\n" }, { maxLines: 3 });
    const result = await h.call("grep", { pattern: "foo", context: 4 });
    assert.equal(
      grepText(result),
      "a.txt\n1-\ta\n2-\tb\n3-\tc\n--\n5\tfoo\n[output budget reached: showing all 1 matching line in 1 file, but some of their context lines are cut. Ask for less context, or read the lines with read]\n",
    );
    assert.equal(result.structuredContent?.matched_lines, 1);
  });

  test("grep with a small character budget shows rows, stays within it and says so", async () => {
    const files: Files = {};
    for (let i = 0; i < 40; i++) files[`f${String(i).padStart(2, "0")}.txt`] = "foo\nbar\nfoo\n";
    const result = await tools(files, { maxChars: 500 }).call("grep", { pattern: "foo" });
    const shown = grepText(result);
    assert.ok(shown.length <= 500, `${shown.length} characters`);
    assert.match(shown, /^f00\.txt\n1\tfoo\n3\tfoo\n\nf01\.txt\n/);
    assert.match(
      shown,
      /\n\[output budget reached: showing \d+ matching lines in \d+ files; more matches exist/,
    );
  });

  test("grep stops searching past what its character budget shows; an offset searches on", async () => {
    const files: Files = {};
    for (let i = 0; i < 40; i++) files[`f${String(i).padStart(2, "0")}.txt`] = "foo\nbar\nfoo\n";
    const h = tools(files, { maxChars: 500 });
    const first = await h.call("grep", { pattern: "foo" });
    assert.match(
      grepText(first),
      /\n\[output budget reached: showing \d+ matching lines in \d+ files; more matches exist: continue with offset=\d+/,
    );
    const searched = first.structuredContent?.files_searched as number;
    assert.ok(searched < 40, `${searched} files searched`);
    assert.equal(first.structuredContent?.files_not_searched, 40 - searched);
    const next = await h.call("grep", { pattern: "foo", offset: 2 });
    assert.equal(next.structuredContent?.files_searched, 40);
    // A first row over the budget alone is shown, and the next match is known to exist.
    const long = "x".repeat(300) + "foo\n";
    // (The third match, in c.txt, stops the search: d.txt is not searched.)
    const over = await tools({ "a.txt": long, "b.txt": long, "c.txt": long, "d.txt": long }, {
      maxChars: 200,
      cut: 400,
    }).call("grep", { pattern: "foo" });
    assert.match(
      grepText(over),
      /^a\.txt\n1\tx{300}foo\n\[output budget reached: showing 1 matching line in 1 file; more matches exist/,
    );
    assert.equal(over.structuredContent?.files_not_searched, 1);
  });

  test("grep with a budget of 200 still shows rows", async () => {
    const files: Files = {};
    for (let i = 0; i < 40; i++) files[`f${String(i).padStart(2, "0")}.txt`] = "foo\n";
    const result = await tools(files, { maxChars: 200 }).call("grep", { pattern: "foo" });
    assert.match(grepText(result), /^f00\.txt\n1\tfoo\n\nf01\.txt\n1\tfoo\n/);
    assert.ok((result.structuredContent?.matched_lines as number) >= 3);
  });

  test("grep shows at least the first match even when it alone is over the budget", async () => {
    const result = await tools({ "a.txt": "x".repeat(300) + "foo\n" }, { maxChars: 200, cut: 400 })
      .call("grep", { pattern: "foo" });
    assert.match(grepText(result), /^a\.txt\n1\tx{300}foo\n$/);
  });

  test("grep stopped by the time budget says so and does not claim there is no match", async () => {
    const result = await tools(FILES, { timeBudgetMs: -1 }).call("grep", { pattern: "foo" });
    const shown = grepText(result);
    assert.doesNotMatch(shown, /no match/);
    assert.match(
      shown,
      /\[stopped by the time budget: showing 0 matching lines in 0 files; \d+ files not searched/,
    );
    assert.equal(result.structuredContent?.stopped, "time");
  });

  test("grep says when its budget ran out before its turn, or before the walk's end", async () => {
    const h = tools();
    const stopped = { files: [], matchedLines: 0, binaryFilesSkipped: 0, stopped: "time" as const };
    h.store.search = () =>
      Promise.resolve({ ...stopped, filesSearched: 0, filesNotSearched: 0, neverStarted: true });
    assert.match(
      grepText(await h.call("grep", { pattern: "foo" })),
      /^\[stopped by the time budget before the search could start: other searches had the server's turns\. Try again/,
    );
    h.store.search = () =>
      Promise.resolve({ ...stopped, filesSearched: 3, filesNotSearched: 2, walkUnfinished: true });
    assert.match(
      grepText(await h.call("grep", { pattern: "foo" })),
      /showing 0 matching lines in 0 files; 2 files not searched; the rest of the tree was not walked/,
    );
  });
});

describe("grep patterns", () => {
  test("grep answers the catastrophic (a+)+$ correctly on the linear engine", async () => {
    const h = tools({ "a.txt": "a".repeat(5000) + "!\nxaaaa\n" + "a".repeat(40) + "b\n" });
    const result = await h.call("grep", { pattern: "(a+)+$" });
    assert.deepEqual(result.structuredContent?.files, [
      { path: "a.txt", lines: [2], version: versionOf((await h.store.readText("a.txt")).text) },
    ]);
    assert.equal(result.structuredContent?.engine, "linear");
  });

  test("grep answers (a+){10}$ on the linear engine instead of backtracking for seconds", async () => {
    const h = tools({ "a.txt": "a".repeat(40) + "!\n!aaaaaaaaaa\n" });
    const result = await h.call("grep", { pattern: "(a+){10}$" });
    assert.deepEqual(result.structuredContent?.files, [
      { path: "a.txt", lines: [2], version: versionOf((await h.store.readText("a.txt")).text) },
    ]);
    assert.equal(result.structuredContent?.engine, "linear");
  });

  const ENGINES: Array<{ args: Record<string, unknown>; engine: string }> = [
    { args: { pattern: "fo+" }, engine: "native" },
    { args: { pattern: "foo", literal: true }, engine: "literal" },
    { args: { pattern: "(f|o)+" }, engine: "linear" },
  ];
  for (const row of ENGINES) {
    test(`grep reports the ${row.engine} engine for ${JSON.stringify(row.args)}`, async () => {
      const result = await tools().call("grep", row.args);
      assert.equal(result.structuredContent?.engine, row.engine);
    });
  }

  const REFUSED: Array<{ name: string; args: unknown; message: RegExp }> = [
    {
      name: "an invalid pattern",
      args: { pattern: "(" },
      message:
        /^pattern "\(" is not a valid regular expression \(.*\); fix it, or pass literal=true to search for the text as it is$/,
    },
    {
      name: "a risky pattern with a backreference, saying why",
      args: { pattern: "(a+)+\\1" },
      message:
        /repeats a group that itself repeats, which can take exponential time, and it uses a feature the linear-time engine lacks/,
    },
    { name: "a missing pattern", args: {}, message: /^missing required argument "pattern"$/ },
    {
      name: "a pattern that is not a string",
      args: { pattern: 1 },
      message: /^argument "pattern" must be a string, got number 1$/,
    },
    {
      name: "a negative context",
      args: { pattern: "a", context: -1 },
      message: /^argument "context" must be 0 or more, got number -1$/,
    },
    {
      name: "max_matches 0",
      args: { pattern: "a", max_matches: 0 },
      message: /^argument "max_matches" must be 1 or more, got number 0$/,
    },
    {
      name: "literal given as a string",
      args: { pattern: "a", literal: "yes" },
      message: /^argument "literal" must be true or false/,
    },
    {
      name: "an unknown field",
      args: { pattern: "a", regex: true },
      message:
        /^unknown argument "regex"; the arguments are pattern, path, glob, literal, ignore_case, context, max_matches, include_ignored, output, offset$/,
    },
    {
      name: "a path that does not exist",
      args: { pattern: "a", path: "nope" },
      message: /^no file or directory at "nope"/,
    },
    {
      name: "a denied path",
      args: { pattern: "foo", path: "secret.env" },
      message: /^path "secret\.env" is not accessible: the server denies it$/,
    },
    {
      name: "a path outside the root",
      args: { pattern: "foo", path: "../" },
      message: /outside the allowed roots/,
    },
  ];
  for (const row of REFUSED) {
    test(`grep refuses ${row.name}`, async () => {
      assert.match(errorText(await tools().call("grep", row.args)), row.message);
    });
  }

  test("grep never shows a denied file's content, even with include_ignored", async () => {
    const result = await tools().call("grep", { pattern: "hunter2", include_ignored: true });
    assert.doesNotMatch(grepText(result), /secret\.env|TOKEN/);
    assert.deepEqual(result.structuredContent?.files, []);
  });
});

describe("grep results", () => {
  test("grep's structuredContent fits the output schema and never carries file text", async () => {
    const h = tools();
    const schema = h.tools.find((t) => t.name === "grep")!.outputSchema;
    for (
      const args of [{ pattern: "foo" }, { pattern: "zzz" }, { pattern: "o", max_matches: 1 }, {
        pattern: "(f|o)+",
        context: 2,
      }]
    ) {
      const result = await h.call("grep", args);
      assertFitsSchema(result.structuredContent, schema);
    }
    const result = await h.call("grep", { pattern: "baz", path: "b.txt", context: 1 });
    assert.match(grepText(result), /baz/);
    assert.doesNotMatch(JSON.stringify(result.structuredContent), /baz|foo bar/);
  });

  test("grep with an already-aborted signal rejects instead of answering", async () => {
    const controller = new AbortController();
    const reason = new Error("cancelled by the client");
    controller.abort(reason);
    await assert.rejects(
      tools().call("grep", { pattern: "foo" }, { signal: controller.signal }),
      (error: unknown) => error === reason,
    );
  });

  test("grep reports progress through the context", async () => {
    const seen: number[] = [];
    await tools().call("grep", { pattern: "foo" }, { progress: (done) => seen.push(done) });
    assert.ok(seen.length > 0);
  });

  test("grep's numbers address the lines read shows: every match row equals read's row", async () => {
    const PATTERNS = ["a", "x$", "^", "^$", ".", "\\r", "é", "😀", "b\\s", "^\\uFEFF"];
    await fc.assert(
      fc.asyncProperty(anyText, fc.constantFrom(...PATTERNS), async (content, pattern) => {
        const h = memoryTools({ "f.txt": content });
        const found = await h.call("grep", { pattern, path: "f.txt", max_matches: 1000 });
        const lines = referenceLines(content, (line) => new RegExp(pattern, "us").test(line));
        const files = found.structuredContent?.files as Array<{ lines: number[] }>;
        assert.deepEqual(files.flatMap((f) => f.lines), lines);
        if (lines.length === 0) return;
        const shown = grepText(found);
        assert.ok(shown.startsWith("f.txt\n"));
        const rows = shown.slice("f.txt\n".length).split(/(?<=\n)/);
        assert.equal(rows.length, lines.length);
        for (const [i, row] of rows.entries()) {
          const n = lines[i];
          assert.ok(row.startsWith(`${n}\t`), row);
          const read = rowsText(
            await h.call("read", { path: "f.txt", start_line: n, end_line: n }),
          );
          assert.equal(row, read, `line ${n} of ${JSON.stringify(content)}`);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe("grep of a kept result", () => {
  test("a kept result (frozen, shared by identical searches) gets the same answer until a version changes", async () => {
    const h = tools({ "a.txt": "foo\n", "c.txt": "foo\n" });
    const search = h.store.search.bind(h.store);
    let kept: SearchResult | undefined;
    h.store.search = async (query) => kept ??= freezeResult(await search(query));
    const first = await h.call("grep", { pattern: "foo" });
    assert.equal(await h.call("grep", { pattern: "foo" }), first, "answered again as it was");
    assert.ok(Object.isFrozen(first) && Object.isFrozen(first.content[0]));
    await h.store.write("c.txt", "foo\nbar\n", { overwrite: true });
    const changed = await h.call("grep", { pattern: "foo" });
    assert.notEqual(changed, first);
    assert.deepEqual(
      (changed.structuredContent?.files as Array<{ path: string; version: string }>)
        .map((file) => [file.path, file.version]),
      [["a.txt", versionOf("foo\n")], ["c.txt", versionOf("foo\nbar\n")]],
    );
    assert.ok(changed.content[0].text.includes(`c.txt @${versionOf("foo\nbar\n")}\n1\tfoo\n`));
    // A result of one search (not frozen) is laid out and answered anew each time.
    kept = undefined;
    h.store.search = search;
    const fresh = await h.call("grep", { pattern: "foo" });
    assert.notEqual(await h.call("grep", { pattern: "foo" }), fresh);
    assert.ok(!Object.isFrozen(fresh));
    assert.deepEqual(fresh, changed);
  });

  test("a kept result asked for in other words is answered in those words", async () => {
    const h = tools({ "a.txt": "foo\n" });
    const search = h.store.search.bind(h.store);
    let kept: SearchResult | undefined;
    h.store.search = async (query) => kept ??= freezeResult(await search(query));
    const dot = await h.call("grep", { pattern: "zzz", path: "." });
    const slash = await h.call("grep", { pattern: "zzz", path: "./" });
    assert.match(dot.content[0].text, /no match for "zzz" in \. /);
    assert.match(slash.content[0].text, /no match for "zzz" in \.\/ /);
  });
});

describe("grep over a directory store", () => {
  test("grep skips a binary file on disk and counts it", async () => {
    await withTempRoot(
      { "a.txt": "foo\n", "b.bin": new Uint8Array([0x66, 0x6f, 0x6f, 0, 1]) },
      async (_root, h) => {
        const result = await h.call("grep", { pattern: "foo" });
        assert.equal(grepText(result), "a.txt\n1\tfoo\n[1 binary file skipped]\n");
        assert.equal(result.structuredContent?.binary_files_skipped, 1);
      },
    );
  });

  test("grep's versions come with the search, for the files it shows past the offset", async () => {
    const files = { "a.txt": "foo\nfoo\n", "b.txt": "x\nfoo\n", "c.txt": "foo\n" };
    await withTempRoot(files, async (root, h) => {
      // (A file changed within the last second has no identity yet: it would be read again.)
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const reads: string[] = [];
      const readBytes = root.store.readBytes.bind(root.store);
      root.store.readBytes = (path, options) => {
        reads.push(path);
        return readBytes(path, options);
      };
      const stat = root.store.stat.bind(root.store);
      root.store.stat = (path) => {
        reads.push(`stat ${path}`);
        return stat(path);
      };
      const versions = (result: Awaited<ReturnType<typeof h.call>>) =>
        (result.structuredContent?.files as Array<{ path: string; version: string }>)
          .map((file) => [file.path, file.version]);
      const all = await h.call("grep", { pattern: "foo" });
      assert.deepEqual(
        versions(all),
        Object.entries(files).map(([path, text]) => [path, versionOf(text)]),
      );
      const past = await h.call("grep", { pattern: "foo", offset: 2 });
      assert.deepEqual(versions(past), [["b.txt", versionOf(files["b.txt"])], [
        "c.txt",
        versionOf(files["c.txt"]),
      ]]);
      assert.deepEqual(reads, [], "no file read again, nor its stat taken, for its version");
      // One changed just now is read again, and its version is still right.
      await root.store.write("c.txt", "foo\nfoo\n", { overwrite: true });
      const changed = await h.call("grep", { pattern: "foo", offset: 3 });
      assert.deepEqual(versions(changed), [["c.txt", versionOf("foo\nfoo\n")]]);
      assert.deepEqual(reads, ["stat c.txt", "c.txt"]);
    });
  });

  test("grep honours .gitignore and skips .git", async () => {
    await withTempRoot({
      ".gitignore": "build/\n",
      "build/out.txt": "foo\n",
      ".git/config": "foo\n",
      "src/a.txt": "foo\n",
    }, async (_root, h) => {
      const plain = await h.call("grep", { pattern: "foo" });
      assert.deepEqual(
        (plain.structuredContent?.files as Array<{ path: string }>).map((f) => f.path),
        ["src/a.txt"],
      );
      const all = await h.call("grep", { pattern: "foo", include_ignored: true });
      assert.deepEqual(
        (all.structuredContent?.files as Array<{ path: string }>).map((f) => f.path),
        ["build/out.txt", "src/a.txt"],
      );
    });
  });
});

describe("grep output", () => {
  const files = { "a.ts": "foo\nbar foo\nfoo\n", "b.ts": "x\n", "c/d.ts": "foo\n" };

  test("files lists each file with its count of matching lines, and no rows", async () => {
    const result = await tools(files).call("grep", { pattern: "foo", output: "files" });
    assert.equal(okText(result), "a.ts\t3\nc/d.ts\t1\n");
    assert.deepEqual(result.structuredContent?.files, [
      { path: "a.ts", count: 3 },
      { path: "c/d.ts", count: 1 },
    ]);
    assert.equal(result.structuredContent?.matched_lines, 4);
    assertFitsSchema(result.structuredContent, grepOutputSchema());
  });

  test("count gives the totals alone", async () => {
    const result = await tools(files).call("grep", { pattern: "foo", output: "count" });
    assert.equal(okText(result), "4 matching lines in 2 files\n");
    assert.equal(result.structuredContent?.matched_lines, 4);
  });

  test("files counts past the 200 matches rows stop at, and keeps max_matches when given", async () => {
    const many: Files = {};
    for (let i = 0; i < 30; i++) many[`f${String(i).padStart(2, "0")}.txt`] = "hit\n".repeat(10);
    const all = await tools(many).call("grep", { pattern: "hit", output: "files" });
    assert.equal(all.structuredContent?.matched_lines, 300);
    assert.equal(okText(all).split("\n").length - 1, 30);
    const few = await tools(many).call("grep", {
      pattern: "hit",
      output: "files",
      max_matches: 15,
    });
    assert.match(okText(few), /^f00\.txt\t10\nf01\.txt\t5\n\[stopped at max_matches=15: /);
  });

  test("count counts every matching line unless max_matches is given", async () => {
    // (It stopped at 100,000 lines when counting kept every row; a count keeps none.)
    const big = { "big.txt": "hit\n".repeat(150_000) };
    const all = await tools(big).call("grep", { pattern: "hit", output: "count" });
    assert.equal(okText(all), "150000 matching lines in 1 file\n");
  });

  test("files says no match as content does, and an empty output is content", async () => {
    const h = tools(files);
    assert.match(
      okText(await h.call("grep", { pattern: "zzz", output: "files" })),
      /^\[no match for "zzz" in \. \(3 files searched\)\]\n$/,
    );
    assert.match(
      grepText(await h.call("grep", { pattern: "bar", output: "" })),
      /^a\.ts\n2\tbar foo\n$/,
    );
    assert.match(
      errorText(await h.call("grep", { pattern: "foo", output: "lines" })),
      /^argument "output" must be one of content, files, count, got the string "lines"$/,
    );
  });
});

function grepOutputSchema() {
  return memoryTools({}).tools.find((t) => t.name === "grep")!.outputSchema;
}

describe("grep and what its walk leaves out", () => {
  test("says how many hidden and .gitignore'd entries it left out, and how to search them", async () => {
    await withTempRoot({
      ".gitignore": "build/\n",
      "build/out.txt": "needle\n",
      ".env.txt": "needle\n",
      "a.txt": "needle\n",
    }, async (_root, h) => {
      const found = await h.call("grep", { pattern: "needle" });
      assert.match(
        grepText(found),
        /^a\.txt\n1\tneedle\n\[2 hidden entries and 1 \.gitignore'd entry left out; include_ignored=true searches them\]\n$/,
      );
      assert.deepEqual(found.structuredContent?.skipped, {
        hidden: 2,
        ignored: 1,
        links: 0,
        special: 0,
      });
      const all = await h.call("grep", {
        pattern: "needle",
        include_ignored: true,
        output: "count",
      });
      assert.equal(okText(all), "3 matching lines in 3 files\n");
      assert.equal(all.structuredContent?.skipped, undefined);
      // (A file asked for by name is searched whatever the rules say: no hint to widen it.)
      for (const path of ["a.txt", ".env.txt"]) {
        assert.equal(
          okText(await h.call("grep", { pattern: "zzz", path })),
          `[no match for "zzz" in ${path} (1 file searched)]\n`,
        );
      }
    });
  });
});

describe("grep offset", () => {
  const files: Files = {};
  for (let i = 0; i < 3; i++) files[`f${i}.txt`] = "hit 1\nx\nhit 2\n";

  test("continues a grep stopped at max_matches from the offset its note names", async () => {
    const h = tools(files);
    const first = grepText(await h.call("grep", { pattern: "hit", max_matches: 4 }));
    assert.match(first, /Continue with offset=4, or narrow the search\]\n$/);
    const next = await h.call("grep", { pattern: "hit", max_matches: 4, offset: 4 });
    assert.equal(grepText(next), "f2.txt\n1\thit 1\n3\thit 2\n");
    assert.equal(next.structuredContent?.matched_lines, 2);
  });

  test("an offset past the matches says so; count takes none", async () => {
    const h = tools(files);
    assert.equal(
      okText(await h.call("grep", { pattern: "hit", offset: 9 })),
      "[offset 9 is past the 6 matching lines there are]\n",
    );
    assert.match(
      errorText(await h.call("grep", { pattern: "hit", output: "count", offset: 1 })),
      /^offset continues the rows of output "content" and the files of "files"; "count" has none/,
    );
  });

  test("pages with context neither show a hidden match's context nor repeat it", async () => {
    const lines = Array.from(
      { length: 14 },
      (_, i) => [1, 9].includes(i + 1) ? "foo" : `c${i + 1}`,
    );
    const h = tools({ "a.txt": lines.join("\n") + "\n" }, { maxLines: 4 });
    const first = okText(await h.call("grep", { pattern: "^foo", context: 2 }));
    // (Rows 7 and 8 lead up to the match at 9, which this page does not show.)
    assert.match(
      first,
      /^a\.txt @[0-9a-f]{8}\n1\tfoo\n2-\tc2\n3-\tc3\n\[output budget reached: showing 1 matching line in 1 file; more matches exist: continue with offset=1/,
    );
    const second = okText(await h.call("grep", { pattern: "^foo", context: 2, offset: 1 }));
    assert.match(second, /^a\.txt @[0-9a-f]{8}\n7-\tc7\n8-\tc8\n9\tfoo\n10-\tc10\n/);
    // From an offset, a shown match keeps its own context where it touches a skipped one's.
    const close = tools({ "b.txt": "foo\nfoo\nc3\nc4\nc5\nc6\n" });
    const shown = okText(await close.call("grep", { pattern: "^foo", context: 2, offset: 1 }));
    assert.match(shown, /^b\.txt @[0-9a-f]{8}\n2\tfoo\n3-\tc3\n4-\tc4\n$/);
  });

  test("a stopped grep ends with the note that says how to go on", async () => {
    const more: Files = {
      ...files,
      ".hidden.txt": "hit\n",
      "bin.dat": new Uint8Array([104, 105, 116, 0]),
    };
    const h = tools(more);
    const said = okText(await h.call("grep", { pattern: "hit", max_matches: 2 }));
    assert.match(
      said,
      /binary file skipped\]\n.*left out.*\]\n\[stopped at max_matches=2: .* Continue with offset=2, or narrow the search\]\n$/s,
    );
  });

  test("output files continues from the offset its note names, as glob does", async () => {
    const h = tools(files, { maxLines: 2 });
    const first = okText(await h.call("grep", { pattern: "hit", output: "files" }));
    assert.equal(first, "f0.txt\t2\nf1.txt\t2\n[showing files 1-2 of 3; continue with offset=2]\n");
    const rest = okText(await h.call("grep", { pattern: "hit", output: "files", offset: 2 }));
    assert.equal(rest, "f2.txt\t2\n[showing files 3-3 of 3]\n");
    // (Stopped at max_matches, the counts are of the lines found so far, and say so.)
    const part = okText(await h.call("grep", { pattern: "hit", output: "files", max_matches: 3 }));
    assert.match(
      part,
      /^f0\.txt\t2\nf1\.txt\t1\n.*\[stopped at max_matches=3: the counts are of the first 3 matching lines/s,
    );
    assert.doesNotMatch(part, /continue with offset/);
  });
});

describe("grep beside other requests", () => {
  test("compiles one pattern a turn, after the requests that came with it", async () => {
    // A read sent right after greps is answered first, and each grep compiles in a turn of
    // the event loop of its own, so that a request arriving meanwhile is handled between two.
    const h = tools();
    const order: string[] = [];
    const patterns = ["fo+", "ba[rz]", "(?:foo|baz)\\b"];
    const greps = patterns.map((pattern) =>
      h.call("grep", { pattern }).then(() => order.push(`grep ${pattern}`))
    );
    const read = h.call("read", { path: "b.txt" }).then(() => order.push("read"));
    // Turns of the event loop until every call is answered: greps compiled as they came, or
    // all in one turn, are all answered within one.
    let turns = 0;
    const ticking = (async () => {
      while (order.length < patterns.length + 1) {
        await new Promise((resolve) => setImmediate(resolve));
        turns++;
      }
    })();
    await Promise.all([...greps, read, ticking]);
    assert.equal(order[0], "read");
    assert.deepEqual(order.slice(1), patterns.map((pattern) => `grep ${pattern}`));
    assert.ok(turns >= patterns.length, `${patterns.length} greps took ${turns} turns`);
  });
});
