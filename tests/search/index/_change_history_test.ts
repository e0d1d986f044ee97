// The search index (Bun only: see _tree_watcher.ts) forgets what the watcher reports changed
// at the start of every search: "every grep sees what changed on disk just before it". Drawn
// sequences interleave changes to the tree, made through the file system inside the root
// (new files, writes in place, appends, a temporary file renamed over one, deletions, moves
// to another directory, new directories, a second write within the same millisecond, a write
// that keeps the size and the mtime, a large file with block filters rewritten with its
// literals in another block), with searches, each checked against a store without an index
// searching the same tree at the same moment. Nothing waits between a change and the search
// after it: the watcher reports asynchronously, and the search must still see the change.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import fc from "fast-check";
import { literalMatcher, type Matcher, regexMatcher } from "../../../src/core/mod.ts";
import { DirectoryStore } from "../../../src/disk/directory_store.ts";
import { WATCH_ORDER_KEPT } from "../../../src/io/runtime.ts";
import {
  BLOCK_BYTES,
  BLOCKED_FROM_BYTES,
  RACY_MS,
} from "../../../src/search/index/_block_filters.ts";
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
  makeTree,
  outcome,
  rewriteBig,
} from "../../_helpers/index_history.ts";

/** Sequences drawn (about 0.15 s each: a new tree, and a new index that learns it). */
const NUM_RUNS = 25;

/**
 * The tree each sequence starts from: near misses of every literal searched for (every
 * trigram of it but not it, the needle without another literal every match holds, other
 * letter cases), and two large files with block filters.
 */
const TREE: Record<string, string> = {
  "src/sync_match.ts": "function readSync(a) {}\nexport function other() {}\n",
  "src/sync_near.ts": "readSync(a)\nfunc unct ction on \n",
  "src/sync_upper.ts": "FUNCTION READSYNC(1)\n",
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
  "big/hits.js": bigText(BIG_HITS, 1, BIG_NEAR, 3),
  "big/near.js": bigText(BIG_NEAR, 2),
};
const BIG_FILES = ["big/hits.js", "big/near.js"];
const DIRS = ["src", "src/deep", "lib", "big"];

/** Texts of small files: with each literal, or a near miss of it. */
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
  "nothing here\n",
  "the walrus swam\n",
  "FUNCTION WRITESYNC(1)\n",
];
/** Lines appended to a file. */
const LINES = [
  "zebra\n",
  "createElement(2)\n",
  "from x import y\n",
  "function bSync(2) {}\n",
  "an ordinary line\n",
  "WALRUS\n",
];
/**
 * Pairs of spellings of one length, one with a literal and one without: a write that swaps
 * one for the other keeps the file's size.
 */
const SWAPS: Array<[string, string]> = [
  ["createElement(", "createElement "],
  ["zebra", "zebr_"],
  ["walrus", "walrux"],
  ["Sync(", "Sync "],
  ["from ", "frum "],
];

/** The matchers a search is drawn from. */
const MATCHERS: Array<[string, () => Matcher]> = [
  ["literal createElement(", () => literalMatcher("createElement(")],
  ["regex function \\w+Sync\\(", () => regexMatcher("function \\w+Sync\\(")],
  ["regex zebra|walrus", () => regexMatcher("zebra|walrus")],
  ["regex -i CREATEELEMENT\\(", () => regexMatcher("CREATEELEMENT\\(", { ignoreCase: true })],
  ["regex ^from \\w+", () => regexMatcher("^from \\w+")],
  ["literal zebra", () => literalMatcher("zebra")],
  ["literal Sync(", () => literalMatcher("Sync(")],
  ["regex -i walrus", () => regexMatcher("walrus", { ignoreCase: true })],
];

/**
 * A change of a sequence, as drawn: `file` picks one of the files there are then (in path
 * order), `pick` a text, a line, a directory or a swap, `block` where a large file's literals
 * go, and `holds` whether they go there.
 */
interface Change {
  change:
    | "create"
    | "overwrite"
    | "append"
    | "replace"
    | "delete"
    | "move"
    | "mkdir"
    | "twice"
    | "coarse"
    | "big";
  file: number;
  pick: number;
  block: number;
  holds: boolean;
}

/** A step: a search, the previous search once more (identical), or a change. */
type Step = { search: DrawnSearch } | { again: true } | Change;

const { any: anySearch, queryOf, told: describeSearch } = drawnSearches(MATCHERS, {
  rowCuts: [2000],
  paths: ["src", "lib", "big"],
});

const anyChange: fc.Arbitrary<Change> = fc.record({
  change: fc.constantFrom<Change["change"]>(
    "create",
    "overwrite",
    "append",
    "replace",
    "delete",
    "move",
    "mkdir",
    "twice",
    "coarse",
    "big",
  ),
  file: fc.nat({ max: 99 }),
  pick: fc.nat({ max: 99 }),
  block: fc.nat({ max: 4 }),
  holds: fc.boolean(),
});

const anyStep: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: anySearch.map((search) => ({ search })) },
  { weight: 2, arbitrary: fc.constant({ again: true as const }) },
  { weight: 5, arbitrary: anyChange },
);

/**
 * Trees of {@linkcode TREE}, made ahead in batches: a large file gets block filters only when
 * it is older than {@linkcode RACY_MS} when indexed, and each sequence changes its tree.
 */
class Trees {
  #ready: string[] = [];
  #made: string[] = [];

  /** Makes `count` trees, and waits until their files are old enough for block filters. */
  async make(count: number): Promise<void> {
    for (let i = 0; i < count; i++) this.#ready.push(makeTree(TREE, true));
    this.#made.push(...this.#ready);
    await new Promise((resolve) => setTimeout(resolve, RACY_MS + 100));
  }

  /** A tree no sequence has changed (more are made when none is left, as a shrink asks). */
  async take(): Promise<string> {
    if (this.#ready.length === 0) await this.make(10);
    return this.#ready.shift()!;
  }

  /** Removes every tree (those a sequence used are removed already). */
  remove(): void {
    for (const root of this.#made) fs.rmSync(root, { recursive: true, force: true });
  }
}

/** What a sequence has done to its tree so far. */
interface Made {
  /** Files and directories made so far (their names must be new). */
  count: number;
  /** The file the last change touched. */
  last?: string;
  /** The block each large file holds its literals (or near misses) in. */
  blocks: Record<string, number>;
}

/**
 * Makes a change to the tree under `root`, through the file system.
 *
 * @returns what it did, for a failure to show
 */
function makeChange(root: string, change: Change, made: Made): string {
  const at = (name: string) => path.join(root, name);
  const files = filesOf(root);
  const target = files.length === 0 ? undefined : files[change.file % files.length];
  const text = TEXTS[change.pick % TEXTS.length];
  const short = (text: string) => JSON.stringify(text.length > 40 ? text.slice(0, 37) + "…" : text);
  const swapped = (text: string, pick: number) => {
    const [a, b] = SWAPS[pick % SWAPS.length];
    return text.includes(a) ? text.replaceAll(a, b) : text.replaceAll(b, a);
  };
  const write = (name: string, text: string) => fs.writeFileSync(at(name), text);
  const kind = target === undefined && change.change !== "mkdir" ? "create" : change.change;
  switch (kind) {
    case "create": {
      const name = `${DIRS[change.pick % DIRS.length]}/n${++made.count}.ts`;
      write(name, text);
      made.last = name;
      return `create ${name} with ${short(text)}`;
    }
    case "overwrite": // (the same file: O_TRUNC)
      write(target!, text);
      made.last = target;
      return `overwrite ${target} with ${short(text)}`;
    case "append": {
      const line = LINES[change.pick % LINES.length];
      fs.appendFileSync(at(target!), line);
      made.last = target;
      return `append ${short(line)} to ${target}`;
    }
    case "replace": // (a new file renamed over the old one)
      write(`${target}.tmp`, text);
      fs.renameSync(at(`${target}.tmp`), at(target!));
      made.last = target;
      return `replace ${target} by a new file with ${short(text)}`;
    case "delete":
      fs.rmSync(at(target!));
      made.last = undefined;
      return `delete ${target}`;
    case "move": {
      const from = path.posix.dirname(target!);
      const dirs = DIRS.filter((dir) => dir !== from);
      const to = `${dirs[change.pick % dirs.length]}/${path.posix.basename(target!)}`;
      fs.renameSync(at(target!), at(to));
      made.last = to;
      return `move ${target} to ${to}`;
    }
    case "mkdir": {
      const name = `new${++made.count}/file.ts`;
      fs.mkdirSync(at(path.posix.dirname(name)));
      write(name, text);
      made.last = name;
      return `make ${name} with ${short(text)}`;
    }
    case "twice": {
      // Two writes of one size back to back, to the file the last change touched if it is
      // still there: most likely within the same millisecond, and within Bun's repeat window.
      const name = made.last !== undefined && files.includes(made.last) ? made.last : target!;
      const one = change.pick % SWAPS.length;
      const other = (one + 1 + (change.file % (SWAPS.length - 1))) % SWAPS.length;
      const first = swapped(fs.readFileSync(at(name), "utf8"), one);
      write(name, first);
      write(name, swapped(first, other));
      made.last = name;
      return `write ${name} twice at one size (${SWAPS[one][0]}, then ${SWAPS[other][0]} swapped)`;
    }
    case "coarse": {
      // A write that keeps the size, and the mtime's second (set back to it, as a file
      // system with a clock of seconds keeps it: the tree's files start on whole seconds).
      const { atime, mtimeMs } = fs.statSync(at(target!));
      const [literal] = SWAPS[change.pick % SWAPS.length];
      write(target!, swapped(fs.readFileSync(at(target!), "utf8"), change.pick));
      fs.utimesSync(at(target!), atime, Math.floor(mtimeMs / 1000));
      made.last = target;
      return `write ${target} at its size and mtime's second (${literal} swapped)`;
    }
    case "big": {
      // A large file truncated and written anew, at its size, with its literals (or its near
      // misses) at the start of another block.
      const name = BIG_FILES[change.pick % BIG_FILES.length];
      if (!files.includes(name)) return `(no ${name} to rewrite)`;
      const block = rewriteBig(root, name, change, made.blocks);
      made.last = name;
      return `truncate ${name}, and write it with its ${
        change.holds ? "literals" : "near misses"
      } in block ${block}`;
    }
  }
}

describe("the search index, as the tree changes between searches", () => {
  const trees = new Trees();

  /**
   * Runs the steps in order on a new tree and a new index that has learned it; every search
   * is checked against a store without an index at once, and every matcher at the end.
   */
  async function agree(steps: Step[]): Promise<void> {
    const root = await trees.take();
    const files = Object.keys(TREE).length;
    const store = await learnedStore(root, files, BIG_FILES.length, { searchThreads: 1 });
    const plain = await DirectoryStore.create({ roots: [root] });
    try {
      const done: string[] = [];
      const made: Made = { count: 0, blocks: { "big/hits.js": 1, "big/near.js": 2 } };
      let previous: DrawnSearch | undefined;
      const check = async (search: DrawnSearch) => {
        done.push(describeSearch(search));
        const got = await outcome(store, queryOf(search));
        const want = await outcome(plain, queryOf(search));
        const message = `steps:\n  ${done.join("\n  ")}`;
        assert.deepEqual(brief(got), brief(want), message);
        assert.deepEqual(got, want, message);
      };
      for (const step of steps) {
        if ("search" in step || "again" in step) {
          const search = "search" in step ? step.search : previous ?? { matcher: 0 };
          await check(search);
          previous = search;
        } else done.push(makeChange(root, step, made));
      }
      for (let matcher = 0; matcher < MATCHERS.length; matcher++) {
        await check({ matcher, maxMatches: 10_000 });
      }
    } finally {
      store.close();
      plain.close();
      fs.rmSync(root, { recursive: true, force: true });
    }
  }

  before(async () => {
    if (!WATCH_ORDER_KEPT) return;
    for (const name of BIG_FILES) {
      const size = new TextEncoder().encode(TREE[name]).length;
      assert.ok(size > BLOCKED_FROM_BYTES && size < 5 * BLOCK_BYTES, `${name}: ${size}`);
    }
    await trees.make(NUM_RUNS);
  }, { timeout: 60_000 });
  after(() => trees.remove());

  test("gives what a store without it gives, whatever changed just before", BUN_ONLY, async () => {
    await fc.assert(fc.asyncProperty(fc.array(anyStep, { minLength: 4, maxLength: 10 }), agree), {
      numRuns: NUM_RUNS,
    });
  });
});
