/**
 * A store's search index, started again when it was given up. An index goes when its
 * watcher can no longer vouch for what it heard: a barrier that did not come back within
 * 2 s on a loaded machine, a flood of events from a build, a mount inside a root, a temporary
 * folder cleaned under it. Dropped for good, every later grep of a session that lasts hours
 * read every file again; started again, it is as a new server's: it watches anew, takes
 * what still holds of the cache on disk, and learns from the next searches.
 *
 * The first start again waits {@linkcode RESTART_WAIT_MS} after the index was given up, so that
 * it does not start in the middle of the burst that stopped it; the wait doubles each time an
 * index is given up within {@linkcode YOUNG_MS} of its start (a cause that lasts, such as
 * inotify watches that ran out), up to {@linkcode MAX_RESTART_WAIT_MS}. Nothing starts
 * before a search asks for the index.
 *
 * @module
 */
import * as fs from "node:fs";
import { notice } from "../../io/runtime.ts";

/** The first wait before an index given up is started again (milliseconds). */
export const RESTART_WAIT_MS = 2_000;
/** The longest wait before an index given up is started again (milliseconds). */
export const MAX_RESTART_WAIT_MS = 10 * 60_000;
/** An index given up this soon after its start makes the next wait twice as long. */
export const YOUNG_MS = 10 * 60_000;

/** What {@linkcode IndexRestarts} keeps: anything it can close. */
export interface Closable {
  close(): void;
}

/** The index of a store, started again after a wait when it was given up. */
export class IndexRestarts<Index extends Closable> {
  readonly #start: (watchDir: string | undefined) => Index;
  readonly #watchDir: string | undefined;
  readonly #firstWaitMs: number;
  readonly #clock: () => number;
  #index: Index | undefined;
  #startedAt: number;
  #givenUpAt = 0;
  #waitMs = 0;
  #closed = false;

  /**
   * Starts the first index at once.
   *
   * @param start makes an index, given its watcher's private directory (undefined: the
   *   watcher makes its own)
   * @param options `watchDir`: the first index's directory, made again (empty) for each
   *   index started again, where it can be; `firstWaitMs`: the first wait (default
   *   {@linkcode RESTART_WAIT_MS}); `clock`: the time in milliseconds (default `Date.now`)
   * @example
   * ```ts
   * import { IndexRestarts } from "./_index_restarts.ts";
   * import assert from "node:assert/strict";
   * let made = 0;
   * const restarts = new IndexRestarts(() => ({ made: ++made, close() {} }), { firstWaitMs: 0 });
   * const first = restarts.now()!;
   * restarts.givenUp(first);
   * assert.equal(restarts.current, undefined);
   * assert.equal(restarts.now()?.made, 2);
   * restarts.close();
   * ```
   */
  constructor(
    start: (watchDir: string | undefined) => Index,
    options: { watchDir?: string; firstWaitMs?: number; clock?: () => number } = {},
  ) {
    this.#start = start;
    this.#watchDir = options.watchDir;
    this.#firstWaitMs = options.firstWaitMs ?? RESTART_WAIT_MS;
    this.#clock = options.clock ?? Date.now;
    this.#startedAt = this.#clock();
    this.#index = start(options.watchDir);
  }

  /** The index running now, if any (nothing is started). */
  get current(): Index | undefined {
    return this.#index;
  }

  /**
   * The index for a search: the one running, or a new one when the last was given up at
   * least the wait ago.
   *
   * @returns the index, or undefined while none runs
   */
  now(): Index | undefined {
    if (this.#index !== undefined || this.#closed) return this.#index;
    const since = this.#clock() - this.#givenUpAt;
    if (since < this.#waitMs) return undefined;
    this.#index = this.#start(this.#freshWatchDir());
    this.#startedAt = this.#clock();
    notice(`the search index starts again (given up ${(since / 1000).toFixed(1)} s ago)`);
    return this.#index;
  }

  /**
   * Closes an index found given up (once, whichever of the searches that found it comes
   * first), and sets the wait before the next starts.
   *
   * @param index the index a search found given up
   */
  givenUp(index: Index): void {
    if (index !== this.#index) return;
    index.close();
    this.#index = undefined;
    this.#givenUpAt = this.#clock();
    const young = this.#givenUpAt - this.#startedAt < YOUNG_MS;
    this.#waitMs = young && this.#waitMs > 0
      ? Math.min(this.#waitMs * 2, MAX_RESTART_WAIT_MS)
      : this.#firstWaitMs;
  }

  /** Closes the index, and starts none again. */
  close(): void {
    this.#closed = true;
    this.#index?.close();
    this.#index = undefined;
  }

  /**
   * The first index's watch directory made again (its watcher removed it), or undefined when
   * it cannot be, or there was none: the new watcher then makes one of its own.
   */
  #freshWatchDir(): string | undefined {
    if (this.#watchDir === undefined) return undefined;
    try {
      fs.mkdirSync(this.#watchDir, { mode: 0o700 });
      return this.#watchDir;
    } catch {
      return undefined;
    }
  }
}
