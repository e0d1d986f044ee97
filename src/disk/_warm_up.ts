/**
 * The searches a store with an index kept on disk runs before the session's first search
 * (see `DirectoryStore.warmUp`): the code of a search (the index's filters, reading,
 * scanning, rows) is compiled by its first runs, and a new server's first grep on a tree it
 * knows took 30-50 ms longer than its second (docs/search-index.md).
 *
 * @module
 */
import { workerFailureReason } from "../io/runtime.ts";
import { compilePattern } from "../match/safe_matcher.ts";
import type { SearchQuery, SearchResult } from "../store/file_store.ts";

/**
 * The warm-up searches: a literal no file is expected to hold (the index's filters and
 * walk), then a regex that most code files match, stopped after a few hundred lines
 * (reading, scanning and rows); each within {@linkcode WARM_UP_BUDGET_MS}.
 */
export const WARM_UP_SEARCHES: readonly { pattern: string; maxMatches: number }[] = [
  { pattern: "linewise warm-up: a literal no file holds", maxMatches: 10 },
  { pattern: "[a-z]+\\(", maxMatches: 200 },
];
/** The time budget of each warm-up search. */
export const WARM_UP_BUDGET_MS = 300;

/**
 * Runs the warm-up searches one after the other, until the signal aborts.
 *
 * @param search the store's search
 * @param signal aborts them (between two batches of files)
 * @returns whether they all ran to their end (a search that fails ends them, said once on
 *   stderr: nothing else waits on them, and the session's own searches report what they meet)
 */
export async function warmUpSearches(
  search: (query: SearchQuery) => Promise<SearchResult>,
  signal: AbortSignal,
): Promise<boolean> {
  for (const { pattern, maxMatches } of WARM_UP_SEARCHES) {
    if (signal.aborted) return false;
    const { matcher } = compilePattern(pattern);
    try {
      await search({ matcher, maxMatches, signal, deadline: Date.now() + WARM_UP_BUDGET_MS });
    } catch (error) {
      if (!signal.aborted) {
        console.error(`linewise: the search warm-up failed (${workerFailureReason(error)})`);
      }
      return false;
    }
  }
  return true;
}

/** A warm-up under way, until the session's first search stops it. */
export class WarmUp {
  readonly #controller = new AbortController();
  readonly #done: Promise<unknown>;

  /** @param run the warm-up, given the signal that stops it (it must not reject) */
  constructor(run: (signal: AbortSignal) => Promise<unknown>) {
    this.#done = run(this.#controller.signal);
  }

  /**
   * Stops it, and waits for the search it has under way to end: that search holds the warm
   * workers, which the session's search should have.
   */
  async stop(): Promise<void> {
    this.#controller.abort();
    await this.#done;
  }
}
