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
  withTempRoot,
} from "../../_helpers/tools.ts";

const FILES: Files = {
  "a.txt": "one\ntwo\n",
  "dir/x.txt": "x\n",
  "private.env": "TOKEN=1\n",
};

function tools(files: Files = FILES) {
  return memoryTools(files, { deny: ["*.env"] });
}

describe("write", () => {
  const CREATED: Array<
    { name: string; path: string; content: string; shown: string; lines: number; bytes: number }
  > = [
    {
      name: "creates a file with exactly its content",
      path: "new.txt",
      content: "a\r\nb",
      shown: "created new.txt: 2 lines, 4 bytes\n",
      lines: 2,
      bytes: 4,
    },
    {
      name: "creates missing parent directories",
      path: "deep/er/new.txt",
      content: "x\n",
      shown: "created deep/er/new.txt: 1 line, 2 bytes\n",
      lines: 1,
      bytes: 2,
    },
    {
      name: "creates an empty file",
      path: "empty.txt",
      content: "",
      shown: "created empty.txt: 0 lines, 0 bytes\n",
      lines: 0,
      bytes: 0,
    },
    {
      name: "counts bytes of UTF-8, one byte in the singular",
      path: "one.txt",
      content: "x",
      shown: "created one.txt: 1 line, 1 byte\n",
      lines: 1,
      bytes: 1,
    },
    {
      name: "counts bytes of multi-byte characters",
      path: "emoji.txt",
      content: "😀\n",
      shown: "created emoji.txt: 1 line, 5 bytes\n",
      lines: 1,
      bytes: 5,
    },
    {
      name: "names an absolute path relative to the root",
      path: "/abs.txt",
      content: "x\n",
      shown: "created abs.txt: 1 line, 2 bytes\n",
      lines: 1,
      bytes: 2,
    },
  ];
  for (const row of CREATED) {
    test(`write ${row.name}`, async () => {
      const h = tools();
      const result = await h.call("write", { path: row.path, content: row.content });
      assert.equal(okText(result), row.shown);
      assert.deepEqual(await h.store.readBytes(row.path), bytes(row.content));
      assert.deepEqual(result.structuredContent, {
        path: row.path.replace(/^\//, ""),
        created: true,
        lines: row.lines,
        bytes: row.bytes,
      });
    });
  }

  test("write replaces an existing file with overwrite", async () => {
    const h = tools();
    const result = await h.call("write", { path: "a.txt", content: "new\n", overwrite: true });
    assert.equal(okText(result), "overwrote a.txt: 1 line, 4 bytes\n");
    assert.equal(result.structuredContent?.created, false);
    assert.deepEqual(await h.store.readBytes("a.txt"), bytes("new\n"));
  });

  test("write does not replace a binary file or one that is not UTF-8: undo could not bring it back", async () => {
    await withTempRoot({}, async (root, h) => {
      const kept = {
        "bin.dat": new Uint8Array([0x00, 0x01, 0x02, 0x0a]),
        "latin1.txt": new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]),
      };
      for (const [name, content] of Object.entries(kept)) {
        await fs.writeFile(root.at(name), content);
        for (const dry_run of [false, true]) {
          const result = await h.call("write", {
            path: name,
            content: "text\n",
            overwrite: true,
            dry_run,
          });
          assert.match(
            errorText(result),
            new RegExp(
              `^${name.replace(".", "\\.")} is binary or not UTF-8: write does not replace it`,
            ),
          );
        }
        assert.deepEqual(new Uint8Array(await fs.readFile(root.at(name))), content);
        okText(await h.call("delete", { path: name }));
        okText(await h.call("write", { path: name, content: "text\n" }));
      }
    });
  });

  test("write with overwrite creates a file that does not exist yet", async () => {
    const h = tools();
    const result = await h.call("write", { path: "b.txt", content: "b\n", overwrite: true });
    assert.equal(okText(result), "created b.txt: 1 line, 2 bytes\n");
  });

  const REFUSED: Array<{ name: string; args: unknown; message: RegExp }> = [
    {
      name: "an existing file without overwrite",
      args: { path: "a.txt", content: "x" },
      message:
        /^"a\.txt" already exists; pass overwrite=true to replace it, or edit it with replace_lines$/,
    },
    {
      name: "a directory, even with overwrite",
      args: { path: "dir", content: "x", overwrite: true },
      message: /^"dir" is a directory, not a regular file$/,
    },
    {
      name: "a denied path",
      args: { path: "private.env", content: "x", overwrite: true },
      message: /^path "private\.env" is not accessible: the server denies it$/,
    },
    {
      name: "a denied path that does not exist yet",
      args: { path: "new.env", content: "x" },
      message: /^path "new\.env" is not accessible: the server denies it$/,
    },
    {
      name: "a path outside the root",
      args: { path: "../out.txt", content: "x" },
      message: /^path "\.\.\/out\.txt" is outside the allowed roots/,
    },
    {
      name: "a missing content",
      args: { path: "n.txt" },
      message: /^missing required argument "content"$/,
    },
    {
      name: "content that is not a string",
      args: { path: "n.txt", content: 5 },
      message: /^argument "content" must be a string, got number 5$/,
    },
    {
      name: "overwrite given as a string",
      args: { path: "n.txt", content: "x", overwrite: "yes" },
      message: /^argument "overwrite" must be true or false/,
    },
    {
      name: "an unknown field",
      args: { path: "n.txt", content: "x", mode: 0o644 },
      message: /^unknown argument "mode"; the arguments are path, content, overwrite, dry_run$/,
    },
  ];
  for (const row of REFUSED) {
    test(`write refuses ${row.name} and writes nothing`, async () => {
      const h = tools();
      assert.match(errorText(await h.call("write", row.args)), row.message);
      assert.deepEqual(await h.store.readBytes("a.txt"), bytes("one\ntwo\n"));
      await assert.rejects(h.store.stat("n.txt"), { code: "not_found" });
    });
  }

  test("write's structuredContent fits the output schema", async () => {
    const h = tools();
    const schema = h.tools.find((t) => t.name === "write")!.outputSchema;
    const result = await h.call("write", { path: "s.txt", content: "distinctive\n" });
    assertFitsSchema(result.structuredContent, schema);
    assert.doesNotMatch(JSON.stringify(result.structuredContent), /distinctive/);
  });
});

describe("write dry_run", () => {
  test("shows the diff of an overwrite and writes nothing", async () => {
    const h = tools();
    const result = await h.call("write", {
      path: "a.txt",
      content: "one\nTWO\n",
      overwrite: true,
      dry_run: true,
    });
    assert.match(
      okText(result),
      /^--- a\.txt\tbefore\n\+\+\+ a\.txt\tafter\n@@ -1,2 \+1,2 @@\n one\n-two\n\+TWO\n/,
    );
    assert.match(
      okText(result),
      /\[dry run: nothing was written; the file would have 2 lines \(\+0\)\]\n$/,
    );
    assert.equal((await h.store.readText("a.txt")).text, "one\ntwo\n");
  });

  test("says what it would create, or that it would refuse an existing file", async () => {
    const h = tools();
    assert.equal(
      okText(await h.call("write", { path: "new.txt", content: "x\ny\n", dry_run: true })),
      "[dry run: would create new.txt: 2 lines, 4 bytes; nothing was written]\n",
    );
    await assert.rejects(h.store.readText("new.txt"), { code: "not_found" });
    assert.equal(
      okText(await h.call("write", { path: "a.txt", content: "x", dry_run: true })),
      "[dry run: a.txt exists; write would refuse it without overwrite=true]\n",
    );
  });

  test("a written file counts as shown: numbered edits of it need no read", async () => {
    const h = tools();
    okText(await h.call("write", { path: "w.txt", content: "a\nb\n" }));
    okText(
      await h.call("replace_lines", { path: "w.txt", edits: [{ start_line: 2, new_text: "B" }] }),
    );
    assert.equal((await h.store.readText("w.txt")).text, "a\nB\n");
    okText(await h.call("write", { path: "w.txt", content: "c\n", overwrite: true }));
    okText(await h.call("undo", { path: "w.txt" }));
    assert.equal((await h.store.readText("w.txt")).text, "a\nB\n");
  });
});

describe("delete", () => {
  test("delete removes a file", async () => {
    const h = tools();
    const result = await h.call("delete", { path: "dir/x.txt" });
    assert.equal(okText(result), "deleted dir/x.txt\n");
    assert.deepEqual(result.structuredContent, { path: "dir/x.txt", deleted: true });
    await assert.rejects(h.store.stat("dir/x.txt"), { code: "not_found" });
  });

  const REFUSED: Array<{ name: string; args: unknown; message: RegExp }> = [
    {
      name: "a directory",
      args: { path: "dir" },
      message: /^"dir" is a directory, not a regular file$/,
    },
    {
      name: "a file that does not exist",
      args: { path: "nope.txt" },
      message: /^no file or directory at "nope\.txt"/,
    },
    {
      name: "a denied file",
      args: { path: "private.env" },
      message: /^path "private\.env" is not accessible: the server denies it$/,
    },
    {
      name: "a path outside the root",
      args: { path: "../x" },
      message: /outside the allowed roots/,
    },
    { name: "a missing path", args: {}, message: /^missing required argument "path"$/ },
    {
      name: "an unknown field",
      args: { path: "a.txt", recursive: true },
      message: /^unknown argument "recursive"; the arguments are path$/,
    },
  ];
  for (const row of REFUSED) {
    test(`delete refuses ${row.name} and deletes nothing`, async () => {
      const h = tools();
      assert.match(errorText(await h.call("delete", row.args)), row.message);
      assert.deepEqual(await h.store.readBytes("dir/x.txt"), bytes("x\n"));
      assert.deepEqual(await h.store.readBytes("a.txt"), bytes("one\ntwo\n"));
    });
  }

  test("delete of a file already deleted says it is not there", async () => {
    const h = tools();
    okText(await h.call("delete", { path: "a.txt" }));
    assert.match(
      errorText(await h.call("delete", { path: "a.txt" })),
      /^no file or directory at "a\.txt"/,
    );
  });
});

describe("write and delete over a directory store", () => {
  test("write creates parent directories on disk", async () => {
    await withTempRoot({}, async (root, h) => {
      okText(await h.call("write", { path: "a/b/c.txt", content: "c\r\n" }));
      assert.equal(await fs.readFile(root.at("a/b/c.txt"), "utf8"), "c\r\n");
    });
  });

  test("write with overwrite keeps the file's mode", async () => {
    if (process.platform === "win32") return;
    await withTempRoot({ "run.sh": "old\n" }, async (root, h) => {
      await fs.chmod(root.at("run.sh"), 0o750);
      okText(await h.call("write", { path: "run.sh", content: "new\n", overwrite: true }));
      assert.equal((await fs.stat(root.at("run.sh"))).mode & 0o777, 0o750);
      assert.equal(await fs.readFile(root.at("run.sh"), "utf8"), "new\n");
    });
  });

  test("write names an absolute path inside the root relative to it", async () => {
    await withTempRoot({}, async (root, h) => {
      const result = await h.call("write", { path: root.at("sub/abs.txt"), content: "x\n" });
      assert.equal(okText(result), "created sub/abs.txt: 1 line, 2 bytes\n");
      assert.equal(result.structuredContent?.path, "sub/abs.txt");
    });
  });

  test("write refuses to replace a directory on disk", async () => {
    await withTempRoot({ "d/x.txt": "x\n" }, async (_root, h) => {
      assert.match(
        errorText(await h.call("write", { path: "d", content: "x", overwrite: true })),
        /is a directory/,
      );
    });
  });

  test("delete refuses a directory on disk and leaves it", async () => {
    await withTempRoot({ "d/x.txt": "x\n" }, async (root, h) => {
      assert.match(
        errorText(await h.call("delete", { path: "d" })),
        /^"d" is a directory, not a regular file$/,
      );
      assert.equal(await fs.readFile(root.at("d/x.txt"), "utf8"), "x\n");
    });
  });

  test("delete refuses a denied file on disk and leaves it", async () => {
    await withTempRoot({ ".env": "TOKEN=1\n" }, async (root, h) => {
      assert.match(
        errorText(await h.call("delete", { path: ".env" })),
        /^path "\.env" is not accessible/,
      );
      assert.equal(await fs.readFile(root.at(".env"), "utf8"), "TOKEN=1\n");
    }, { deny: [".env"] });
  });

  test("delete names an absolute path inside the root relative to it", async () => {
    await withTempRoot({ "sub/a.txt": "a\n" }, async (root, h) => {
      assert.equal(
        okText(await h.call("delete", { path: root.at("sub/a.txt") })),
        "deleted sub/a.txt\n",
      );
    });
  });

  test("delete of a symlink inside the root removes the link, not its target", async () => {
    await withTempRoot({ "real.txt": "r\n" }, async (root, h) => {
      await fs.symlink(root.at("real.txt"), root.at("link.txt"));
      okText(await h.call("delete", { path: "link.txt" }));
      assert.equal(await fs.readFile(root.at("real.txt"), "utf8"), "r\n");
      await assert.rejects(fs.lstat(root.at("link.txt")), { code: "ENOENT" });
    });
  });
});
