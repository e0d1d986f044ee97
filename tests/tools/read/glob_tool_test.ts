import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  assertFitsSchema,
  errorText,
  type Files,
  memoryTools,
  okText,
  withTempRoot,
} from "../../_helpers/tools.ts";

const FILES: Files = {
  "b.ts": "b\n",
  "a.ts": "a\n",
  "notes.md": "n\n",
  "src/x.ts": "x\n",
  "src/deep/y.ts": "y\n",
  "src/deep/z.md": "z\n",
  ".hidden.ts": "h\n",
  "secret.env": "TOKEN=1\n",
  "keys/private.ts": "k\n",
};

function tools(files: Files = FILES, options: Parameters<typeof memoryTools>[1] = {}) {
  return memoryTools(files, { deny: ["*.env", "keys/"], ...options });
}

describe("glob", () => {
  const ROWS: Array<{ name: string; args: Record<string, unknown>; text: string }> = [
    {
      name: "matches a pattern without / at any depth, sorted",
      args: { pattern: "*.ts" },
      text:
        "a.ts\nb.ts\nsrc/deep/y.ts\nsrc/x.ts\n[1 hidden entry left out; include_ignored=true shows them]\n",
    },
    {
      name: "matches a pattern with / against the path relative to path",
      args: { pattern: "src/*.ts" },
      text: "src/x.ts\n[1 hidden entry left out; include_ignored=true shows them]\n",
    },
    {
      name: "matches ** across directories",
      args: { pattern: "src/**/*.ts" },
      text: "src/deep/y.ts\nsrc/x.ts\n[1 hidden entry left out; include_ignored=true shows them]\n",
    },
    {
      name: "keeps to path and names files relative to the first root",
      args: { pattern: "*.md", path: "src" },
      text: "src/deep/z.md\n",
    },
    {
      name: "matches a /-pattern relative to path",
      args: { pattern: "deep/*", path: "src" },
      text: "src/deep/y.ts\nsrc/deep/z.md\n",
    },
    {
      name: "includes hidden files with include_ignored, never denied ones",
      args: { pattern: "*.ts", include_ignored: true },
      text: ".hidden.ts\na.ts\nb.ts\nsrc/deep/y.ts\nsrc/x.ts\n",
    },
  ];
  for (const row of ROWS) {
    test(`glob ${row.name}`, async () => {
      assert.equal(okText(await tools().call("glob", row.args)), row.text);
    });
  }

  test("glob that matches nothing answers with a note, not an error", async () => {
    const result = await tools().call("glob", { pattern: "*.zzz" });
    assert.equal(
      okText(result),
      '[no files match "*.zzz" under .]\n[1 hidden entry left out; include_ignored=true shows them]\n',
    );
    assert.deepEqual(result.structuredContent, {
      skipped: { hidden: 1, ignored: 0, links: 0, special: 0 },
      paths: [],
      total: 0,
      truncated: false,
    });
  });

  test("glob never lists a denied file, even when asked for it by name", async () => {
    for (const pattern of ["*.env", "secret.env", "keys/*", "**/private.ts"]) {
      const result = await tools().call("glob", { pattern, include_ignored: true });
      assert.deepEqual(result.structuredContent?.paths, [], pattern);
    }
  });

  test("glob caps a long list at the row budget with a note", async () => {
    const files: Files = {};
    for (let i = 0; i < 10; i++) files[`f${i}.txt`] = "";
    const result = await tools(files, { maxLines: 4 }).call("glob", { pattern: "*.txt" });
    assert.equal(
      okText(result),
      "f0.txt\nf1.txt\nf2.txt\nf3.txt\n[showing files 1-4 of 10; continue with offset=4]\n",
    );
    assert.deepEqual(result.structuredContent, {
      paths: ["f0.txt", "f1.txt", "f2.txt", "f3.txt"],
      total: 10,
      truncated: true,
      next_offset: 4,
    });
  });

  test("glob continues a capped list from offset, to the end", async () => {
    const files: Files = {};
    for (let i = 0; i < 10; i++) files[`f${i}.txt`] = "";
    const h = tools(files, { maxLines: 4 });
    assert.equal(
      okText(await h.call("glob", { pattern: "*.txt", offset: 4 })),
      "f4.txt\nf5.txt\nf6.txt\nf7.txt\n[showing files 5-8 of 10; continue with offset=8]\n",
    );
    const last = await h.call("glob", { pattern: "*.txt", offset: 8 });
    assert.equal(okText(last), "f8.txt\nf9.txt\n[showing files 9-10 of 10]\n");
    assert.equal(last.structuredContent?.truncated, false);
    assert.equal(
      okText(await h.call("glob", { pattern: "*.txt", offset: 12 })),
      "[offset 12 is past the 10 files there are]\n",
    );
  });

  test("glob with a character budget of 200 still lists files", async () => {
    const files: Files = {};
    for (let i = 0; i < 100; i++) files[`file${String(i).padStart(3, "0")}.txt`] = "";
    const result = await tools(files, { maxChars: 200 }).call("glob", { pattern: "*.txt" });
    const shown = okText(result);
    assert.ok(shown.length <= 200, `${shown.length} characters`);
    assert.match(shown, /^file000\.txt\nfile001\.txt\n/);
    assert.match(shown, /\[showing files 1-\d+ of 100; continue with offset=\d+\]\n$/);
  });

  const REFUSED: Array<{ name: string; args: unknown; message: RegExp }> = [
    { name: "a missing pattern", args: {}, message: /^missing required argument "pattern"$/ },
    {
      name: "a pattern that is neither a string nor a list of strings",
      args: { pattern: 7 },
      message: /^argument "pattern" must be a string or a non-empty list of strings, got number 7$/,
    },
    {
      name: "an unknown field",
      args: { pattern: "*", depth: 2 },
      message:
        /^unknown argument "depth"; the arguments are pattern, path, include_ignored, offset$/,
    },
    {
      name: "a path that does not exist",
      args: { pattern: "*", path: "nope" },
      message: /^no file or directory at "nope"/,
    },
    {
      name: "a path outside the root",
      args: { pattern: "*", path: "../../.." },
      message: /outside the allowed roots/,
    },
    {
      name: "a denied directory",
      args: { pattern: "*", path: "keys" },
      message: /^path "keys" is not accessible: the server denies it$/,
    },
  ];
  for (const row of REFUSED) {
    test(`glob refuses ${row.name}`, async () => {
      assert.match(errorText(await tools().call("glob", row.args)), row.message);
    });
  }

  test("glob's structuredContent fits the output schema", async () => {
    const h = tools();
    const schema = h.tools.find((t) => t.name === "glob")!.outputSchema;
    assertFitsSchema((await h.call("glob", { pattern: "*.ts" })).structuredContent, schema);
    assertFitsSchema((await h.call("glob", { pattern: "*.zzz" })).structuredContent, schema);
  });

  test("glob over a directory store honours .gitignore and skips .git", async () => {
    await withTempRoot({
      ".gitignore": "*.log\n",
      "sub/.gitignore": "gen/\n",
      "a.log": "",
      "a.txt": "",
      "sub/gen/g.txt": "",
      "sub/s.txt": "",
      ".git/HEAD": "",
    }, async (_root, h) => {
      // (.git is skipped without a word; the hidden .gitignore files and what they exclude
      // are counted.)
      assert.equal(
        okText(await h.call("glob", { pattern: "*" })),
        "a.txt\nsub/s.txt\n[2 hidden entries and 2 .gitignore'd entries left out; include_ignored=true shows them]\n",
      );
      assert.equal(
        okText(await h.call("glob", { pattern: "*", include_ignored: true })),
        ".gitignore\na.log\na.txt\nsub/.gitignore\nsub/gen/g.txt\nsub/s.txt\n",
      );
    });
  });
});

describe("glob lists", () => {
  const files: Files = { "a.ts": "", "b.js": "", "c.md": "", "d.test.ts": "" };

  test("a list of patterns matches any of them, and a leading ! excludes", async () => {
    const h = tools(files);
    assert.deepEqual(
      (await h.call("glob", { pattern: ["*.ts", "*.md"] })).structuredContent?.paths,
      ["a.ts", "c.md", "d.test.ts"],
    );
    assert.deepEqual(
      (await h.call("glob", { pattern: ["*.ts", "!*.test.ts"] })).structuredContent?.paths,
      ["a.ts"],
    );
  });

  test("grep's glob takes a list too", async () => {
    const h = tools({ "a.ts": "x\n", "b.js": "x\n", "c.md": "x\n" });
    const result = await h.call("grep", { pattern: "x", glob: ["*.ts", "*.js"], output: "files" });
    assert.equal(okText(result), "a.ts\t1\nb.js\t1\n");
  });

  test("a list that is empty or holds a non-string is refused", async () => {
    const h = tools(files);
    for (const pattern of [[], ["*.ts", 3]]) {
      assert.match(
        errorText(await h.call("glob", { pattern })),
        /^argument "pattern" must be a string or a non-empty list of strings/,
      );
    }
  });
});
