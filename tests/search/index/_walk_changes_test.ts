// The search index keeps a walk until an entry is created, deleted or renamed where the walk
// looked (a directory it listed, its start or above), or an ignore file changes; entries that
// come and go where it did not look (an ignored build folder, a hidden cache, deeper than it
// went) leave it kept. Drawn sequences of such changes, interleaved with searches of every
// kind of walk (from a folder, with hidden or ignored files, one level deep), are checked
// against a store without an index on the same tree; and a store that counts its listings
// shows which changes made it walk again. Bun only (see _tree_watcher.ts).
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import fc from "fast-check";
import { literalMatcher } from "../../../src/core/mod.ts";
import { DirectoryStore } from "../../../src/disk/directory_store.ts";
import {
  type EntryNow,
  walkChanged,
  type WalkDirs,
} from "../../../src/search/index/_kept_walks.ts";
import type { SearchQuery } from "../../../src/store/file_store.ts";
import {
  brief,
  BUN_ONLY,
  filesOf,
  learnedStore,
  makeTree,
  outcome,
  sleep,
  sometimes,
} from "../../_helpers/index_history.ts";
import { REPEAT_WINDOW_MS } from "../../../src/search/index/_tree_watcher.ts";

const IGNORE_RULES = "gen/\n*.log\n";
const TREE: Record<string, string> = {
  ".gitignore": IGNORE_RULES,
  "src/a.ts": "zebra in src\n",
  "src/deep/b.ts": "zebra deep down\n",
  "src/app.log": "zebra in a log\n",
  "lib/c.ts": "zebra in lib\n",
  "lib/plain.ts": "nothing\n",
  "gen/out.ts": "zebra generated\n",
  "gen/sub/x.ts": "zebra generated below\n",
  ".cache/k.ts": "zebra hidden\n",
};
/** The files a search sees by default (neither hidden nor ignored). */
const SEEN = 4;
/** Where entries are made: listed by most walks, or by few. */
const DIRS = ["src", "src/deep", "lib", "gen", "gen/sub", ".cache", "."];
/** Directories renamed (to the name with a 2, and back). */
const RENAMED = ["src/deep", "gen/sub", "lib", ".cache", "src"];

/**
 * A tree of {@linkcode TREE}, with `src/deep/link.ts` leading into the ignored folder, and
 * `lib/later.ts` leading to a file there that is not there yet.
 */
function makeLinkedTree(): string {
  const root = makeTree(TREE);
  fs.symlinkSync("../../gen/out.ts", path.join(root, "src/deep/link.ts"));
  fs.symlinkSync("../gen/later.ts", path.join(root, "lib/later.ts"));
  return root;
}

interface Change {
  change:
    | "create"
    | "write"
    | "replace"
    | "temporary"
    | "delete"
    | "move"
    | "mkdir"
    | "rename"
    | "swap"
    | "rules"
    | "relink";
  pick: number;
  other: number;
  zebra: boolean;
}

interface Search {
  path?: string;
  includeHidden?: boolean;
  includeIgnored?: boolean;
  maxDepth?: number;
}

const anyChange: fc.Arbitrary<Change> = fc.record({
  change: fc.constantFrom<Change["change"]>(
    "create",
    "write",
    "replace",
    "temporary",
    "delete",
    "move",
    "mkdir",
    "rename",
    "swap",
    "rules",
    "relink",
  ),
  pick: fc.nat({ max: 99 }),
  other: fc.nat({ max: 99 }),
  zebra: fc.boolean(),
});

const anySearch: fc.Arbitrary<Search> = fc.record({
  path: sometimes("src", "src/deep", "lib", "gen", "src/deep2"),
  includeHidden: sometimes(true),
  includeIgnored: sometimes(true),
  maxDepth: sometimes(1),
}).map((drawn) => Object.fromEntries(Object.entries(drawn).filter(([, v]) => v !== undefined)));

type Step = { search: Search } | Change;
const anyStep: fc.Arbitrary<Step> = fc.oneof(
  { weight: 2, arbitrary: anySearch.map((search) => ({ search })) },
  { weight: 3, arbitrary: anyChange },
);

/** Makes a change under `root`; returns what it did, for a failure to show. */
function makeChange(root: string, change: Change, count: { made: number }): string {
  const at = (name: string) => path.join(root, name);
  const dirs = DIRS.filter((dir) => fs.existsSync(at(dir)));
  const dir = dirs[change.pick % dirs.length];
  const files = filesOf(root).filter((name) => name !== ".gitignore");
  const file = files[change.other % Math.max(1, files.length)];
  const text = change.zebra ? "zebra made\n" : "made\n";
  switch (change.change) {
    case "create": { // (a file, or one hidden or ignored: a kept walk is patched to add it)
      const kinds = [`n${++count.made}.ts`, `.h${count.made}.ts`, `n${count.made}.log`];
      const name = path.posix.join(dir, kinds[change.other % kinds.length]);
      fs.writeFileSync(at(name), text);
      return `create ${name}`;
    }
    case "write": // (in place: no entry comes or goes)
      if (file === undefined) return "(nothing to write)";
      // (A symlink moved away from where its target lies may lead into no folder at all.)
      if (fs.lstatSync(at(file)).isSymbolicLink() && !fs.existsSync(at(file))) {
        return `(${file} leads nowhere: nothing to write)`;
      }
      fs.writeFileSync(at(file), text);
      return `write ${JSON.stringify(text)} to ${file}`;
    case "replace": { // (a new file renamed over it, as editors and formatters write)
      if (file === undefined) return "(nothing to replace)";
      const temporary = path.posix.join(path.posix.dirname(file), `.${++count.made}.tmp`);
      fs.writeFileSync(at(temporary), text);
      fs.renameSync(at(temporary), at(file));
      return `write ${JSON.stringify(text)} to ${temporary}, renamed over ${file}`;
    }
    case "temporary": {
      const name = path.posix.join(dir, `t${++count.made}.tmp`);
      fs.writeFileSync(at(name), text);
      fs.rmSync(at(name));
      return `make ${name} and remove it`;
    }
    case "delete":
      if (file === undefined) return "(nothing to delete)";
      fs.rmSync(at(file));
      return `delete ${file}`;
    case "move": {
      if (file === undefined) return "(nothing to move)";
      const to = path.posix.join(dir, `m${++count.made}.ts`);
      fs.renameSync(at(file), at(to));
      return `move ${file} to ${to}`;
    }
    case "mkdir": { // (a folder, or one hidden or ignored: a kept walk is patched to add it)
      const kinds = [`d${++count.made}`, `.d${count.made}`, `d${count.made}.log`];
      const name = path.posix.join(dir, kinds[change.other % kinds.length]);
      fs.mkdirSync(at(name));
      fs.writeFileSync(at(`${name}/f.ts`), text);
      return `make ${name}/f.ts`;
    }
    case "rename": {
      const from = RENAMED[change.pick % RENAMED.length];
      const [old, now] = fs.existsSync(at(from)) ? [from, `${from}2`] : [`${from}2`, from];
      if (!fs.existsSync(at(old))) return `(no ${from} to rename)`;
      // (A swap may have made src again beside src2: a rename over a folder with files fails.)
      if (fs.existsSync(at(now))) return `(${old} and ${now} both exist)`;
      fs.renameSync(at(old), at(now));
      return `rename ${old} to ${now}`;
    }
    case "swap": {
      // Another src, with a deep folder of its own, made aside and renamed in.
      const aside = `.swap${++count.made}`;
      fs.mkdirSync(at(`${aside}/deep`), { recursive: true });
      fs.writeFileSync(at(`${aside}/deep/swapped.ts`), text);
      if (fs.existsSync(at("src"))) fs.renameSync(at("src"), at(`src_${count.made}`));
      fs.renameSync(at(aside), at("src"));
      return `rename src aside, and ${aside} (with deep/swapped.ts) to src`;
    }
    case "rules": {
      const now = fs.readFileSync(at(".gitignore"), "utf8");
      const rules = now === IGNORE_RULES ? "*.log\n" : IGNORE_RULES;
      fs.writeFileSync(at(".gitignore"), rules);
      return `write .gitignore ${JSON.stringify(rules)}`;
    }
    case "relink": {
      if (change.pick % 2 === 1) {
        // The dangling link's target, made or removed.
        const later = at("gen/later.ts");
        const made = !fs.existsSync(later);
        if (made) fs.writeFileSync(later, text);
        else fs.rmSync(later);
        return `${made ? "make" : "remove"} gen/later.ts (the dangling link's target)`;
      }
      // The link's target in turn: a file, a symlink to another file, gone.
      const target = at("gen/out.ts");
      const kind = fs.lstatSync(target, { throwIfNoEntry: false });
      if (kind === undefined) fs.writeFileSync(target, text);
      else if (kind.isSymbolicLink()) fs.rmSync(target);
      else {
        fs.rmSync(target);
        fs.symlinkSync("sub/x.ts", target);
      }
      const now = kind === undefined ? "a file" : kind.isSymbolicLink() ? "gone" : "a symlink";
      return `make gen/out.ts (the link's target) ${now}`;
    }
  }
}

const zebra = (search: Search): SearchQuery => ({ matcher: literalMatcher("zebra"), ...search });

/**
 * Hooks a store's directory listings: each is told in `listed` (relative to the root), and
 * `before.run` runs just before the listing of `before.dir`, once.
 */
function hookListings(store: DirectoryStore, root: string) {
  const hook = {
    listed: [] as string[],
    before: undefined as { dir: string; run: () => Promise<unknown> } | undefined,
  };
  const own = store as unknown as { listDirectory: (dir: { key: string }) => unknown };
  const list = own.listDirectory.bind(store) as (...args: unknown[]) => unknown;
  own.listDirectory = async (dir: { key: string }, ...rest: unknown[]) => {
    const name = path.relative(root, dir.key) || ".";
    hook.listed.push(name);
    const before = hook.before;
    if (before?.dir === name) {
      hook.before = undefined;
      await before.run();
    }
    return list(dir, ...rest);
  };
  return hook;
}

describe("the search index's kept walks, as entries come and go", () => {
  const roots: string[] = [];
  /** A tree of {@linkcode TREE}, removed after the tests, and the path of an entry in it. */
  const newTree = () => {
    const root = makeTree(TREE);
    roots.push(root);
    return { root, at: (name: string) => path.join(root, name) };
  };
  after(() => {
    for (const root of roots) fs.rmSync(root, { recursive: true, force: true });
  });

  /**
   * Runs the steps on a new tree, each search checked against a store without an index; each
   * walk is made first, so that the changes meet kept walks.
   */
  async function agree(steps: Step[]): Promise<void> {
    const root = makeLinkedTree();
    roots.push(root);
    const store = await learnedStore(root, SEEN + 1, 0, { searchThreads: 1 }); // (the link's)
    const plain = await DirectoryStore.create({ roots: [root] });
    const done: string[] = [];
    const count = { made: 0 };
    try {
      const check = async (search: Search) => {
        done.push(`search ${JSON.stringify(search)}`);
        const want = await outcome(plain, zebra(search));
        const got = await outcome(store, zebra(search));
        const message = `steps:\n  ${done.join("\n  ")}`;
        assert.deepEqual(brief(got), brief(want), message);
        assert.deepEqual(got, want, message);
      };
      for (const search of [{}, { path: "lib" }, { path: "src/deep" }, { includeHidden: true }]) {
        await check(search);
      }
      for (const step of steps) {
        if ("search" in step) await check(step.search);
        else done.push(makeChange(root, step, count));
      }
      for (const search of [{}, { includeIgnored: true }, { path: "lib", maxDepth: 1 }]) {
        await check(search);
      }
    } finally {
      store.close();
      plain.close();
    }
  }

  test("give what a store without an index gives, wherever the change was", BUN_ONLY, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(anyStep, { minLength: 4, maxLength: 12 }), agree),
      { numRuns: 20 },
    );
  });

  test("see a folder above their start renamed, and where their symlinks lead change", {
    ...BUN_ONLY,
  }, async () => {
    const change = (change: Change["change"], pick = 0): Change => ({
      change,
      pick,
      other: 0,
      zebra: true,
    });
    // (src is renamed by the fifth pick.)
    const renamed = [change("rename", 4), { search: { path: "src/deep" } }];
    await agree([...renamed, { search: { path: "src2/deep" } }]);
    await agree([change("swap"), { search: { path: "src/deep" } }]);
    await agree([change("relink"), { search: {} }, change("relink"), { search: {} }]);
    await agree([change("relink", 1), { search: {} }, change("relink", 1), { search: {} }]);
  });

  test("walk again only where a change was where they looked", BUN_ONLY, async () => {
    const { root, at } = newTree();
    const store = await learnedStore(root, SEEN, 0, { searchThreads: 1 });
    const { listed } = hookListings(store, root);
    const plain = await DirectoryStore.create({ roots: [root] });
    /** Whether the store answers as one without an index does. */
    const agrees = async (message: string) =>
      assert.deepEqual(await outcome(store, zebra({})), await outcome(plain, zebra({})), message);
    /** The directories a search listed, after `change`. */
    const listedBy = async (change: () => void, search: Search = {}) => {
      change();
      // (Past the window in which the watcher reports a path heard again at the next sync:
      // see _tree_watcher.ts.)
      await sleep(2 * REPEAT_WINDOW_MS);
      listed.length = 0;
      await store.search(zebra(search));
      return [...listed];
    };
    const lib = { path: "lib", maxDepth: 1 };
    try {
      await listedBy(() => {}, lib); // (kept from here on)
      assert.deepEqual(await listedBy(() => {}), [], "nothing changed");
      assert.deepEqual(
        await listedBy(() => {
          fs.writeFileSync(at("gen/new.ts"), "zebra\n");
          fs.mkdirSync(at("gen/sub/more"));
          fs.mkdirSync(at(".cache/d"));
          fs.renameSync(at("gen/out.ts"), at("gen/sub/out.ts"));
          fs.writeFileSync(at("src/a.ts"), "zebra written in place\n");
        }),
        [],
        "changes in ignored and hidden folders, and a write in place",
      );
      assert.deepEqual(await listedBy(() => {}, lib), [], "the walk of lib, kept too");
      assert.deepEqual(
        await listedBy(() => fs.writeFileSync(at("src/deep/d.ts"), "zebra\n"), lib),
        ["src/deep"],
        "a walk of lib after a file was made outside it: the whole tree's patched",
      );
      assert.deepEqual(await listedBy(() => {}), [], "the walk of the whole tree after it");
      assert.deepEqual(
        (await listedBy(() => {
          fs.writeFileSync(at("lib/d.ts"), "zebra\n");
          fs.writeFileSync(at("src/e.ts"), "zebra\n");
          fs.writeFileSync(at("src/.hidden.ts"), "zebra\n");
          fs.writeFileSync(at("lib/more.log"), "zebra\n");
        })).sort(),
        ["lib", "src"],
        "files made, one hidden and one ignored: each folder listed once to patch the walk",
      );
      // (In the walk's order: lib/d.ts between lib/c.ts and lib/plain.ts; counted as left out.)
      await agrees("after the files made");
      assert.deepEqual(
        await listedBy(() => fs.rmSync(at("src/e.ts"))),
        [".", "lib", "src", "src/deep"],
        "a file it walked, removed",
      );
      assert.deepEqual(
        await listedBy(() => {
          fs.writeFileSync(at("lib/.plain.ts.tmp"), "zebra written through\n");
          fs.renameSync(at("lib/.plain.ts.tmp"), at("lib/plain.ts"));
          fs.writeFileSync(at("src/scratch.tmp"), "zebra\n");
          fs.rmSync(at("src/scratch.tmp"));
        }),
        [],
        "a file written through a temporary one renamed over it, and one made and removed",
      );
      assert.deepEqual(
        await listedBy(() => fs.rmSync(at("src/app.log"))),
        [".", "lib", "src", "src/deep"],
        "an ignored file it left out, removed",
      );
      assert.deepEqual(
        (await listedBy(() => {
          fs.mkdirSync(at("lib/sub"));
          fs.writeFileSync(at("lib/sub/e.ts"), "zebra\n");
        }, lib)).sort(),
        ["lib", "lib/sub"],
        "a walk one level deep, after a directory was made in it (and the whole tree's walk " +
          "patched: lib/sub walked)",
      );
      assert.deepEqual(
        await listedBy(() => fs.writeFileSync(at("lib/sub/f.ts"), "zebra\n"), lib),
        ["lib/sub"],
        "and after a file was made below where it went (the whole tree's walk patched)",
      );
      await agrees("after the directory made");
      assert.deepEqual(
        await listedBy(() => fs.writeFileSync(at(".gitignore"), "gen/\n")),
        [".", "lib", "lib/sub", "src", "src/deep"],
        "an ignore file written",
      );
    } finally {
      store.close();
      plain.close();
    }
  });

  test("show a folder reached by two names under the name each search gave", {
    ...BUN_ONLY,
  }, async () => {
    const { root } = newTree();
    fs.symlinkSync("../lib", path.join(root, "src/dlink"));
    fs.symlinkSync("lib", path.join(root, "libl"));
    const store = await learnedStore(root, SEEN, 0, { searchThreads: 1 });
    const plain = await DirectoryStore.create({ roots: [root] });
    try {
      for (const search of [{ path: "src/dlink" }, { path: "libl" }, { path: "lib" }]) {
        await store.search(zebra(search)); // (kept once this search is answered)
        await sleep(50);
      }
      for (const search of [{ path: "src/dlink" }, { path: "libl" }, { path: "lib" }]) {
        const got = await outcome(store, zebra(search));
        assert.deepEqual(got, await outcome(plain, zebra(search)), search.path);
      }
    } finally {
      store.close();
      plain.close();
    }
  });

  test("keep a walk through an editor's save, also once the index is saved", {
    ...BUN_ONLY,
    timeout: 30_000,
  }, async () => {
    const root = makeTree(TREE);
    const cache = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "linewise-kept-")));
    roots.push(root, cache);
    const at = (name: string) => path.join(root, name);
    const store = await learnedStore(root, SEEN, 0, { searchThreads: 1, searchIndexCache: cache });
    const { listed } = hookListings(store, root);
    const savedAt = () => {
      const name = fs.readdirSync(cache).find((name) => name.endsWith(".index"));
      return name === undefined ? 0 : fs.statSync(path.join(cache, name)).mtimeMs;
    };
    try {
      await store.search(zebra({}));
      const before = savedAt();
      fs.writeFileSync(at("src/.a.ts.tmp"), "zebra saved\n");
      fs.renameSync(at("src/.a.ts.tmp"), at("src/a.ts"));
      await sleep(2 * REPEAT_WINDOW_MS);
      listed.length = 0;
      await store.search(zebra({}));
      assert.deepEqual(listed, [], "kept through the save");
      // (The index learns the file again and saves itself, a second or a few later.)
      for (let i = 0; i < 1_500 && savedAt() === before; i++) await sleep(10);
      assert.notEqual(savedAt(), before, "the index was saved");
      listed.length = 0;
      await store.search(zebra({}));
      assert.deepEqual(listed, [], "kept once the index was saved");
    } finally {
      store.close();
    }
  });

  test("keep no patched walk when another search heard a change while it was made", {
    ...BUN_ONLY,
  }, async () => {
    const { root, at } = newTree();
    const store = await learnedStore(root, SEEN, 0, { searchThreads: 1 });
    const hook = hookListings(store, root);
    const plain = await DirectoryStore.create({ roots: [root] });
    try {
      await store.search(zebra({}));
      fs.writeFileSync(at("src/new.ts"), "zebra\n"); // (the walk is patched: src listed again)
      await sleep(2 * REPEAT_WINDOW_MS);
      // While the patch lists src, a file is made in lib, and another search hears it: the
      // walk being patched never will.
      hook.before = {
        dir: "src",
        run: async () => {
          fs.writeFileSync(at("lib/late.ts"), "zebra made late\n");
          await sleep(2 * REPEAT_WINDOW_MS);
          await store.search(zebra({ path: "lib" }));
        },
      };
      await store.search(zebra({ path: "lib" }));
      await sleep(2 * REPEAT_WINDOW_MS);
      assert.deepEqual(await outcome(store, zebra({})), await outcome(plain, zebra({})));
    } finally {
      store.close();
      plain.close();
    }
  });

  test("keep no walk under way when another search heard a folder's mode change", {
    ...BUN_ONLY,
  }, async () => {
    const { root, at } = newTree();
    const store = await learnedStore(root, SEEN, 0, { searchThreads: 1 });
    const hook = hookListings(store, root);
    try {
      fs.rmSync(at("src/a.ts")); // (the kept walk goes)
      await sleep(2 * REPEAT_WINDOW_MS);
      // While the next search walks, the mode of a folder it lists changes, and another
      // search hears of it.
      hook.before = {
        dir: ".",
        run: async () => {
          fs.chmodSync(at("src/deep"), 0o700);
          await sleep(2 * REPEAT_WINDOW_MS);
          await store.search(zebra({ path: "lib" }));
        },
      };
      await store.search(zebra({}));
      await sleep(2 * REPEAT_WINDOW_MS);
      hook.listed.length = 0;
      await store.search(zebra({}));
      assert.ok(hook.listed.includes("src/deep"), `walked again: ${JSON.stringify(hook.listed)}`);
    } finally {
      fs.chmodSync(at("src/deep"), 0o755);
      store.close();
    }
  });

  test("keep a result while no change touches its walk or its files", BUN_ONLY, async () => {
    const { root, at } = newTree();
    const store = await learnedStore(root, SEEN, 0, { searchThreads: 1 });
    const plain = await DirectoryStore.create({ roots: [root] });
    /** Whether a search after `change` gave the very result kept before it (and the right one). */
    const keptAfter = async (change: () => void, search: Search = {}) => {
      const before = await store.search(zebra(search));
      change();
      await sleep(2 * REPEAT_WINDOW_MS); // (as above)
      const after = await store.search(zebra(search));
      assert.deepEqual(await outcome(store, zebra(search)), await outcome(plain, zebra(search)));
      return after === before;
    };
    try {
      await store.search(zebra({})); // (its walk kept, then its result)
      assert.equal(await keptAfter(() => {}), true, "nothing changed");
      assert.equal(
        await keptAfter(() => {
          fs.writeFileSync(at("gen/out.ts"), "zebra rewritten\n");
          fs.writeFileSync(at("src/app.log"), "zebra rewritten\n");
          fs.writeFileSync(at("gen/new.ts"), "zebra\n");
          fs.writeFileSync(at(".cache/k.ts"), "zebra rewritten\n");
        }),
        true,
        "ignored and hidden files written",
      );
      const ignored = { includeIgnored: true };
      assert.equal(
        await keptAfter(() => fs.writeFileSync(at("gen/out.ts"), "zebra again\n"), ignored),
        false,
        "a file of its walk written",
      );
      assert.equal(
        await keptAfter(() => fs.writeFileSync(at("lib/plain.ts"), "zebra now\n")),
        false,
        "a file of its walk written in place",
      );
      assert.equal(
        await keptAfter(() => fs.writeFileSync(at("lib/new.ts"), "nothing\n")),
        false,
        "a file made where its walk listed",
      );
      assert.equal(
        await keptAfter(() => fs.writeFileSync(at("src/deep/new.ts"), "zebra\n"), { path: "lib" }),
        true,
        "a file made outside a walk of lib",
      );
    } finally {
      store.close();
      plain.close();
    }
  });

  test("see changes inside .git, through a symlink and in a search of .git", BUN_ONLY, async () => {
    const root = makeTree({
      "src/a.ts": "zebra\n",
      ".git/notes.txt": "nothing yet\n",
      ".git/sub/more.txt": "nothing\n",
    });
    roots.push(root);
    fs.symlinkSync("../.git/notes.txt", path.join(root, "src/link.ts"));
    const at = (name: string) => path.join(root, name);
    const store = await learnedStore(root, 2, 0, { searchThreads: 1 });
    const plain = await DirectoryStore.create({ roots: [root] });
    const searches: Search[] = [{}, { path: ".git" }, { path: ".git/sub" }];
    const agree = async () => {
      for (const search of searches) {
        const want = await outcome(plain, zebra(search));
        assert.deepEqual(await outcome(store, zebra(search)), want, JSON.stringify(search));
      }
    };
    try {
      await agree();
      await agree(); // (kept, where they may be)
      fs.appendFileSync(at(".git/notes.txt"), "zebra now\n");
      fs.writeFileSync(at(".git/sub/new.txt"), "zebra\n");
      await agree();
      assert.match(JSON.stringify(await outcome(store, zebra({}))), /link\.ts/);
    } finally {
      store.close();
      plain.close();
    }
  });

  test("keep no walk inside .git, whose changes let a walk under way be kept", {
    ...BUN_ONLY,
  }, async () => {
    const root = makeTree({
      "src/a.ts": "zebra\n",
      ".git/a.txt": "zebra\n",
      ".git/sub/b.txt": "x\n",
    });
    roots.push(root);
    const at = (name: string) => path.join(root, name);
    const store = await learnedStore(root, 1, 0, { searchThreads: 1 });
    const plain = await DirectoryStore.create({ roots: [root] });
    const hook = hookListings(store, root);
    try {
      // While a walk of .git lists its last folder, a file comes in one it listed, and
      // another search hears of it.
      hook.before = {
        dir: ".git/sub",
        run: async () => {
          fs.writeFileSync(at(".git/late.txt"), "zebra late\n");
          await sleep(2 * REPEAT_WINDOW_MS);
          await store.search(zebra({}));
        },
      };
      await store.search(zebra({ path: ".git" }));
      const want = await outcome(plain, zebra({ path: ".git" }));
      assert.match(JSON.stringify(want), /late\.txt/);
      assert.deepEqual(await outcome(store, zebra({ path: ".git" })), want);
    } finally {
      store.close();
      plain.close();
    }
  });

  test("see changes to names that are not UTF-8", BUN_ONLY, async () => {
    const root = makeTree({ "src/ok.ts": "zebra\n" });
    roots.push(root);
    // (Bytes as the system has them: 0xff and a Latin-1 é are no UTF-8.)
    const at = (name: string) => Buffer.from(`${root}/${name}`, "latin1");
    fs.writeFileSync(at("src/bad\xff.ts"), "nothing\n");
    fs.mkdirSync(at("src/d\xe9"));
    fs.writeFileSync(at("src/d\xe9/f.ts"), "nothing\n");
    const store = await learnedStore(root, 3, 0, { searchThreads: 1 });
    const plain = await DirectoryStore.create({ roots: [root] });
    const agree = async (what: string) => {
      for (let i = 0; i < 2; i++) {
        const want = await outcome(plain, zebra({}));
        assert.deepEqual(await outcome(store, zebra({})), want, what);
      }
    };
    try {
      await agree("at first");
      fs.appendFileSync(at("src/bad\xff.ts"), "zebra\n");
      await agree("a file written");
      fs.appendFileSync(at("src/d\xe9/f.ts"), "zebra\n");
      await agree("a file written in a folder");
      fs.writeFileSync(at("src/d\xe9/new.ts"), "zebra\n");
      await agree("a file made in a folder");
      assert.equal((await store.search(zebra({}))).matchedLines, 4);
    } finally {
      store.close();
      plain.close();
    }
  });

  test("are touched by an entry where they listed, at their start or above it", () => {
    const dirs = (listed: string[], more: Partial<WalkDirs> = {}): WalkDirs => ({
      listed,
      ignoreFiles: [],
      unreadable: 0,
      linkedIgnoreFile: false,
      links: [],
      leads: [],
      skipped: ["/r/src/deep/.hidden", "/r/src/deep/x/ignored.log"],
      ...more,
    });
    // Walked: a.ts, x/b.ts and old.ts; on disk now: a.ts, x/b.ts, x/new.ts, x/dir/, x/link.
    const files = ["/r/src/deep/a.ts", "/r/src/deep/x/b.ts", "/r/src/deep/old.ts"]
      .map((key) => ({ key, display: key }));
    const disk: Record<string, EntryNow> = {
      "/r/src/deep/a.ts": "file",
      "/r/src/deep/x/b.ts": "file",
      "/r/src/deep/x/new.ts": "file",
      "/r/src/deep/x/dir": "directory",
      "/r/src/deep/x/link": "other",
    };
    const now = (path: string) => disk[path] ?? "none";
    const deep = dirs(["/r/src/deep", "/r/src/deep/x"]);
    /** What walkChanged says of the walk: false, true, or what a patch may add. */
    const changedIn = (walk: WalkDirs, moved: string[], paths = moved) =>
      walkChanged({ dirs: walk, files }, { moved: new Set(moved), paths: new Set(paths) }, now);
    // (Touched: to be made again, or patched.)
    const touched = (walk: WalkDirs, ...moved: string[]) => changedIn(walk, moved) !== false;
    const written = (walk: WalkDirs, ...paths: string[]) => changedIn(walk, [], paths) !== false;
    assert.equal(touched(deep), false, "nothing");
    assert.equal(touched(deep, "/r/src/deep/x/new.ts"), true, "a file made where it listed");
    assert.equal(touched(deep, "/r/src/deep/gone.ts"), false, "a file made and removed there");
    assert.equal(
      touched(deep, "/r/src/deep/a.ts", "/r/src/deep/.a.ts.tmp"),
      false,
      "a file it walked, written through a temporary file renamed over it",
    );
    assert.equal(touched(deep, "/r/src/deep/x/b.ts"), false, "a file it walked, made again");
    assert.equal(touched(deep, "/r/src/deep/old.ts"), true, "a file it walked, gone");
    assert.equal(touched(deep, "/r/src/deep/x/dir"), true, "a folder made where it listed");
    const changed = (...moved: string[]) => changedIn(deep, moved);
    assert.deepEqual(changed("/r/src/deep/x/new.ts", "/r/src/deep/x/dir", "/r/src/deep/gone.ts"), [
      { path: "/r/src/deep/x/new.ts", directory: false },
      { path: "/r/src/deep/x/dir", directory: true },
    ], "what a patch may add");
    assert.equal(changed("/r/src/deep/x/new.ts", "/r/src/deep/old.ts"), true, "and a file gone");
    assert.equal(changed("/r/src/deep/x/new.ts", "/r/src/deep/x/link"), true, "and a symlink");
    assert.equal(touched(deep, "/r/src/deep/x/link"), true, "a symlink made where it listed");
    assert.equal(touched(deep, "/r/src/deep/.hidden"), true, "a hidden file it left out, gone");
    assert.equal(touched(deep, "/r/src/deep/x/ignored.log"), true, "an ignored one, gone");
    assert.equal(touched(deep, "/r/src/deep/x/y/b.ts"), false, "below where it listed");
    assert.equal(touched(deep, "/r/src/deep/x"), true, "a folder it listed");
    assert.equal(touched(deep, "/r/src/deep"), true, "the start");
    assert.equal(touched(deep, "/r/src"), true, "above the start");
    assert.equal(touched(deep, "/r"), true, "the root");
    assert.equal(touched(deep, "/r/src/other.ts", "/r/src/deeper"), false, "beside the start");
    const fromDisk = dirs(deep.listed, { skipped: undefined });
    assert.equal(touched(fromDisk, "/r/src/deep/gone.ts"), true, "taken from disk: any");
    const unsure = dirs(["/r/src/deep"], { unreadable: 1 });
    assert.equal(touched(unsure, "/r/gen/a"), true, "one it could not open");
    assert.equal(touched(unsure), false, "one it could not open, no change");
    assert.equal(written(deep, "/r/src/deep/a.ts", "/r/gen/x"), false, "files written");
    assert.equal(written(deep, "/r/src/deep/x"), true, "a directory it listed (its mode)");
    assert.equal(written(deep, "/r/src"), true, "a directory above the start (its mode)");
    assert.equal(written(deep, "/r/src/other"), false, "a directory beside the start");
  });
});
