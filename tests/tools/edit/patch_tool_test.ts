import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createPatch } from "diff";
import { chmodSync, readdirSync, readFileSync, statSync } from "node:fs";
import process from "node:process";
import { errorText, harness, okText, type TempRoot, tempRoot } from "../../_helpers/tools.ts";
import { MemoryStore } from "../../../src/store/mod.ts";
import { versionOf } from "../../../src/versions/mod.ts";

const A = "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n";
const B = "alpha\r\nbeta\r\ngamma\r\n";

/** A git-style diff of one file, from `before` to `after`. */
function gitDiff(path: string, before: string, after: string): string {
  return createPatch(path, before, after).replace(
    /^Index: .*\n=+\n--- .*\n\+\+\+ .*\n/,
    `--- a/${path}\n+++ b/${path}\n`,
  );
}

function tools(files: Record<string, string> = { "a.txt": A, "b.txt": B }, store?: MemoryStore) {
  return harness(store ?? new MemoryStore(files));
}

const text = async (h: ReturnType<typeof tools>, path: string) =>
  (await h.store.readText(path)).text;

describe("patch", () => {
  test("applies hunks of several files, a new file and a deleted one, keeping CRLF", async () => {
    const h = tools({ "a.txt": A, "b.txt": B, "gone.txt": "x\ny\n" });
    const patch = gitDiff("a.txt", A, A.replace("two\n", "TWO\n2b\n").replace("nine\n", "")) +
      gitDiff("b.txt", "alpha\nbeta\ngamma\n", "alpha\nBETA\ngamma\n") +
      "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+first\n+second\n" +
      "--- a/gone.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-x\n-y\n";
    const result = await h.call("patch", { patch });
    const after = A.replace("two\n", "TWO\n2b\n").replace("nine\n", "");
    assert.equal(await text(h, "a.txt"), after);
    assert.equal(await text(h, "b.txt"), "alpha\r\nBETA\r\ngamma\r\n");
    assert.equal(await text(h, "new.txt"), "first\nsecond\n");
    await assert.rejects(h.store.readText("gone.txt"), { code: "not_found" });
    assert.equal(
      okText(result),
      `modified a.txt (1 hunk, lines +0) @${versionOf(after)}\nmodified b.txt (1 hunk, lines +0) @${
        versionOf("alpha\r\nBETA\r\ngamma\r\n")
      }\ncreated new.txt @${versionOf("first\nsecond\n")}\ndeleted gone.txt\n`,
    );
  });

  test("takes the diff git writes of a CRLF file or a BOM, and one saved with CRLF", async () => {
    const bom = "\uFEFFfirst\nsecond\n";
    const h = tools({ "b.txt": B, "bom.txt": bom, "gone.txt": "x\r\ny\r\n" });
    // (git and diff -u keep each line's \r in the diff of a CRLF file, and git the BOM in line 1.)
    const crlf = gitDiff("b.txt", B, B.replace("beta", "BETA"));
    assert.match(crlf, /^-beta\r$/m);
    const withBom = gitDiff("bom.txt", bom, bom.replace("first", "FIRST"));
    assert.match(withBom, /^-\uFEFFfirst$/m);
    const gone = "--- a/gone.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-x\r\n-y\r\n";
    const result = await h.call("patch", { patch: crlf + withBom + gone });
    assert.match(okText(result), /^modified b\.txt \(1 hunk, lines \+0\)/);
    assert.equal(await text(h, "b.txt"), "alpha\r\nBETA\r\ngamma\r\n");
    assert.equal(await text(h, "bom.txt"), "\uFEFFFIRST\nsecond\n");
    await assert.rejects(h.store.readText("gone.txt"), { code: "not_found" });
    // A diff that only adds the last line's line feed changes nothing, and says so.
    const eol = await h.call("patch", {
      patch: gitDiff("bom.txt", "\uFEFFFIRST\nsecond", "\uFEFFFIRST\nsecond\n"),
    });
    assert.match(okText(eol), /changes only what edits keep as it is .*; nothing changed/);
    assert.equal(await text(h, "bom.txt"), "\uFEFFFIRST\nsecond\n");
    // The same diff saved with CRLF line endings of its own.
    const saved = gitDiff("b.txt", B.replace("beta", "BETA"), B).replaceAll("\n", "\r\n");
    await h.call("patch", { patch: saved });
    assert.equal(await text(h, "b.txt"), B);
  });

  test("a lone \\r is text: a hunk of a line that ends with one applies to that line", async () => {
    // (Read as a CRLF diff, `foo\r` would be `foo`, which stands at line 1 alone.)
    const lone = "foo\nmid\nfoo\r";
    const crlf = "foo\r\nmid\r\nfoo\r\r\n";
    const h = tools({ "lone.txt": lone, "crlf.txt": crlf });
    const patch = createPatch("lone.txt", lone, "foo\nmid\nbaz", "", "", { context: 0 }) +
      createPatch("crlf.txt", crlf, "foo\r\nmid\r\nbaz\r\n", "", "", { context: 0 });
    const result = await h.call("patch", { patch });
    assert.doesNotMatch(okText(result), /applied at line/);
    assert.equal(await text(h, "lone.txt"), "foo\nmid\nbaz");
    assert.equal(await text(h, "crlf.txt"), "foo\r\nmid\r\nbaz\r\n");
    // (A hunk that stands at several other places is refused, in either reading.)
    const twice = tools({ "t.txt": "x\r\nx\r\nx\nq\n" });
    const moved = "--- a/t.txt\n+++ b/t.txt\n@@ -4,1 +4,1 @@\n-x\r\n+y\r\n";
    assert.match(errorText(await twice.call("patch", { patch: moved })), /several other places/);
    assert.equal(await text(twice, "t.txt"), "x\r\nx\r\nx\nq\n");
    // A diff that changes only a BOM or the line endings changes nothing, and says so.
    for (const [before, after] of [["\uFEFFa\nb\n", "a\nb\n"], ["a\r\nb\r\n", "a\nb\n"]]) {
      const one = tools({ "f.txt": before });
      const said = okText(await one.call("patch", { patch: gitDiff("f.txt", before, after) }));
      assert.match(said, /changes only what edits keep as it is .*; nothing changed/, before);
      assert.equal(await text(one, "f.txt"), before);
    }
  });

  test("a line a hunk replaces keeps its own terminator in a file of mixed endings", async () => {
    const mixed = "a\r\nb\nc\r\nd\ne\r\n";
    const h = tools({ "m.txt": mixed });
    // (One hunk of two runs: the context between them, and around them, stays as it was.)
    const patch =
      "--- a/m.txt\n+++ b/m.txt\n@@ -1,5 +1,6 @@\n a\r\n-b\n+B\n c\r\n-d\n+D\n+D2\n e\r\n";
    assert.match(
      okText(await h.call("patch", { patch })),
      /^modified m\.txt \(1 hunk, lines \+1\)/,
    );
    // (As GNU patch and replace_lines write it.)
    assert.equal(await text(h, "m.txt"), "a\r\nB\nc\r\nD\nD2\ne\r\n");
  });

  test("takes the new and deleted files of diff -N (dated at the epoch) and git (no hunk)", async () => {
    const h = tools({ "gone.txt": "x\n", "empty.txt": "" });
    const epoch = "1970-01-01 00:00:00.000000000 +0000";
    const now = "2026-12-07 08:00:00.000000000 +0000";
    const patch =
      `diff -ruN a/new.txt b/new.txt\n--- a/new.txt\t${epoch}\n+++ b/new.txt\t${now}\n` +
      "@@ -0,0 +1 @@\n+new\n" +
      `diff -ruN a/gone.txt b/gone.txt\n--- a/gone.txt\t${now}\n+++ b/gone.txt\t${epoch}\n` +
      "@@ -1 +0,0 @@\n-x\n" +
      "diff --git a/e.txt b/e.txt\nnew file mode 100644\nindex 0000000..e69de29\n" +
      "diff --git a/empty.txt b/empty.txt\ndeleted file mode 100644\nindex e69de29..0000000\n";
    assert.equal(
      okText(await h.call("patch", { patch })),
      `created new.txt @${versionOf("new\n")}\ndeleted gone.txt\ncreated e.txt @${
        versionOf("")
      }\ndeleted empty.txt\n`,
    );
    assert.equal(await text(h, "new.txt"), "new\n");
    assert.equal(await text(h, "e.txt"), "");
    for (const gone of ["gone.txt", "empty.txt"]) {
      await assert.rejects(h.store.readText(gone), { code: "not_found" });
    }
  });

  test("a side dated a second after the epoch is a file (as Nix stores date theirs)", async () => {
    const h = tools({ "x.txt": "old\n" });
    const date = "1970-01-01 00:00:01.000000000 +0000";
    const patch = `--- a/x.txt\t${date}\n+++ b/x.txt\t${date}\n@@ -1 +1 @@\n-old\n+new\n`;
    assert.match(okText(await h.call("patch", { patch })), /^modified x\.txt/);
    assert.equal(await text(h, "x.txt"), "new\n");
  });

  test("a file changed in two sections takes the second on what the first made", async () => {
    const h = tools({ "m.txt": "m1\nkeep\n" });
    const patch = "--- a/m.txt\n+++ b/m.txt\n@@ -1 +1 @@\n-m1\n+M1\n" +
      "--- a/m.txt\n+++ b/m.txt\n@@ -1,2 +1,2 @@\n-M1\n+MM\n keep\n";
    assert.match(
      okText(await h.call("patch", { patch })),
      /^modified m\.txt \(2 hunks, lines \+0\)/,
    );
    assert.equal(await text(h, "m.txt"), "MM\nkeep\n");
    // (However each section spells the name.)
    const spelled =
      "diff --git a/m.txt b/m.txt\n--- a/m.txt\n+++ b/m.txt\n@@ -1 +1 @@\n-MM\n+M3\n" +
      "--- ./m.txt\n+++ ./m.txt\n@@ -1 +1 @@\n-M3\n+M4\n";
    okText(await h.call("patch", { patch: spelled }));
    assert.equal(await text(h, "m.txt"), "M4\nkeep\n");
  });

  test("lines a hunk only adds take a neighbour's terminator, at the top, between and at the end", async () => {
    const crlf = "a\r\nb\r\nc\r\n";
    const h = tools({ "c.txt": crlf });
    const patch = createPatch("c.txt", crlf, "top\r\na\r\nb\r\nmid\r\nc\r\nend\r\n", "", "", {
      context: 0,
    }).replace(/^Index: .*\n=+\n/, "");
    assert.equal((patch.match(/^@@/gm) ?? []).length, 3);
    okText(await h.call("patch", { patch }));
    assert.equal(await text(h, "c.txt"), "top\r\na\r\nb\r\nmid\r\nc\r\nend\r\n");
  });

  test("hunks without context, back to back, are applied as one", async () => {
    const h = tools({ "z.txt": "a\nb\nc\n" });
    // (Line 1 replaced, a line added after it, line 2 replaced: git apply takes it so.)
    const patch = "--- a/z.txt\n+++ b/z.txt\n@@ -1 +1 @@\n-a\n+A\n@@ -1,0 +2 @@\n+new\n" +
      "@@ -2 +3 @@\n-b\n+B\n";
    okText(await h.call("patch", { patch }));
    assert.equal(await text(h, "z.txt"), "A\nnew\nB\nc\n");
  });

  test("a hunk whose context moved is applied where it stands, and says so", async () => {
    const h = tools({ "a.txt": "zero\n" + A });
    const result = await h.call("patch", { patch: gitDiff("a.txt", A, A.replace("six", "6")) });
    assert.match(
      okText(result),
      /\[hunk 1 of a\.txt \(@@ -2,9\) applied at line 3, \+1 from where it said\]/,
    );
    assert.equal(await text(h, "a.txt"), "zero\n" + A.replace("six", "6"));
  });

  test("one bad hunk among three files writes nothing", async () => {
    const h = tools({ "a.txt": A, "b.txt": B, "c.txt": "c\n" });
    const patch = gitDiff("a.txt", A, A.replace("two", "2")) +
      gitDiff("b.txt", "alpha\nBETA?\ngamma\n", "alpha\nbeta!\ngamma\n") +
      gitDiff("c.txt", "c\n", "C\n");
    const message = errorText(await h.call("patch", { patch }));
    assert.match(
      message,
      /^hunk 1 of b\.txt \(@@ -1,3\) does not match the file: .*nothing was written/,
    );
    assert.equal(await text(h, "a.txt"), A);
    assert.equal(await text(h, "b.txt"), B);
    assert.equal(await text(h, "c.txt"), "c\n");
  });

  test("a failure while writing the second file puts the first back", async () => {
    class FailingStore extends MemoryStore {
      override update<T>(...args: Parameters<MemoryStore["update"]>): Promise<T> {
        if (args[0] === "b.txt") return Promise.reject(new Error("disk full"));
        return super.update(...args) as Promise<T>;
      }
    }
    const store = new FailingStore({ "a.txt": A, "b.txt": B, "c.txt": "c\n" });
    const h = tools({}, store);
    const patch = gitDiff("a.txt", A, A.replace("two", "2")) +
      gitDiff("b.txt", "alpha\nbeta\ngamma\n", "alpha\nBETA\ngamma\n") +
      gitDiff("c.txt", "c\n", "C\n");
    const message = errorText(await h.call("patch", { patch }));
    assert.equal(
      message,
      "patch stopped at b.txt: disk full; the files written before it were put back (a.txt)",
    );
    assert.equal(await text(h, "a.txt"), A);
    assert.equal(await text(h, "b.txt"), B);
    assert.equal(await text(h, "c.txt"), "c\n");
  });

  test("a file another writer changed after the patch wrote it keeps that change", async () => {
    // (The other writer edits a.txt, which the patch wrote, while the patch fails at b.txt.)
    class RacedStore extends MemoryStore {
      override async update<T>(...args: Parameters<MemoryStore["update"]>): Promise<T> {
        if (args[0] === "b.txt") {
          await super.update("a.txt", (text) => ({ text: `${text}theirs\n`, value: undefined }));
          await super.update("new.txt", (text) => ({ text: `${text}theirs\n`, value: undefined }));
          throw new Error("disk full");
        }
        return await super.update(...args) as T;
      }
    }
    const store = new RacedStore({ "a.txt": A, "b.txt": B, "c.txt": "c\n" });
    const h = tools({}, store);
    const patch = gitDiff("a.txt", A, A.replace("two", "2")) +
      gitDiff("c.txt", "c\n", "C\n") +
      "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+ours\n" +
      gitDiff("b.txt", "alpha\nbeta\ngamma\n", "alpha\nBETA\ngamma\n");
    assert.equal(
      errorText(await h.call("patch", { patch })),
      "patch stopped at b.txt: disk full; new.txt changed after the patch wrote it, so it was not " +
        "put back (it keeps that change); a.txt changed after the patch wrote it, so it was not " +
        "put back (it keeps that change); the other files written before it were put back (c.txt)",
    );
    assert.equal(await text(h, "a.txt"), A.replace("two", "2") + "theirs\n");
    assert.equal(await text(h, "new.txt"), "ours\ntheirs\n");
    assert.equal(await text(h, "b.txt"), B);
    assert.equal(await text(h, "c.txt"), "c\n");
  });

  test("a file the patch created that another writer deleted counts as put back", async () => {
    class RacedStore extends MemoryStore {
      override async update<T>(...args: Parameters<MemoryStore["update"]>): Promise<T> {
        if (args[0] === "b.txt") {
          await super.delete("new.txt");
          throw new Error("disk full");
        }
        return await super.update(...args) as T;
      }
    }
    const h = tools({}, new RacedStore({ "a.txt": A, "b.txt": B }));
    const patch = "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+ours\n" +
      gitDiff("b.txt", "alpha\nbeta\ngamma\n", "alpha\nBETA\ngamma\n");
    assert.equal(
      errorText(await h.call("patch", { patch })),
      "patch stopped at b.txt: disk full; the files written before it were put back (new.txt)",
    );
  });

  test("a file to delete that changed since the patch read it is kept", async () => {
    class RacedStore extends MemoryStore {
      override async delete(...args: Parameters<MemoryStore["delete"]>): Promise<string> {
        await super.update(args[0], (text) => ({ text: `${text}z\n`, value: undefined }));
        return await super.delete(...args);
      }
    }
    const store = new RacedStore({ "a.txt": A, "gone.txt": "x\ny\n" });
    const h = tools({}, store);
    const patch = gitDiff("a.txt", A, A.replace("two", "2")) +
      "--- a/gone.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-x\n-y\n";
    assert.equal(
      errorText(await h.call("patch", { patch })),
      "patch stopped at gone.txt: gone.txt changed while the patch was applied; the files " +
        "written before it were put back (a.txt)",
    );
    assert.equal(await text(h, "gone.txt"), "x\ny\nz\n");
    assert.equal(await text(h, "a.txt"), A);
  });

  test("dry_run checks every hunk and writes nothing", async () => {
    const h = tools();
    const result = await h.call("patch", {
      patch: gitDiff("a.txt", A, A.replace("two", "2")),
      dry_run: true,
    });
    assert.equal(
      okText(result),
      "would be modified a.txt (1 hunk, lines +0)\n[dry run: every hunk applies; nothing was written]\n",
    );
    assert.equal(await text(h, "a.txt"), A);
  });

  const REFUSED: Array<[string, string, RegExp]> = [
    ["text that is no patch", "hello\n", /^patch holds no file to change/],
    [
      "a new file that exists",
      "--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+x\n",
      /^a\.txt: the patch creates it, but it exists; nothing was written$/,
    ],
    [
      "a deletion of lines the file does not hold",
      "--- a/b.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-alpha\n",
      /^b\.txt: the patch deletes it, but its lines are not the ones the patch removes/,
    ],
    [
      "a rename",
      "diff --git a/a.txt b/z.txt\nsimilarity index 100%\nrename from a.txt\nrename to z.txt\n",
      /^patch renames or copies a\/a\.txt; it applies changes of content only$/,
    ],
    [
      "a binary patch (jsdiff would read it as an empty new file)",
      "diff --git a/bin b/bin\nnew file mode 100644\nindex 0000000..e69de29\nGIT binary patch\nliteral 3\nKcmZQzWMT#Y01f~L\n\nliteral 0\nHcmV?d00001\n\n",
      /^patch holds a binary patch; it applies changes of text only$/,
    ],
    [
      "a file created in one section and changed in another",
      "--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+x\n--- a/n.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n",
      /^patch creates or deletes n\.txt in one section and changes it in another/,
    ],
    [
      "a file that does not exist",
      "--- a/nope.txt\n+++ b/nope.txt\n@@ -1 +1 @@\n-a\n+b\n",
      /nope\.txt/,
    ],
  ];
  for (const [name, patch, message] of REFUSED) {
    test(`patch refuses ${name} and writes nothing`, async () => {
      const h = tools();
      assert.match(errorText(await h.call("patch", { patch })), message);
      assert.equal(await text(h, "a.txt"), A);
      assert.equal(await text(h, "b.txt"), B);
    });
  }

  test("a patched file can be undone, and later edits refer to its new version", async () => {
    const h = tools();
    okText(await h.call("patch", { patch: gitDiff("a.txt", A, "zero\n" + A) }));
    okText(
      await h.call("replace_lines", { path: "a.txt", edits: [{ start_line: 2, new_text: "1" }] }),
    );
    assert.equal(await text(h, "a.txt"), "zero\n1\n" + A.slice(4));
    okText(await h.call("undo", { path: "a.txt", steps: 2 }));
    assert.equal(await text(h, "a.txt"), A);
  });
});

describe("patch and git's modes", () => {
  const modeOf = (root: TempRoot, name: string) => statSync(root.at(name)).mode & 0o777;
  const section = (name: string, header: string, hunk = "") =>
    `diff --git a/${name} b/${name}\n${header}` +
    (hunk === "" ? "" : `--- a/${name}\n+++ b/${name}\n${hunk}`);

  test("a new file of mode 100755 is executable, and a mode changed is applied", async () => {
    const root = await tempRoot({ "s.sh": "x\n", "t.sh": "y\n", "u.txt": "z\n" });
    try {
      chmodSync(root.at("s.sh"), 0o644);
      chmodSync(root.at("t.sh"), 0o750);
      const patch = "diff --git a/new.sh b/new.sh\nnew file mode 100755\nindex 0000000..1111111\n" +
        "--- /dev/null\n+++ b/new.sh\n@@ -0,0 +1 @@\n+#!/bin/sh\n" +
        section("s.sh", "old mode 100644\nnew mode 100755\n") +
        section("t.sh", "old mode 100755\nnew mode 100644\n", "@@ -1 +1 @@\n-y\n+Y\n") +
        "diff --git a/n.txt b/n.txt\nnew file mode 100644\n--- /dev/null\n+++ b/n.txt\n" +
        "@@ -0,0 +1 @@\n+n\n";
      const result = await harness(root.store).call("patch", { patch });
      assert.equal(
        okText(result).replace(/ @[0-9a-f]{8}/g, ""),
        "created new.sh (mode 100755)\nmodified s.sh (mode 100755)\n" +
          "modified t.sh (1 hunk, lines +0, mode 100644)\ncreated n.txt\n",
      );
      const files = (result.structuredContent as { files: { mode?: string }[] }).files;
      assert.deepEqual(files.map((f) => f.mode), ["100755", "100755", "100644", "100644"]);
      // (Execute bits where the read bits are; the umask takes its part of a new file's.)
      const umask = process.umask();
      assert.equal(modeOf(root, "new.sh"), 0o777 & ~umask);
      assert.equal(modeOf(root, "s.sh"), 0o755);
      assert.equal(modeOf(root, "t.sh"), 0o640);
      assert.equal(modeOf(root, "n.txt"), 0o666 & ~umask);
      assert.equal(readFileSync(root.at("t.sh"), "utf8"), "Y\n");
      assert.equal(readFileSync(root.at("s.sh"), "utf8"), "x\n");
    } finally {
      await root.remove();
    }
  });

  test("a symlink, a submodule or another mode is refused, and nothing is written", async () => {
    const root = await tempRoot({ "a.txt": "a\n" });
    try {
      const h = harness(root.store);
      const change = section("a.txt", "", "@@ -1 +1 @@\n-a\n+A\n");
      for (
        const [header, what] of [
          ["new file mode 120000\n", "a symlink"],
          ["new file mode 160000\n", "a submodule"],
          ["new file mode 100600\n", "mode 100600"],
        ]
      ) {
        const patch = change + "diff --git a/l b/l\n" + header +
          "--- /dev/null\n+++ b/l\n@@ -0,0 +1 @@\n+a.txt\n\\ No newline at end of file\n";
        assert.equal(
          errorText(await h.call("patch", { patch })),
          `patch makes l ${what}; it applies files of text (modes 100644 and 100755)`,
        );
      }
      const typeChange = section("a.txt", "old mode 100644\nnew mode 120000\n");
      assert.match(errorText(await h.call("patch", { patch: typeChange })), /a symlink/);
      assert.deepEqual(readdirSync(root.dir), ["a.txt"]);
      assert.equal(readFileSync(root.at("a.txt"), "utf8"), "a\n");
    } finally {
      await root.remove();
    }
  });

  test("a failure after a mode changed puts the mode back with the text", async () => {
    const root = await tempRoot({ "a.txt": "a\n", "b.txt": "b\n" });
    try {
      chmodSync(root.at("a.txt"), 0o644);
      const store = root.store;
      const update = store.update.bind(store);
      store.update = ((path: string, ...rest: [never, never]) =>
        path === "b.txt"
          ? Promise.reject(new Error("disk full"))
          : update(path, ...rest)) as typeof store.update;
      const patch =
        section("a.txt", "old mode 100644\nnew mode 100755\n", "@@ -1 +1 @@\n-a\n+A\n") +
        section("b.txt", "", "@@ -1 +1 @@\n-b\n+B\n");
      assert.equal(
        errorText(await harness(store).call("patch", { patch })),
        "patch stopped at b.txt: disk full; the files written before it were put back (a.txt)",
      );
      assert.equal(readFileSync(root.at("a.txt"), "utf8"), "a\n");
      assert.equal(modeOf(root, "a.txt"), 0o644);
    } finally {
      await root.remove();
    }
  });
});
