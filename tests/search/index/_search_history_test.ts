// The search index (Bun only: see _tree_watcher.ts) remembers, per literal, the files a search
// read and found without it, and later searches skip them. Whatever searches came before, in
// whatever order, a search with the index must give what a store without one gives: drawn
// sequences of searches over a tree of near misses (files holding every trigram of a literal
// but not the literal, the needle without another literal every match holds, other letter
// cases, a Kelvin sign or a long s, long lines in large files read by block plans, CRLF).
import assert from "node:assert/strict";
import * as fs from "node:fs";
import { after, before, describe, test } from "node:test";
import fc from "fast-check";
import { literalMatcher, type Matcher, regexMatcher } from "../../../src/core/mod.ts";
import { DirectoryStore } from "../../../src/disk/directory_store.ts";
import { WATCH_ORDER_KEPT } from "../../../src/io/runtime.ts";
import { BLOCKED_FROM_BYTES } from "../../../src/search/index/_block_filters.ts";
import { WINDOWED_FROM_BYTES } from "../../../src/search/_long_rows.ts";
import type { SearchResult } from "../../../src/store/file_store.ts";
import {
  bare,
  blocksLater,
  brief,
  BUN_ONLY,
  type DrawnSearch,
  drawnSearches,
  learnedStore,
  makeTree,
} from "../../_helpers/index_history.ts";

/** A line over {@linkcode WINDOWED_FROM_BYTES} (windowed, or matched by stretches). */
const longLine = (middle: string, eol = "\n") =>
  `${"x=1;".repeat(9_000)}${middle}${"y=2;".repeat(9_000)}${eol}`;

/** Short lines, `n` of them. */
const filler = (tag: string, n: number, eol = "\n") =>
  Array.from({ length: n }, (_, i) => `let ${tag}${i} = ${i};${eol}`).join("");

// (short/ is walked before wide/, so a search stopped by a small cap still reads it.)
const SHORT: Record<string, string> = {
  // `Sync(` without `function ` (but each of its trigrams), and the other way round.
  "short/near_sync.ts": "readSync(a)\nfunc unct ction on \n",
  "short/sync_trigrams.ts": "function other() {}\nSyn ync nc( Sync \n",
  "short/sync_match.ts": "function readSync(a) {}\nexport function other() {}\n",
  "short/sync_upper.ts": "FUNCTION READSYNC(1)\nexport const Function = 1;\n",
  "short/sync_crlf.ts": "function aSync(x) {\r\n  return bSync(1);\r\n}\r\n",
  "short/sync_digit.ts": "let q = xSync(7);\nlet r = ySync(z);\n",
  "short/fn_a.ts": "function a() {}\nfunction b() {}\n",
  "short/fn_b.ts": "export function c() {}\n",
  // createElement( near misses.
  "short/ce_near.ts": "createElement x; print(1)\n",
  "short/ce_upper.ts": "CreateElement(1)\nx = CREATEELEMENT(2)\n",
  "short/ce_match.ts": 'const a = createElement("div");\nwalrus\n',
  "short/ce_crlf.ts": "createElement(1)\r\ncreateElement x\r\n",
  // Alternatives.
  "short/zebra.txt": "zebra 1\nzebra\nzebr ebra walru alrus\n",
  "short/walrus.txt": "the walrus said\n",
  "short/zebra_near.txt": "zebr ebra walru alrus\n",
  // Spellings a search ignoring case finds (a Kelvin sign, a long s), and near misses.
  "short/monkey_upper.txt": "MONKEY_BUSINESS\n",
  "short/monkey_kelvin.txt": "mon\u212Aey_business\n",
  "short/monkey_long_s.txt": "monkey_bu\u017Fine\u017F\u017F\n",
  "short/monkey_near.txt": "monkey business\n",
  "short/monkey_digit.txt": "monkey_business7\n",
  "short/kelvin_near.txt": "a \u212Aey\n",
};

/** Files over {@linkcode BLOCKED_FROM_BYTES} (read by their block plans), with long lines. */
const WIDE: Record<string, string> = {
  // Every literal of the regexes, in a long line where the regexes around them do not match.
  "wide/miss.js": "function helper() {}\n" + filler("a", 6_000) +
    longLine(" xSync(a); zebra; Monkey_Business; createElement x; ") + filler("b", 6_000) +
    "export function tail() {}\n",
  // And where they do.
  "wide/hit.js": "function helper() {}\n" + filler("c", 6_000) +
    longLine(" function readSync(12); zebra9; MONKEY_BUSINESS1; createElement(1); ") +
    filler("d", 6_000) + "walrus\n",
  "wide/crlf.js": filler("e", 6_000, "\r\n") +
    longLine(" aSync(3); function go() {}; mon\u212Aey_business; ", "\r\n") +
    filler("f", 6_000, "\r\n") + "function bSync(x) {}\r\n",
  // `Sync(` in short lines only, `function ` in others far away.
  "wide/short.js": "function first() {}\n" + filler("g", 9_000) + "let z = readSync(1);\n" +
    filler("h", 9_000) + "let w = writeSync(22);\n" + filler("i", 2_000),
  // Every trigram of `Sync(` in one line, but not `Sync(`.
  "wide/trigrams.js": filler("j", 10_000) + "Syn ync nc( function zebr ebra\n" +
    filler("k", 10_000),
};

/** The matchers a search is drawn from (a few literals, spelled in several ways). */
const MATCHERS: Array<[string, () => Matcher]> = [
  ["literal Sync(", () => literalMatcher("Sync(")],
  ["regex function \\w+Sync\\(", () => regexMatcher("function \\w+Sync\\(")],
  ["regex a\\w+Sync\\(", () => regexMatcher("a\\w+Sync\\(")],
  ["regex Sync\\(\\d+\\)", () => regexMatcher("Sync\\(\\d+\\)")],
  [
    "regex -i function \\w+sync\\(",
    () => regexMatcher("function \\w+sync\\(", { ignoreCase: true }),
  ],
  ["regex -i sync\\(", () => regexMatcher("sync\\(", { ignoreCase: true })],
  ["literal function ", () => literalMatcher("function ")],
  ["literal createElement(", () => literalMatcher("createElement(")],
  ["regex -i CREATEELEMENT\\(", () => regexMatcher("CREATEELEMENT\\(", { ignoreCase: true })],
  ["regex createElement\\(|walrus", () => regexMatcher("createElement\\(|walrus")],
  ["regex zebra|walrus", () => regexMatcher("zebra|walrus")],
  ["regex zebra\\d|walrus", () => regexMatcher("zebra\\d|walrus")],
  ["regex -i monkey_business", () => regexMatcher("monkey_business", { ignoreCase: true })],
  ["regex -i monkey_business\\d", () => regexMatcher("monkey_business\\d", { ignoreCase: true })],
  ["literal monkey_business", () => literalMatcher("monkey_business")],
];

const { any: anySearch, queryOf, told: describeSearch } = drawnSearches(MATCHERS, {
  rowCuts: [100, 2000],
  paths: ["short", "wide"],
});

describe("the search index, after any searches", () => {
  let root: string;
  let plain: DirectoryStore;
  /** The plain store's results, by search (the tree does not change). */
  const expected = new Map<string, Promise<SearchResult>>();
  const expect = (search: DrawnSearch) => {
    const key = JSON.stringify(search);
    if (!expected.has(key)) expected.set(key, plain.search(queryOf(search)));
    return expected.get(key)!;
  };

  /** Runs the searches in order on a new index, each checked against the plain store. */
  async function agree(searches: DrawnSearch[]): Promise<void> {
    const files = Object.keys(SHORT).length + Object.keys(WIDE).length;
    const store = await learnedStore(root, files, Object.keys(WIDE).length);
    try {
      const done: string[] = [];
      for (const search of searches) {
        done.push(describeSearch(search));
        const got = bare(await store.search(queryOf(search)));
        const want = await expect(search);
        const message = `searches:\n  ${done.join("\n  ")}`;
        assert.deepEqual(brief(got), brief(want), message);
        assert.deepEqual(got, want, message);
      }
    } finally {
      store.close();
    }
  }

  before(async () => {
    if (!WATCH_ORDER_KEPT) return;
    for (const text of Object.values(WIDE)) {
      assert.ok(text.length > BLOCKED_FROM_BYTES && text.length < 2 * BLOCKED_FROM_BYTES);
    }
    assert.ok(longLine("").length > WINDOWED_FROM_BYTES);
    root = makeTree({ ...SHORT, ...WIDE });
    plain = await DirectoryStore.create({ roots: [root] });
    await blocksLater();
  }, { timeout: 60_000 });
  after(() => {
    if (root !== undefined) fs.rmSync(root, { recursive: true, force: true });
  });

  test("gives what a store without it gives, whatever searches came before", BUN_ONLY, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(anySearch, { minLength: 3, maxLength: 8 }), agree),
      { numRuns: 45 }, // (about 0.1 s each: a new index learns the tree for each sequence)
    );
  });
});

describe("the search index, after a search that stretches a long line", () => {
  // Found by the property above. One file of 300 kB (so it has block filters), one line over
  // 64 KiB: a regex with `stretch`, rows cut and no context lines reads the blocks its plan
  // names (examinePlanned), and keptLines leaves the line out, as the stretch around the
  // needle holds no match. Nothing found, the file came back as "none" without
  // `holdsNeedle`, and was recorded as one without the needle (or without every alternative,
  // ignoring case): the next search for the needle alone skipped it.
  const cases: Array<[string, string, Matcher, Matcher]> = [
    ["a literal", "xSync(1)", regexMatcher("a\\w+Sync\\("), literalMatcher("Sync(")],
    [
      "ignoring case",
      "Monkey_Business",
      regexMatcher("monkey_business\\d", { ignoreCase: true }),
      regexMatcher("monkey_business", { ignoreCase: true }),
    ],
  ];
  test("still finds the needle it found there without a match", BUN_ONLY, async () => {
    const root = makeTree(
      Object.fromEntries(
        cases.map(([, middle], i) => [`f${i}.js`, `${";".repeat(300_000)}${middle}\n`]),
      ),
    );
    try {
      await blocksLater();
      const store = await learnedStore(root, cases.length, cases.length);
      try {
        for (const [name, , first, then] of cases) {
          assert.equal((await store.search({ matcher: first, rowCut: 100 })).matchedLines, 0, name);
          assert.equal((await store.search({ matcher: then })).matchedLines, 1, name);
        }
      } finally {
        store.close();
      }
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
