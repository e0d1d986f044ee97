// The directory store's search index (Bun only: see _tree_watcher.ts), through real files:
// every search with the index must give what a store without one gives, whatever changed
// on disk just before it, and the index must actually spare reads.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { formatRow, literalMatcher, type Matcher, regexMatcher } from "../../../src/core/mod.ts";
import { DirectoryStore } from "../../../src/disk/directory_store.ts";
import { WATCH_ORDER_KEPT } from "../../../src/io/runtime.ts";
import { REPEAT_WINDOW_MS } from "../../../src/search/index/_tree_watcher.ts";
import type { SearchQuery, SearchResult } from "../../../src/store/file_store.ts";
import { indexed, tempTree } from "../../_helpers/index_trees.ts";

// (Generous time: on a loaded machine a test of real files and a worker can take seconds.)
const BUN_ONLY = {
  skip: WATCH_ORDER_KEPT ? false : "the search index runs only on Bun",
  timeout: 60_000,
};

const QUERIES: Array<[string, () => Matcher, Partial<SearchQuery>?]> = [
  ["a literal", () => literalMatcher("createElement(")],
  ["a regex with two literals", () => regexMatcher("const \\w+ = createElement")],
  ["a regex without a literal", () => regexMatcher("x\\d+")],
  ["ignore case", () => regexMatcher("CREATEELEMENT", { ignoreCase: true })],
  ["a glob", () => literalMatcher("createElement"), { glob: "f1*.ts" }],
  // (The same globs, with the types that walk hidden files and without: two walks.)
  ["a type's glob", () => literalMatcher("createElement"), { glob: "*.ts" }],
  ["a type", () => literalMatcher("createElement"), { glob: "*.ts", revealTypes: ["*.ts"] }],
  ["a subdirectory", () => literalMatcher("createElement"), { path: "d3" }],
  // (Two walks more: one kept to a depth, one kept to a type beside globs that leave out.)
  ["a depth", () => literalMatcher("createElement"), { maxDepth: 1 }],
  ["a type beside -g", () => literalMatcher("createElement"), {
    glob: ["!f1*"],
    globsFirst: true,
    onlyTypes: ["*.ts"],
  }],
  ["context", () => literalMatcher("createElement"), { context: 1 }],
  ["a match cap", () => literalMatcher("export"), { maxMatches: 7 }],
  // (The same pattern with a cap per file and without: two results.)
  ["two lines a file", () => regexMatcher("file \\d|export")],
  ["a file's first line", () => regexMatcher("file \\d|export"), { maxMatchesPerFile: 1 }],
  ["nothing", () => literalMatcher("no such text anywhere")],
  ["alternatives", () => regexMatcher("createElement\\(|export const \\w+ =")],
  ["alternatives found nowhere", () => regexMatcher("zebra \\d|walrus")],
  ["an empty list of alternatives", () => ({
    matchLine: regexMatcher("createElement").matchLine,
    alternativeLiterals: [],
  })],
];

async function bothAgree(indexedStore: DirectoryStore, plain: DirectoryStore, label: string) {
  for (const [name, matcher, extra] of QUERIES) {
    const query = () => ({ matcher: matcher(), maxMatches: 10_000, ...extra });
    assert.deepEqual(
      await indexedStore.search(query()),
      await plain.search(query()),
      `${label}: ${name}`,
    );
  }
}

describe("the search index", () => {
  let root: string;
  let store: DirectoryStore;
  let plain: DirectoryStore;
  const at = (name: string) => path.join(root, name);
  before(async () => {
    root = tempTree(300);
    store = await DirectoryStore.create({ roots: [root], searchIndex: true });
    plain = await DirectoryStore.create({ roots: [root] });
  });
  after(() => {
    store.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  test("is off where the runtime's watcher cannot be trusted", { skip: WATCH_ORDER_KEPT }, () => {
    assert.equal(store.searchIndexStats(), undefined);
  });

  test(
    "gives what a store without it gives, before and after it has learned",
    BUN_ONLY,
    async () => {
      await bothAgree(store, plain, "learning");
      await indexed(store);
      const stats = store.searchIndexStats()!;
      assert.equal(stats.files, 302); // (the hidden file too: a search by type read it)
      assert.ok(stats.bytes > 0 && stats.walks > 0, JSON.stringify(stats));
      await bothAgree(store, plain, "indexed");
    },
  );

  test("keeps no walk by size: a file grown past it is left out", BUN_ONLY, async () => {
    await indexed(store);
    const file = (await store.search({ matcher: literalMatcher("createElement(") })).files[0].path;
    const size = fs.statSync(at(file)).size;
    const query = () => ({ matcher: literalMatcher("createElement("), maxFileSize: size + 4 });
    const paths = async () => (await store.search(query())).files.map((found) => found.path);
    assert.ok((await paths()).includes(file));
    // (Its directory does not change: a walk kept by its directories would still hold it.)
    fs.appendFileSync(at(file), "// longer now\n");
    assert.ok(!(await paths()).includes(file));
    assert.deepEqual(await store.search(query()), await plain.search(query()));
  });

  test("sees every change made just before a search", BUN_ONLY, async () => {
    await indexed(store);
    let seed = 5;
    const pick = (n: number) => (seed = (seed * 16807) % 2147483647) % n;
    const query = () => ({ matcher: literalMatcher("createElement("), maxMatches: 10_000 });
    for (let round = 0; round < 120; round++) {
      const name = `d${pick(7)}/f${pick(300)}.ts`;
      switch (pick(8)) {
        case 0: // a match appears in a file that had none
          fs.writeFileSync(at(name), `createElement(${round});\n`);
          break;
        case 1: // and goes away
          fs.writeFileSync(at(name), `nothing ${round}\n`);
          break;
        case 2: // a new file
          fs.mkdirSync(at(`new${round % 3}`), { recursive: true });
          fs.writeFileSync(at(`new${round % 3}/n${round}.ts`), "createElement(1)\n");
          break;
        case 3: // a deleted one
          fs.rmSync(at(name), { force: true });
          break;
        case 4: // a directory moved away and back with a file changed meanwhile
          if (fs.existsSync(at("d6"))) {
            fs.renameSync(at("d6"), at("moved"));
            fs.writeFileSync(at("moved/changed.ts"), `createElement(${round})\n`);
            fs.renameSync(at("moved"), at("d6"));
          }
          break;
        case 5: // ignored by a .gitignore, then not
          if (fs.existsSync(at(".gitignore"))) fs.rmSync(at(".gitignore"));
          else fs.writeFileSync(at(".gitignore"), "d1/\n");
          break;
        case 6: // binary now
          fs.writeFileSync(at(name), new Uint8Array([0, 99, 114, 101, 97, 116, 101]));
          break;
        case 7: // replaced atomically
          fs.writeFileSync(at(`${name}.tmp`), `createElement("atomic ${round}")\n`);
          fs.renameSync(at(`${name}.tmp`), at(name));
          break;
      }
      assert.deepEqual(await store.search(query()), await plain.search(query()), `round ${round}`);
      if (round % 20 === 19) await indexed(store); // let it learn the new files again
    }
    await bothAgree(store, plain, "after the changes");
  });

  test("a file changed while the index was reading it is not trusted", BUN_ONLY, async () => {
    // Big files make the first batch slow to index (about 80 ms here). The first file of
    // the walk is changed once the batch is out (so the worker has most likely read the old
    // text), and a search hears of it before the batch's filters come back, but later than
    // the watcher's repeat window (which would otherwise hide the bug from the next search).
    // On a slower or busier machine the timing may miss, and the test then proves nothing,
    // but it never fails a correct index.
    const busy = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "linewise-busy-")));
    const filler = "let value = compute(1, 2, 3);\n".repeat(6000); // 180 KB
    for (let i = 0; i < 300; i++) fs.writeFileSync(path.join(busy, `f${1000 + i}.ts`), filler);
    const indexing = await DirectoryStore.create({ roots: [busy], searchIndex: true });
    try {
      const walrus = () => ({ matcher: literalMatcher("walrus") });
      await indexing.search(walrus());
      while ((indexing.searchIndexStats()?.queued ?? 0) === 0) {
        await new Promise((resolve) => setTimeout(resolve, 1)); // the watcher starts
      }
      while (indexing.searchIndexStats()!.queued === 300) {
        await new Promise((resolve) => setTimeout(resolve, 1)); // the first batch goes out
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
      fs.writeFileSync(path.join(busy, "f1000.ts"), "walrus\n");
      await new Promise((resolve) => setTimeout(resolve, REPEAT_WINDOW_MS + 10));
      assert.equal((await indexing.search(walrus())).matchedLines, 1);
      await indexed(indexing);
      assert.equal((await indexing.search(walrus())).matchedLines, 1);
    } finally {
      indexing.close();
      fs.rmSync(busy, { recursive: true, force: true });
    }
  });

  test("spares reading what it rules out (shown by a change it cannot see)", BUN_ONLY, async () => {
    await indexed(store);
    // A write through a hard link from outside the root reaches the file but not the
    // watcher (a documented limit): a search that read the file would find the new text.
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), "linewise-outside-"));
    const link = path.join(outside, "link.ts");
    fs.linkSync(at("d2/f2.ts"), link);
    try {
      const before = fs.readFileSync(link, "utf8");
      fs.writeFileSync(link, before + "zebra\n"); // same inode: O_TRUNC, no rename
      for (const matcher of [literalMatcher("zebra"), regexMatcher("zebra|walrus")]) {
        const query = () => ({ matcher });
        assert.equal((await plain.search(query())).matchedLines, 1);
        const found = await store.search(query());
        assert.equal(found.matchedLines, 0, "the index ruled the file out without reading it");
        assert.equal(found.filesSearched, (await plain.search(query())).filesSearched);
      }
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
      fs.writeFileSync(at("d2/f2.ts"), "restored\n"); // an event: the index forgets the file
    }
    assert.equal((await store.search({ matcher: literalMatcher("zebra") })).matchedLines, 0);
    assert.equal((await store.search({ matcher: literalMatcher("restored") })).matchedLines, 1);
  });

  test(
    "knows a file too large to read whole is binary (a change it cannot see)",
    BUN_ONLY,
    async () => {
      // (A 24 MB executable in node_modules was opened and probed by every search.)
      const large = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "linewise-large-")));
      const big = new Uint8Array(17 << 20).fill(120);
      big[0] = 0;
      fs.writeFileSync(path.join(large, "tsc"), big);
      const indexing = await DirectoryStore.create({ roots: [large], searchIndex: true });
      const outside = fs.mkdtempSync(path.join(os.tmpdir(), "linewise-outside-"));
      try {
        await indexing.search({ matcher: literalMatcher("anything") }); // (it learns)
        await indexed(indexing);
        await new Promise((resolve) => setTimeout(resolve, REPEAT_WINDOW_MS + 10));
        // A write through a hard link from outside the root reaches the file, not the watcher:
        // a search that probed the file again would find the new text.
        fs.linkSync(path.join(large, "tsc"), path.join(outside, "tsc"));
        fs.writeFileSync(path.join(outside, "tsc"), "zebra\n".repeat(3 << 20));
        const found = await indexing.search({ matcher: literalMatcher("zebra") });
        assert.equal(found.matchedLines, 0, "the index knew the file binary without opening it");
        assert.equal(found.binaryFilesSkipped, 1);
      } finally {
        indexing.close();
        fs.rmSync(outside, { recursive: true, force: true });
        fs.rmSync(large, { recursive: true, force: true });
      }
    },
  );

  test(
    "rules out a file a search read and found without any alternative (a change it cannot see)",
    BUN_ONLY,
    async () => {
      // Each file holds every trigram of a literal that every match holds one spelling of,
      // but no match: the filters let it through, and a search reads it and finds nothing.
      const cases: Array<[string, string, Matcher]> = [
        ["alternatives", "createElement x; print(1)", regexMatcher("createElement\\(|walrus")],
        [
          "ignore case",
          "CreateElement x; PRINT(1)",
          regexMatcher("CREATEELEMENT\\(", { ignoreCase: true }),
        ],
      ];
      for (const [name, text] of cases) {
        fs.mkdirSync(at(`near/${name}`), { recursive: true });
        fs.writeFileSync(at(`near/${name}/file.ts`), `${text}\n`);
      }
      await store.search({ matcher: literalMatcher("anything") }); // (the index learns)
      await indexed(store);
      // (Past the watcher's repeat window: the next sync reports the writes no more.)
      await new Promise((resolve) => setTimeout(resolve, REPEAT_WINDOW_MS + 10));
      const outside = fs.mkdtempSync(path.join(os.tmpdir(), "linewise-outside-"));
      try {
        for (const [name, , matcher] of cases) {
          const query = (maxMatches: number) => ({ matcher, maxMatches, path: `near/${name}` });
          assert.equal((await store.search(query(50))).matchedLines, 0, name);
          // A write through a hard link from outside the root reaches the file, not the
          // watcher: a search that read the file again would find the new text.
          const link = path.join(outside, `${name}.ts`);
          fs.linkSync(at(`near/${name}/file.ts`), link);
          fs.writeFileSync(link, "createElement(1)\n");
          assert.equal((await plain.search(query(51))).matchedLines, 1, name);
          const found = await store.search(query(51)); // (not the kept result: another cap)
          assert.equal(found.matchedLines, 0, `${name}: the file found without it is not read`);
          assert.equal(found.filesSearched, 1, name);
        }
      } finally {
        fs.rmSync(outside, { recursive: true, force: true });
      }
      fs.rmSync(at("near"), { recursive: true }); // (an event: the index forgets the files)
    },
  );

  test(
    "never takes a literal's absence for that of alternatives spelled alike",
    BUN_ONLY,
    async () => {
      // The literal is how the alternatives of `zebra|walrus` could be written down as one
      // string; the file holds each of its trigrams, and "zebra", but not the literal.
      const literal = '[["zebra","walrus"],null]';
      fs.mkdirSync(at("alike"));
      fs.writeFileSync(at("alike/file.ts"), '[["zebra","walrus"],nul\n"],null]\n');
      await store.search({ matcher: literalMatcher("anything") }); // (the index learns)
      await indexed(store);
      await new Promise((resolve) => setTimeout(resolve, REPEAT_WINDOW_MS + 10));
      const search = (matcher: Matcher) => store.search({ matcher, path: "alike" });
      assert.equal((await search(literalMatcher(literal))).matchedLines, 0);
      assert.equal((await search(regexMatcher("zebra|walrus"))).matchedLines, 1);
      fs.rmSync(at("alike"), { recursive: true });
    },
  );

  test(
    "never takes a file without another literal every match holds for one without the needle",
    BUN_ONLY,
    async () => {
      // `function \w+Sync\(` looks for `Sync(`, the rarer of its literals, and passes over a
      // file that holds it but not `function ` (though every trigram of it). That file is not
      // one without `Sync(`: a search for `Sync(` must still read it.
      fs.mkdirSync(at("sync"));
      fs.writeFileSync(at("sync/file.ts"), "readSync(a)\nfunc unct ction on \n");
      fs.writeFileSync(at("sync/other.ts"), "function other() {}\n");
      await store.search({ matcher: literalMatcher("anything") }); // (the index learns)
      await indexed(store);
      await new Promise((resolve) => setTimeout(resolve, REPEAT_WINDOW_MS + 10));
      const search = (matcher: Matcher) => store.search({ matcher, path: "sync" });
      assert.equal((await search(regexMatcher("function \\w+Sync\\("))).matchedLines, 0);
      assert.equal((await search(literalMatcher("Sync("))).matchedLines, 1);
      assert.equal((await search(regexMatcher("a\\w+Sync\\("))).matchedLines, 1);
      fs.rmSync(at("sync"), { recursive: true });
    },
  );

  test(
    "answers an identical search from its kept result until the watcher reports a change",
    BUN_ONLY,
    async () => {
      await indexed(store);
      const query = () => ({ matcher: literalMatcher("kiwi"), maxMatches: 50 });
      fs.writeFileSync(at("d4/f4.ts"), "kiwi one\n");
      // (Past the watcher's repeat window, the next sync reports the write no more.)
      await new Promise((resolve) => setTimeout(resolve, REPEAT_WINDOW_MS + 10));
      const first = await store.search(query());
      assert.equal(first.matchedLines, 1);
      // (A path heard less than the repeat window before a sync ends is reported by the next
      // sync too, however much later: a repeat of its event right after the sync may have been
      // dropped. On a loaded machine the watcher may hear the write only while the first
      // search waits for it, so one more identical search comes first, past the window.)
      await new Promise((resolve) => setTimeout(resolve, REPEAT_WINDOW_MS + 10));
      assert.deepEqual(await store.search(query()), first);
      // A change the watcher cannot see (through a hard link from outside the root) shows
      // whether the next identical search reads anything.
      const outside = fs.mkdtempSync(path.join(os.tmpdir(), "linewise-outside-"));
      try {
        fs.linkSync(at("d4/f4.ts"), path.join(outside, "link.ts"));
        fs.writeFileSync(path.join(outside, "link.ts"), "kiwi one\nkiwi two\n");
        assert.deepEqual(await store.search(query()), first, "the kept result");
        const other = await store.search({ ...query(), maxMatches: 51 }); // not identical: read
        assert.equal(other.matchedLines, 2);
      } finally {
        fs.rmSync(outside, { recursive: true, force: true });
      }
      fs.writeFileSync(at("d3/f3.ts"), "no fruit\n"); // any change the watcher sees
      assert.equal((await store.search(query())).matchedLines, 2);
    },
  );

  test(
    "shares a kept result frozen throughout, so that no caller can change it",
    BUN_ONLY,
    async () => {
      const tree = tempTree(20);
      // (A line over 4 MiB in a file streamed, being over 16 MiB, comes back as a piece of
      // it: a row with a `piece`.)
      fs.writeFileSync(path.join(tree, "long.txt"), `${"x".repeat(17_000_000)} kiwi\nkiwi\n`);
      const kept = await DirectoryStore.create({ roots: [tree], searchIndex: true });
      try {
        await kept.search({ matcher: literalMatcher("nothing") }); // the watcher starts after it
        await indexed(kept);
        const query = () => ({ matcher: literalMatcher("kiwi"), context: 1, rowCut: 100 });
        const first = await kept.search(query());
        assert.equal(await kept.search(query()), first, "the same object, shared");
        assert.ok(first.files[0].rows.some((row) => row.piece !== undefined && row.match));
        const unfrozen: string[] = [];
        const visit = (value: unknown, at: string) => {
          if (typeof value !== "object" || value === null) return;
          if (!Object.isFrozen(value)) unfrozen.push(at);
          for (const [name, inner] of Object.entries(value)) visit(inner, `${at}.${name}`);
        };
        visit(first, "result");
        assert.deepEqual(unfrozen, []);
      } finally {
        kept.close();
        fs.rmSync(tree, { recursive: true, force: true });
      }
    },
  );

  test(
    "keeps a result per cut, as it may hold a long line as the part shown with the cut",
    BUN_ONLY,
    async () => {
      const tree = tempTree(20);
      const line = `${"x".repeat(100_000)}kiwi${"y".repeat(100_000)}`;
      fs.writeFileSync(path.join(tree, "long.js"), `${line}\n`);
      const kept = await DirectoryStore.create({ roots: [tree], searchIndex: true });
      try {
        await kept.search({ matcher: literalMatcher("nothing") }); // the watcher starts after it
        await indexed(kept);
        for (const rowCut of [100, 3000, 100]) {
          const query = () => ({ matcher: literalMatcher("kiwi"), rowCut });
          for (const result of [await kept.search(query()), await kept.search(query())]) {
            const [row] = result.files[0].rows;
            assert.deepEqual(row.piece, {
              from: 100_001 - Math.min(rowCut / 10, 200),
              codePoints: line.length,
              terminator: "\n",
            });
            assert.equal(
              row.text,
              line.slice(row.piece.from - 1, row.piece.from - 1 + rowCut) + "\n",
            );
          }
        }
      } finally {
        kept.close();
        fs.rmSync(tree, { recursive: true, force: true });
      }
    },
  );

  test(
    "keeps the result of a search that streamed a file too large to read whole",
    BUN_ONLY,
    async () => {
      const tree = tempTree(20);
      // (Over the 16 MiB read whole: searched as a stream, never a reason not to keep.)
      fs.writeFileSync(
        path.join(tree, "huge.txt"),
        "kiwi at the top\n" + "filler\n".repeat(2_500_000),
      );
      const kept = await DirectoryStore.create({ roots: [tree], searchIndex: true });
      const outside = fs.mkdtempSync(path.join(os.tmpdir(), "linewise-outside-"));
      try {
        await kept.search({ matcher: literalMatcher("nothing") }); // the watcher starts after it
        await indexed(kept);
        const query = () => ({ matcher: literalMatcher("kiwi"), maxMatches: 50 });
        fs.writeFileSync(path.join(tree, "d1/f1.ts"), "kiwi one\n");
        await new Promise((resolve) => setTimeout(resolve, REPEAT_WINDOW_MS + 10));
        const first = await kept.search(query());
        assert.equal(first.matchedLines, 2);
        await new Promise((resolve) => setTimeout(resolve, REPEAT_WINDOW_MS + 10)); // (as above)
        // A change the watcher cannot see shows whether the identical search reads anything.
        fs.linkSync(path.join(tree, "d1/f1.ts"), path.join(outside, "link.ts"));
        fs.writeFileSync(path.join(outside, "link.ts"), "kiwi one\nkiwi two\n");
        assert.deepEqual(await kept.search(query()), first, "the kept result");
      } finally {
        kept.close();
        fs.rmSync(outside, { recursive: true, force: true });
        fs.rmSync(tree, { recursive: true, force: true });
      }
    },
  );

  test(
    "makes the first search's walk again once it watches, so the next search needs none",
    BUN_ONLY,
    async () => {
      const fresh = await DirectoryStore.create({ roots: [root], searchIndex: true });
      try {
        await fresh.search({ matcher: literalMatcher("x") }); // before the watcher runs
        await indexed(fresh);
        for (let i = 0; i < 200 && fresh.searchIndexStats()!.walks === 0; i++) {
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        assert.equal(fresh.searchIndexStats()!.walks, 1);
        await bothAgree(fresh, plain, "walked again");
      } finally {
        fresh.close();
      }
    },
  );

  test("never rules out a file that already had other names when indexed", BUN_ONLY, async () => {
    // A write through another name (a hard link, here from outside the root) is not heard
    // by the watcher, so a file with several names gets no filter and no absence.
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), "linewise-outside-"));
    const linked = tempTree(20);
    const link = path.join(outside, "link.ts");
    fs.linkSync(path.join(linked, "d3", "f3.ts"), link);
    const withLink = await DirectoryStore.create({ roots: [linked], searchIndex: true });
    try {
      const query = () => ({ matcher: literalMatcher("yak") });
      await withLink.search(query()); // learning
      await indexed(withLink);
      assert.equal((await withLink.search(query())).matchedLines, 0); // read: no yak yet
      fs.writeFileSync(link, "yak\n");
      assert.equal((await withLink.search(query())).matchedLines, 1);
    } finally {
      withLink.close();
      fs.rmSync(outside, { recursive: true, force: true });
      fs.rmSync(linked, { recursive: true, force: true });
    }
  });

  test("serves concurrent searches, each right, and stays up", BUN_ONLY, async () => {
    await indexed(store);
    fs.writeFileSync(at("d5/f5.ts"), "createElement(concurrent)\n");
    const queries = QUERIES.map(([, matcher, extra]) => ({ matcher: matcher(), ...extra }));
    const together = await Promise.all(queries.map((query) => store.search(query)));
    for (const [i, query] of queries.entries()) {
      assert.deepEqual(together[i], await plain.search(query), QUERIES[i][0]);
    }
    assert.notEqual(store.searchIndexStats(), undefined, "the index is still there");
  });

  test("stays within its byte budget, and is still right when full", BUN_ONLY, async () => {
    const small = await DirectoryStore.create({
      roots: [root],
      searchIndex: true,
      searchIndexBytes: 200,
    });
    try {
      await small.search({ matcher: literalMatcher("x") });
      for (let i = 0; i < 100 && (small.searchIndexStats()?.queued ?? 0) > 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const stats = small.searchIndexStats()!;
      assert.ok(stats.bytes <= 200, JSON.stringify(stats));
      await bothAgree(small, plain, "full");
    } finally {
      small.close();
    }
  });

  test("close() stops it; searches go on without it", BUN_ONLY, async () => {
    const other = await DirectoryStore.create({ roots: [root], searchIndex: true });
    await other.search({ matcher: literalMatcher("x") });
    await indexed(other);
    other.close();
    assert.equal(other.searchIndexStats(), undefined);
    await bothAgree(other, plain, "closed");
  });

  test(
    "reads large files in the blocks that may hold the literal, and gives what a whole read gives",
    BUN_ONLY,
    async () => {
      const tree = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "linewise-blocks-")));
      const lines = (n: number, at: Set<number>, eol = "\n") =>
        Array.from({ length: n }, (_, i) => at.has(i) ? `x = needle(${i});${eol}` : `v${i};${eol}`);
      const big = lines(60_000, new Set([10, 30_000, 59_999])); // 500 kB
      big[20_000] = "\uFEFFneedle(bom)\n";
      big[40_000] = `${"a".repeat(150_000)} needle(long) ${"b".repeat(150_000)}\n`;
      fs.writeFileSync(path.join(tree, "big.js"), big.join(""));
      fs.writeFileSync(
        path.join(tree, "crlf.js"),
        lines(60_000, new Set([5, 45_000]), "\r\n").join(""),
      );
      fs.writeFileSync(path.join(tree, "none.js"), lines(60_000, new Set()).join(""));
      fs.writeFileSync(path.join(tree, "small.js"), "needle(small)\n");
      // (Every trigram of `needle(` in the file, none of its blocks holding them all: its
      // plan rules it out, and it is not read.)
      const split = lines(60_000, new Set());
      split[10] = "needleX;\n";
      split[50_000] = "ale(1);\n";
      fs.writeFileSync(path.join(tree, "split.js"), split.join(""));
      // (Files enough before and after the large ones that a new pattern's files are judged
      // in several stretches, each read while the next is judged.)
      for (const [dir, count] of [["a", 3000], ["z", 2000]] as const) {
        fs.mkdirSync(path.join(tree, dir));
        for (let i = 0; i < count; i++) {
          const body = i % 97 === 0 ? `x = needle(${dir}${i});\n` : `v${i};\n`;
          fs.writeFileSync(path.join(tree, dir, `f${i}.js`), body);
        }
      }
      // (A long line read in part, its blocks holding the literal: shown from its bytes.)
      const bundle = lines(250_000, new Set([7]));
      bundle[125_000] = `${"é".repeat(60_000)}needle(wide)${"c".repeat(40_000)}\n`;
      fs.writeFileSync(path.join(tree, "bundle.js"), bundle.join(""));
      // (Files changed less than 2 s before they are indexed get no block filters.)
      await new Promise((resolve) => setTimeout(resolve, 2_100));
      const blocked = await DirectoryStore.create({ roots: [tree], searchIndex: true });
      const whole = await DirectoryStore.create({ roots: [tree] });
      const outside = fs.mkdtempSync(path.join(os.tmpdir(), "linewise-outside-"));
      try {
        await blocked.search({ matcher: literalMatcher("nothing") }); // the watcher starts after it
        await indexed(blocked);
        assert.equal(blocked.searchIndexStats()!.blocked, 5);
        const queries: Array<() => SearchQuery> = [
          () => ({ matcher: literalMatcher("needle(") }),
          () => ({ matcher: regexMatcher("needle\\(\\d+\\)") }),
          () => ({ matcher: regexMatcher("NEEDLE\\(L", { ignoreCase: true }) }),
          () => ({ matcher: regexMatcher("needle\\(bom|v59999;") }),
          () => ({ matcher: literalMatcher("needle("), context: 2 }),
          () => ({ matcher: literalMatcher("needle("), maxMatches: 3 }),
          () => ({ matcher: literalMatcher("walrus") }),
        ];
        const digest = (name: string) =>
          createHash("sha1").update(fs.readFileSync(path.join(tree, name))).digest("hex");
        for (const query of queries) {
          const found = await blocked.search(query());
          // A file read as indexed comes with the digest of its bytes and the identity it was
          // read with; the rest is the same.
          for (const file of found.files) {
            if (file.sha1 === undefined) continue;
            assert.equal(file.sha1, digest(file.path), file.path);
            assert.equal(file.identity, (await whole.stat(file.path)).identity, file.path);
          }
          const bare = found.files.map(({ sha1: _, identity: _identity, ...file }) => file);
          assert.deepEqual({ ...found, files: bare }, await whole.search(query()));
        }
        const needles = await blocked.search(queries[0]());
        // (big.js is read whole, as indexed: its long line and matches make up most of it.
        // small.js is too small for block filters.)
        assert.deepEqual(
          needles.files.filter((file) => !file.path.includes("/"))
            .map((file) => [file.path, file.sha1 !== undefined]),
          [["big.js", true], ["bundle.js", true], ["crlf.js", true], ["small.js", false]],
          "read as indexed: the digest the index found",
        );
        assert.equal(needles.files.length, 4 + 31 + 21);
        for (const cut of [100, 2000]) {
          const shown = (result: SearchResult) =>
            result.files.flatMap((file) =>
              file.rows.map((row) => [file.path, formatRow(row, { cut }).text])
            );
          const windowed = await blocked.search({
            matcher: literalMatcher("needle("),
            rowCut: cut,
          });
          const [wide] = windowed.files.filter((file) => file.path === "bundle.js");
          assert.ok(wide.sha1 !== undefined && wide.rows.some((row) => row.piece), "in part");
          assert.deepEqual(shown(windowed), shown(await whole.search(queries[0]())));
        }
        // A write the watcher cannot hear (through a hard link from outside the root) into a
        // block that cannot hold the literal: the file is no longer as indexed, so it is read
        // whole, not in the blocks its filters named.
        const link = path.join(outside, "link.js");
        fs.linkSync(path.join(tree, "big.js"), link);
        const changed = [...big];
        changed[50_000] = "x = needle(10);\n"; // (the file's filter passes it: line 11 has it)
        fs.writeFileSync(link, changed.join(""));
        const query = () => ({ matcher: literalMatcher("needle(10)") });
        assert.equal((await whole.search(query())).matchedLines, 2);
        assert.deepEqual(await blocked.search(query()), await whole.search(query()));
      } finally {
        blocked.close();
        fs.rmSync(outside, { recursive: true, force: true });
        fs.rmSync(tree, { recursive: true, force: true });
      }
    },
  );

  test("rejects a bad byte budget", () => {
    assert.throws(
      () => new DirectoryStore(store.sandbox, { searchIndex: true, searchIndexBytes: -1 }),
      /searchIndexBytes must be a non-negative integer, got -1/,
    );
  });
});

describe("the search index, ignoring case", () => {
  let root: string;
  let store: DirectoryStore;
  let plain: DirectoryStore;
  before(async () => {
    root = tempTree(100);
    // Spellings a filter of folded trigrams must not rule out: other cases, and a Kelvin
    // sign or a long s (Unicode case folding matches them with k and s; they are other bytes).
    const spellings = [
      "x = CreateELEMENT(1);",
      "MONKEY_BUSINESS",
      "mon\u212Aey_business",
      "monkey_bu\u017Fine\u017F\u017F",
      "a \u212Aey",
      "monkey business", // (a near miss)
      "React.useEffect(f);",
    ];
    spellings.forEach((text, i) => fs.writeFileSync(path.join(root, `s${i}.txt`), text + "\n"));
    store = await DirectoryStore.create({ roots: [root], searchIndex: true });
    plain = await DirectoryStore.create({ roots: [root] });
  });
  after(() => {
    store.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  test("finds every spelling a store without it finds", BUN_ONLY, async () => {
    // (useEffectEvent and useEffect spell the same part of their literals: what the index
    // knows of one must not answer for the other.)
    const patterns = [
      "createElement\\(",
      "monkey_business",
      "Monkey_Business|key",
      "MON.EY_BUS",
      "useEffectEvent",
      "useEffect",
    ];
    const query = (pattern: string) => ({
      matcher: regexMatcher(pattern, { ignoreCase: true }),
      maxMatches: 10_000,
    });
    for (const pattern of patterns) await store.search(query(pattern)); // (it learns)
    await indexed(store);
    for (let i = 0; i < 500 && store.searchIndexStats()!.walks === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10)); // (the walk made again)
    }
    for (const pattern of patterns) {
      const got = await store.search(query(pattern));
      assert.deepEqual(got, await plain.search(query(pattern)), pattern);
    }
    const found = await store.search(query("monkey_business"));
    assert.deepEqual(found.files.map((file) => file.path), ["s1.txt", "s2.txt", "s3.txt"]);
  });
});
