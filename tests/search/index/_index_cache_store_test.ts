// A store that starts from the search index kept on disk: whatever the cache file holds
// (whole, corrupt, cut short, another user's, stale, changed within the racy window) and
// whatever changes while it loads, every answer is the one a store without an index gives.
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import process from "node:process";
import { after, before, describe, test } from "node:test";
import { literalMatcher, type Matcher, regexMatcher } from "../../../src/core/mod.ts";
import { DirectoryStore, type DirectoryStoreOptions } from "../../../src/disk/directory_store.ts";
import { Sandbox } from "../../../src/disk/sandbox.ts";
import { WARM_UP_SEARCHES } from "../../../src/disk/_warm_up.ts";
import type { SearchQuery, SearchResult } from "../../../src/store/file_store.ts";
import { WATCH_ORDER_KEPT } from "../../../src/io/runtime.ts";
import { loadIndex, RACY_MS, saveIndex } from "../../../src/search/index/_index_cache.ts";
import { trigramFilter } from "../../../src/search/index/_trigram_filter.ts";
import { IDENTITY_WORDS } from "../../../src/io/file_identity.ts";
import { openFileSystem } from "../../../src/io/file_system.ts";
import { defaultSearchThreads } from "../../../src/search/_search_pool.ts";
import { IdentityCheck } from "../../../src/search/index/_cache_checks.ts";

const BUN_ONLY = {
  skip: WATCH_ORDER_KEPT ? false : "the search index runs only on Bun",
  timeout: 120_000,
};

const QUERIES: Array<[string, () => Matcher, { glob?: string; includeIgnored?: boolean }]> = [
  ["a literal", () => literalMatcher("createElement("), {}],
  ["a regex", () => regexMatcher("const \\w+ = createElement"), {}],
  ["ignore case", () => regexMatcher("CREATEELEMENT", { ignoreCase: true }), {}],
  ["alternatives", () => regexMatcher("createElement\\(|export const \\w+ ="), {}],
  ["a glob", () => literalMatcher("createElement("), { glob: "sub/**" }],
  ["ignored files too", () => literalMatcher("createElement("), { includeIgnored: true }],
  ["nothing", () => literalMatcher("no such text anywhere"), {}],
];

function tempDir(name: string): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `linewise-${name}-`)));
}

/** A tree of small files in a few directories, a .gitignore and an ignored file. */
function tempTree(): string {
  const root = tempDir("cached");
  for (const dir of ["sub", "sub/deep", "empty", "other"]) fs.mkdirSync(path.join(root, dir));
  for (let i = 0; i < 60; i++) {
    const dir = ["", "sub", "sub/deep", "other"][i % 4];
    const body = i % 5 === 0 ? `const x${i} = createElement("div");\n` : `let y${i} = ${i};\n`;
    const filler = "// a line of filler\n".repeat(i % 7);
    fs.writeFileSync(path.join(root, dir, `f${String(i).padStart(3, "0")}.ts`), body + filler);
  }
  // A large file, with block filters: one match near its start, one near its end.
  const filler = "let filler = 'a line of a large file';\n".repeat(8_000);
  fs.writeFileSync(
    path.join(root, "sub/large.js"),
    `createElement("top");\n${filler}createElement("bottom");\n${filler}`,
  );
  fs.writeFileSync(path.join(root, ".gitignore"), "*.log\n");
  fs.writeFileSync(path.join(root, "sub/trace.log"), "createElement(logged)\n");
  return root;
}

/** Everything of a tree (but symlinks) set an hour back; its ctimes are now, hence the wait. */
async function age(root: string): Promise<void> {
  const old = new Date(Date.now() - 3_600_000);
  const all = (dir: string): string[] =>
    fs.readdirSync(dir).flatMap((name) => {
      const file = path.join(dir, name);
      const stat = fs.lstatSync(file);
      if (stat.isSymbolicLink()) return [];
      return stat.isDirectory() ? [...all(file), file] : [file];
    });
  for (const file of [...all(root), root]) fs.utimesSync(file, old, old);
  await new Promise((resolve) => setTimeout(resolve, RACY_MS + 100));
}

/**
 * The store's answers to every query. A large file's digest, which only an index gives, must
 * be its bytes' SHA-1, and the identity given with it the file's; both are then left out of
 * the comparison.
 */
async function answers(store: DirectoryStore, root?: string): Promise<unknown[]> {
  const out = [];
  for (const [, matcher, options] of QUERIES) {
    const result = await store.search({ matcher: matcher(), maxMatches: 10_000, ...options });
    const files = [];
    for (const { sha1, identity, ...file } of result.files) {
      if (sha1 !== undefined && root !== undefined) {
        const bytes = fs.readFileSync(path.join(root, file.path));
        assert.equal(sha1, createHash("sha1").update(bytes).digest("hex"), file.path);
      }
      if (identity !== undefined) {
        assert.equal(identity, (await store.stat(file.path)).identity, file.path);
      }
      files.push(file);
    }
    out.push({ ...result, files });
  }
  return out;
}

const cacheFileIn = (cache: string) =>
  path.join(cache, fs.readdirSync(cache).find((name) => name.endsWith(".index"))!);

/** A store that indexes the tree, and waits until its cache file holds a walk. */
async function saveCache(root: string, cache: string): Promise<string> {
  fs.rmSync(cache, { recursive: true, force: true });
  const store = await DirectoryStore.create({
    roots: [root],
    searchIndex: true,
    searchIndexCache: cache,
  });
  try {
    await answers(store);
    for (let i = 0; i < 1000; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      if (fs.existsSync(cache) && fs.readdirSync(cache).some((name) => name.endsWith(".index"))) {
        break;
      }
    }
    const file = cacheFileIn(cache);
    assert.ok(file, "the cache file was written");
    return file;
  } finally {
    store.close();
  }
}

/** What a cache file holds (its scope is the one written in it). */
function loaded(file: string) {
  const bytes = fs.readFileSync(file);
  const length = bytes.readUInt32LE(8);
  return loadIndex(file, bytes.subarray(12, 12 + length).toString())!;
}

describe("a store that starts from the cache", () => {
  let root: string;
  let cache: string;
  let plain: DirectoryStore;
  before(async () => {
    root = tempTree();
    await age(root);
    cache = path.join(tempDir("cache"), "linewise");
    plain = await DirectoryStore.create({ roots: [root] });
  });
  after(() => {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(path.dirname(cache), { recursive: true, force: true });
  });

  const loading = () =>
    DirectoryStore.create({ roots: [root], searchIndex: true, searchIndexCache: cache });

  /**
   * A new store's answers, and whether it took a walk from the cache (it starts from the
   * cache right after it is made, its stats say until when).
   */
  async function answersFromCache(): Promise<{ answers: unknown[]; used: boolean }> {
    const store = await loading();
    try {
      for (let i = 0; i < 1000 && store.searchIndexStats()!.loading; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const stats = store.searchIndexStats()!;
      assert.equal(stats.loading, false, "done starting from the cache");
      const used = stats.walks > 0;
      if (used) assert.equal(stats.blocked, 1, "the large file's block filters taken");
      return { answers: await answers(store, root), used };
    } finally {
      store.close();
    }
  }

  test("is written with the filters and the walks", BUN_ONLY, async () => {
    const file = await saveCache(root, cache);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    const held = loaded(file);
    const ts = held.keys.filter((key) => key.endsWith(".ts"));
    assert.equal(ts.length, 60, "every file indexed");
    const large = held.keys.indexOf(path.join(root, "sub/large.js"));
    assert.deepEqual([...held.blocks.keys()], [large], "the large file's block filters");
    assert.ok(held.keys.includes(path.join(root, "sub/trace.log")), "the walk with ignored files");
    const keys = held.walks.map((walk) => JSON.parse(walk.key));
    assert.deepEqual(keys.map(([start]) => start), held.walks.map(() => root));
    assert.ok(keys.some(([, rules]) => rules.glob === "sub/**"), "the walk of a glob");
    for (const walk of held.walks) assert.ok(walk.dirs.listed.includes(path.join(root, "empty")));
  });

  test(
    "answers as a store without an index, with the cache whole, corrupt or cut",
    BUN_ONLY,
    async () => {
      const file = await saveCache(root, cache);
      const good = fs.readFileSync(file);
      const expected = await answers(plain);
      let seed = 11;
      const pick = (n: number) => (seed = (seed * 16807) % 2147483647) % n;
      for (let round = 0; round < 12; round++) {
        const bytes = Buffer.from(good);
        if (round % 3 === 1) bytes[pick(bytes.length)] ^= 1 + pick(255);
        const written = round % 3 === 2 ? bytes.subarray(0, pick(bytes.length)) : bytes;
        fs.writeFileSync(file, written, { mode: 0o600 });
        const { answers, used } = await answersFromCache();
        assert.deepEqual(answers, expected, `round ${round}`);
        assert.equal(used, round % 3 === 0, `round ${round}: used only when whole`);
      }
    },
  );

  test("reads what changed since it was saved", BUN_ONLY, async () => {
    await saveCache(root, cache);
    // Same size, times put back as they were: only ctime tells (it cannot be set back).
    const same = path.join(root, "sub/f001.ts");
    const stat = fs.statSync(same);
    const old = fs.readFileSync(same, "utf8");
    fs.writeFileSync(same, "createElement(" + old.slice("createElement(".length));
    fs.utimesSync(same, stat.atime, stat.mtime);
    fs.appendFileSync(path.join(root, "sub/deep/f002.ts"), "createElement(2)\n"); // grown
    fs.rmSync(path.join(root, "other/f003.ts"));
    fs.writeFileSync(path.join(root, "other/f003.ts"), "createElement(3)\n"); // replaced
    fs.writeFileSync(path.join(root, "empty/new.ts"), "createElement(new)\n"); // created
    fs.rmSync(path.join(root, "f000.ts")); // gone
    // The large file, a line in the middle rewritten to the same size, times put back.
    const large = path.join(root, "sub/large.js");
    const largeStat = fs.statSync(large);
    const fd = fs.openSync(large, "r+");
    fs.writeSync(fd, "createElement('middle');//", 200_000);
    fs.closeSync(fd);
    fs.utimesSync(large, largeStat.atime, largeStat.mtime);
    // The .gitignore rewritten to the same size, its times put back: the log file is walked.
    const ignore = path.join(root, ".gitignore");
    const ignoreStat = fs.statSync(ignore);
    fs.writeFileSync(ignore, "*.txt\n");
    fs.utimesSync(ignore, ignoreStat.atime, ignoreStat.mtime);
    const { answers: got, used } = await answersFromCache();
    assert.deepEqual(got, await answers(plain));
    assert.equal(used, false, "no walk holds: the root's .gitignore changed");
    const paths = (got[0] as { files: { path: string }[] }).files.map((file) => file.path);
    const largeFound = (got[0] as { files: { path: string; rows: unknown[] }[] }).files.find((
      file,
    ) => file.path === "sub/large.js");
    assert.equal(largeFound?.rows.length, 3, "the large file read whole: top, middle and bottom");
    for (const name of ["sub/f001.ts", "sub/deep/f002.ts", "other/f003.ts", "empty/new.ts"]) {
      assert.ok(paths.includes(name), name);
    }
    assert.ok(paths.includes("sub/trace.log"), "no longer ignored");
    assert.ok(!paths.includes("f000.ts"));
  });

  test("trusts a file only when it was indexed well after its last change", BUN_ONLY, async () => {
    // A forged entry: the filter of other text with the file's identity now. It is used when
    // the change is old (the file is then passed over: this shows the cache is used), never
    // when it is within the racy window of when it was saved.
    const file = path.join(root, "forged.ts");
    fs.writeFileSync(file, "createElement(forged)\n");
    const cacheFile = await saveCache(root, cache);
    const bytes = fs.readFileSync(cacheFile);
    const scope = bytes.subarray(12, 12 + bytes.readUInt32LE(8)).toString();
    const found = async () => {
      const words = new Uint32Array(IDENTITY_WORDS);
      const dir = openFileSystem([root]).openDir(root);
      assert.equal(dir.identify("forged.ts", words, 0), "file");
      dir.close();
      const filter = trigramFilter(new TextEncoder().encode("nothing to see here at all\n"));
      saveIndex(cacheFile, scope, [[file, filter, words, undefined]], []);
      const again = await loading();
      try {
        const result = await again.search({
          matcher: literalMatcher("createElement(forged)"),
          maxMatches: 10,
        });
        return result.files.map((f) => f.path);
      } finally {
        again.close();
      }
    };
    assert.deepEqual(await found(), ["forged.ts"], "changed just now: read");
    await age(root);
    assert.deepEqual(await found(), [], "changed long before: the forged filter rules it out");
    fs.rmSync(file);
    await age(root);
  });

  test(
    "takes every file and walk that still holds, its checks shared by threads",
    BUN_ONLY,
    async () => {
      const saved = loaded(await saveCache(root, cache));
      const store = await loading();
      try {
        for (let i = 0; i < 1000 && store.searchIndexStats()!.loading; i++) {
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        const stats = store.searchIndexStats()!;
        assert.equal(
          stats.files,
          saved.keys.length,
          "every file checked, by one thread or another",
        );
        assert.equal(stats.walks, saved.walks.length);
      } finally {
        store.close();
      }
    },
  );

  test("starts watching a tree it has no cache file of only after a search", BUN_ONLY, async () => {
    const Real = globalThis.Worker;
    const started: string[] = [];
    globalThis.Worker = class extends Real {
      constructor(...args: ConstructorParameters<typeof Worker>) {
        super(...args);
        started.push(String(args[0]));
      }
    };
    const none = path.join(tempDir("none"), "linewise");
    const store = await DirectoryStore.create({
      roots: [root],
      searchIndex: true,
      searchIndexCache: none,
    });
    try {
      const warm = started.length; // (the warm search workers)
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.deepEqual(started.slice(warm), [], "no watcher before the first search");
      await store.search({ matcher: literalMatcher("createElement") });
      await store.searchIndexReady();
      assert.ok(started.length > warm, "a watcher (and learning) after it");
    } finally {
      globalThis.Worker = Real;
      store.close();
      fs.rmSync(path.dirname(none), { recursive: true, force: true });
    }
  });

  test("gives its workers back when a check throws while it loads", BUN_ONLY, async () => {
    await saveCache(root, cache);
    const sameDirectory = IdentityCheck.prototype.sameDirectory;
    IdentityCheck.prototype.sameDirectory = () => {
      throw new Error("a check that throws");
    };
    const store = await DirectoryStore.create({
      roots: [root],
      searchIndex: true,
      searchIndexCache: cache,
      parallelSearchFrom: 1,
    });
    const post = Worker.prototype.postMessage;
    let posted = 0;
    try {
      for (let i = 0; i < 1000 && store.searchIndexStats()!.loading; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      IdentityCheck.prototype.sameDirectory = sameDirectory;
      // (With an index, a search reads beside its own thread only with the index's workers.)
      Worker.prototype.postMessage = function (this: Worker, ...args: [unknown]) {
        posted++;
        return post.apply(this, args);
      };
      const query = { matcher: literalMatcher("createElement"), maxMatches: 10_000 };
      assert.deepEqual(await store.search(query), await plain.search(query));
      if (defaultSearchThreads() > 1) assert.ok(posted > 0, "the search had the warm workers");
    } finally {
      IdentityCheck.prototype.sameDirectory = sameDirectory;
      Worker.prototype.postMessage = post;
      store.close();
    }
  });

  test("trusts none of the files a search worker failed to check", BUN_ONLY, async () => {
    const file = await saveCache(root, cache);
    const saved = loaded(file).keys.length;
    // A worker whose every check fails (as one that dies would): its share is not trusted.
    const Real = globalThis.Worker;
    class FailingChecks extends Real {
      // deno-lint-ignore no-explicit-any
      override postMessage(message: any, options?: any): void {
        if (typeof message !== "object" || message === null || !("check" in message)) {
          return super.postMessage(message, options);
        }
        setTimeout(() => this.dispatchEvent(new ErrorEvent("error", { message: "gone" })), 0);
      }
    }
    globalThis.Worker = FailingChecks;
    const store = await loading().finally(() => globalThis.Worker = Real);
    try {
      for (let i = 0; i < 1000 && store.searchIndexStats()!.loading; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const taken = store.searchIndexStats()!.files;
      if (defaultSearchThreads() > 1) {
        assert.ok(taken > 0 && taken < saved, `${taken} of ${saved} files taken`);
      }
      assert.deepEqual(await answers(store, root), await answers(plain));
    } finally {
      store.close();
    }
  });

  test("keeps no file changed just before it was indexed", BUN_ONLY, async () => {
    let file = "";
    const saved = async (after: number) => {
      for (let i = 0; i < 1000; i++) {
        const name = fs.existsSync(cache) ? fs.readdirSync(cache)[0] : undefined;
        if (name?.endsWith(".index") && fs.statSync(path.join(cache, name)).mtimeMs > after) {
          return loaded(path.join(cache, name));
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      assert.fail("not saved");
    };
    // (The first save comes 1.1-1.2 s after the write here. On a busy machine it can come
    // after the racy window, and keeping the file is then right: the start is tried again,
    // with a new file, so that the directory changes again too.)
    let store: DirectoryStore | undefined;
    let first: Awaited<ReturnType<typeof saved>> | undefined;
    for (let attempt = 0; attempt < 3 && first === undefined; attempt++) {
      store?.close();
      if (file !== "") fs.rmSync(file);
      file = path.join(root, `just-written-${attempt}.ts`);
      fs.writeFileSync(file, "createElement(just)\n");
      const wrote = Date.now();
      fs.rmSync(cache, { recursive: true, force: true });
      store = await loading();
      await answers(store);
      const found = await saved(0);
      if (Date.now() - wrote < RACY_MS) first = found;
    }
    try {
      assert.ok(first !== undefined, "three times saved only after the racy window");
      assert.ok(first.keys.length > 0);
      assert.ok(!first.keys.includes(file), "racy: not kept");
      assert.deepEqual(first.walks, [], "its directory changed just now: no walk kept");
      // Saved again by the same store once the change is old: still not kept, as it was
      // indexed within the racy window.
      await new Promise((resolve) => setTimeout(resolve, RACY_MS + 100));
      const written = fs.statSync(cacheFileIn(cache)).mtimeMs;
      await store!.search({ matcher: literalMatcher("x"), glob: "*.ts", maxMatches: 1 });
      const second = await saved(written);
      assert.ok(second.walks.length > 0, "saved again, with walks now");
      assert.ok(!second.keys.includes(file), "indexed within the racy window: still not kept");
    } finally {
      store!.close();
    }
    fs.rmSync(file);
    await age(root);
  });

  test("takes a walk through symlinks, until one leads elsewhere", BUN_ONLY, async () => {
    // Targets in a hidden directory, which no walk lists: a change there changes none of the
    // walk's directories.
    const hidden = path.join(root, ".store");
    const links = ["sub/kept.ts", "sub/later.ts", "sub/up"].map((name) => path.join(root, name));
    fs.mkdirSync(hidden);
    fs.writeFileSync(path.join(hidden, "kept.ts"), "createElement(kept)\n");
    fs.symlinkSync("../.store/kept.ts", links[0]);
    fs.symlinkSync("../.store/later.ts", links[1]); // (leads nowhere yet)
    fs.symlinkSync("..", links[2]); // (a directory: never entered)
    try {
      await age(root);
      await saveCache(root, cache);
      const shown = (answers: unknown[]) =>
        (answers[0] as { files: { path: string }[] }).files.map((file) => file.path);
      const first = await answersFromCache();
      assert.equal(first.used, true, "a walk with symlinks is taken");
      assert.deepEqual(first.answers, await answers(plain));
      assert.ok(shown(first.answers).includes("sub/kept.ts"));
      fs.writeFileSync(path.join(hidden, "later.ts"), "createElement(later)\n");
      const second = await answersFromCache();
      assert.deepEqual(second.answers, await answers(plain));
      assert.ok(shown(second.answers).includes("sub/later.ts"), "shown once it leads somewhere");
      assert.equal(second.used, false, "the walk does not hold any more");
    } finally {
      for (const link of links) fs.rmSync(link);
      fs.rmSync(hidden, { recursive: true });
      await age(root);
    }
  });

  test("keeps no walk made under deny rules", BUN_ONLY, async () => {
    // (A deny rule leaves out of a listing another name of a denied file: what decides that
    // lies outside the directory.)
    const denied = path.join(path.dirname(cache), "denied");
    const store = await DirectoryStore.create({
      roots: [root],
      deny: ["*.log"],
      searchIndex: true,
      searchIndexCache: denied,
    });
    try {
      await answers(store);
      for (let i = 0; i < 1000 && !fs.existsSync(denied); i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
      const held = loaded(cacheFileIn(denied));
      assert.ok(held.keys.length >= 60, "the filters");
      assert.deepEqual(held.walks, [], "no walk");
    } finally {
      store.close();
      fs.rmSync(denied, { recursive: true, force: true });
    }
  });

  test("refuses another user's cache file", {
    ...BUN_ONLY,
    skip: BUN_ONLY.skip || (process.getuid?.() !== 0 && "needs root to chown"),
  }, async () => {
    const file = await saveCache(root, cache);
    fs.chownSync(file, 1234, 1234);
    const { answers: got, used } = await answersFromCache();
    assert.deepEqual(got, await answers(plain));
    assert.equal(used, false);
    fs.chownSync(file, 0, 0);
    assert.equal((await answersFromCache()).used, true, "used once it is ours again");
  });

  /** A store that keeps the pattern of each search it is asked for, in order. */
  class Counting extends DirectoryStore {
    readonly patterns: string[] = [];
    onSearch: (() => void) | undefined;
    override search(query: SearchQuery): Promise<SearchResult> {
      this.patterns.push(query.matcher.recipe?.pattern ?? "(no recipe)");
      this.onSearch?.();
      return super.search(query);
    }
  }
  const counting = async (options: DirectoryStoreOptions) =>
    new Counting(await Sandbox.create({ roots: [root] }), options);

  test(
    "warms up once it took the cache, then answers as a store without an index",
    BUN_ONLY,
    async () => {
      await saveCache(root, cache);
      const store = await counting({ searchIndex: true, searchIndexCache: cache });
      try {
        assert.equal(await store.warmUp(new AbortController().signal), true);
        assert.deepEqual(store.patterns, WARM_UP_SEARCHES.map((search) => search.pattern));
        assert.ok(store.searchIndexStats()!.walks > 0, "the cache was taken");
        assert.deepEqual(await answers(store, root), await answers(plain));
      } finally {
        store.close();
      }
    },
  );

  test("warms up once its index is ready, and stops when told", BUN_ONLY, async () => {
    await saveCache(root, cache);
    const cases: Array<[string, DirectoryStoreOptions, (store: Counting) => AbortSignal, number]> =
      [
        [
          "aborted before",
          { searchIndex: true, searchIndexCache: cache },
          () => AbortSignal.abort(),
          0,
        ],
        ["aborted in its first search", { searchIndex: true, searchIndexCache: cache }, (store) => {
          const controller = new AbortController();
          store.onSearch = () => controller.abort();
          return controller.signal;
        }, 1],
        ["no index", {}, () => new AbortController().signal, 0],
      ];
    for (const [name, options, signal, searched] of cases) {
      const store = await counting(options);
      try {
        assert.equal(await store.warmUp(signal(store)), false, name);
        assert.equal(store.patterns.length, searched, name);
      } finally {
        store.close();
      }
    }
    fs.rmSync(cache, { recursive: true, force: true });
    // Without a cache file, the index is ready once the first search's files are indexed.
    const store = await counting({ searchIndex: true, searchIndexCache: cache });
    try {
      let settled = false;
      const warmed = store.warmUp(new AbortController().signal).finally(() => settled = true);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.deepEqual([settled, store.patterns], [false, []], "it waits for a first search");
      await answers(store, root);
      assert.equal(await warmed, true);
      assert.deepEqual(
        store.patterns.slice(-WARM_UP_SEARCHES.length),
        WARM_UP_SEARCHES.map((s) => s.pattern),
      );
    } finally {
      store.close();
    }
    const closed = await counting({ searchIndex: true, searchIndexCache: cache });
    const warmed = closed.warmUp(new AbortController().signal);
    closed.close();
    assert.equal(await warmed, false, "closed before its index was ready");
    assert.deepEqual(closed.patterns, []);
  });

  test(
    "on the search thread, answers a search sent at once and one after the warm-up",
    BUN_ONLY,
    async () => {
      await saveCache(root, cache);
      const store = await DirectoryStore.create({
        roots: [root],
        searchThread: true,
        searchIndex: true,
        searchIndexCache: cache,
      });
      try {
        const expected = await answers(plain);
        assert.deepEqual(await answers(store, root), expected, "sent at once");
        await new Promise((resolve) => setTimeout(resolve, 1000));
        assert.deepEqual(await answers(store, root), expected, "after the warm-up");
      } finally {
        store.close();
      }
    },
  );

  test(
    "on the search thread without a cache, answers alike before, during and after the warm-up",
    BUN_ONLY,
    async () => {
      const store = await DirectoryStore.create({
        roots: [root],
        searchThread: true,
        searchIndex: true,
      });
      try {
        const expected = await answers(plain);
        // (The index is built, then warmed up, within a second or two of the first search.)
        for (let i = 0; i < 12; i++) {
          assert.deepEqual(await answers(store, root), expected, `round ${i}`);
          await new Promise((resolve) => setTimeout(resolve, 50 * i));
        }
      } finally {
        store.close();
      }
    },
  );

  test("hears what changes while it loads", BUN_ONLY, async () => {
    // Another process changes files (same-size rewrites with times put back, new files,
    // renames over) while new stores load the cache and search. Once it stops, every store
    // must give what a store without an index gives.
    fs.mkdirSync(path.join(root, "many"));
    for (let i = 0; i < 300; i++) {
      const name = path.join(root, "many", `m${String(i).padStart(3, "0")}.ts`);
      fs.writeFileSync(name, `let m${i} = "${"-".repeat(i % 40)}";\n`);
    }
    await age(root);
    await saveCache(root, cache);
    const writer = spawn("python3", ["-c", WRITER, root, "300"], { stdio: "inherit" });
    const ended = new Promise((resolve) => writer.on("exit", resolve));
    const stores: DirectoryStore[] = [];
    try {
      for (let round = 0; round < 10; round++) {
        const store = await loading();
        stores.push(store);
        await store.search({ matcher: literalMatcher("createElement("), maxMatches: 10_000 });
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(await ended, 0, "the writer ran");
      const expected = await answers(plain);
      for (const [i, store] of stores.entries()) {
        assert.deepEqual(await answers(store, root), expected, `store ${i}`);
      }
    } finally {
      for (const store of stores) store.close();
      fs.rmSync(path.join(root, "many"), { recursive: true });
      for (const name of fs.readdirSync(path.join(root, "other"))) {
        if (name.startsWith("w")) fs.rmSync(path.join(root, "other", name));
      }
      await age(root);
    }
  });
});

/**
 * Changes each of the argv[2] files of many/ once, in order, a few ms apart: rewritten to the
 * same size with their times put back (only ctime tells), and every fifth time creates a
 * file in other/. (Each change once: one that a store missed would not be made good by a
 * later change to the same file.)
 */
const WRITER = `
import os, sys, time
root, count = sys.argv[1], int(sys.argv[2])
for n in range(count):
    target = os.path.join(root, "many", "m%03d.ts" % n)
    st = os.stat(target)
    with open(target, "r+") as f:
        text = f.read()
        f.seek(0)
        f.write(("createElement(" + text)[:len(text)])
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))
    if n % 5 == 0:
        with open(os.path.join(root, "other", "w%d.ts" % n), "w") as f:
            f.write("createElement(%d)\\n" % n)
    time.sleep(0.004)
`;
