// The walks of list, glob and grep never follow a symlink out of the roots, nowhere, or to a
// denied path, and say how many they left out (nothing is skipped in silence), without
// telling which leads where.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import { spawnSync } from "node:child_process";
import * as os from "node:os";
import { describe, test } from "node:test";
import { grepText, okText, withTempRoot } from "../../_helpers/tools.ts";
import { leftOutNotes, skippedField } from "../../../src/tools/_results.ts";

const NOTE = (n: number) =>
  `[${n} ${
    n === 1 ? "symlink" : "symlinks"
  } left out: each leads outside the roots, nowhere, or to a denied path]`;

/** A tree with symlinks of every kind; `secret.txt` is denied, and exists when `secret`. */
const FILES = { "a.txt": "needle\n", "sub/b.txt": "needle\n", ".gitignore": "ignored.txt\n" };

function makeLinks(at: (name: string) => string): void {
  fs.symlinkSync("a.txt", at("inside.txt")); // (followed)
  fs.symlinkSync("gone.txt", at("dangling.txt"));
  fs.symlinkSync(os.tmpdir(), at("outside"));
  fs.symlinkSync("secret.txt", at("to-secret.txt"));
  fs.symlinkSync("../gone.md", at("sub/dangling.md"));
  fs.symlinkSync("gone.txt", at(".hidden-link.txt"));
  fs.symlinkSync("gone.txt", at("ignored.txt"));
}

describe("symlinks a walk leaves out", () => {
  test("list, glob and grep count those they cannot follow, and show the rest", async () => {
    await withTempRoot(FILES, async (root, h) => {
      makeLinks(root.at);
      const list = await h.call("list", { depth: 1 });
      assert.deepEqual(list.structuredContent?.skipped, {
        hidden: 2,
        ignored: 1,
        links: 3,
        special: 0,
      });
      assert.ok(okText(list).includes(`${NOTE(3)}\n`), okText(list));
      assert.match(okText(list), /\tinside\.txt\n/);
      // (Two levels: the one in sub/ too.)
      const deep = await h.call("list", { depth: 2 });
      assert.equal((deep.structuredContent?.skipped as { links: number }).links, 4);

      const glob = await h.call("glob", { pattern: "*.txt" });
      assert.equal(
        okText(glob),
        `a.txt\ninside.txt\nsub/b.txt\n[2 hidden entries and 1 .gitignore'd entry left out; include_ignored=true shows them]\n${
          NOTE(2)
        }\n`,
      );
      // (A glob the link's name does not match leaves it uncounted, as it leaves a file.)
      const md = await h.call("glob", { pattern: "**/*.md" });
      assert.equal((md.structuredContent?.skipped as { links: number }).links, 1);

      const grep = await h.call("grep", { pattern: "needle" });
      assert.equal(
        grepText(grep),
        `a.txt\n1\tneedle\n\ninside.txt\n1\tneedle\n\nsub/b.txt\n1\tneedle\n[2 hidden entries and 1 .gitignore'd entry left out; include_ignored=true searches them]\n${
          NOTE(4)
        }\n`,
      );
      // A hidden or ignored one is left out as that, and counted as a symlink once the rules
      // no longer leave it out.
      const all = await h.call("grep", { pattern: "needle", include_ignored: true });
      assert.deepEqual(all.structuredContent?.skipped, {
        hidden: 0,
        ignored: 0,
        links: 6,
        special: 0,
      });
      assert.ok(grepText(all).endsWith(`${NOTE(6)}\n`), grepText(all));
    }, { deny: ["secret.txt"] });
  });

  test("a link to a denied file counts as one to a missing file: nothing of it leaks", async () => {
    const seen: string[] = [];
    for (const secret of [true, false]) {
      await withTempRoot(FILES, async (root, h) => {
        if (secret) fs.writeFileSync(root.at("secret.txt"), "needle\n");
        makeLinks(root.at);
        const answers = [
          await h.call("list", { depth: 2 }),
          await h.call("glob", { pattern: "*" }),
          await h.call("grep", { pattern: "needle", include_ignored: true }),
        ];
        seen.push(answers.map((answer) => grepText(answer)).join("\n---\n"));
      }, { deny: ["secret.txt"] });
    }
    assert.equal(seen[0], seen[1]);
    assert.ok(seen[0].includes("symlinks left out"), seen[0]);
  });

  test("a folder holding only such symlinks is said to hold them, not to be empty", async () => {
    await withTempRoot({ "a.txt": "x\n" }, async (root, h) => {
      fs.mkdirSync(root.at("d"));
      fs.symlinkSync("gone", root.at("d/dangling"));
      assert.equal(
        okText(await h.call("list", { path: "d" })),
        `[d holds only symlinks left out]\n${NOTE(1)}\n`,
      );
      fs.writeFileSync(root.at("d/.hidden"), "");
      assert.equal(
        okText(await h.call("list", { path: "d" })),
        `[d holds only hidden or .gitignore'd entries and symlinks left out]\n[1 hidden entry left out; include_ignored=true shows them]\n${
          NOTE(1)
        }\n`,
      );
    });
  });

  test("a store that counts no symlinks (a custom one) gives no count and no note", () => {
    assert.deepEqual(skippedField({ hidden: 0, ignored: 0 }), {});
    assert.deepEqual(skippedField({ hidden: 1, ignored: 0 }), {
      skipped: { hidden: 1, ignored: 0 },
    });
    assert.deepEqual(leftOutNotes({ hidden: 1, ignored: 0 }), []);
  });

  test("a FIFO is passed over by glob and grep and counted, and listed by list", async () => {
    await withTempRoot(FILES, async (root, h) => {
      assert.equal(spawnSync("mkfifo", [root.at("pipe.txt")]).status, 0);
      const note = "[1 FIFO, socket or device left out: no text to read (list shows them)]";
      const glob = await h.call("glob", { pattern: "*.txt" });
      assert.ok(okText(glob).endsWith(`${note}\n`), okText(glob));
      assert.equal((glob.structuredContent?.skipped as { special: number }).special, 1);
      const grep = await h.call("grep", { pattern: "needle", include_ignored: true });
      assert.ok(grepText(grep).endsWith(`${note}\n`), grepText(grep));
      // (A glob its name does not match leaves it uncounted, as it leaves a file.)
      assert.equal(okText(await h.call("glob", { pattern: "*.md" })).includes("FIFO"), false);
      assert.match(okText(await h.call("list", {})), /^other\t0\tpipe\.txt$/m);
    });
  });

  test("a tree without such symlinks says nothing of them", async () => {
    await withTempRoot(FILES, async (root, h) => {
      fs.symlinkSync("a.txt", root.at("inside.txt"));
      for (
        const [name, args] of [["list", {}], ["glob", { pattern: "*" }], ["grep", {
          pattern: "needle",
        }]] as const
      ) {
        const result = await h.call(name, args);
        assert.doesNotMatch(okText(result), /symlink/, name);
        assert.equal((result.structuredContent?.skipped as { links?: number })?.links ?? 0, 0);
      }
    });
  });
});
