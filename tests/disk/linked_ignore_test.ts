// An ignore file that is a symlink: read through when it leads to a file within the roots, as
// ripgrep reads one (and not when it leads outside them); and a walk that read one is never
// kept by the search index, whose watcher hears ignore files by their name: a change to the
// file the link leads to changes no directory the walk listed.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, test } from "node:test";
import { literalMatcher } from "../../src/core/mod.ts";
import { DirectoryStore } from "../../src/disk/directory_store.ts";
import { WATCH_ORDER_KEPT } from "../../src/io/runtime.ts";
import { runCli } from "../_helpers/binary.ts";

/** A root with `files` (path → text), and the symlinks in `links` (path → target). */
function tree(files: Record<string, string>, links: Record<string, string>): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "linewise-linked-")));
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), text);
  }
  for (const [name, target] of Object.entries(links)) {
    fs.symlinkSync(target, path.join(root, name));
  }
  return root;
}

const NEEDLE = { matcher: literalMatcher("needle") };

async function found(store: DirectoryStore, query = {}): Promise<string[]> {
  return (await store.search({ ...NEEDLE, ...query })).files.map((file) => file.path);
}

describe("an ignore file that is a symlink", () => {
  test("is read through when it leads to a file within the roots", async () => {
    const root = tree(
      { "rules.txt": "secret.txt\n", "sub/open.txt": "needle\n", "sub/secret.txt": "needle\n" },
      { "sub/.gitignore": "../rules.txt" },
    );
    const store = await DirectoryStore.create({ roots: [root] });
    try {
      assert.deepEqual(await found(store), ["sub/open.txt"]);
      assert.deepEqual(await store.glob({}), ["rules.txt", "sub/open.txt"]);
      // The command line's grep, through the binary, as ripgrep lists them.
      const listed = runCli(["grep", "--files", "."], root);
      assert.equal(listed.status, 0, listed.stderr);
      assert.equal(listed.stdout, "rules.txt\nsub/open.txt\n");
    } finally {
      store.close();
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  test("above the start of a walk, holds for it too", async () => {
    const root = tree(
      { "rules/top.txt": "deep.txt\n", "a/b/deep.txt": "needle\n", "a/b/kept.txt": "needle\n" },
      { ".gitignore": "rules/top.txt" },
    );
    const store = await DirectoryStore.create({ roots: [root] });
    try {
      assert.deepEqual(await found(store, { path: "a/b" }), ["a/b/kept.txt"]);
      assert.deepEqual(await found(store), ["a/b/kept.txt"]);
    } finally {
      store.close();
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  test("is passed over when it leads outside the roots", async () => {
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), "linewise-outside-"));
    fs.writeFileSync(path.join(outside, "rules"), "secret.txt\n");
    const root = tree(
      { "sub/open.txt": "needle\n", "sub/secret.txt": "needle\n" },
      { "sub/.gitignore": path.join(outside, "rules") },
    );
    const store = await DirectoryStore.create({ roots: [root] });
    try {
      assert.deepEqual(await found(store), ["sub/open.txt", "sub/secret.txt"]);
    } finally {
      store.close();
      fs.rmSync(root, { recursive: true, force: true });
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  test(
    "makes a walk the index never keeps: a change to the file it leads to is seen",
    { skip: WATCH_ORDER_KEPT ? false : "the search index runs only on Bun", timeout: 60_000 },
    async () => {
      const root = tree(
        { "rules.txt": "a.txt\n", "sub/a.txt": "needle\n", "sub/b.txt": "needle\n" },
        { "sub/.gitignore": "../rules.txt" },
      );
      const store = await DirectoryStore.create({ roots: [root], searchIndex: true });
      try {
        assert.deepEqual(await found(store), ["sub/b.txt"]);
        // (Once it has learned the files, the index keeps the walks it may keep.)
        for (let i = 0; i < 500; i++) {
          const stats = store.searchIndexStats();
          if (stats !== undefined && stats.files > 0 && stats.queued + stats.indexing === 0) break;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        assert.deepEqual(await found(store), ["sub/b.txt"]);
        // (Neither sub/ nor its link changes: only the file the link leads to.)
        fs.writeFileSync(path.join(root, "rules.txt"), "b.txt\n");
        assert.deepEqual(await found(store), ["sub/a.txt"]);
      } finally {
        store.close();
        fs.rmSync(root, { recursive: true, force: true });
      }
    },
  );
});
