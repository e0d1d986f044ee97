// A kept walk patched for files created where it listed (src/search/index/_walk_patch.ts), over
// a store of directories held in memory: where a file goes, what is counted as left out, and
// each case that gives no patch (the walk is then made again). The same against real trees
// and a watcher is in _walk_changes_test.ts and tests/e2e/bin_index_test.ts.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { patchWalk } from "../../../src/search/index/_walk_patch.ts";
import { directoryRecorder, type KeptWalk } from "../../../src/search/index/_kept_walks.ts";
import { StoreError } from "../../../src/store/errors.ts";
import type { DirEntry, WalkNode, WalkSource } from "../../../src/store/walk.ts";

/** Directories by real path: their entries' names (a name ending in `/` is a directory). */
type Tree = Record<string, string[]>;

/** The `.gitignore` of /r in every tree here. */
const RULES = "build/\n*.log\n";

function sourceOf(tree: Tree, failing?: Error): WalkSource {
  return {
    listDirectory: (dir) => {
      if (failing !== undefined) return Promise.reject(failing);
      const names = tree[dir.key];
      if (names === undefined) {
        return Promise.reject(new StoreError("not_found", dir.display, "no such directory"));
      }
      return Promise.resolve(names.map((name): DirEntry => ({
        name: name.replace(/\/$/, ""),
        kind: name.endsWith("/") ? "directory" : "file",
        size: 0,
        symlink: false,
      })));
    },
    child: (dir, name) => ({
      key: `${dir.key}/${name}`,
      display: dir.display === "." ? name : `${dir.display}/${name}`,
    }),
    readIgnoreFile: (dir, name = ".gitignore") =>
      Promise.resolve(
        dir.key === "/r" && name === ".gitignore" ? { text: RULES, linked: false } : undefined,
      ),
    ancestors: (node: WalkNode) => {
      const parts = node.display === "." ? [] : node.display.split("/");
      return parts.map((_, i) => ({
        key: ["/r", ...parts.slice(0, i)].join("/"),
        display: i === 0 ? "." : parts.slice(0, i).join("/"),
      }));
    },
  };
}

const node = (display: string): WalkNode => ({ key: `/r/${display}`, display });
const made = (...paths: string[]) => paths.map((path) => ({ path, directory: false }));
const madeDirs = (...paths: string[]) => paths.map((path) => ({ path, directory: true }));

/** A walk of /r (shown as "."), as the index keeps one. */
function keptWalk(files: string[], listed: Record<string, string>): KeptWalk {
  const skipped = { hidden: 0, ignored: 0, links: 0, special: 0 };
  const dirs = directoryRecorder(skipped);
  for (const [key, display] of Object.entries(listed)) {
    dirs.callbacks.onDirectory({ key, display }, {
      ignoreFile: false,
      linkedIgnoreFile: false,
      links: [],
    });
  }
  return { files: files.map(node), skipped, dirs: dirs.listed, madeAt: 0 };
}

const TREE: Tree = {
  "/r": ["a.ts", "lib/", "z.ts"],
  "/r/lib": ["c.ts", "deep/", "plain.ts"],
  "/r/lib/deep": ["b.ts"],
};
const LISTED = { "/r": ".", "/r/lib": "lib", "/r/lib/deep": "lib/deep" };
const FILES = ["a.ts", "lib/c.ts", "lib/deep/b.ts", "lib/plain.ts", "z.ts"];

describe("a kept walk, patched for files created where it listed", () => {
  test("takes each file at its place in the walk's order, and counts one left out", async () => {
    const tree = {
      ...TREE,
      "/r": [...TREE["/r"], ".hidden.ts", "m.ts"],
      "/r/lib": [...TREE["/r/lib"], "d.ts", "e.ts"],
    };
    const walk = keptWalk(FILES, LISTED);
    const created = made("/r/lib/d.ts", "/r/m.ts", "/r/.hidden.ts", "/r/lib/e.ts");
    const patched = await patchWalk(sourceOf(tree), {}, walk, created, 42);
    assert.deepEqual(patched?.files.map((file) => file.display), [
      "a.ts",
      "lib/c.ts",
      "lib/d.ts",
      "lib/deep/b.ts",
      "lib/e.ts",
      "lib/plain.ts",
      "m.ts",
      "z.ts",
    ]);
    assert.deepEqual(patched?.skipped, { hidden: 1, ignored: 0, links: 0, special: 0 });
    assert.deepEqual(patched?.dirs.skipped, ["/r/.hidden.ts"]);
    assert.equal(patched?.madeAt, 0, "when the walk began: its .gitignore files are checked by it");
    assert.equal(patched?.heardAt, 42);
    assert.deepEqual(walk.files.map((file) => file.display), FILES, "the kept one as it was");
    assert.deepEqual(walk.dirs.skipped, []);
  });

  test("walks a directory made where it listed, or counts it left out", async () => {
    const tree = {
      ...TREE,
      "/r/lib": [...TREE["/r/lib"], "new/", "empty/", "build/", "x.log"],
      "/r/lib/new": ["x.ts", "sub/", ".h.ts", "y.log"],
      "/r/lib/new/sub": ["y.ts"],
      "/r/lib/empty": [],
      "/r/lib/build": ["out.ts"],
      "/r": [...TREE["/r"], ".cache/"],
      "/r/.cache": ["k.ts"],
    };
    const walk = keptWalk(FILES, LISTED);
    const created = [
      ...madeDirs("/r/lib/new", "/r/lib/empty", "/r/lib/build", "/r/.cache"),
      ...made("/r/lib/x.log"),
    ];
    const patched = await patchWalk(sourceOf(tree), {}, walk, created, 0);
    assert.deepEqual(patched?.files.map((file) => file.display), [
      "a.ts",
      "lib/c.ts",
      "lib/deep/b.ts",
      "lib/new/sub/y.ts",
      "lib/new/x.ts",
      "lib/plain.ts",
      "z.ts",
    ]);
    assert.deepEqual(patched?.skipped, { hidden: 2, ignored: 3, links: 0, special: 0 });
    assert.deepEqual(patched?.dirs.skipped?.sort(), [
      "/r/.cache",
      "/r/lib/build",
      "/r/lib/new/.h.ts",
      "/r/lib/new/y.log",
      "/r/lib/x.log",
    ]);
    // (Listed now: what is made in them later is heard as made where the walk looked.)
    assert.deepEqual(patched?.dirs.listed.slice(3), [
      "/r/lib/new",
      "/r/lib/new/sub",
      "/r/lib/empty",
    ]);
    assert.deepEqual(patched?.dirs.displays?.slice(3), ["lib/new", "lib/new/sub", "lib/empty"]);
    const all = await patchWalk(sourceOf(tree), { includeIgnored: true }, walk, created, 0);
    assert.deepEqual(all?.files.map((file) => file.display).slice(0, 3), [
      ".cache/k.ts",
      "a.ts",
      "lib/build/out.ts",
    ]);
  });

  test("gives none where a walk made again is needed", async () => {
    const tree = { ...TREE, "/r/lib": [...TREE["/r/lib"], "d.ts"], "/r/empty": ["n.ts"] };
    const walk = keptWalk(FILES, LISTED);
    const patch = (paths: string[], rules = {}, source = sourceOf(tree), kept = walk) =>
      patchWalk(source, rules, kept, made(...paths), 0);
    assert.equal(await patch(["/r/lib/gone.ts"]), undefined, "a file gone again");
    const withGit = sourceOf({
      ...tree,
      "/r/lib": [...tree["/r/lib"], ".git/"],
      "/r/lib/.git": [],
    });
    assert.equal(
      await patchWalk(withGit, {}, walk, madeDirs("/r/lib/.git"), 0),
      undefined,
      "a repository made inside the tree",
    );
    assert.equal(await patch(["/r/lib/d.ts"], { glob: "*.ts" }), undefined, "a glob");
    assert.equal(await patch(["/r/lib/d.ts"], { maxDepth: 3 }), undefined, "a depth");
    assert.equal(await patch(["/r/lib/d.ts"], { maxFileSize: 9 }), undefined, "a size");
    assert.equal(await patch(["/r/other/d.ts"]), undefined, "a directory it did not list");
    const emptyListed = keptWalk(FILES, { ...LISTED, "/r/empty": "empty" });
    assert.equal(
      await patch(["/r/empty/n.ts"], {}, sourceOf(tree), emptyListed),
      undefined,
      "a directory with no file of the walk under it",
    );
    const names = Array.from({ length: 101 }, (_, i) => `n${i}.ts`);
    const full = sourceOf({ ...tree, "/r/lib": [...tree["/r/lib"], ...names] });
    const many = names.map((name) => `/r/lib/${name}`);
    assert.equal((await patch(many.slice(1), {}, full))?.files.length, FILES.length + 100);
    assert.equal(await patch(many, {}, full), undefined, "more than a hundred files at once");
    const fromCache = { ...walk, dirs: { ...walk.dirs, skipped: undefined } };
    assert.equal(await patch(["/r/lib/d.ts"], {}, sourceOf(tree), fromCache), undefined);
    const gone = sourceOf({ ...tree, "/r/lib": undefined as unknown as string[] });
    assert.equal(await patch(["/r/lib/d.ts"], {}, gone), undefined, "its directory gone");
    // (A walk that read an ignore file through a symlink is never kept: a write to where it
    // leads changes the rules unheard.)
    const linked = sourceOf({
      ...tree,
      "/r/lib": [...tree["/r/lib"], "new/"],
      "/r/lib/new": [".gitignore", "x.ts"],
    });
    const read = linked.readIgnoreFile;
    linked.readIgnoreFile = (dir, name) =>
      dir.key === "/r/lib/new" ? Promise.resolve({ text: "", linked: true }) : read(dir, name);
    assert.equal(
      await patchWalk(linked, {}, walk, madeDirs("/r/lib/new"), 0),
      undefined,
      "a directory made whose ignore file is a symlink",
    );
  });

  test("a failure that is no store's refusal is not taken for one", async () => {
    const walk = keptWalk(FILES, LISTED);
    const bug = new TypeError("a bug");
    await assert.rejects(patchWalk(sourceOf(TREE, bug), {}, walk, made("/r/lib/d.ts"), 0), bug);
  });
});
