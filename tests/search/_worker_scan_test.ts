import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { compilePattern } from "../../src/match/safe_matcher.ts";
import { examineBytes, type Examined } from "../../src/search/_search_file.ts";
import { workerScanner, workerScanOf } from "../../src/search/_worker_scan.ts";
import { SearchCollector } from "../../src/store/_search_collector.ts";
import type { SearchQuery } from "../../src/store/file_store.ts";
import { needlePiece } from "../_helpers/arbitraries.ts";
import { prefilterOf } from "../_helpers/prefilter.ts";

const encoder = new TextEncoder();

/** Takes a file's outcome into a collector, as the search thread does. */
async function take(collector: SearchCollector, path: string, outcome: Examined) {
  if (outcome.kind === "text") {
    const { text, invalid, linesBefore } = outcome;
    const chunks = typeof text === "string" ? [text] : text;
    await collector.scanFile(path, chunks, () => invalid, linesBefore);
  } else if (outcome.kind === "scanned") collector.takeScanned(path, outcome);
  else if (outcome.kind === "counted") collector.countedFile(path, outcome.lines, outcome.invalid);
  else if (outcome.kind === "none") collector.searchedWithoutMatch(path);
  else if (outcome.kind === "binary") collector.binary();
}

/** A search of some files, scanned here or first by a worker's scanner. */
async function searched(files: Uint8Array[], query: SearchQuery, inWorker: boolean) {
  const noMatch: string[] = [];
  const collector = new SearchCollector({ ...query, onNoMatch: (path) => noMatch.push(path) });
  const scan = inWorker ? workerScanner(workerScanOf(query)!) : undefined;
  const kinds: string[] = [];
  for (const [i, bytes] of files.entries()) {
    if (collector.done) break;
    let outcome = examineBytes(bytes, prefilterOf(query.matcher), query.context ?? 0);
    if (scan !== undefined) outcome = await scan(outcome);
    kinds.push(outcome.kind);
    await take(collector, `f${i}`, outcome);
  }
  return { result: collector.result(), noMatch, kinds };
}

describe("a search worker's scan", () => {
  it("gives the search thread what its own scan of the text would have given", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(needlePiece, { maxLength: 30 }), { minLength: 1, maxLength: 4 }),
        fc.constantFrom("needle", "needle \\d", "^need|le\\d", "dle$|é", "(ne)e(dle)", "x"),
        fc.boolean(),
        fc.integer({ min: 0, max: 3 }),
        fc.constantFrom(1, 2, 5, 200),
        fc.constantFrom(undefined, 1, 2),
        fc.boolean(),
        fc.constantFrom(undefined, 8, 40),
        fc.boolean(),
        async (
          texts,
          pattern,
          ignoreCase,
          context,
          maxMatches,
          perFile,
          countOnly,
          maxChars,
          bad,
        ) => {
          const files = texts.map((parts) => {
            const bytes = encoder.encode(parts.join(""));
            return bad ? new Uint8Array([...bytes, 0xff, 10, ...bytes]) : bytes;
          });
          const { matcher } = compilePattern(pattern, { ignoreCase });
          const query: SearchQuery = {
            matcher,
            context,
            maxMatches,
            maxMatchesPerFile: perFile,
            countOnly,
            maxChars,
          };
          const here = await searched(files, query, false);
          const there = await searched(files, query, true);
          assert.deepEqual(there.result, here.result);
          assert.deepEqual(there.noMatch, here.noMatch);
          // (The worker leaves no text to scan: it scanned each file it could.)
          assert.ok(!there.kinds.includes("text"), there.kinds.join());
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("takes at most one matching line more than the search's cap of a file", async () => {
    const { matcher } = compilePattern("a");
    const scan = workerScanner(workerScanOf({ matcher, maxMatches: 2 })!);
    const outcome = await scan(examineBytes(encoder.encode("a\n".repeat(10)), {}, 0));
    assert.equal(outcome.kind, "scanned");
    assert.deepEqual(outcome.kind === "scanned" && outcome.rows.map((row) => row.line), [1, 2, 3]);
  });

  it("is left to the search thread for a pattern stopped by a helper, or without a recipe", () => {
    const words = Array.from({ length: 3000 }, (_, i) => `w${i}`).join("|");
    const stoppable = compilePattern(`needle\\s*(?:${words})`).matcher;
    assert.ok(stoppable.stoppable !== undefined);
    assert.equal(workerScanOf({ matcher: stoppable }), undefined);
    const { recipe: _, ...bare } = compilePattern("a").matcher;
    assert.equal(workerScanOf({ matcher: bare }), undefined);
  });

  it("gives back a text the deadline cut, for the search thread to say so", async () => {
    const { matcher } = compilePattern("a");
    const scan = workerScanner({ ...workerScanOf({ matcher })!, deadline: Date.now() - 1 });
    const text = examineBytes(encoder.encode("b\n".repeat(100) + "a\n"), {}, 0);
    assert.equal((await scan(text)).kind, "text");
  });
});
