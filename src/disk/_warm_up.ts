/**
 * The searches a search thread runs once its store's index is ready and no search runs (see
 * `DirectoryStore.warmUp`): the code of a search (the index's filters, reading, scanning,
 * rows) is compiled by its first runs, and a new server's first grep on a tree it knows took
 * 30-50 ms longer than its second; a session's first greps after its first, on paths the
 * first did not take (its lines, a regex ignoring case), were slower too (docs/search-index.md).
 *
 * @module
 */
import { notice, workerFailureReason } from "../io/runtime.ts";
import { compilePattern } from "../match/safe_matcher.ts";
import type { SearchQuery, SearchResult } from "../store/file_store.ts";
import { eachRow } from "../store/flat_rows.ts";

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
 * What a warm-up search asks besides its pattern, as the grep tool asks it with its default
 * settings: rows cut at 2,000 code points (the examination then gives a long line's row
 * from its bytes), and the digests of the first 50 files shown (read again and hashed). A
 * warm-up without them left those paths to a session's first greps to compile: each took
 * 10-15 ms longer than once they were (docs/search-index.md).
 */
export const WARM_UP_QUERY: Pick<SearchQuery, "rowCut" | "digests"> = {
  rowCut: 2_000,
  digests: { afterMatches: 0, files: 50, maxBytes: 64 * 1024 * 1024 },
};

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
  const searches = [...WARM_UP_SEARCHES];
  for (let i = 0; i < searches.length; i++) {
    const { pattern, ignoreCase, maxMatches } = searches[i];
    if (signal.aborted) return false;
    const { matcher } = compilePattern(pattern, { ignoreCase });
    let result: SearchResult;
    try {
      const deadline = Date.now() + WARM_UP_BUDGET_MS;
      result = await search({ ...WARM_UP_QUERY, matcher, maxMatches, signal, deadline });
    } catch (error) {
      if (!signal.aborted) {
        notice(`the search warm-up failed (${workerFailureReason(error)})`);
      }
      return false;
    }
    if (i === CALLS_AT) searches.push(...namedCalls(result));
  }
  return true;
}

/** Which of {@linkcode WARM_UP_SEARCHES} finds the calls {@linkcode namedCalls} takes (`[a-z]+\(`). */
const CALLS_AT = 1;
/** How many of them are searched for. */
export const WARM_UP_CALLS = 6;

/**
 * Searches for the calls `[a-z]+\(` found most often (their names' lower-case ends of 8
 * letters or more), as an agent's greps are: each ruled out of most files by the index, and
 * read where it may be, in large files by their blocks.
 */
function namedCalls(result: SearchResult): WarmUpSearch[] {
  const counts = new Map<string, number>();
  for (const file of result.files) {
    eachRow(file, (_line, text, start, end) => {
      if (start === -1 || end - start < 9) return true;
      const name = text.slice(start, end - 1);
      counts.set(name, (counts.get(name) ?? 0) + 1);
      return true;
    });
  }
  return [...counts].sort((a, b) => b[1] - a[1]).slice(0, WARM_UP_CALLS).map(([name]) => ({
    pattern: `${name}\\(`,
    ignoreCase: false,
    maxMatches: WARM_UP_MATCHES,
  }));
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
