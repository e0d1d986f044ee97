// The search index kept on disk, across server generations (Bun only: see _tree_watcher.ts).
// Store A indexes a tree of near misses (every trigram of a literal without the literal, the
// needle without another literal every match holds, other letter cases, large files with
// block filters, a CRLF file, a file changed just before it was indexed) and saves its cache;
// A is closed. Drawn changes are then made while no store runs (writes in place that keep the
// size, some with the mtime put back so that only the ctime tells, appends, renames over
// another file, deletions, new files, a file replaced by a new inode of the same size and
// mtime, a large file rewritten with its literals in another block, a file changed within
// the second it was indexed in), and while store B loads the cache (right after it starts,
// before its first search). Every search of B is checked against a store without an index
// searching the same tree at the same moment; then, sometimes, after more changes, so is
// every search of a third store C, which loads what B saved (or what A did).
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import fc from "fast-check";
import { literalMatcher, type Matcher, regexMatcher } from "../../../src/core/mod.ts";
import { DirectoryStore } from "../../../src/disk/directory_store.ts";
import {
  BLOCK_BYTES,
  BLOCKED_FROM_BYTES,
  RACY_MS,
} from "../../../src/search/index/_block_filters.ts";
import { type CachedIndex, loadIndex } from "../../../src/search/index/_index_cache.ts";
import {
  BIG_HITS,
  BIG_NEAR,
  bigText,
  brief,
  BUN_ONLY,
  type DrawnSearch,
  drawnSearches,
  filesOf,
  learnedStore,
  outcome,
  rewriteBig,
  sleep,
  until,
} from "../../_helpers/index_history.ts";

/**
 * Sequences drawn. Their trees and the caches of their stores A are made ahead, together
 * (each waits {@linkcode RACY_MS} for block filters, and about a second for its save); then
 * about 0.2 s each, and 1-2 s more for one with a third store that waits for B's save.
 */
const NUM_RUNS = 10;

/** The file written again (in place, at its size) just before store A indexes it. */
const RACY_FILE = "lib/racy.ts";

/** The tree each sequence starts from. */
const TREE: Record<string, string> = {
  "src/sync_match.ts": "function readSync(a) {}\nexport function other() {}\n",
  "src/sync_near.ts": "readSync(a)\nfunc unct ction on \n",
  "src/sync_trigrams.ts": "function other() {}\nSyn ync nc( Sync \n",
  "src/sync_upper.ts": "FUNCTION READSYNC(1)\n",
  "src/crlf.ts": "function aSync(x) {\r\n  return createElement(1);\r\n}\r\nfrom crlf\r\n",
  "src/fn.ts": "function a() {}\nfunction b() {}\n",
  "src/from.py": "from os import path\nimport sys\n",
  "src/from_near.py": "  from os import path\nfro rom os\n",
  "src/deep/ce_match.ts": 'const a = createElement("div");\nwalrus\n',
  "src/deep/ce_near.ts": "createElement x; print(1)\n",
  "lib/ce_upper.ts": "CreateElement(1)\nx = CREATEELEMENT(2)\n",
  "lib/zebra.txt": "zebra 1\nzebra\n",
  "lib/zebra_near.txt": "zebr ebra walru alrus\n",
  "lib/walrus.txt": "the walrus said\n",
  "lib/plain.txt": "nothing to see\n",
  // Each needle with its last character another one that no other file's text holds: a
  // write that swaps it for the needle's gives the file a trigram its filter lacked.
  "src/deep/ce_hash.ts": 'const h = createElement#"p");\n',
  "src/sync_hash.ts": "function loadSync#x) {}\n",
  "src/from_hash.py": "from#os import path\n",
  "lib/zebra_hash.txt": "zebr# and walru#\n",
  [RACY_FILE]: "function rSync(q) {}\nzebra\n",
  "big/hits.js": bigText(BIG_HITS, 1, BIG_NEAR, 3),
  "big/near.js": bigText(BIG_NEAR, 2),
};
const BIG_FILES = ["big/hits.js", "big/near.js"];
const DIRS = ["src", "src/deep", "lib", "big"];

/** Texts of new files: with each literal, or a near miss of it. */
const TEXTS = [
  'const b = createElement("span");\n',
  "createElement x; print(1)\n",
  "function writeSync(b) {}\n",
  "writeSync(b)\nfunc unct ction on \n",
  "zebra 2\n",
  "zebr ebra walru alrus\n",
  "from sys import argv\n",
  "  from sys import argv\n",
  "CreateElement(3)\nZEBRA\n",
  "the walrus swam\r\nfrom crlf\r\n",
];
/** Lines appended to a file. */
const LINES = [
  "zebra\n",
  "createElement(2)\n",
  "from x import y\n",
  "function bSync(2) {}\n",
  "an ordinary line\n",
  "WALRUS\r\n",
];
/**
 * Pairs of spellings of one length, one with a literal and one without: a write that swaps
 * one for the other keeps the file's size.
 */
const SWAPS: Array<[string, string]> = [
  ["createElement(", "createElement#"],
  ["zebra", "zebr#"],
  ["walrus", "walru#"],
  ["Sync(", "Sync#"],
  ["from ", "from#"],
  ["createElement(", "createElement "],
  ["zebra", "zebr_"],
  ["Sync(", "Sync "],
  ["CREATE", "create"],
];

/** The matchers a search is drawn from. */
const MATCHERS: Array<[string, () => Matcher]> = [
  ["literal createElement(", () => literalMatcher("createElement(")],
  ["regex function \\w+Sync\\(", () => regexMatcher("function \\w+Sync\\(")],
  ["regex zebra|walrus", () => regexMatcher("zebra|walrus")],
  ["regex createElement\\(|walrus", () => regexMatcher("createElement\\(|walrus")],
  ["regex -i CREATEELEMENT\\(", () => regexMatcher("CREATEELEMENT\\(", { ignoreCase: true })],
  ["regex ^from \\w+", () => regexMatcher("^from \\w+")],
  ["literal zebra", () => literalMatcher("zebra")],
  ["literal Sync(", () => literalMatcher("Sync(")],
  ["regex -i walrus", () => regexMatcher("walrus", { ignoreCase: true })],
];

/**
 * A change, as drawn: `file` and `other` pick files there are then (in path order), `pick`
 * a text, a line, a directory or a swap, `block` where a large file's literals go, `holds`
 * whether they go there, `keepTimes` whether a large file's mtime is put back.
 */
interface Change {
  change:
    | "sameSize"
    | "sameTimes"
    | "append"
    | "renameOver"
    | "delete"
    | "create"
    | "newInode"
    | "big"
    | "racy";
  file: number;
  other: number;
  pick: number;
  block: number;
  holds: boolean;
  keepTimes: boolean;
}

/**
 * A store's life: changes made before it starts, changes made right after it starts (after
 * `delay`: -1 none, 0 a timer's turn, else ms) while it loads the cache, then searches.
 */
interface Generation {
  before: Change[];
  delay: number;
  during: Change[];
  /** The threads it checks the cache with (1: its own only). */
  threads: number;
  searches: DrawnSearch[];
}

/** Store B's generation, and maybe C's (`saved`: it waits for B to save the cache first). */
interface Run {
  b: Generation;
  c?: Generation & { saved: boolean };
}

const { any: anySearch, queryOf, told: describeSearch } = drawnSearches(MATCHERS, {
  rowCuts: [2000],
  paths: ["src", "lib", "big"],
});

/**
 * The kinds of change, weighted: those only a file's ctime (or inode) tells come more often,
 * as a stale filter trusted shows only when the change gives the file a literal it lacked.
 */
const KINDS: Array<[Change["change"], number]> = [
  ["sameTimes", 3],
  ["newInode", 2],
  ["big", 2],
  ["racy", 1],
  ["sameSize", 1],
  ["append", 1],
  ["renameOver", 1],
  ["delete", 1],
  ["create", 1],
];

const anyChange: fc.Arbitrary<Change> = fc.record({
  change: fc.oneof(...KINDS.map(([kind, weight]) => ({ weight, arbitrary: fc.constant(kind) }))),
  // (Without bias: a biased draw picks the first few files in path order most of the time.)
  file: fc.noBias(fc.nat({ max: 99 })),
  other: fc.noBias(fc.nat({ max: 99 })),
  pick: fc.noBias(fc.nat({ max: 99 })),
  block: fc.nat({ max: 4 }),
  holds: fc.boolean(),
  keepTimes: fc.boolean(),
});

const anyGeneration: fc.Arbitrary<Generation> = fc.record({
  before: fc.array(anyChange, { maxLength: 4 }),
  delay: fc.constantFrom(-1, 0, 2, 10),
  during: fc.array(anyChange, { maxLength: 3 }),
  threads: fc.constantFrom(1, 2),
  searches: fc.array(anySearch, { minLength: 1, maxLength: 4 }),
});

const anyRun: fc.Arbitrary<Run> = fc.record({
  b: anyGeneration,
  c: fc.option(
    fc.record({ saved: fc.boolean() }).chain(({ saved }) =>
      anyGeneration.map((generation) => ({ ...generation, saved }))
    ),
    { freq: 2, nil: undefined },
  ),
}, { requiredKeys: ["b"] });

/** The cache file in `cache` (a folder of one root's), if written. */
function cacheFileIn(cache: string): string | undefined {
  if (!fs.existsSync(cache)) return undefined;
  const name = fs.readdirSync(cache).find((name) => name.endsWith(".index"));
  return name === undefined ? undefined : path.join(cache, name);
}

/** What a cache file holds (its scope is the one written in it). */
function loaded(file: string): CachedIndex | undefined {
  const bytes = fs.readFileSync(file);
  const length = bytes.readUInt32LE(8);
  return loadIndex(file, bytes.subarray(12, 12 + length).toString());
}

/**
 * Makes a tree of {@linkcode TREE} in a new temporary directory, each file's mtime a whole
 * second, and returns its real path.
 */
function makeTree(): string {
  const second = Math.floor(Date.now() / 1000) - 60;
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "linewise-generations-")));
  for (const [name, text] of Object.entries(TREE)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), text);
    fs.utimesSync(path.join(root, name), second, second);
  }
  return root;
}

/**
 * Store A: writes {@linkcode RACY_FILE} again (at its size, its mtime this second), indexes
 * the whole tree (block filters for the large files), waits until the cache file in `cache`
 * holds the walk of the tree, and is closed.
 */
async function firstGeneration(root: string, cache: string): Promise<void> {
  const racy = path.join(root, RACY_FILE);
  fs.writeFileSync(racy, TREE[RACY_FILE]);
  const second = Math.floor(Date.now() / 1000);
  fs.utimesSync(racy, second, second);
  const store = await learnedStore(root, Object.keys(TREE).length, BIG_FILES.length, {
    searchIndexCache: cache,
    searchThreads: 1,
  });
  try {
    for (let i = 0; i < 1_000; i++) {
      const file = cacheFileIn(cache);
      const held = file === undefined ? undefined : loaded(file);
      if (held !== undefined && held.walks.length > 0) {
        assert.equal(held.blocks.size, BIG_FILES.length, "the large files' block filters");
        return;
      }
      await sleep(10);
    }
    assert.fail("store A saved no cache with a walk");
  } finally {
    store.close();
  }
}

/** A tree and the folder where store A kept its index. */
interface Prepared {
  root: string;
  cache: string;
}

/** Trees indexed by their store A, made ahead in batches (each sequence changes its tree). */
class Trees {
  #ready: Prepared[] = [];
  #made: string[] = [];

  /** Makes `count` trees, waits until they are old enough for block filters, and indexes them. */
  async make(count: number): Promise<void> {
    const batch: Prepared[] = [];
    for (let i = 0; i < count; i++) {
      const root = makeTree();
      const cache = path.join(
        fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "linewise-generations-cache-"))),
        "linewise",
      );
      this.#made.push(root, path.dirname(cache));
      batch.push({ root, cache });
    }
    await sleep(RACY_MS + 100);
    await Promise.all(batch.map(({ root, cache }) => firstGeneration(root, cache)));
    this.#ready.push(...batch);
  }

  /** A tree no sequence has changed (more are made when none is left, as a shrink asks). */
  async take(): Promise<Prepared> {
    if (this.#ready.length === 0) await this.make(6);
    return this.#ready.shift()!;
  }

  /** Removes every tree and cache folder. */
  remove(): void {
    for (const dir of this.#made) fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** What a sequence has done to its tree so far. */
interface Made {
  /** Files made so far (their names must be new). */
  count: number;
  /** The block each large file holds its literals (or near misses) in. */
  blocks: Record<string, number>;
}

/** `text` at its length, with a literal swapped for its near miss (or back). */
function swapped(text: string, pick: number): string {
  for (let i = 0; i < SWAPS.length; i++) {
    const [a, b] = SWAPS[(pick + i) % SWAPS.length];
    if (text.includes(a)) return text.replaceAll(a, b);
    if (text.includes(b)) return text.replaceAll(b, a);
  }
  return (text[0] === "z" ? "y" : "z") + text.slice(1);
}

/**
 * Makes a change to the tree under `root`, through the file system.
 *
 * @returns what it did, for a failure to show
 */
function makeChange(root: string, change: Change, made: Made): string {
  const at = (name: string) => path.join(root, name);
  const files = filesOf(root);
  const target = files[change.file % files.length];
  const short = (text: string) => JSON.stringify(text.length > 40 ? text.slice(0, 37) + "…" : text);
  const kind = files.length === 0 ? "create" : change.change;
  switch (kind) {
    case "sameSize": // (in place, O_TRUNC: the mtime changes)
      fs.writeFileSync(at(target), swapped(fs.readFileSync(at(target), "utf8"), change.pick));
      return `write ${target} at its size`;
    case "sameTimes": {
      // At its size, its times put back: only the ctime tells.
      const { atime, mtime } = fs.statSync(at(target));
      fs.writeFileSync(at(target), swapped(fs.readFileSync(at(target), "utf8"), change.pick));
      fs.utimesSync(at(target), atime, mtime);
      return `write ${target} at its size, its times put back`;
    }
    case "append": {
      const line = LINES[change.pick % LINES.length];
      fs.appendFileSync(at(target), line);
      return `append ${short(line)} to ${target}`;
    }
    case "renameOver": {
      const others = files.filter((name) => name !== target);
      if (others.length === 0) return `(no file to rename ${target} over)`;
      const over = others[change.other % others.length];
      fs.renameSync(at(target), at(over));
      return `rename ${target} over ${over}`;
    }
    case "delete":
      fs.rmSync(at(target));
      return `delete ${target}`;
    case "create": {
      const name = `${DIRS[change.other % DIRS.length]}/n${++made.count}.ts`;
      const text = TEXTS[change.pick % TEXTS.length];
      fs.writeFileSync(at(name), text);
      return `create ${name} with ${short(text)}`;
    }
    case "newInode": {
      // A new file of the same size and times renamed over it.
      const { atime, mtime } = fs.statSync(at(target));
      const temp = at(`${target}.tmp`);
      fs.writeFileSync(temp, swapped(fs.readFileSync(at(target), "utf8"), change.pick));
      fs.utimesSync(temp, atime, mtime);
      fs.renameSync(temp, at(target));
      return `replace ${target} by a new inode of its size and times`;
    }
    case "big": {
      // A large file truncated and written anew, at its size, with its literals (or its near
      // misses) at the start of another block.
      const name = BIG_FILES[change.pick % BIG_FILES.length];
      if (!files.includes(name)) return `(no ${name} to rewrite)`;
      const { atime, mtime } = fs.statSync(at(name));
      const block = rewriteBig(root, name, change, made.blocks);
      if (change.keepTimes) fs.utimesSync(at(name), atime, mtime);
      return `rewrite ${name} with its ${
        change.holds ? "literals" : "near misses"
      } in block ${block}${change.keepTimes ? ", its times put back" : ""}`;
    }
    case "racy": {
      // The file written just before store A indexed it, written again at its size with its
      // mtime in the second it was indexed in.
      if (!files.includes(RACY_FILE)) return `(no ${RACY_FILE})`;
      const { atime, mtime } = fs.statSync(at(RACY_FILE));
      fs.writeFileSync(at(RACY_FILE), swapped(fs.readFileSync(at(RACY_FILE), "utf8"), change.pick));
      fs.utimesSync(at(RACY_FILE), atime, mtime);
      return `write ${RACY_FILE} at its size, in the second it was indexed in`;
    }
  }
}

describe("the search index's cache, across stores that follow one another", () => {
  const trees = new Trees();
  after(() => trees.remove());

  /**
   * Runs store B's generation (then C's) on a tree indexed by store A; every search is
   * checked against a store without an index at once, and every matcher at each store's end.
   */
  async function agree(run: Run): Promise<void> {
    const { root, cache } = await trees.take();
    const plain = await DirectoryStore.create({ roots: [root] });
    const done: string[] = [];
    const made: Made = { count: 0, blocks: { "big/hits.js": 1, "big/near.js": 2 } };
    const check = async (store: DirectoryStore, search: DrawnSearch) => {
      done.push(describeSearch(search));
      const got = await outcome(store, queryOf(search));
      const want = await outcome(plain, queryOf(search));
      const message = `steps:\n  ${done.join("\n  ")}`;
      assert.deepEqual(brief(got), brief(want), message);
      assert.deepEqual(got, want, message);
    };
    const generation = async (name: string, drawn: Generation) => {
      for (const change of drawn.before) done.push(makeChange(root, change, made));
      const store = await DirectoryStore.create({
        roots: [root],
        searchIndex: true,
        searchIndexCache: cache,
        searchThreads: drawn.threads,
      });
      try {
        done.push(`store ${name} starts (${drawn.threads} threads)`);
        if (drawn.delay >= 0) await sleep(drawn.delay);
        if (drawn.during.length > 0) {
          done.push(
            drawn.delay < 0 ? "  (at once, while it loads)" : `  (${drawn.delay} ms later)`,
          );
        }
        for (const change of drawn.during) done.push(makeChange(root, change, made));
        await until(store, "the cache was not loaded", () => !store.searchIndexStats()!.loading);
        const { files, walks } = store.searchIndexStats()!;
        done.push(`  (store ${name} took ${files} files and ${walks} walks from the cache)`);
        assert.ok(files > 0, `store ${name} took nothing from the cache`);
        for (const search of drawn.searches) await check(store, search);
        for (let matcher = 0; matcher < MATCHERS.length; matcher++) {
          await check(store, { matcher, maxMatches: 10_000 });
        }
        return store;
      } catch (error) {
        store.close();
        throw error;
      }
    };
    try {
      const savedAt = () => {
        const file = cacheFileIn(cache);
        return file === undefined ? 0 : fs.statSync(file).mtimeMs;
      };
      const before = savedAt();
      const b = await generation("B", run.b);
      if (run.c?.saved) {
        for (let i = 0; i < 150 && savedAt() === before; i++) await sleep(10);
        done.push(savedAt() === before ? "(B saved nothing yet)" : "(B saved the cache)");
      }
      b.close();
      if (run.c !== undefined) (await generation("C", run.c)).close();
    } finally {
      plain.close();
      fs.rmSync(root, { recursive: true, force: true });
      fs.rmSync(path.dirname(cache), { recursive: true, force: true });
    }
  }

  test(
    "a store that loads it gives what a store without an index gives, whatever changed",
    BUN_ONLY,
    async () => {
      for (const name of BIG_FILES) {
        const size = new TextEncoder().encode(TREE[name]).length;
        assert.ok(size > BLOCKED_FROM_BYTES && size < 5 * BLOCK_BYTES, `${name}: ${size}`);
      }
      await trees.make(NUM_RUNS);
      await fc.assert(fc.asyncProperty(anyRun, agree), {
        numRuns: NUM_RUNS,
        // (A shrink takes a new tree for each try, and a batch of them waits for the racy
        // window: after a failure, the counterexample found by then is shown.)
        interruptAfterTimeLimit: 60_000,
      });
    },
  );
});
