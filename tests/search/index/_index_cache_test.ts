// The search index kept on disk between stores: its file (0600, ours, whole, of the same
// scope, or ignored), and the checks that decide what of it a new store trusts: a file's
// filter only while the file is exactly what was indexed, a walk only while every directory
// it listed and every .gitignore it read are what they were, nothing changed within the
// racy window.
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import * as fs from "node:fs";
import { spawnSync } from "node:child_process";
import * as os from "node:os";
import * as path from "node:path";
import process from "node:process";
import { after, before, describe, test } from "node:test";
import {
  type CachedWalk,
  cacheFileOf,
  loadIndex,
  RACY_MS,
  saveIndex,
} from "../../../src/search/index/_index_cache.ts";
import type { SavedFilter } from "../../../src/search/index/_file_filters.ts";
import { type BlockFilters, blockFilters } from "../../../src/search/index/_block_filters.ts";
import type { FileStat } from "../../../src/io/file_stat.ts";
import {
  filesHeld,
  IdentityCheck,
  walkHolds,
  walkIdentities,
} from "../../../src/search/index/_cache_checks.ts";
import { trigramFilter } from "../../../src/search/index/_trigram_filter.ts";
import { openFileSystem } from "../../../src/io/file_system.ts";

function tempDir(name: string): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `linewise-${name}-`)));
}

/** An identity of ino `ino` whose ctime is `ctimeS` seconds after the epoch. */
function identity(ino: number, ctimeS = 0): Uint32Array {
  return Uint32Array.of(ino, 0, 100, 0, 3, 0, 0, ctimeS, 0, 0, 8, 1);
}

const filterOf = (text: string) => trigramFilter(new TextEncoder().encode(text));

describe("the search index's cache file", () => {
  const scope = JSON.stringify({ roots: ["/some/root"], deny: [] });
  let dir: string;
  before(() => dir = tempDir("cache"));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const walk: CachedWalk = {
    key: JSON.stringify(["/some/root", undefined, false, false]),
    files: [{ key: "/some/root/a.ts", display: "a.ts" }, {
      key: "/some/root/sub/é.ts",
      display: "sub/é.ts",
    }],
    skipped: { hidden: 2, ignored: 5, links: 3, special: 1 },
    dirs: { listed: ["/some/root", "/some/root/sub"], ignoreFiles: ["/some/root"] },
    identities: new Uint32Array(36).map((_, i) => i * 7),
    links: ["/some/root/sub/link.ts", "/some/root/gone"],
    leads: ["file:/some/root/a.ts", ""],
  };

  test("is written 0600 in a 0700 folder, and read back as written", () => {
    const file = cacheFileOf(path.join(dir, "sub"), scope);
    // (With a BOM, CRLF and a character of two bytes: the code points are kept too.)
    const text = new TextEncoder().encode("\uFEFF" + "líne one\r\nline two\n".repeat(40));
    const stat = { kind: "file", nlink: 1, size: text.length, dev: 2049n, ino: 77n } as const;
    const times = { mtimeNs: 1_000_000_000_123n, ctimeNs: 1_000_000_000_456n };
    const blocks = blockFilters(text, { ...stat, ...times } as FileStat, false, 10n ** 19n, 64)!;
    assert.ok(blocks.filters.length > 5 && blocks.points?.bom === 1);
    // (A file not valid UTF-8 has no code points counted.)
    const invalid = blockFilters(text, { ...stat, ...times } as FileStat, true, 10n ** 19n, 64)!;
    assert.equal(invalid.points, undefined);
    const filters: SavedFilter[] = [
      ["/some/root/a.ts", filterOf("const a = 1;"), identity(2), undefined],
      ["/some/root/b.bin", "binary", identity(3), undefined],
      ["/some/root/c.ts", filterOf(""), identity(4), undefined],
      ["/some/root/large.txt", filterOf("line"), identity(6), blocks],
      ["/some/root/bad.txt", filterOf("line"), identity(7), invalid],
      ["/some/root/racy.ts", filterOf("racy"), identity(5, Math.floor(Date.now() / 1000)), blocks],
    ];
    assert.equal(
      saveIndex(file, scope, filters, [walk, { ...walk, key: "other", files: [] }]),
      true,
    );
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.equal(fs.statSync(path.join(dir, "sub")).mode & 0o777, 0o700);
    const loaded = loadIndex(file, scope)!;
    const kept = filters.slice(0, 5); // (all but the one changed just now)
    assert.deepEqual(loaded.keys, kept.map(([key]) => key));
    assert.deepEqual(loaded.filters, kept.map(([, filter]) => filter));
    assert.deepEqual([...loaded.identities], kept.flatMap(([, , words]) => [...words]));
    assert.deepEqual([...loaded.blocks], [[3, blocks], [4, invalid]], "the large files' blocks");
    assert.deepEqual(loaded.walks, [walk, { ...walk, key: "other", files: [] }]);
    assert.equal(loadIndex(file, scope.replace("some", "other")), undefined, "another scope");
  });

  /** A large file's block filters (of 64 bytes), and what loading them saved changed gives. */
  function largeFile() {
    const file = cacheFileOf(dir, scope);
    const text = new TextEncoder().encode("line one\r\nline two\n".repeat(40));
    const stat = { kind: "file", nlink: 1, size: text.length, dev: 2049n, ino: 77n } as const;
    const times = { mtimeNs: 1_000_000_000_123n, ctimeNs: 1_000_000_000_456n };
    const blocks = blockFilters(text, { ...stat, ...times } as FileStat, false, 10n ** 19n, 64)!;
    const savedAs = (large: BlockFilters) => {
      saveIndex(file, scope, [["/some/root/large.txt", filterOf("line"), identity(6), large]], []);
      return loadIndex(file, scope);
    };
    return { blocks, savedAs };
  }

  test("makes a folder of ours that others may write in private", () => {
    const open = path.join(dir, "open");
    fs.mkdirSync(open, { mode: 0o777 });
    fs.chmodSync(open, 0o777);
    assert.equal(saveIndex(cacheFileOf(open, scope), scope, [], []), true);
    assert.equal(fs.statSync(open).mode & 0o777, 0o700);
  });

  test("is refused when a file's code points do not fit it", () => {
    // (Only a writer that disagrees with this reader could make them: the CRC holds.)
    const { blocks, savedAs } = largeFile();
    const points = blocks.points!;
    const saved = (changed: Partial<typeof points>) =>
      savedAs({ ...blocks, points: { ...points, ...changed } });
    assert.ok(saved({}), "as made");
    assert.equal(saved({ before: points.before.subarray(1) }), undefined, "a granule short");
    assert.equal(saved({ bom: 2 }), undefined, "a BOM of 2 code points");
    assert.equal(saved({ crlf: points.crlf.map(() => 2) }), undefined, "a \\r of 2");
  });

  test("is refused when a file's blocks do not fit its size", () => {
    const { blocks, savedAs } = largeFile();
    const { points: _, ...plain } = blocks; // (the code points have checks of their own)
    const saved = (changed: Partial<BlockFilters>) => savedAs({ ...plain, ...changed });
    assert.ok(saved({}), "as made");
    const size = blocks.stamp.size;
    assert.equal(saved({ stamp: { ...blocks.stamp, size: size + 64 } }), undefined, "a block more");
    assert.equal(saved({ block: 128 }), undefined, "blocks twice as large");
    assert.equal(saved({ block: 0 }), undefined, "blocks of no bytes");
  });

  test("is refused when open to others, or another user's", () => {
    const file = cacheFileOf(dir, scope);
    saveIndex(file, scope, [["/some/root/a.ts", filterOf("x"), identity(2), undefined]], []);
    fs.chmodSync(file, 0o644);
    assert.equal(loadIndex(file, scope), undefined, "mode 0644");
    fs.chmodSync(file, 0o600);
    assert.ok(loadIndex(file, scope));
    if (process.getuid?.() === 0) {
      fs.chownSync(file, 1234, 1234);
      assert.equal(loadIndex(file, scope), undefined, "owned by uid 1234");
    }
  });

  test("is refused when it is a symlink, even to a good cache file", () => {
    const file = cacheFileOf(dir, scope);
    saveIndex(file, scope, [["/some/root/a.ts", filterOf("x"), identity(2), undefined]], []);
    const good = path.join(dir, "elsewhere.index");
    fs.renameSync(file, good);
    fs.symlinkSync(good, file);
    assert.ok(loadIndex(good, scope), "the file itself");
    assert.equal(loadIndex(file, scope), undefined, "through the symlink");
    fs.rmSync(file);
    fs.rmSync(good);
  });

  test("is refused whole when any byte is changed or it is cut short", () => {
    const file = cacheFileOf(dir, scope);
    const filters: SavedFilter[] = Array.from(
      { length: 20 },
      (
        _,
        i,
      ) => [`/some/root/f${i}.ts`, filterOf(`const v${i} = ${i};`), identity(i + 2), undefined],
    );
    saveIndex(file, scope, filters, [walk]);
    const good = fs.readFileSync(file);
    let seed = 7;
    const pick = (n: number) => (seed = (seed * 16807) % 2147483647) % n;
    for (let round = 0; round < 300; round++) {
      const bad = Buffer.from(good);
      if (round % 3 === 0) {
        fs.writeFileSync(file, bad.subarray(0, pick(bad.length)), { mode: 0o600 });
      } else {
        bad[pick(bad.length)] ^= 1 + pick(255);
        fs.writeFileSync(file, bad, { mode: 0o600 });
      }
      assert.equal(loadIndex(file, scope), undefined, `round ${round}`);
    }
  });

  test("of roots that are gone is removed when another is written", () => {
    const gone = JSON.stringify({ roots: [path.join(dir, "gone")], deny: [] });
    const here = JSON.stringify({ roots: [dir], deny: [] });
    saveIndex(cacheFileOf(dir, gone), gone, [], []);
    saveIndex(cacheFileOf(dir, here), here, [], []);
    assert.equal(fs.existsSync(cacheFileOf(dir, gone)), false);
    assert.ok(loadIndex(cacheFileOf(dir, here), here));
  });
});

describe("the checks of what the cache holds", () => {
  let root: string;
  const old = new Date(Date.now() - 3_600_000);
  before(async () => {
    root = tempDir("checks");
    fs.mkdirSync(path.join(root, "sub/deep"), { recursive: true });
    fs.writeFileSync(path.join(root, ".gitignore"), "*.log\n");
    fs.writeFileSync(path.join(root, "a.ts"), "a\n");
    fs.writeFileSync(path.join(root, "sub/b.ts"), "b\n");
    for (const dir of ["", "sub", "sub/deep"]) fs.utimesSync(path.join(root, dir), old, old);
    // (ctimes are now: what is taken within the racy window is not kept.)
    await new Promise((resolve) => setTimeout(resolve, RACY_MS + 100));
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  const walkOf = (): Omit<CachedWalk, "identities" | "links" | "leads"> => ({
    key: "walk",
    files: [
      { key: path.join(root, "a.ts"), display: "a.ts" },
      { key: path.join(root, "sub/b.ts"), display: "sub/b.ts" },
    ],
    skipped: { hidden: 0, ignored: 0, links: 0, special: 0 },
    dirs: {
      listed: [root, path.join(root, "sub"), path.join(root, "sub/deep")],
      ignoreFiles: [root],
    },
  });

  function holds(walk: CachedWalk): boolean {
    const check = new IdentityCheck(openFileSystem([root]));
    try {
      return walkHolds(check, walk);
    } finally {
      check.close();
    }
  }

  function taken(walk = walkOf()): CachedWalk {
    const check = new IdentityCheck(openFileSystem([root]));
    try {
      const checks = walkIdentities(check, walk, Date.now());
      assert.ok(typeof checks === "object", "taken");
      return { ...walk, ...checks };
    } finally {
      check.close();
    }
  }

  test("a walk holds while its directories and .gitignore files are as they were", async () => {
    const walk = taken();
    assert.equal(holds(walk), true);
    // An entry in a directory without a file of the walk.
    fs.writeFileSync(path.join(root, "sub/deep/new.ts"), "");
    assert.equal(holds(walk), false, "a file created");
    fs.rmSync(path.join(root, "sub/deep/new.ts"));
    assert.equal(holds(walk), false, "and removed: the times tell");
    // The .gitignore rewritten, the same size, its times put back.
    fs.utimesSync(path.join(root, "sub/deep"), old, old);
    await new Promise((resolve) => setTimeout(resolve, RACY_MS + 100));
    const again = taken();
    assert.equal(holds(again), true);
    const ignore = path.join(root, ".gitignore");
    const stat = fs.statSync(ignore);
    fs.writeFileSync(ignore, "*.txt\n");
    fs.utimesSync(ignore, stat.atime, stat.mtime);
    assert.equal(holds(again), false, "the .gitignore changed: its ctime tells");
    // A directory gone.
    assert.equal(
      holds({ ...again, dirs: { ...again.dirs, listed: [...again.dirs.listed, root + "/x"] } }),
      false,
    );
  });

  /** A walk that read no ignore file. */
  const withoutIgnoreFiles = (walk: ReturnType<typeof walkOf>) => ({
    ...walk,
    dirs: { ...walk.dirs, ignoreFiles: [] },
  });

  test("a walk is not kept when it may change unseen", async () => {
    const check = new IdentityCheck(openFileSystem([root]));
    // (Walks made now, after what the tests before changed: a clock tick later.)
    await new Promise((resolve) => setTimeout(resolve, 50));
    try {
      // A file outside the directories listed (a symlink's target elsewhere).
      const walk = walkOf();
      walk.dirs.listed = walk.dirs.listed.filter((dir) => !dir.endsWith("/sub"));
      assert.equal(walkIdentities(check, walk, Date.now()), undefined, "a file outside");
      // A directory changed within the racy window, before the walk began.
      fs.writeFileSync(path.join(root, "sub/c.ts"), "");
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(walkIdentities(check, walkOf(), Date.now()), "racy", "to be saved later");
      // A directory or a .gitignore changed since the walk began, unheard by the watcher
      // (which drops the walks at what it hears): the walk may not be the tree's any more.
      const madeAt = Date.now();
      await new Promise((resolve) => setTimeout(resolve, 50));
      fs.writeFileSync(path.join(root, "sub/d.ts"), "");
      assert.equal(walkIdentities(check, walkOf(), madeAt), "stale", "a directory");
      const later = Date.now();
      await new Promise((resolve) => setTimeout(resolve, 50));
      fs.appendFileSync(path.join(root, ".gitignore"), "*.tmp\n");
      assert.equal(walkIdentities(check, walkOf(), later), "stale", "a .gitignore");
      // The watcher found the walk to hold after both changes (a directory's, heard, left it
      // as it was): its directories are checked from then, its .gitignore from its start.
      await new Promise((resolve) => setTimeout(resolve, 50));
      const heard = Date.now();
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(
        walkIdentities(check, withoutIgnoreFiles(walkOf()), madeAt, heard),
        "racy", // (not "stale": saved once the directory's change is old enough)
        "a directory changed before the watcher found the walk to hold",
      );
      assert.equal(walkIdentities(check, walkOf(), later, heard), "stale", "a .gitignore still");
      // A .gitignore that is not there any more.
      const gone = {
        ...walkOf(),
        dirs: { ...walkOf().dirs, ignoreFiles: [path.join(root, "sub")] },
      };
      assert.equal(walkIdentities(check, gone, Date.now()), undefined, "no .gitignore");
    } finally {
      check.close();
    }
  });

  test("a walk through symlinks holds while each leads where it led", async () => {
    const deep = path.join(root, "sub/deep");
    const outside = tempDir("outside");
    const links = {
      "to-t.ts": "../../other/t.ts", // shown under the link's name, from elsewhere
      "dangling.ts": "../../other/nowhere.ts", // not shown (yet)
      "to-sub": "..", // a directory: listed, never entered
      "out.ts": path.join(outside, "o.ts"), // outside the roots: not shown
    };
    try {
      fs.writeFileSync(path.join(outside, "o.ts"), "o\n");
      fs.mkdirSync(path.join(root, "other")); // (not a directory of the walk)
      fs.writeFileSync(path.join(root, "other/t.ts"), "t\n");
      for (const [name, target] of Object.entries(links)) {
        fs.symlinkSync(target, path.join(deep, name));
      }
      fs.utimesSync(deep, old, old);
      await new Promise((resolve) => setTimeout(resolve, RACY_MS + 100));
      const walk = walkOf();
      walk.files.push({ key: path.join(root, "other/t.ts"), display: "sub/deep/to-t.ts" });
      const kept = taken(walk);
      assert.deepEqual(
        kept.links.toSorted(),
        Object.keys(links).map((name) => path.join(deep, name)).toSorted(),
      );
      assert.equal(kept.leads[kept.links.indexOf(path.join(deep, "dangling.ts"))], "");
      assert.equal(holds(kept), true);
      // A target that comes, or changes kind, with no change to the walk's directories.
      fs.writeFileSync(path.join(root, "other/nowhere.ts"), "now here\n");
      assert.equal(holds(kept), false, "a dangling link that leads somewhere now");
      const again = taken(walk);
      assert.equal(holds(again), true);
      fs.rmSync(path.join(outside, "o.ts"));
      fs.mkdirSync(path.join(outside, "o.ts"));
      assert.equal(holds(again), true, "outside the roots: still not shown");
      // (By path, where the file system itself would open a path outside the roots.)
      const byPath = new IdentityCheck(openFileSystem([root], { raceFree: false }));
      assert.equal(byPath.leads(path.join(deep, "out.ts")), "", "outside: leads nowhere");
      byPath.close();
      fs.rmSync(path.join(root, "other/nowhere.ts"));
      fs.mkdirSync(path.join(root, "other/nowhere.ts"));
      assert.equal(holds(again), false, "a file that is a directory now");
    } finally {
      for (const name of Object.keys(links)) fs.rmSync(path.join(deep, name), { force: true });
      fs.rmSync(path.join(root, "other"), { recursive: true, force: true });
      fs.utimesSync(deep, old, old);
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  test("where a symlink leads is found by its bytes, and through a root's other name", () => {
    const dir = path.join(root, "leads");
    fs.mkdirSync(dir);
    // (The root by another name, as a root given through a symlink is.)
    const given = path.join(os.tmpdir(), `linewise-given-${process.pid}`);
    fs.symlinkSync(root, given);
    // Names that are not UTF-8 (bytes 0xFF and 0xFE, which a path's text holds as U+DCFF and
    // U+DCFE), made by a shell: Deno's node:fs would make them U+FFFD, and finds none such.
    const sh = (line: string) =>
      assert.equal(spawnSync("sh", ["-c", line], { cwd: dir }).status, 0);
    const deno = typeof (globalThis as { Deno?: unknown }).Deno !== "undefined";
    try {
      sh(`ln -s t "$(printf 'bad\\377')" && ln -s "$(printf 't2\\376')" l`);
      fs.symlinkSync(path.join(dir, "t"), path.join(dir, "abs"));
      fs.symlinkSync(path.join(given, "leads/t"), path.join(dir, "given"));
      fs.symlinkSync("abs", path.join(dir, "chain"));
      fs.symlinkSync("t/", path.join(dir, "slash"));
      fs.symlinkSync("../../..", path.join(dir, "up"));
      // (Joined by hand: path.join would make a U+DCFF a U+FFFD.)
      const names = ["abs", "given", "chain", "slash", "up", ...deno ? [] : ["bad\uDCFF", "l"]];
      const links = names.map((name) => `${dir}/${name}`);
      const check = new IdentityCheck(openFileSystem([root]));
      try {
        assert.deepEqual(links.map((link) => check.leads(link)), names.map(() => ""));
        sh(`echo t > t && echo t2 > "$(printf 't2\\376')"`);
        const file = `file:${path.join(dir, "t")}`;
        const other = `file:${dir}/t2\uDCFE`;
        assert.deepEqual(
          links.map((link) => check.leads(link)),
          [file, file, file, "", "", ...deno ? [] : [file, other]],
        );
      } finally {
        check.close();
      }
    } finally {
      fs.rmSync(given);
      fs.rmSync(dir, { recursive: true });
    }
  });

  test("a file is the same only while its identity is", () => {
    const files = openFileSystem([root]);
    const check = new IdentityCheck(files);
    const file = path.join(root, "a.ts");
    const words = new Uint32Array(12);
    try {
      const dir = files.openDir(root);
      assert.equal(dir.identify("a.ts", words, 0), "file");
      dir.close();
      assert.equal(check.sameFile(file, words, 0), true);
      const stat = fs.statSync(file);
      fs.writeFileSync(file, "A\n");
      fs.utimesSync(file, stat.atime, stat.mtime);
      assert.equal(check.sameFile(file, words, 0), false, "rewritten, times put back");
      assert.equal(check.sameFile(path.join(root, "gone.ts"), words, 0), false, "gone");
    } finally {
      check.close();
    }
  });

  test("filesHeld() tells, per file, whether each is what it was", () => {
    const files = openFileSystem([root]);
    const keys = ["a.ts", "sub/b.ts", "gone.ts", "sub"].map((name) => path.join(root, name));
    const words = new Uint32Array(12 * keys.length);
    keys.forEach((key, i) => {
      const dir = files.openDir(path.dirname(key));
      dir.identify(path.basename(key), words, 12 * i);
      dir.close();
    });
    assert.deepEqual([...filesHeld(files, keys, words)], [1, 1, 0, 0], "a directory is no file");
    fs.writeFileSync(keys[1], "B\n");
    assert.deepEqual([...filesHeld(files, keys, words)], [1, 0, 0, 0]);
  });
});
