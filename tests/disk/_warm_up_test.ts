import assert from "node:assert/strict";
import { test } from "node:test";
import {
  IdleWarmUp,
  WARM_UP_BUDGET_MS,
  WARM_UP_CALLS,
  WARM_UP_QUERY,
  WARM_UP_SEARCHES,
  warmUpSearches,
} from "../../src/disk/_warm_up.ts";
import type { SearchQuery, SearchResult } from "../../src/store/file_store.ts";
import { stderrOf } from "../_helpers/stderr.ts";

const EMPTY: SearchResult = {
  files: [],
  matchedLines: 0,
  filesSearched: 0,
  binaryFilesSkipped: 0,
  filesNotSearched: 0,
};

test("warmUpSearches() runs each warm-up search in order, bounded, and says nothing", async () => {
  const queries: SearchQuery[] = [];
  const signal = new AbortController().signal;
  const { value, lines } = await stderrOf(() =>
    warmUpSearches((query) => (queries.push(query), Promise.resolve(EMPTY)), signal)
  );
  assert.equal(value, true);
  assert.deepEqual(lines, []);
  assert.deepEqual(
    queries.map((q) => [q.matcher.recipe?.pattern, q.matcher.recipe?.ignoreCase]),
    WARM_UP_SEARCHES.map((s) => [s.pattern, s.ignoreCase]),
  );
  for (const [i, query] of queries.entries()) {
    assert.equal(query.maxMatches, WARM_UP_SEARCHES[i].maxMatches);
    assert.deepEqual([query.rowCut, query.digests], [WARM_UP_QUERY.rowCut, WARM_UP_QUERY.digests]);
    assert.equal(query.signal, signal);
    assert.ok(query.deadline! <= Date.now() + WARM_UP_BUDGET_MS, "within its budget");
  }
});

test("warmUpSearches() then searches for the calls its regex found most often", async () => {
  // Calls found by `[a-z]+\\(`: names of 8 letters or more, by how often they were found.
  const found: Record<string, number> = {
    stringify: 4,
    traverse: 2,
    short: 9, // (too short to be rare)
    ...Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`function${"abcdefgh"[i]}`, 1])),
    descriptor: 3,
  };
  const rows = Object.entries(found).flatMap(([name, count]) =>
    Array.from({ length: count }, (_, i) => {
      const text = `  x = ${name}(${i});\n`;
      return { line: i + 1, text, match: { start: 6, end: 7 + name.length } };
    })
  );
  const withRows: SearchResult = { ...EMPTY, files: [{ path: "a.js", rows, invalidUtf8: false }] };
  const patterns: string[] = [];
  await warmUpSearches((query) => {
    patterns.push(query.matcher.recipe!.pattern);
    return Promise.resolve(query.matcher.recipe!.pattern === "[a-z]+\\(" ? withRows : EMPTY);
  }, new AbortController().signal);
  const calls = patterns.slice(WARM_UP_SEARCHES.length);
  assert.equal(calls.length, WARM_UP_CALLS);
  assert.deepEqual(calls.slice(0, 3), ["stringify\\(", "descriptor\\(", "traverse\\("]);
  assert.ok(calls.slice(3).every((call) => /^function[a-h]\\\($/.test(call)), calls.join());
});

test("warmUpSearches() stops quietly when aborted, and says once on stderr when a search fails", async () => {
  const controller = new AbortController();
  let calls = 0;
  const aborted = await stderrOf(() =>
    warmUpSearches(() => {
      calls++;
      controller.abort();
      return Promise.reject(new DOMException("aborted", "AbortError"));
    }, controller.signal)
  );
  assert.deepEqual([aborted.value, aborted.lines, calls], [false, [], 1]);
  calls = 0;
  const failed = await stderrOf(() =>
    warmUpSearches(() => {
      calls++;
      return Promise.reject(new TypeError("x is undefined"));
    }, new AbortController().signal)
  );
  assert.equal(failed.value, false);
  assert.equal(calls, 1, "the failure ends the warm-up");
  assert.deepEqual(failed.lines, ["linewise: the search warm-up failed (x is undefined)"]);
});

/** A warm-up that records its runs and ends once aborted, a batch later. */
function recordedRun() {
  const runs: AbortSignal[] = [];
  let ended = 0;
  const run = async (signal: AbortSignal) => {
    runs.push(signal);
    await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
    await new Promise((resolve) => setTimeout(resolve, 20)); // (the batch it was in)
    ended++;
  };
  return { runs, ended: () => ended, run };
}

const turn = () => new Promise((resolve) => setTimeout(resolve, 0));

test("IdleWarmUp starts once ready and no search runs, once, and a search stops it", async () => {
  let ready!: (ready: boolean) => void;
  let busy = true;
  const recorded = recordedRun();
  const warmUp = new IdleWarmUp(
    new Promise((resolve) => ready = resolve),
    recorded.run,
    () => busy,
  );
  warmUp.idle();
  assert.equal(recorded.runs.length, 0, "not before the index is ready");
  ready(true);
  await turn();
  assert.equal(recorded.runs.length, 0, "not while a search runs");
  busy = false;
  warmUp.idle();
  assert.equal(recorded.runs.length, 1, "once the search ended");
  warmUp.idle();
  assert.equal(recorded.runs.length, 1, "once only");
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stopped = await Promise.race([
    warmUp.stop().then(() => "stopped"),
    new Promise((resolve) => timer = setTimeout(() => resolve("not stopped in 2 s"), 2000)),
  ]).finally(() => clearTimeout(timer));
  assert.equal(stopped, "stopped");
  assert.equal(recorded.runs[0].aborted, true);
  assert.equal(recorded.ended(), 1, "its search ended before stop() did");
  warmUp.idle();
  assert.equal(recorded.runs.length, 1, "not again after it was stopped");
});

test("IdleWarmUp starts at once when ready and idle, and never when the index is not", async () => {
  const idle = recordedRun();
  const first = new IdleWarmUp(Promise.resolve(true), idle.run, () => false);
  await turn();
  assert.equal(idle.runs.length, 1);
  const never = recordedRun();
  const warmUp = new IdleWarmUp(Promise.resolve(false), never.run, () => false);
  await turn();
  warmUp.idle();
  assert.equal(never.runs.length, 0);
  await warmUp.stop(); // (nothing under way: returns at once)
  await first.stop();
  assert.equal(idle.ended(), 1);
});
