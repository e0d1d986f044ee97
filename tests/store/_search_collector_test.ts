import assert from "node:assert/strict";
import { test } from "node:test";
import { literalMatcher, type ScanRow, scanText } from "../../src/core/mod.ts";
import { checkQuery, type PassedLine, SearchCollector } from "../../src/store/_search_collector.ts";
import { JoinedRuns } from "../../src/store/_joined_runs.ts";

test("SearchCollector: a deadline between two chunks of a file leaves it not searched to the end", async () => {
  const deadline = Date.now() + 50;
  const collector = new SearchCollector({ matcher: literalMatcher("needle"), deadline });
  async function* chunks(): AsyncGenerator<string> {
    yield "needle one\n";
    await new Promise((wake) => setTimeout(wake, deadline - Date.now() + 20));
    yield "needle two\n";
  }
  await collector.scanFile("f", chunks(), () => false);
  const result = collector.result();
  assert.equal(result.stopped, "time");
  assert.deepEqual(result.files.map((f) => f.rows.map((r) => r.text)), [["needle one\n"]]);
  assert.equal(result.filesSearched, 0);
  assert.equal(result.filesNotSearched, 1);
  assert.equal(result.patternStopped, undefined);
});

test("SearchCollector: a long line whose stoppable pattern the deadline stopped says so", async () => {
  const collector = new SearchCollector({ matcher: literalMatcher("needle") });
  const stopped: PassedLine = {
    piece: "",
    from: 1,
    codePoints: 5_000_000,
    terminator: "\n",
    timedOut: true,
    patternStopped: true,
  };
  await collector.scanFile("f", ["needle\n", stopped, "needle\n"], () => false);
  const result = collector.result();
  assert.equal(result.stopped, "time");
  assert.equal(result.patternStopped, true);
  assert.deepEqual(result.files.map((f) => f.rows.map((r) => r.line)), [[1]]);
  assert.equal(result.filesSearched, 0);
  assert.equal(result.filesNotSearched, 1);
});

test("SearchCollector: a stoppable scan gets the runs of a file's kept lines together", async () => {
  const plain = literalMatcher("needle");
  const texts: string[] = [];
  const matcher = {
    ...plain,
    stoppable: {
      scan: (text: string) => {
        texts.push(text);
        const rows: ScanRow[] = [];
        scanText(text, plain, (row) => void rows.push(row));
        return Promise.resolve(rows);
      },
    },
  };
  const collector = new SearchCollector({ matcher, maxMatches: 10_000 });
  // Runs of kept lines, with the counts of lines passed over between them.
  const chunks: (string | number)[] = [2];
  for (let i = 0; i < 1000; i++) chunks.push(`needle ${i}\n`, 3);
  chunks.push(10_000, "needle last\n");
  await collector.scanFile("f", chunks, () => false, 5);
  const lines = collector.result().files[0].rows.map((row) => row.line);
  assert.deepEqual(lines, [...Array.from({ length: 1000 }, (_, i) => 8 + 4 * i), 14_008]);
  assert.equal(texts.length, 2, "one scan for the runs, one after the many lines passed over");
});

test("SearchCollector: a cap per file stops each file after its last line's context", async () => {
  // (ripgrep's -m: a later match within that context is given, not counted; the next file
  // starts its own count; chunks after the file is done are not scanned.)
  const query = { matcher: literalMatcher("x"), context: 1, maxMatchesPerFile: 2 };
  const collector = new SearchCollector(query);
  let asked = 0;
  function* chunks(): Generator<string> {
    yield "x1\nx2\nx3\nno\nx5\n";
    asked++;
    yield "x6\n";
  }
  await collector.scanFile("a", chunks(), () => false);
  await collector.scanFile("b", ["no\nx\nx\nx\n"], () => false);
  const result = collector.result();
  assert.deepEqual(result.files.map((f) => f.rows.map((r) => [r.line, r.match !== undefined])), [
    [[1, true], [2, true], [3, true]],
    [[1, false], [2, true], [3, true], [4, true]],
  ]);
  assert.equal(asked, 0, "the rest of the file was left alone");
  assert.equal(result.matchedLines, 4);
  assert.equal(result.stopped, undefined);
  assert.equal(result.filesSearched, 2);
  assert.throws(
    () => checkQuery({ ...query, maxMatchesPerFile: 0 }),
    /maxMatchesPerFile must be a positive integer, got 0/,
  );
});

test("SearchCollector: a cap per file gives a stoppable scan's and a long line's matches within the context", async () => {
  // (The stoppable scan was asked for no more matches than the cap, and a long matching line
  // within the context ended the file: lines ripgrep shows were lost.)
  const plain = literalMatcher("x");
  const stoppable = {
    ...plain,
    stoppable: {
      scan: (text: string, options: { context: number; maxMatches: number }) => {
        const rows: ScanRow[] = [];
        scanText(text, plain, (row) => void rows.push(row), options);
        return Promise.resolve(rows);
      },
    },
  };
  const shown = async (matcher: typeof plain, chunks: Array<string | PassedLine>) => {
    const collector = new SearchCollector({ matcher, context: 3, maxMatchesPerFile: 1 });
    await collector.scanFile("f", chunks, () => false);
    return collector.result().files.map((f) => f.rows.map((r) => [r.line, r.match !== undefined]));
  };
  const text = "x1\nx2\nx3\nx4\ny5\nx6\n";
  const expected = [[[1, true], [2, true], [3, true], [4, true]]];
  assert.deepEqual(await shown(plain, [text]), expected);
  assert.deepEqual(await shown(stoppable, [text]), expected);
  const long: PassedLine = {
    piece: "x",
    from: 1,
    codePoints: 5_000_000,
    terminator: "\n",
    match: { start: 0, end: 1 },
  };
  assert.deepEqual(await shown(plain, ["x1\n", long, "y3\n", "n\nn\nx6\n"]), [
    [[1, true], [2, true], [3, false], [4, false]],
  ]);
});

test("SearchCollector: tells onNoMatch of each file searched without a match, and of no other", async () => {
  const told: string[] = [];
  const query = { matcher: literalMatcher("needle"), onNoMatch: (path: string) => told.push(path) };
  const collector = new SearchCollector({ ...query, maxMatches: 1 });
  collector.searchedWithoutMatch("ruled-out.txt"); // (a prefilter ruled it out)
  await collector.scanFile("scanned.txt", ["no match here\n"], () => false);
  await collector.scanFile("one.txt", ["a needle\n"], () => false);
  collector.binary();
  // (The cap, filled by one.txt, stops in this file at its first match: it holds one.)
  await collector.scanFile("capped.txt", ["x\nneedle\n"], () => false);
  assert.deepEqual(told, ["ruled-out.txt", "scanned.txt"]);
  assert.equal(collector.result().stopped, "max_matches");
});

test("SearchCollector: scans runs joined where the file was read, and refuses them with context", async () => {
  const joined = () =>
    JoinedRuns.from({ joined: "\nneedle 1\nneedle 2\n", starts: [2, 3], lines: [4, 9] });
  const collector = new SearchCollector({ matcher: literalMatcher("needle"), context: 0 });
  await collector.scanFile("f.txt", joined(), () => false);
  assert.deepEqual(collector.result().files[0].rows.map((row) => row.line), [4, 9]);
  // (Joined runs leave no room for context lines: given them, a search with context is a bug.)
  const withContext = new SearchCollector({ matcher: literalMatcher("needle"), context: 1 });
  await assert.rejects(withContext.scanFile("f.txt", joined(), () => false), /runs joined/);
});

test("SearchCollector: a file given in chunks has the rows it has given whole, across every seam", async () => {
  // (A seam after an empty first line, and one before a line starting with U+FEFF, which
  // is no BOM there; the file's own BOM is none of line 1's text, in whichever chunk.)
  const cases = [
    ["\n", "needle\n"],
    ["a\n\n", "needle\n"],
    ["a\n", "\ufeffb\n", "needle\n"],
    ["a\n\ufeffb\n", "needle\n"],
    ["\ufeffa\n", "needle\n"],
    ["\ufeffa\nb\n", "c\n", "needle\n"],
    ["a\n", "\ufeffneedle\n"],
  ];
  for (const chunks of cases) {
    for (const context of [0, 1, 2]) {
      const rowsOf = async (given: string[]) => {
        // (Chunks in an iterable that is no array: scanned one by one.)
        async function* each() {
          yield* given;
        }
        const collector = new SearchCollector({ matcher: literalMatcher("needle"), context });
        await collector.scanFile("f", each(), () => false);
        return collector.result().files[0].rows.map((row) => [row.line, row.text]);
      };
      assert.deepEqual(
        await rowsOf(chunks),
        await rowsOf([chunks.join("")]),
        `${JSON.stringify(chunks)}, context ${context}`,
      );
    }
  }
});
