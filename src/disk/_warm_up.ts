/**
 * The searches a search thread runs once its store's index is ready and no search runs (see
 * `DirectoryStore.warmUp`): the code of a search (the index's filters, reading, scanning,
 * rows) is compiled by its first runs, and a new server's first grep on a tree it knows took
 * 30-50 ms longer than its second; a session's first greps after its first, on paths the
 * first did not take (its lines, a regex ignoring case), were slower too (docs/search-index.md).
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

/**
 * A search thread's warm-up: due once its store's index is ready, started when no search
 * runs, and stopped by the next search, which waits for the warm-up's search under way to
 * end (it holds the warm workers, which the session's search should have). It runs once.
 */
export class IdleWarmUp {
  readonly #run: (signal: AbortSignal) => Promise<unknown>;
  readonly #busy: () => boolean;
  #due = false;
  #controller: AbortController | undefined;
  #done: Promise<unknown> = Promise.resolve();

  /**
   * @param ready resolves true once the warm-up may run (see `DirectoryStore.searchIndexReady`)
   * @param run the warm-up, given the signal that stops it (it must not reject)
   * @param busy whether a search runs
   */
  constructor(
    ready: Promise<boolean>,
    run: (signal: AbortSignal) => Promise<unknown>,
    busy: () => boolean,
  ) {
    this.#run = run;
    this.#busy = busy;
    void ready.then((due) => {
      this.#due = due;
      this.idle();
    });
  }

  /** No search runs now, or one just ended: starts the warm-up if it is due. */
  idle(): void {
    if (!this.#due || this.#busy()) return;
    this.#due = false;
    this.#controller = new AbortController();
    this.#done = this.#run(this.#controller.signal);
  }

  /** A search comes: stops the warm-up under way, and waits for its search to end. */
  async stop(): Promise<void> {
    this.#controller?.abort();
    await this.#done;
  }
}
