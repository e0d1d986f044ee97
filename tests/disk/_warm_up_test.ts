import assert from "node:assert/strict";
import { test } from "node:test";
import {
  WARM_UP_BUDGET_MS,
  WARM_UP_SEARCHES,
  WarmUp,
  warmUpSearches,
} from "../../src/disk/_warm_up.ts";
import type { SearchQuery, SearchResult } from "../../src/store/file_store.ts";

const EMPTY: SearchResult = {
  files: [],
  matchedLines: 0,
  filesSearched: 0,
  binaryFilesSkipped: 0,
  filesNotSearched: 0,
};

/** console.error's lines while `run` runs. */
async function stderrOf<T>(run: () => Promise<T>): Promise<{ value: T; lines: string[] }> {
  const lines: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => void lines.push(args.join(" "));
  try {
    return { value: await run(), lines };
  } finally {
    console.error = original;
  }
}

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
    assert.equal(query.signal, signal);
    assert.ok(query.deadline! <= Date.now() + WARM_UP_BUDGET_MS, "within its budget");
  }
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

test("WarmUp.stop() aborts the warm-up and waits for its search under way to end", async () => {
  let ended = false;
  const warmUp = new WarmUp(async (signal) => {
    await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
    await new Promise((resolve) => setTimeout(resolve, 20)); // (the batch it was in)
    ended = true;
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stopped = await Promise.race([
    warmUp.stop().then(() => "stopped"),
    new Promise((resolve) => timer = setTimeout(() => resolve("not stopped in 2 s"), 2000)),
  ]).finally(() => clearTimeout(timer));
  assert.equal(stopped, "stopped");
  assert.equal(ended, true, "its search ended before stop() did");
});
