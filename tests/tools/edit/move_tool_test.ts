import assert from "node:assert/strict";
import { describe, test } from "node:test";
import * as fs from "node:fs/promises";
import { errorText, type Files, memoryTools, okText, withTempRoot } from "../../_helpers/tools.ts";

const FILES: Files = {
  "a.txt": "one\ntwo\n",
  "b.txt": "bee\n",
  "dir/x.txt": "x\n",
  "dir/sub/y.txt": "y\n",
  "secret/key.env": "TOKEN=1\n",
};

describe("move over a memory store", () => {
  const tools = (deny = ["*.env"]) => memoryTools(FILES, { deny });

  test("renames a file, making missing parent directories", async () => {
    const h = tools();
    const result = await h.call("move", { from: "a.txt", to: "new/place/a2.txt" });
    assert.equal(okText(result), "moved a.txt to new/place/a2.txt\n");
    assert.deepEqual(result.structuredContent, {
      from: "a.txt",
      to: "new/place/a2.txt",
      kind: "file",
    });
    assert.equal((await h.store.readText("new/place/a2.txt")).text, "one\ntwo\n");
    await assert.rejects(h.store.readText("a.txt"), { code: "not_found" });
  });

  test("moves a directory with everything under it", async () => {
    const h = tools();
    okText(await h.call("move", { from: "dir", to: "moved" }));
    assert.equal((await h.store.readText("moved/sub/y.txt")).text, "y\n");
    await assert.rejects(h.store.readText("dir/x.txt"), { code: "not_found" });
  });

  test("refuses to replace a file unless overwrite, and a directory always", async () => {
    const h = tools();
    assert.match(
      errorText(await h.call("move", { from: "a.txt", to: "b.txt" })),
      /^"b\.txt" already exists; pass overwrite=true/,
    );
    assert.equal((await h.store.readText("b.txt")).text, "bee\n");
    okText(await h.call("move", { from: "a.txt", to: "b.txt", overwrite: true }));
    assert.equal((await h.store.readText("b.txt")).text, "one\ntwo\n");
    assert.equal(
      errorText(await h.call("move", { from: "b.txt", to: "dir", overwrite: true })),
      '"dir" already exists, a directory, which a move never replaces; nothing was moved',
    );
  });

  const REFUSED: Array<[string, Record<string, unknown>, RegExp]> = [
    ["a denied source", { from: "secret/key.env", to: "key.txt" }, /the server denies it/],
    ["a denied target", { from: "a.txt", to: "a.env" }, /the server denies it/],
    ["a path outside the root", { from: "a.txt", to: "../a.txt" }, /outside/],
    ["a missing source", { from: "nope.txt", to: "x.txt" }, /no file or directory at "nope\.txt"/],
    [
      "a directory into itself",
      { from: "dir", to: "dir/sub/dir" },
      /cannot be moved: dir\/sub\/dir is inside it/,
    ],
    ["the root", { from: ".", to: "x" }, /cannot be moved: it is a root/],
    [
      "a directory holding a denied file",
      { from: "secret", to: "public" },
      /cannot be moved: a deny rule matches something in it or where it would go/,
    ],
  ];
  for (const [name, args, message] of REFUSED) {
    test(`refuses ${name} and moves nothing`, async () => {
      const h = tools();
      assert.match(errorText(await h.call("move", args)), message);
      assert.equal((await h.store.readText("a.txt")).text, "one\ntwo\n");
      assert.equal((await h.store.readText("dir/x.txt")).text, "x\n");
    });
  }

  test("a moved file keeps what the session saw, so numbered edits go on", async () => {
    const h = tools();
    okText(await h.call("read", { path: "a.txt" }));
    okText(await h.call("move", { from: "a.txt", to: "c.txt" }));
    okText(
      await h.call("replace_lines", { path: "c.txt", edits: [{ start_line: 2, new_text: "2" }] }),
    );
    assert.equal((await h.store.readText("c.txt")).text, "one\n2\n");
  });
});

describe("move over a directory store", () => {
  test("renames a file and a directory on disk, and a symlink itself", async () => {
    await withTempRoot({ "a.txt": "a\n", "d/x.txt": "x\n" }, async (root, h) => {
      await fs.symlink(root.at("a.txt"), root.at("link.txt"));
      okText(await h.call("move", { from: "link.txt", to: "link2.txt" }));
      assert.ok((await fs.lstat(root.at("link2.txt"))).isSymbolicLink());
      assert.equal(await fs.readFile(root.at("a.txt"), "utf8"), "a\n", "the target stays");
      okText(await h.call("move", { from: "a.txt", to: "sub/b.txt" }));
      assert.equal(await fs.readFile(root.at("sub/b.txt"), "utf8"), "a\n");
      okText(await h.call("move", { from: "d", to: "e" }));
      assert.equal(await fs.readFile(root.at("e/x.txt"), "utf8"), "x\n");
    });
  });

  test("refuses to replace a file without overwrite, and replaces it with overwrite", async () => {
    await withTempRoot({ "a.txt": "a\n", "b.txt": "b\n", "d/x.txt": "x\n" }, async (root, h) => {
      assert.match(
        errorText(await h.call("move", { from: "a.txt", to: "b.txt" })),
        /already exists/,
      );
      assert.equal(await fs.readFile(root.at("b.txt"), "utf8"), "b\n");
      assert.equal(
        errorText(await h.call("move", { from: "a.txt", to: "d", overwrite: true })),
        '"d" already exists, a directory, which a move never replaces; nothing was moved',
      );
      assert.equal(
        errorText(await h.call("move", { from: "d", to: "b.txt", overwrite: true })),
        '"b.txt" already exists, a file, which a directory never replaces; nothing was moved',
      );
      okText(await h.call("move", { from: "a.txt", to: "b.txt", overwrite: true }));
      assert.equal(await fs.readFile(root.at("b.txt"), "utf8"), "a\n");
    });
  });

  test("refuses a root, and a directory while deny rules name paths", async () => {
    await withTempRoot({ "conf/private/key": "k\n", "conf/a": "a\n" }, async (root, h) => {
      assert.match(
        errorText(await h.call("move", { from: "conf", to: "open" })),
        /cannot be moved: deny rules name paths \(conf\/private\/\*\*\)/,
      );
      assert.match(errorText(await h.call("move", { from: root.dir, to: "x" })), /it is a root/);
      assert.equal(await fs.readFile(root.at("conf/a"), "utf8"), "a\n");
      okText(await h.call("move", { from: "conf/a", to: "conf/b" }));
    }, { deny: ["conf/private/**"] });
  });
});
