/**
 * The FileStore conformance suite: the contract's tests, runnable against any store with
 * `node:test` (Deno, Bun and Node). Call {@linkcode testFileStore} from a test file.
 *
 * @example
 * ```ts ignore
 * import { testFileStore } from "@linewise/linewise/testing";
 * import { MemoryStore } from "@linewise/linewise";
 * testFileStore("MemoryStore", (files, { deny }) => new MemoryStore(files, { deny }));
 * ```
 *
 * @module
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { literalMatcher, regexMatcher, splitBom, splitLines } from "../core/mod.ts";
import type {
  FileMatches,
  FileStore,
  LineRangeOptions,
  SearchQuery,
  SearchResult,
} from "../store/file_store.ts";

/** A store made for one test, with what the suite needs around it. */
export interface StoreFixture {
  /** The store, holding exactly the files asked for. */
  store: FileStore;
  /** Called after the test (remove temporary directories here). */
  cleanup?: () => void | Promise<void>;
  /**
   * Changes a file behind the store's back, synchronously (as another process would); the
   * test of edits refused on a changed file is skipped without it.
   */
  changeFile?: (path: string, content: string) => void;
}

/** Makes a store holding `files` (paths relative to its first root) with deny globs. */
export type MakeStore = (
  files: Record<string, string | Uint8Array>,
  options: { deny: string[] },
) => FileStore | StoreFixture | Promise<FileStore | StoreFixture>;

/** Generous limits, so that a read returns everything it is asked for. */
const WIDE: Omit<LineRangeOptions, "start"> = { maxLines: 1_000_000, maxChars: 1e12, cut: 2000 };

/** Texts for the line rule, one row per case. */
const LINE_CASES: [string, string][] = [
  ["empty text", ""],
  ["a lone newline", "\n"],
  ["two newlines", "\n\n"],
  ["LF lines with a final newline", "a\nb\n"],
  ["no final newline", "a\nb"],
  ["CRLF lines", "a\r\nb\r\n"],
  ["mixed CRLF and LF", "a\r\nb\nc\r\n"],
  ["a lone CR inside a line", "a\rb\nc\n"],
  ["a CR at the very end", "a\nb\r"],
  ["a BOM", "\uFEFFa\nb\n"],
  ["a BOM and nothing else", "\uFEFF"],
  ["a BOM and CRLF without a final newline", "\uFEFFx\r\ny"],
  ["multi-byte characters", "é\n€\n𝄞 and 日本\n"],
  ["a long line", "x".repeat(100_000) + "\nshort\n"],
];

/**
 * Registers the FileStore contract tests for a store under `describe(name)`.
 *
 * @param name the store's name, for the test report
 * @param makeStore makes a fresh store holding given files, for each test
 */
export function testFileStore(name: string, makeStore: MakeStore): void {
  async function withStore(
    files: Record<string, string | Uint8Array>,
    deny: string[],
    test: (store: FileStore, fixture: StoreFixture) => Promise<void>,
  ): Promise<void> {
    const made = await makeStore(files, { deny });
    const fixture: StoreFixture = "store" in made ? made : { store: made };
    try {
      await test(fixture.store, fixture);
    } finally {
      await fixture.cleanup?.();
    }
  }

  async function readAll(store: FileStore, path: string, start = 1) {
    return await store.readLines(path, { start, ...WIDE });
  }

  describe(`${name} conforms to the FileStore contract`, () => {
    describe("reading", () => {
      for (const [label, text] of LINE_CASES) {
        it(`readLines() numbers ${label} as splitLines() does`, async () => {
          await withStore({ "f.txt": text }, [], async (store) => {
            const expected = splitLines(splitBom(text).body);
            const all = await readAll(store, "f.txt");
            assert.deepEqual(all.lines, expected);
            assert.equal(all.total, expected.length);
            assert.equal(all.more, false);
            assert.equal(all.invalidUtf8, false);
            for (let n = 1; n <= expected.length; n++) {
              const one = await store.readLines("f.txt", { start: n, end: n, ...WIDE });
              assert.deepEqual(one.lines, [expected[n - 1]], `line ${n}`);
              assert.equal(one.more, false, `line ${n} asked with end=${n}`);
            }
            const past = await store.readLines("f.txt", { start: expected.length + 1, ...WIDE });
            assert.deepEqual(past.lines, []);
            assert.equal(past.total, expected.length);
          });
        });
        it(`readText() returns ${label} verbatim, BOM included`, async () => {
          await withStore({ "f.txt": text }, [], async (store) => {
            const file = await store.readText("f.txt");
            assert.equal(file.text, text);
            assert.equal(file.size, new TextEncoder().encode(text).length);
            assert.equal(file.invalidUtf8, false);
            assert.equal(file.path, "f.txt");
          });
        });
      }

      it("readLines() stops at maxLines and says more lines exist", async () => {
        await withStore({ "f.txt": "1\n2\n3\n4\n5\n" }, [], async (store) => {
          const range = await store.readLines("f.txt", {
            start: 2,
            maxLines: 2,
            maxChars: 1000,
            cut: 10,
          });
          assert.deepEqual(range.lines, ["2\n", "3\n"]);
          assert.equal(range.more, true);
          assert.equal(range.start, 2);
          if (range.total !== undefined) assert.equal(range.total, 5);
          const clamped = await store.readLines("f.txt", { start: 4, end: 99, ...WIDE });
          assert.deepEqual(clamped.lines, ["4\n", "5\n"]);
          assert.equal(clamped.more, false);
          const upTo = await store.readLines("f.txt", { start: 1, end: 2, ...WIDE });
          assert.equal(upTo.more, false);
        });
      });

      it("readLines() stops after the line that passes maxChars, counting a long line as cut + 1", async () => {
        await withStore({ "f.txt": "aaaa\nbbbbbbbbbbbbbbbbbbbb\ncc\ndd\n" }, [], async (store) => {
          const range = await store.readLines("f.txt", {
            start: 1,
            maxLines: 100,
            maxChars: 10,
            cut: 5,
          });
          assert.deepEqual(range.lines, ["aaaa\n", "bbbbbbbbbbbbbbbbbbbb\n"]);
          assert.equal(range.more, true);
          const one = await store.readLines("f.txt", {
            start: 2,
            maxLines: 100,
            maxChars: 1,
            cut: 5,
          });
          assert.equal(one.lines.length, 1, "at least one line is always returned");
        });
      });

      it("readLines() refuses a start line below 1 with a RangeError", async () => {
        await withStore({ "f.txt": "a\n" }, [], async (store) => {
          await assert.rejects(store.readLines("f.txt", { start: 0, ...WIDE }), RangeError);
        });
      });

      it("reads refuse a binary file with its size", async () => {
        const bytes = new Uint8Array([0x61, 0x0a, 0x00, 0x62, 0x0a]);
        await withStore({ "bin.dat": bytes }, [], async (store) => {
          await assert.rejects(store.readText("bin.dat"), { code: "binary", size: 5 });
          await assert.rejects(store.readLines("bin.dat", { start: 1, ...WIDE }), {
            code: "binary",
          });
          assert.deepEqual([...(await store.readBytes("bin.dat"))], [...bytes]);
        });
      });

      it("a NUL after the first 8 KiB does not make a file binary", async () => {
        const text = "x".repeat(8191) + "\n" + "tail\0\n";
        await withStore({ "late.txt": text }, [], async (store) => {
          assert.equal((await store.readText("late.txt")).text, text);
        });
      });

      it("invalid UTF-8 is readable with U+FFFD and flagged, but never editable", async () => {
        const bytes = new Uint8Array([0x61, 0xff, 0x0a, 0x62, 0x0a]);
        await withStore({ "bad.txt": bytes }, [], async (store) => {
          const file = await store.readText("bad.txt");
          assert.equal(file.text, "a\uFFFD\nb\n");
          assert.equal(file.invalidUtf8, true);
          const range = await readAll(store, "bad.txt");
          assert.deepEqual(range.lines, ["a\uFFFD\n", "b\n"]);
          assert.equal(range.invalidUtf8, true);
          await assert.rejects(
            store.update("bad.txt", (text) => ({ text: text + "c\n", value: 0 })),
            { code: "invalid_utf8" },
          );
          assert.deepEqual([...(await store.readBytes("bad.txt"))], [...bytes]);
        });
      });

      it("readText() refuses a file over maxBytes and a directory", async () => {
        await withStore({ "big.txt": "0123456789", "dir/a.txt": "" }, [], async (store) => {
          await assert.rejects(store.readText("big.txt", { maxBytes: 9 }), { code: "too_large" });
          assert.equal((await store.readText("big.txt", { maxBytes: 10 })).text, "0123456789");
          await assert.rejects(store.readText("dir"), { code: "not_a_file" });
          await assert.rejects(store.readText("missing.txt"), { code: "not_found" });
        });
      });

      it("stat() reports kind and size", async () => {
        await withStore({ "dir/a.txt": "abc" }, [], async (store) => {
          const file = await store.stat("dir/a.txt");
          assert.equal(file.kind, "file");
          assert.equal(file.size, 3);
          assert.equal(file.path, "dir/a.txt");
          assert.equal((await store.stat("dir")).kind, "directory");
          assert.equal((await store.stat("./dir/../dir/a.txt")).path, "dir/a.txt");
        });
      });

      it("paths that climb out of the root or hold a NUL byte are refused", async () => {
        await withStore({ "a.txt": "a\n" }, [], async (store) => {
          await assert.rejects(store.readText("../a.txt"), { code: "outside_root" });
          await assert.rejects(store.readText("x/../../a.txt"), { code: "outside_root" });
          await assert.rejects(store.readText("a.txt\0"), { code: "outside_root" });
          await assert.rejects(store.write("../new.txt", "x"), { code: "outside_root" });
        });
      });
    });

    describe("searching", () => {
      const tree = {
        "a.txt": "alpha\nbeta\r\ngamma beta\n",
        "src/b.ts": "\uFEFFbeta one\nzeta\nbeta two",
        "src/deep/c.ts": "nothing\nhere beta\n",
        "src/a-b.txt": "beta\n",
      };

      it("search() line numbers address the lines readLines() returns", async () => {
        await withStore(tree, [], async (store) => {
          for (const context of [0, 1, 2]) {
            const result = await store.search({ matcher: literalMatcher("beta"), context });
            assert.ok(result.files.length > 0);
            for (const file of result.files) {
              const { lines } = await readAll(store, file.path);
              for (const row of file.rows) {
                assert.equal(
                  row.text,
                  lines[row.line - 1],
                  `${file.path}:${row.line} context=${context}`,
                );
              }
            }
          }
        });
      });

      it("search() reports files in path order with matching and context rows", async () => {
        await withStore(tree, [], async (store) => {
          const result = await store.search({ matcher: regexMatcher("^beta"), context: 1 });
          assert.deepEqual(result.files.map((f) => f.path), ["a.txt", "src/a-b.txt", "src/b.ts"]);
          const a = result.files[0];
          assert.deepEqual(a.rows.map((r) => [r.line, r.match !== undefined]), [[1, false], [
            2,
            true,
          ], [3, false]]);
          assert.equal(result.matchedLines, 4);
          assert.equal(result.filesSearched, 4);
          assert.equal(result.stopped, undefined);
          assert.equal(result.filesNotSearched, 0);
        });
      });

      it("search() matches `x$` before a CRLF and never includes the BOM in line 1", async () => {
        await withStore(tree, [], async (store) => {
          const crlf = await store.search({ matcher: regexMatcher("beta$"), path: "a.txt" });
          assert.deepEqual(crlf.files[0].rows.map((r) => r.line), [2, 3]);
          const bom = await store.search({ matcher: regexMatcher("^beta one"), path: "src/b.ts" });
          assert.equal(bom.files[0].rows[0].text, "beta one\n");
        });
      });

      it("search() reports max_matches only when another match exists", async () => {
        await withStore(tree, [], async (store) => {
          const exact = await store.search({ matcher: literalMatcher("beta"), maxMatches: 6 });
          assert.equal(exact.matchedLines, 6);
          assert.equal(exact.stopped, undefined);
          const capped = await store.search({ matcher: literalMatcher("beta"), maxMatches: 3 });
          assert.equal(capped.matchedLines, 3);
          assert.equal(capped.stopped, "max_matches");
          const rows = capped.files.flatMap((f) => f.rows.filter((r) => r.match));
          assert.equal(rows.length, 3);
        });
      });

      it("search() counting only gives each file's matching lines as its rows tell them", async () => {
        await withStore(tree, [], async (store) => {
          // (A store may leave the rows out, and give each file's count instead.)
          const counts = (result: SearchResult, perFile = Infinity) =>
            result.files.map((f) => [
              f.path,
              f.matchedLines ?? Math.min(f.rows.filter((r) => r.match).length, perFile),
            ]);
          for (
            const matcher of [
              literalMatcher("beta"),
              regexMatcher("beta|zeta"),
              regexMatcher("^beta"),
              literalMatcher("BETA", { ignoreCase: true }),
            ]
          ) {
            for (const limits of [{}, { maxMatches: 3 }, { maxMatchesPerFile: 1, context: 1 }]) {
              const query = { matcher, ...limits };
              const rows = await store.search(query);
              const counted = await store.search({ ...query, countOnly: true });
              const what = `${matcher.key} ${JSON.stringify(limits)}`;
              assert.deepEqual(counts(counted), counts(rows, limits.maxMatchesPerFile), what);
              assert.equal(counted.matchedLines, rows.matchedLines, what);
              assert.equal(counted.stopped, rows.stopped, what);
              assert.equal(counted.filesSearched, rows.filesSearched, what);
            }
          }
        });
      });

      it("search() hands each file over as it finishes it, when asked, or gives it in files", async () => {
        await withStore(tree, [], async (store) => {
          for (const limits of [{}, { maxMatches: 3 }, { context: 1 }]) {
            const query = { matcher: literalMatcher("beta"), ...limits };
            const whole = await store.search(query);
            const handed: FileMatches[] = [];
            let settled = false;
            const streamed = store.search({
              ...query,
              onFile: (file) => {
                assert.equal(settled, false, "handed over before the search ends");
                handed.push(file);
              },
            });
            const result = await streamed.finally(() => settled = true);
            // (A store may give them in files instead: either way, the same files in order.)
            assert.deepEqual([...handed, ...result.files], whole.files, JSON.stringify(limits));
            assert.ok(handed.length === 0 || result.files.length === 0);
            const { files: _, ...counts } = result;
            const { files: __, ...wholeCounts } = whole;
            assert.deepEqual(counts, wholeCounts);
          }
        });
      });

      it("search() tells of the text files it found no match in, in path order, when asked", async () => {
        await withStore({ ...tree, "bin.dat": "beta\0" }, [], async (store) => {
          const cases = [
            // (Without the literal; with it, but no match; and none: a binary file is not told.)
            [literalMatcher("gamma"), ["src/a-b.txt", "src/b.ts", "src/deep/c.ts"]],
            [regexMatcher("beta\\d"), ["a.txt", "src/a-b.txt", "src/b.ts", "src/deep/c.ts"]],
            [literalMatcher("beta"), []],
          ] as const;
          const told: string[][] = [];
          for (const [matcher] of cases) {
            const paths: string[] = [];
            await store.search({ matcher, onNoMatch: (path) => void paths.push(path) });
            told.push(paths);
          }
          // (A store may leave it uncalled; one that tells any file tells them all.)
          if (told.some((paths) => paths.length > 0)) {
            assert.deepEqual(told, cases.map(([, without]) => without));
          }
        });
      });

      it("search() takes one matching line past maxChars of rows, then stops", async () => {
        await withStore(tree, [], async (store) => {
          // The first rows, in path order: "beta\r\n" (6 characters), "gamma beta\n" (11),
          // "beta\n" (5).
          const search = (maxChars: number, rowCut?: number) =>
            store.search({ matcher: literalMatcher("beta"), maxChars, rowCut });
          const lines = (result: SearchResult) =>
            result.files.flatMap((f) => f.rows.filter((r) => r.match).map((r) => r.text));
          const two = await search(6); // (6 fill it; 17 are more: one line more)
          assert.deepEqual(lines(two), ["beta\r\n", "gamma beta\n", "beta\n"]);
          assert.equal(two.stopped, "max_matches");
          assert.ok(two.filesNotSearched >= 1);
          // (Not the same search: a store that keeps results keeps them apart.)
          assert.equal((await store.search({ matcher: literalMatcher("beta") })).matchedLines, 6);
          assert.deepEqual(lines(await search(3)), ["beta\r\n", "gamma beta\n"]);
          // (A row counts as at most the cut: 2 + 2 are more than 3.)
          assert.equal((await search(3, 2)).matchedLines, 3);
          const all = await search(1000);
          assert.equal(all.matchedLines, 6);
          assert.equal(all.stopped, undefined);
        });
      });

      it("search() skips binary files and counts them", async () => {
        await withStore(
          { "bin.dat": new Uint8Array([0x62, 0x65, 0x74, 0x61, 0, 0x0a]), "t.txt": "beta\n" },
          [],
          async (store) => {
            const result = await store.search({ matcher: literalMatcher("beta") });
            assert.deepEqual(result.files.map((f) => f.path), ["t.txt"]);
            assert.equal(result.binaryFilesSkipped, 1);
          },
        );
      });

      it("search() flags a file with invalid UTF-8", async () => {
        await withStore(
          { "bad.txt": new Uint8Array([0x62, 0x65, 0x74, 0x61, 0xff, 0x0a]) },
          [],
          async (store) => {
            const result = await store.search({ matcher: literalMatcher("beta") });
            assert.equal(result.files[0].invalidUtf8, true);
            assert.equal(result.files[0].rows[0].text, "beta\uFFFD\n");
          },
        );
      });

      it("search() stops with time at a past deadline and rejects when aborted", async () => {
        await withStore(tree, [], async (store) => {
          const late = await store.search({
            matcher: literalMatcher("beta"),
            deadline: Date.now() - 1,
          });
          assert.equal(late.stopped, "time");
          assert.equal(late.filesSearched, 0);
          // Every file found is counted; a store that stops its walk at the deadline too
          // says that it did not find them all.
          if (late.walkUnfinished) assert.ok(late.filesNotSearched <= 4);
          else assert.equal(late.filesNotSearched, 4);
          const controller = new AbortController();
          const reason = new Error("cancelled by the client");
          controller.abort(reason);
          await assert.rejects(
            store.search({ matcher: literalMatcher("beta"), signal: controller.signal }),
            (error) => error === reason,
          );
        });
      });

      it("glob without a slash matches names at any depth; with a slash, paths relative to path", async () => {
        await withStore(tree, [], async (store) => {
          assert.deepEqual(await store.glob({ glob: "*.ts" }), ["src/b.ts", "src/deep/c.ts"]);
          assert.deepEqual(await store.glob({ glob: "src/*.ts" }), ["src/b.ts"]);
          assert.deepEqual(await store.glob({ glob: "src/**/*.ts" }), [
            "src/b.ts",
            "src/deep/c.ts",
          ]);
          assert.deepEqual(await store.glob({ glob: "*.ts", path: "src/deep" }), ["src/deep/c.ts"]);
          assert.deepEqual(await store.glob({ glob: "deep/*.ts", path: "src" }), ["src/deep/c.ts"]);
          const searched = await store.search({ matcher: literalMatcher("beta"), glob: "*.ts" });
          assert.deepEqual(searched.files.map((f) => f.path), ["src/b.ts", "src/deep/c.ts"]);
        });
      });
    });

    describe("walk rules", () => {
      const tree = {
        ".gitignore": "*.log\nbuild/\n",
        "app.ts": "needle\n",
        "debug.log": "needle\n",
        "build/out.js": "needle\n",
        ".hidden.txt": "needle\n",
        ".config/settings.json": "needle\n",
        ".git/config": "needle\n",
        "pkg/.gitignore": "generated.ts\n!keep.log\n",
        "pkg/generated.ts": "needle\n",
        "pkg/keep.log": "needle\n",
        "pkg/main.ts": "needle\n",
      };

      it("walks honour nested .gitignore files and skip hidden names and .git", async () => {
        await withStore(tree, [], async (store) => {
          const expected = ["app.ts", "pkg/keep.log", "pkg/main.ts"];
          assert.deepEqual(await store.glob({ glob: "*" }), expected);
          const found = await store.search({ matcher: literalMatcher("needle") });
          assert.deepEqual(found.files.map((f) => f.path), expected);
          const listed = (await store.list(".", { depth: 3 })).map((e) => e.path);
          assert.deepEqual(listed, ["pkg", "pkg/keep.log", "pkg/main.ts", "app.ts"]);
        });
      });

      it("includeIgnored shows ignored and hidden files but never .git", async () => {
        await withStore(tree, [], async (store) => {
          const all = await store.glob({ glob: "*", includeIgnored: true });
          assert.deepEqual(all, [
            ".config/settings.json",
            ".gitignore",
            ".hidden.txt",
            "app.ts",
            "build/out.js",
            "debug.log",
            "pkg/.gitignore",
            "pkg/generated.ts",
            "pkg/keep.log",
            "pkg/main.ts",
          ]);
          const listed = (await store.list(".", { includeIgnored: true })).map((e) => e.path);
          assert.ok(!listed.includes(".git"));
          assert.ok(listed.includes(".config") && listed.includes("debug.log"));
        });
      });

      it("walks keep to a depth (maxDepth), to types beside globs that decide (onlyTypes) and to a size (maxFileSize)", async () => {
        const files = {
          "a.md": "x\n",
          "a.ts": "x\n",
          "src/b.ts": "x\nx\n",
          "src/c.md": "x\n",
          "src/deep/d.ts": "x\n",
        };
        const cases: Array<[Omit<SearchQuery, "matcher">, string[]]> = [
          [{ maxDepth: 1 }, ["a.md", "a.ts"]],
          [{ maxDepth: 2 }, ["a.md", "a.ts", "src/b.ts", "src/c.md"]],
          [{ maxDepth: 0 }, []],
          // (The depth counts from the path; globs that decide first match from the root.)
          [{ path: "src", maxDepth: 1, glob: ["src/*"], globsFirst: true }, [
            "src/b.ts",
            "src/c.md",
          ]],
          [{ glob: ["!a.*"], globsFirst: true, onlyTypes: ["*.ts"] }, [
            "src/b.ts",
            "src/deep/d.ts",
          ]],
          [{ onlyTypes: ["*.md"], maxDepth: 2 }, ["a.md", "src/c.md"]],
          // (Of two bytes at most: src/b.ts has four; a file given as the path has any size.)
          [{ maxFileSize: 2 }, ["a.md", "a.ts", "src/c.md", "src/deep/d.ts"]],
          [{ maxFileSize: 4, path: "src", maxDepth: 1 }, ["src/b.ts", "src/c.md"]],
          [{ maxFileSize: 0 }, []],
          [{ maxFileSize: 2, path: "src/b.ts" }, ["src/b.ts"]],
        ];
        await withStore(files, [], async (store) => {
          for (const [query, expected] of cases) {
            const found = await store.search({ matcher: literalMatcher("x"), ...query });
            assert.deepEqual(found.files.map((f) => f.path), expected, JSON.stringify(query));
            assert.deepEqual(await store.glob(query), expected, JSON.stringify(query));
          }
        });
      });

      it("a directory or file asked for by name is walked even when hidden or ignored", async () => {
        await withStore(tree, [], async (store) => {
          assert.deepEqual(await store.glob({ path: ".config", glob: "*" }), [
            ".config/settings.json",
          ]);
          assert.deepEqual(await store.glob({ path: "build", glob: "*" }), ["build/out.js"]);
          const one = await store.search({ matcher: literalMatcher("needle"), path: "debug.log" });
          assert.deepEqual(one.files.map((f) => f.path), ["debug.log"]);
        });
      });
    });

    describe("deny rules", () => {
      const tree = {
        "a.txt": "token\n",
        ".env": "token=secret\n",
        "keys/id.pem": "token\n",
        "src/app.env": "token\n",
        "src/ok.ts": "token\n",
      };
      const deny = ["*.env", ".env", "keys/"];

      it("denied files are never listed, globbed or searched, even with includeIgnored", async () => {
        await withStore(tree, deny, async (store) => {
          for (const includeIgnored of [false, true]) {
            const listed = (await store.list(".", { depth: 5, includeIgnored })).map((e) => e.path);
            assert.deepEqual(listed, ["src", "src/ok.ts", "a.txt"]);
            assert.deepEqual(await store.glob({ glob: "*", includeIgnored }), [
              "a.txt",
              "src/ok.ts",
            ]);
            const found = await store.search({ matcher: literalMatcher("token"), includeIgnored });
            assert.deepEqual(found.files.map((f) => f.path), ["a.txt", "src/ok.ts"]);
            assert.ok(!JSON.stringify(found).includes("secret"));
          }
        });
      });

      it("a denied path gets the same refusal whether or not it exists", async () => {
        await withStore(tree, deny, async (store) => {
          for (
            const path of [
              ".env",
              "src/app.env",
              "keys/id.pem",
              "keys",
              "missing.env",
              "keys/missing",
              "src/../.env",
            ]
          ) {
            for (
              const attempt of [
                () => store.readText(path),
                () => store.readLines(path, { start: 1, ...WIDE }),
                () => store.stat(path),
                () => store.write(path, "x", { overwrite: true }),
                () => store.delete(path),
                () => store.move(path, "moved.txt"),
                () => store.move("a.txt", path),
                () => store.search({ matcher: literalMatcher("token"), path }),
                () => store.list(path),
              ]
            ) {
              await assert.rejects(attempt(), (error: Error & { code?: string }) => {
                assert.equal(error.code, "denied", `${path}: ${error.message}`);
                assert.ok(!error.message.includes("exist"), error.message);
                return true;
              });
            }
          }
          assert.equal((await store.readText("a.txt")).text, "token\n");
        });
      });
    });

    describe("writing", () => {
      it("write() creates a file and its parent directories with exactly the text", async () => {
        await withStore({}, [], async (store) => {
          const written = await store.write("./new/deep/file.txt", "a\r\nb");
          assert.deepEqual(written, { path: "new/deep/file.txt", created: true });
          assert.equal((await store.readText("new/deep/file.txt")).text, "a\r\nb");
          assert.equal((await store.stat("new/deep")).kind, "directory");
        });
      });

      it("write() refuses an existing file unless overwrite, and never a directory", async () => {
        await withStore({ "a.txt": "old\n", "dir/x.txt": "" }, [], async (store) => {
          await assert.rejects(store.write("a.txt", "new\n"), { code: "exists" });
          assert.equal((await store.readText("a.txt")).text, "old\n");
          const written = await store.write("a.txt", "new\n", { overwrite: true });
          assert.deepEqual(written, { path: "a.txt", created: false });
          assert.equal((await store.readText("a.txt")).text, "new\n");
          await assert.rejects(store.write("dir", "x", { overwrite: true }), {
            code: "not_a_file",
          });
        });
      });

      it("update() writes the edit and returns its value", async () => {
        await withStore({ "a.txt": "\uFEFFone\r\ntwo\r\n" }, [], async (store) => {
          const value = await store.update(
            "a.txt",
            (text) => ({ text: text.replace("two", "2"), value: 42 }),
          );
          assert.equal(value, 42);
          assert.equal((await store.readText("a.txt")).text, "\uFEFFone\r\n2\r\n");
        });
      });

      it("update() without text writes nothing", async () => {
        await withStore({ "a.txt": "same\n" }, [], async (store) => {
          const before = await store.stat("a.txt");
          const value = await store.update("a.txt", () => ({ value: "dry run" }));
          assert.equal(value, "dry run");
          assert.equal((await store.readText("a.txt")).text, "same\n");
          assert.equal((await store.stat("a.txt")).mtimeMs, before.mtimeMs);
        });
      });

      it("update() refuses a file that changed while the edit was made", async (t) => {
        await withStore({ "a.txt": "one\n" }, [], async (store, fixture) => {
          if (fixture.changeFile === undefined) {
            t.skip?.("the fixture cannot change files behind the store's back");
            return;
          }
          await assert.rejects(
            store.update("a.txt", (text) => {
              fixture.changeFile!("a.txt", "changed elsewhere\n");
              return { text: text + "two\n", value: 0 };
            }),
            { code: "changed" },
          );
          assert.equal((await store.readText("a.txt")).text, "changed elsewhere\n");
        });
      });

      it("update() refuses a file that changed to other text of the same size", async (t) => {
        await withStore({ "a.txt": "one\n" }, [], async (store, fixture) => {
          if (fixture.changeFile === undefined) {
            t.skip?.("the fixture cannot change files behind the store's back");
            return;
          }
          // Same size (and, on a coarse clock, the same mtime): only the content tells.
          await assert.rejects(
            store.update("a.txt", (text) => {
              fixture.changeFile!("a.txt", "two\n");
              return { text: text + "more\n", value: 0 };
            }),
            { code: "changed" },
          );
          assert.equal((await store.readText("a.txt")).text, "two\n");
        });
      });

      it("update() hands the edit the bytes it read: the UTF-8 of its text", async () => {
        const text = "\uFEFFcafé 😀\r\nline\rtwo\n";
        await withStore({ "a.txt": text }, [], async (store) => {
          const given = await store.update("a.txt", (seen, _display, bytes) => ({
            text: undefined,
            value: { seen, bytes: Array.from(bytes) },
          }));
          assert.equal(given.seen, text);
          assert.deepEqual(given.bytes, Array.from(new TextEncoder().encode(text)));
        });
      });

      it("update() refuses a large file changed past its first MiB, with an edit that awaits", async (t) => {
        const head = "x".repeat(3 << 20);
        await withStore({ "big.txt": head + "one\n" }, [], async (store, fixture) => {
          if (fixture.changeFile === undefined) {
            t.skip?.("the fixture cannot change files behind the store's back");
            return;
          }
          await assert.rejects(
            store.update("big.txt", async (text) => {
              await new Promise((resolve) => setTimeout(resolve, 1));
              fixture.changeFile!("big.txt", head + "two\n");
              return { text: text + "more\n", value: 0 };
            }),
            { code: "changed" },
          );
          assert.ok((await store.readText("big.txt")).text === head + "two\n", "left as changed");
        });
      });

      it("write(), update() and delete() aborted before they commit change nothing", async () => {
        await withStore({ "a.txt": "one\n" }, [], async (store) => {
          const controller = new AbortController();
          const reason = new Error("cancelled by the client");
          controller.abort(reason);
          const signal = controller.signal;
          await assert.rejects(store.write("b.txt", "x\n", { signal }), reason);
          await assert.rejects(store.write("a.txt", "x\n", { overwrite: true, signal }), reason);
          await assert.rejects(
            store.update("a.txt", (text) => ({ text: text + "two\n", value: 0 }), { signal }),
            reason,
          );
          await assert.rejects(store.delete("a.txt", { signal }), reason);
          assert.equal((await store.readText("a.txt")).text, "one\n");
          await assert.rejects(store.stat("b.txt"), { code: "not_found" });
        });
      });

      it("update() calls on one file are serialised", async () => {
        await withStore({ "n.txt": "" }, [], async (store) => {
          await Promise.all(
            Array.from(
              { length: 20 },
              (_, i) => store.update("n.txt", (text) => ({ text: text + `${i}\n`, value: i })),
            ),
          );
          const lines = splitLines((await store.readText("n.txt")).text);
          assert.equal(lines.length, 20);
          assert.deepEqual(new Set(lines).size, 20);
        });
      });

      it("update() refuses a binary file and a file over maxBytes", async () => {
        await withStore(
          { "bin": new Uint8Array([0, 1, 2]), "big.txt": "0123456789" },
          [],
          async (store) => {
            await assert.rejects(store.update("bin", () => ({ text: "x", value: 0 })), {
              code: "binary",
            });
            await assert.rejects(
              store.update("big.txt", () => ({ text: "x", value: 0 }), { maxBytes: 5 }),
              { code: "too_large" },
            );
            assert.equal((await store.readText("big.txt")).text, "0123456789");
          },
        );
      });

      it("delete() removes a file and refuses a directory or a missing path", async () => {
        await withStore({ "a.txt": "x", "dir/b.txt": "y" }, [], async (store) => {
          assert.equal(await store.delete("./a.txt"), "a.txt");
          await assert.rejects(store.stat("a.txt"), { code: "not_found" });
          await assert.rejects(store.delete("dir"), { code: "not_a_file" });
          assert.equal((await store.readText("dir/b.txt")).text, "y");
          await assert.rejects(store.delete("a.txt"), { code: "not_found" });
        });
      });

      it("delete() with expected text deletes only a file that has it", async () => {
        const files = { "a.txt": "x\n", "b.txt": "y\n", "bin.dat": "x\u0000\n" };
        await withStore(files, [], async (store) => {
          for (
            const [path, expected] of [["a.txt", "x"], ["b.txt", "x\n"], ["bin.dat", "x\u0000\n"]]
          ) {
            await assert.rejects(store.delete(path, { expected }), { code: "changed" });
            assert.equal((await store.stat(path)).kind, "file", `${path} is kept`);
          }
          await assert.rejects(store.delete("a.txt", { expected: "x\n", maxBytes: 1 }), {
            code: "too_large",
          });
          assert.equal(await store.delete("a.txt", { expected: "x\n" }), "a.txt");
          await assert.rejects(store.stat("a.txt"), { code: "not_found" });
          await assert.rejects(store.delete("a.txt", { expected: "x\n" }), { code: "not_found" });
        });
      });

      it("two moves the opposite ways at once both settle", async () => {
        await withStore({ "a.txt": "a\n", "b.txt": "b\n" }, [], async (store) => {
          const moves = [
            store.move("a.txt", "b.txt", { overwrite: true }),
            store.move("b.txt", "a.txt", { overwrite: true }),
          ];
          const late = new Promise((resolve) => setTimeout(() => resolve("late"), 5_000));
          const settled = Promise.allSettled(moves);
          assert.notEqual(await Promise.race([settled, late]), "late", "neither waits for ever");
          const outcomes = (await settled).map((one) => one.status);
          assert.ok(outcomes.includes("fulfilled"), outcomes.join());
        });
      });

      it("move() renames a file and a directory, and refuses to replace without overwrite", async () => {
        await withStore({ "a.txt": "x", "b.txt": "y", "dir/c.txt": "z" }, [], async (store) => {
          assert.deepEqual(await store.move("a.txt", "new/a.txt"), {
            from: "a.txt",
            to: "new/a.txt",
            kind: "file",
          });
          assert.equal((await store.readText("new/a.txt")).text, "x");
          await assert.rejects(store.stat("a.txt"), { code: "not_found" });
          await assert.rejects(store.move("b.txt", "new/a.txt"), { code: "exists" });
          assert.equal((await store.readText("new/a.txt")).text, "x");
          await store.move("b.txt", "new/a.txt", { overwrite: true });
          assert.equal((await store.readText("new/a.txt")).text, "y");
          await assert.rejects(store.move("new/a.txt", "dir", { overwrite: true }), {
            code: "exists",
          });
          assert.equal((await store.move("dir", "dir2")).kind, "directory");
          assert.equal((await store.readText("dir2/c.txt")).text, "z");
          await assert.rejects(store.move("dir2", "dir2/inner"), { code: "cannot_move" });
          await assert.rejects(store.move("missing.txt", "m.txt"), { code: "not_found" });
          await assert.rejects(store.move(".", "x"), { code: "cannot_move" });
        });
      });

      it("delete() refuses the root itself as a directory, naming nothing outside", async () => {
        await withStore({ "a.txt": "x" }, [], async (store) => {
          await assert.rejects(store.delete("."), (error: Error & { code?: string }) => {
            assert.equal(error.code, "not_a_file");
            assert.match(error.message, /^"\." is a directory/);
            return true;
          });
        });
      });

      const slashed: Array<[string, (store: FileStore) => Promise<unknown>]> = [
        ["readText", (store) => store.readText("a.txt/")],
        ["readLines", (store) => store.readLines("a.txt/", { start: 1, ...WIDE })],
        ["write", (store) => store.write("new/", "x")],
        ["update", (store) => store.update("a.txt/", () => ({ text: "y", value: 0 }))],
        ["delete", (store) => store.delete("a.txt/")],
      ];
      for (const [operation, call] of slashed) {
        it(`${operation}() refuses a file path with a trailing slash and changes nothing`, async () => {
          await withStore({ "a.txt": "x" }, [], async (store) => {
            await assert.rejects(call(store), { code: "not_a_file" });
            assert.equal((await store.readText("a.txt")).text, "x");
            await assert.rejects(store.stat("new"), { code: "not_found" });
          });
        });
      }

      it("stat() and search() refuse a file at a path with a trailing slash, as POSIX does", async () => {
        await withStore({ "a.txt": "x\n", "d/b.txt": "x\n" }, [], async (store) => {
          const matcher = literalMatcher("x");
          await assert.rejects(store.stat("a.txt/"), { code: "not_a_directory" });
          await assert.rejects(store.search({ path: "a.txt/", matcher }), {
            code: "not_a_directory",
          });
          // (A directory's path may end with one.)
          assert.equal((await store.stat("d/")).kind, "directory");
          const found = await store.search({ path: "d/", matcher });
          assert.deepEqual(found.files.map((file) => file.path), ["d/b.txt"]);
        });
      });
    });

    describe("listing", () => {
      it("list() shows directories first, then files, each by name, with sizes", async () => {
        await withStore(
          { "b.txt": "bb", "a.txt": "a", "z/x.txt": "", "c/y.txt": "yyy", "c/d/e.txt": "" },
          [],
          async (store) => {
            const top = await store.list(".");
            assert.deepEqual(top, [
              { path: "c", kind: "directory", size: 0 },
              { path: "z", kind: "directory", size: 0 },
              { path: "a.txt", kind: "file", size: 1 },
              { path: "b.txt", kind: "file", size: 2 },
            ]);
            const deep = (await store.list(".", { depth: 2 })).map((e) => e.path);
            assert.deepEqual(deep, ["c", "c/d", "c/y.txt", "z", "z/x.txt", "a.txt", "b.txt"]);
            assert.deepEqual(
              (await store.list("c")).map((e) => e.path),
              ["c/d", "c/y.txt"],
            );
            await assert.rejects(store.list("a.txt"), { code: "not_a_directory" });
          },
        );
      });
    });
  });
}

/** Matching lines of a search result as `path:line`, for quick comparisons in tests. */
export function matchedLines(result: SearchResult): string[] {
  return result.files.flatMap((file) =>
    file.rows.filter((row) => row.match).map((row) => `${file.path}:${row.line}`)
  );
}
