// Shared by the drawn-sequence tests of the search index (tests/search/index/_*_history_test.ts):
// each compares the searches of a store with an index against a store without one, on trees
// of near misses made on disk.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import fc from "fast-check";
import { literalMatcher, type Matcher } from "../../src/core/mod.ts";
import { DirectoryStore } from "../../src/disk/directory_store.ts";
import { WATCH_ORDER_KEPT } from "../../src/io/runtime.ts";
import { BLOCK_BYTES, RACY_MS } from "../../src/search/index/_block_filters.ts";
import type { SearchQuery, SearchResult } from "../../src/store/file_store.ts";

// (Generous time: on a loaded machine a test of real files and workers can take seconds.)
export const BUN_ONLY = {
  skip: WATCH_ORDER_KEPT ? false : "the search index runs only on Bun",
  timeout: 120_000,
};

/** An option left out two times in three, else one of `values`. */
export const sometimes = <T>(...values: T[]): fc.Arbitrary<T | undefined> =>
  fc.oneof(
    { weight: 2, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constantFrom(...values) },
  );

/** A search as drawn: a matcher (by its place in the pool) and options. */
export interface DrawnSearch {
  matcher: number;
  context?: number;
  rowCut?: number;
  maxMatches?: number;
  path?: string;
}

/**
 * Searches drawn from a pool of matchers, with context 1, rows cut, a small or large cap and
 * a folder each sometimes: the arbitrary, the query of a drawn search, and how it is told.
 *
 * @param matchers the pool, each with a name to tell it by
 * @param options the cuts and folders drawn from
 */
export function drawnSearches(
  matchers: Array<[string, () => Matcher]>,
  { rowCuts, paths }: { rowCuts: number[]; paths: string[] },
): {
  any: fc.Arbitrary<DrawnSearch>;
  queryOf: (search: DrawnSearch) => SearchQuery;
  told: (search: DrawnSearch) => string;
} {
  const any = fc.record({
    matcher: fc.nat({ max: matchers.length - 1 }),
    context: sometimes(1),
    rowCut: sometimes(...rowCuts),
    maxMatches: sometimes(2, 10_000),
    path: sometimes(...paths),
  }).map(({ matcher, ...options }) => {
    // (An option left out is no key: the searches are shown as JSON, and kept by it.)
    const drawn: DrawnSearch = { matcher };
    for (const [name, value] of Object.entries(options)) {
      if (value !== undefined) Object.assign(drawn, { [name]: value });
    }
    return drawn;
  });
  return {
    any,
    queryOf: ({ matcher, ...options }) => ({ matcher: matchers[matcher][1](), ...options }),
    told: ({ matcher, ...options }) => `search ${matchers[matcher][0]} ${JSON.stringify(options)}`,
  };
}

export const sleep = (ms: number): Promise<unknown> =>
  new Promise((resolve) => setTimeout(resolve, ms));

/** Files changed less than 2 s before they are indexed get no block filters. */
export const blocksLater = (): Promise<unknown> => sleep(RACY_MS + 100);

/** Bytes of each line of a large file (its newline included). */
const WIDTH = 40;
/** Lines of a large file: over 256 KiB (block filters), in five blocks. */
const BIG_LINES = 7_500;
/** The lines a large file holds its literals in (or its near misses), two in a row. */
export const BIG_HITS = [
  "function readSync(zebra) { walrus }",
  "from lib import createElement(x)",
];
export const BIG_NEAR = [
  "Syn ync nc( function zebr ebra walru",
  "CreateElement x; fro rom lib",
];

/** A line of exactly {@linkcode WIDTH} bytes. */
const padded = (text: string) => text.padEnd(WIDTH - 1, " ") + "\n";

/**
 * A large file (same size whatever it holds) with `lines` at the start of block `block`
 * (and `also` at the start of block `alsoAt`, if given).
 */
export function bigText(lines: string[], block: number, also?: string[], alsoAt?: number): string {
  const rows = Array.from(
    { length: BIG_LINES },
    (_, i) => padded(`let v${i} = compute(${i % 97});`),
  );
  const put = (what: string[], at: number) => {
    const first = Math.ceil((at * BLOCK_BYTES) / WIDTH) + 3;
    what.forEach((line, i) => rows[first + i] = padded(line));
  };
  put(lines, block);
  if (also !== undefined) put(also, alsoAt!);
  return rows.join("");
}

/**
 * Truncates a large file and writes it anew (the same inode, the same size), with its
 * literals or their near misses at the start of the block drawn (another one than before).
 *
 * @param root the tree
 * @param name the large file, in the tree
 * @param change whether it gets its literals ({@linkcode BIG_HITS}) or near misses, and the
 *   block drawn
 * @param blocks the block each large file (by name) holds them in, kept up to date
 * @returns the block it holds them in now
 */
export function rewriteBig(
  root: string,
  name: string,
  { holds, block }: { holds: boolean; block: number },
  blocks: Record<string, number>,
): number {
  const now = block === blocks[name] ? (block + 1) % 5 : block;
  blocks[name] = now;
  const fd = fs.openSync(path.join(root, name), "r+");
  try {
    fs.ftruncateSync(fd, 0);
    fs.writeSync(fd, bigText(holds ? BIG_HITS : BIG_NEAR, now), 0);
  } finally {
    fs.closeSync(fd);
  }
  return now;
}

/** A result without what only a file read as indexed has (its digest, and identity read with). */
export function bare(result: SearchResult): SearchResult {
  const files = result.files.map(({ sha1: _, identity: _identity, ...file }) => file);
  return { ...result, files };
}

/** A result with its rows' long texts cut short: what a failure shows first. */
export function brief(result: unknown): unknown {
  if (typeof result !== "object" || result === null || !("files" in result)) return result;
  const short = (text: string) =>
    text.length > 80 ? `${text.slice(0, 40)}… (${text.length})` : text;
  const files = (result as SearchResult).files.map((file) => ({
    ...file,
    rows: file.rows.map((row) => ({ ...row, text: short(row.text) })),
  }));
  return { ...result, files };
}

/** What a search gave: its result (bare), or the error it threw. */
export async function outcome(store: DirectoryStore, query: SearchQuery): Promise<unknown> {
  try {
    return bare(await store.search(query));
  } catch (error) {
    return { error: String(error) };
  }
}

/** Waits until `ready` holds (the index works in the background). */
export async function until(
  store: DirectoryStore,
  what: string,
  ready: () => boolean,
): Promise<void> {
  for (let i = 0; i < 2_500; i++) {
    if (ready()) return;
    await sleep(2);
  }
  assert.fail(`${what}: ${JSON.stringify(store.searchIndexStats())}`);
}

/** Waits until the store's index has learned the files queued (one search's, at least). */
export async function indexFilled(store: DirectoryStore): Promise<void> {
  await until(store, "the index did not fill", () => {
    const stats = store.searchIndexStats();
    return stats !== undefined && stats.queued + stats.indexing === 0 && stats.files > 0;
  });
}

/**
 * A store with an index that has learned every file of the tree (block filters for the large
 * ones), watches it, and keeps the walk of the whole tree: trusted from its next search on.
 *
 * @param files how many files the tree has
 * @param blocked how many of them are large enough for block filters
 * @param options the store's threads (1: a search of few files reads on its own anyway, and a
 *   store without a helper to start learns in half the time), and the folder of its cache
 */
export async function learnedStore(
  root: string,
  files: number,
  blocked: number,
  options: { searchThreads?: number; searchIndexCache?: string } = {},
): Promise<DirectoryStore> {
  const store = await DirectoryStore.create({ roots: [root], searchIndex: true, ...options });
  try {
    await store.search({ matcher: literalMatcher("nothing at all") }); // (it learns)
    await indexFilled(store);
    await until(store, "the walk was not made again", () => store.searchIndexStats()!.walks > 0);
    const stats = store.searchIndexStats()!;
    assert.equal(stats.files, files, JSON.stringify(stats));
    assert.equal(stats.blocked, blocked, JSON.stringify(stats));
    return store;
  } catch (error) {
    store.close();
    throw error;
  }
}

/**
 * Makes a tree of `files` (by path) in a new temporary directory, and returns its real path.
 *
 * @param wholeSeconds set each file's mtime to a whole second a minute ago
 */
export function makeTree(files: Record<string, string>, wholeSeconds = false): string {
  const second = Math.floor(Date.now() / 1000) - 60;
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "linewise-history-")));
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), text);
    if (wholeSeconds) fs.utimesSync(path.join(root, name), second, second);
  }
  return root;
}

/** The files under `root`, relative and in path order. */
export function filesOf(root: string): string[] {
  const found: string[] = [];
  const visit = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const name = dir === "" ? entry.name : `${dir}/${entry.name}`;
      if (entry.isDirectory()) visit(name);
      else found.push(name);
    }
  };
  visit("");
  return found.sort();
}
