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
import { runCli } from "../_helpers/binary.ts";
import { BUN_ONLY, indexFilled, makeTree } from "../_helpers/index_history.ts";

/**
 * Runs `use` on a store (with an index, if asked) of a tree of `files` (path → text) and the
 * symlinks `links` (path → target), and removes the tree.
 */
async function withStore(
  files: Record<string, string>,
  links: Record<string, string>,
  use: (store: DirectoryStore, root: string) => Promise<void>,
  searchIndex = false,
): Promise<void> {
  const root = makeTree(files);
  for (const [name, target] of Object.entries(links)) {
    fs.symlinkSync(target, path.join(root, name));
  }
  const store = await DirectoryStore.create({ roots: [root], searchIndex });
  try {
    await use(store, root);
  } finally {
    store.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

async function found(store: DirectoryStore, query = {}): Promise<string[]> {
  const result = await store.search({ matcher: literalMatcher("needle"), ...query });
  return result.files.map((file) => file.path);
}

describe("an ignore file that is a symlink", () => {
  test("is read through when it leads to a file within the roots", async () => {
    await withStore(
      { "rules.txt": "secret.txt\n", "sub/open.txt": "needle\n", "sub/secret.txt": "needle\n" },
      { "sub/.gitignore": "../rules.txt" },
      async (store, root) => {
        assert.deepEqual(await found(store), ["sub/open.txt"]);
        assert.deepEqual(await store.glob({}), ["rules.txt", "sub/open.txt"]);
        // The command line's grep, through the binary, as ripgrep lists them.
        const listed = runCli(["grep", "--files", "."], root);
        assert.equal(listed.status, 0, listed.stderr);
        assert.equal(listed.stdout, "rules.txt\nsub/open.txt\n");
      },
    );
  });

  test("above the start of a walk, holds for it too", async () => {
    await withStore(
      { "rules/top.txt": "deep.txt\n", "a/b/deep.txt": "needle\n", "a/b/kept.txt": "needle\n" },
      { ".gitignore": "rules/top.txt" },
      async (store) => {
        assert.deepEqual(await found(store, { path: "a/b" }), ["a/b/kept.txt"]);
        assert.deepEqual(await found(store), ["a/b/kept.txt"]);
      },
    );
  });

  test("is passed over when it leads outside the roots", async () => {
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), "linewise-outside-"));
    fs.writeFileSync(path.join(outside, "rules"), "secret.txt\n");
    try {
      await withStore(
        { "sub/open.txt": "needle\n", "sub/secret.txt": "needle\n" },
        { "sub/.gitignore": path.join(outside, "rules") },
        async (store) => {
          assert.deepEqual(await found(store), ["sub/open.txt", "sub/secret.txt"]);
        },
      );
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  test(
    "makes a walk the index never keeps: a change to the file it leads to is seen",
    BUN_ONLY,
    async () => {
      await withStore(
        { "rules.txt": "a.txt\n", "sub/a.txt": "needle\n", "sub/b.txt": "needle\n" },
        { "sub/.gitignore": "../rules.txt" },
        async (store, root) => {
          assert.deepEqual(await found(store), ["sub/b.txt"]);
          // (Once it has learned the files, the index keeps the walks it may keep.)
          await indexFilled(store);
          assert.deepEqual(await found(store), ["sub/b.txt"]);
          // (Neither sub/ nor its link changes: only the file the link leads to.)
          fs.writeFileSync(path.join(root, "rules.txt"), "b.txt\n");
          assert.deepEqual(await found(store), ["sub/a.txt"]);
        },
        true,
      );
    },
  );
});

describe("an ignore file with other names (hard links)", () => {
  test(
    "makes a walk the index never keeps: a write through another name is seen",
    BUN_ONLY,
    async () => {
      await withStore(
        { "sub/.gitignore": "a.txt\n", "sub/a.txt": "needle\n", "sub/b.txt": "needle\n" },
        {},
        async (store, root) => {
          // (The watcher hears a write through rules.txt as a change of rules.txt alone.)
          fs.linkSync(path.join(root, "sub/.gitignore"), path.join(root, "rules.txt"));
          assert.deepEqual(await found(store), ["sub/b.txt"]);
          await indexFilled(store);
          assert.deepEqual(await found(store), ["sub/b.txt"]);
          fs.writeFileSync(path.join(root, "rules.txt"), "b.txt\n");
          assert.deepEqual(await found(store), ["sub/a.txt"]);
        },
        true,
      );
    },
  );

  test(
    "keeps no result through such a walk: a write through a name no watch hears is seen",
    BUN_ONLY,
    async () => {
      const outside = fs.mkdtempSync(path.join(os.tmpdir(), "linewise-outside-"));
      try {
        await withStore(
          { "sub/.gitignore": "a.txt\n", "sub/a.txt": "needle\n", "sub/b.txt": "needle\n" },
          {},
          async (store, root) => {
            // (Outside the roots, and inside .git, where no walk lists.)
            const names = [path.join(outside, "rules"), path.join(root, ".git/rules")];
            fs.mkdirSync(path.join(root, ".git"));
            for (const name of names) fs.linkSync(path.join(root, "sub/.gitignore"), name);
            assert.deepEqual(await found(store), ["sub/b.txt"]);
            await indexFilled(store);
            assert.deepEqual(await found(store), ["sub/b.txt"]);
            assert.deepEqual(await found(store), ["sub/b.txt"], "the same search again");
            fs.writeFileSync(names[0], "b.txt\n");
            assert.deepEqual(await found(store), ["sub/a.txt"], "written from outside");
            fs.writeFileSync(names[1], "a.txt\n");
            assert.deepEqual(await found(store), ["sub/b.txt"], "written inside .git");
          },
          true,
        );
      } finally {
        fs.rmSync(outside, { recursive: true, force: true });
      }
    },
  );
});
