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

/** Where each warm-up search that finds lines stops. */
export const WARM_UP_MATCHES = 2_000;

/** A warm-up search: its pattern (a regex), whether it ignores case, and where it stops. */
export interface WarmUpSearch {
  pattern: string;
  ignoreCase: boolean;
  maxMatches: number;
}

/**
 * The warm-up searches: a literal no file is expected to hold (the index's filters and
 * walk), then patterns that most code files match, one for each way a search looks for its
 * literals (a regex's literal, alternatives, a literal ignoring case), each stopped after
 * {@linkcode WARM_UP_MATCHES} lines: reading, scanning and rows run often enough to be
 * compiled at the tiers a grep's would reach. Each runs within {@linkcode WARM_UP_BUDGET_MS}.
 */
export const WARM_UP_SEARCHES: readonly WarmUpSearch[] = [
  { pattern: "linewise warm-up: a literal no file holds", ignoreCase: false, maxMatches: 10 },
  { pattern: "[a-z]+\\(", ignoreCase: false, maxMatches: WARM_UP_MATCHES },
  { pattern: "return|function", ignoreCase: false, maxMatches: WARM_UP_MATCHES },
  { pattern: "Function\\(", ignoreCase: true, maxMatches: WARM_UP_MATCHES },
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
  for (const { pattern, ignoreCase, maxMatches } of WARM_UP_SEARCHES) {
    if (signal.aborted) return false;
    const { matcher } = compilePattern(pattern, { ignoreCase });
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
