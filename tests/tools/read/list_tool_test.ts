import assert from "node:assert/strict";
import { describe, test } from "node:test";
import * as fs from "node:fs/promises";
import {
  assertFitsSchema,
  errorText,
  type Files,
  memoryTools,
  okText,
  withTempRoot,
} from "../../_helpers/tools.ts";

const FILES: Files = {
  "b.txt": "bb\n",
  "a.txt": "a\n",
  "zdir/inner.txt": "12345\n",
  "adir/deep/x.txt": "",
  ".hidden": "h\n",
  "secret.env": "TOKEN=1\n",
};

function tools(files: Files = FILES, options: Parameters<typeof memoryTools>[1] = {}) {
  return memoryTools(files, { deny: ["*.env"], ...options });
}

describe("list", () => {
  const ROWS: Array<{ name: string; args: Record<string, unknown>; text: string }> = [
    {
      name: "lists the root's entries with type and size, directories first, each by name",
      args: {},
      text:
        "dir\t-\tadir/\ndir\t-\tzdir/\nfile\t2\ta.txt\nfile\t3\tb.txt\n[1 hidden entry left out; include_ignored=true shows them]\n",
    },
    {
      name: "descends with depth, a directory's entries right after it",
      args: { depth: 3 },
      text:
        "dir\t-\tadir/\ndir\t-\tadir/deep/\nfile\t0\tadir/deep/x.txt\ndir\t-\tzdir/\nfile\t6\tzdir/inner.txt\nfile\t2\ta.txt\nfile\t3\tb.txt\n[1 hidden entry left out; include_ignored=true shows them]\n",
    },
    {
      name: "lists a subdirectory with paths relative to the root",
      args: { path: "zdir" },
      text: "file\t6\tzdir/inner.txt\n",
    },
    {
      name: "includes hidden entries with include_ignored, never denied ones",
      args: { include_ignored: true },
      text: "dir\t-\tadir/\ndir\t-\tzdir/\nfile\t2\t.hidden\nfile\t2\ta.txt\nfile\t3\tb.txt\n",
    },
  ];
  for (const row of ROWS) {
    test(`list ${row.name}`, async () => {
      assert.equal(okText(await tools().call("list", row.args)), row.text);
    });
  }

  test("list of an empty directory says so in a note", async () => {
    const h = tools({ "a.txt": "" });
    await h.call("write", { path: "empty/.keep", content: "" });
    const result = await h.call("list", { path: "empty" });
    assert.equal(
      okText(result),
      "[empty holds only hidden or .gitignore'd entries]\n[1 hidden entry left out; include_ignored=true shows them]\n",
    );
    assert.deepEqual(result.structuredContent, {
      skipped: { hidden: 1, ignored: 0, links: 0, special: 0 },
      entries: [],
      total: 0,
      truncated: false,
    });
    const bare = tools({ "a.txt": "" });
    await bare.call("write", { path: "bare/x", content: "" });
    await bare.call("delete", { path: "bare/x" });
    assert.equal(okText(await bare.call("list", { path: "bare" })), "[bare is empty]\n");
  });

  test("list caps a long listing with a note", async () => {
    const files: Files = {};
    for (let i = 0; i < 6; i++) files[`f${i}.txt`] = "x";
    const result = await tools(files, { maxLines: 2 }).call("list", {});
    assert.equal(
      okText(result),
      "file\t1\tf0.txt\nfile\t1\tf1.txt\n[showing entries 1-2 of 6; continue with offset=2]\n",
    );
    assert.equal(result.structuredContent?.truncated, true);
    assert.equal(result.structuredContent?.total, 6);
    assert.equal((result.structuredContent?.entries as unknown[]).length, 2);
    assert.equal(result.structuredContent?.next_offset, 2);
    const next = await tools(files, { maxLines: 2 }).call("list", { offset: 2 });
    assert.equal(
      okText(next),
      "file\t1\tf2.txt\nfile\t1\tf3.txt\n[showing entries 3-4 of 6; continue with offset=4]\n",
    );
  });

  test("list reports entries in structuredContent with kind and size", async () => {
    const result = await tools().call("list", { path: "zdir" });
    assert.deepEqual(result.structuredContent, {
      entries: [{ path: "zdir/inner.txt", type: "file", size: 6 }],
      total: 1,
      truncated: false,
    });
  });

  const REFUSED: Array<{ name: string; args: unknown; message: RegExp }> = [
    { name: "a file", args: { path: "a.txt" }, message: /^"a\.txt" is not a directory$/ },
    {
      name: "a path that does not exist",
      args: { path: "nope" },
      message: /^no file or directory at "nope"/,
    },
    { name: "a path outside the root", args: { path: ".." }, message: /outside the allowed roots/ },
    {
      name: "depth 0",
      args: { depth: 0 },
      message: /^argument "depth" must be 1 or more, got number 0$/,
    },
    {
      name: "a depth that is not a number",
      args: { depth: "2" },
      message: /^argument "depth" must be a whole number/,
    },
    {
      name: "an unknown field",
      args: { recursive: true },
      message:
        /^unknown argument "recursive"; the arguments are path, depth, include_ignored, offset$/,
    },
  ];
  for (const row of REFUSED) {
    test(`list refuses ${row.name}`, async () => {
      assert.match(errorText(await tools().call("list", row.args)), row.message);
    });
  }

  test("list's structuredContent fits the output schema", async () => {
    const h = tools();
    const schema = h.tools.find((t) => t.name === "list")!.outputSchema;
    assertFitsSchema((await h.call("list", { depth: 3 })).structuredContent, schema);
  });

  test("list over a directory store shows a symlinked directory without entering it", async () => {
    await withTempRoot({ "real/a.txt": "a\n" }, async (root, h) => {
      await fs.symlink(root.at("real"), root.at("link"));
      const shown = okText(await h.call("list", { depth: 2 }));
      assert.equal(shown, "dir\t-\tlink/\ndir\t-\treal/\nfile\t2\treal/a.txt\n");
    });
  });

  test("list over a directory store gives real sizes and skips .git", async () => {
    await withTempRoot(
      { "a.bin": new Uint8Array(1234), ".git/HEAD": "ref\n" },
      async (_root, h) => {
        assert.equal(
          okText(await h.call("list", { include_ignored: true })),
          "file\t1234\ta.bin\n",
        );
      },
    );
  });
});
