/**
 * Searches on a thread of their own (`_search_thread_main.ts`), so that the thread that
 * answers requests never walks, reads or matches for a search: while greps run, it still
 * answers `ping`, cancellations, reads and edits at once. The thread keeps its own
 * directory store over the same root handles, with the search index.
 *
 * Searches take turns, in order of arrival: one at a time, and a second beside it only while
 * the process holds less than {@linkcode SECOND_SEARCH_BELOW} (so that a small search need
 * not wait for a large one, where memory allows). Patterns scanned by a helper that is
 * stopped at the budget take their turns apart ({@linkcode laneOf}), so up to two of each run
 * at once, and one of each whatever the memory. That bounds their memory and the cores they
 * take; a search whose time budget runs out while it waits is answered as stopped by the
 * time budget, with nothing searched.
 *
 * A search the thread does not answer within {@linkcode GRACE_MS} after its deadline is
 * answered as stopped (and called off there), so that no call outlives its budget by much.
 * The thread is then asked to answer a ping: one late for want of a core (it runs below the
 * thread that answers, and a busy machine may give it little) answers and is kept, and its
 * other searches go on. One that does not answer is stuck (a bug: every search there keeps
 * its budget) once it has spent {@linkcode STUCK_CPU_MS} of processor time without getting
 * to the ping, or {@linkcode PROBE_LONGEST_MS} have passed (where the thread's time cannot
 * be read, {@linkcode PROBE_MS}). It is replaced, and its other searches are posted again
 * to the new one.
 *
 * @module
 */
import process from "node:process";
import { InputError } from "../core/input_errors.ts";
import {
  HAS_SHARED_MEMORY,
  HAS_WORKERS,
  startWorker,
  WATCH_ORDER_KEPT,
  workerFailureReason,
} from "../io/runtime.ts";
import { threadCpuMs } from "../io/thread_cpu.ts";
import { createBarrierDir, removeQuietly } from "../files/_barrier_dir.ts";
import { StoreError, type StoreErrorCode } from "../store/errors.ts";
import type { SearchQuery, SearchResult } from "../store/file_store.ts";
import type { SharedSandbox } from "./sandbox.ts";
import { freezeResult } from "../store/frozen_result.ts";
import {
  type PackedResult,
  type PackedStrings,
  unpackResult,
  withStrings,
} from "./_packed_result.ts";

/** Searches run at once at the most in each lane (see {@linkcode laneOf}); the rest wait their turn. */
export const RUNNING = 2;

/**
 * The lane a search takes turns in: 0 for a pattern scanned on the search thread, 1 for one
 * scanned by a helper that is stopped at the budget (`Matcher.stoppable`: a backreference,
 * a lookaround). Those may run to their budget, mostly waiting on the helper, and a grep of
 * any other pattern must not wait for them: two of them held both turns for 10 s.
 *
 * @param query the search
 * @returns its lane
 */
export function laneOf(query: SearchQuery): 0 | 1 {
  return query.matcher.stoppable === undefined ? 0 : 1;
}
/**
 * Resident memory of the process below which a second search may start beside a running
 * one (a search of a large tree takes much memory, and the index of a tree like the Linux
 * source more: see the load rows of bench/RESULTS.md).
 */
export const SECOND_SEARCH_BELOW = 256 * 1024 * 1024;
/** How long after its deadline a search may take before it is answered as stopped. */
export const GRACE_MS = 750;
/**
 * How often a thread late with a search is looked at while it does not answer a ping, and
 * where its processor time cannot be read, how long it has to answer before it is replaced.
 * At nice 4 on a machine whose cores other processes fill, the thread gets a third of a
 * core or less: a collection or a batch of files it is in the middle of then takes seconds
 * (in CI, beside the race tests' swapper and other tests, 2 s and then 5 s were not enough
 * for a thread that was alive).
 */
export const PROBE_MS = 5000;
/**
 * Processor time a thread may spend without answering a ping before it is taken for stuck:
 * far more than a batch of files or a collection takes, which is what it would be doing.
 */
export const STUCK_CPU_MS = 2000;
/** How long a thread that spends no processor time (it waits on the system) may not answer. */
export const PROBE_LONGEST_MS = 60_000;
/**
 * Whether a thread that has not answered a ping is stuck (see {@linkcode PROBE_MS}).
 *
 * @param cpuMs the processor time it spent since the ping, or undefined where that cannot
 *   be read
 * @param pinged when the ping was sent
 * @param now the time now
 * @returns true to replace it
 */
export function takenForStuck(
  cpuMs: number | undefined,
  pinged: number,
  now: number = Date.now(),
): boolean {
  return cpuMs === undefined || cpuMs >= STUCK_CPU_MS || now - pinged >= PROBE_LONGEST_MS;
}

/** Kept results held here, unpacked, for searches answered with them again. */
export const KEPT_HERE = 4;

/**
 * How long the search thread must be idle before it collects what a search left: long
 * enough for a client's next call, sent when the answer arrives, to be on its way.
 */
export const IDLE_AFTER_SEARCH_MS = 500;

/**
 * Whether the search thread collects garbage right after a search rather than once idle
 * ({@linkcode IDLE_AFTER_SEARCH_MS}). A forced collection of a big heap takes a while, which
 * the next call would wait for (and it frees little of what a search of a big tree leaves).
 * Under load, with other searches waiting their turn, a big process collects at once after a
 * search that read files: searches one after another would put the collection off for good,
 * and the process would grow.
 *
 * @param repeated whether the search was answered with a kept result the answering thread
 *   holds (which leaves little)
 * @param queued whether other searches were waiting when it was posted
 * @param rss the process's resident memory now
 * @returns true to collect at once
 */
export function collectsAtOnce(repeated: boolean, queued: boolean, rss: number): boolean {
  return !repeated && queued && rss > SECOND_SEARCH_BELOW;
}

/** What the search thread is told first. */
export interface ThreadInit {
  sandbox: SharedSandbox;
  /** The search options of its store. */
  store: ThreadStoreOptions;
  /** The private directory of the index's watcher, removed here on close. */
  watchDir: string | undefined;
  /**
   * Four bytes, set to 1 before the thread is stopped and its watcher's directory removed:
   * a sync under way then fails, and says nothing (see `quietWhen`).
   */
  stopping?: SharedArrayBuffer;
}

/** The options of the thread's directory store. */
export interface ThreadStoreOptions {
  searchIndex: boolean;
  searchIndexBytes?: number;
  searchIndexCache?: string;
  searchIndexCacheTag?: string;
  searchIndexRestartMs?: number;
  searchThreads?: number;
  parallelSearchFrom?: number;
}

/** A search, as posted to the thread. */
export interface ThreadSearch {
  id: number;
  query: Omit<SearchQuery, "matcher" | "signal" | "onProgress" | "onUnreadable"> & {
    recipe: NonNullable<SearchQuery["matcher"]["recipe"]>;
    /** Whether to post progress, and each unreadable path. */
    progress: boolean;
    unreadable: boolean;
  };
  /** The numbers of the kept results held here (see `keptNumber`). */
  held: number[];
  /** Whether other searches were waiting their turn when it was posted (under load). */
  queued: boolean;
}

/** What the thread posts back about a search. */
export type ThreadReply =
  | { pong: true }
  /** The thread's id (see `thisThreadId`), posted first, where it is known. */
  | { threadId: number }
  /** The strings of the result that comes next (see `PackedStrings`). */
  | { id: number; strings: true; texts: string; paths: string }
  /**
   * A result; `kept`: its number, when it is a kept one; `apart`: its strings came ahead of
   * it (see `STRINGS_POST_APART`).
   */
  | { id: number; result: PackedResult; kept?: number; apart?: true }
  /** A kept result held here. */
  | { id: number; kept: number }
  | { id: number; progress: [number, number | undefined] }
  | { id: number; unreadable: string }
  | { id: number; error: PostedError };

/** An error as it crosses threads. */
export type PostedError =
  | { kind: "store"; code: StoreErrorCode; path: string; message: string }
  | { kind: "input"; message: string }
  | { kind: "aborted" }
  | { kind: "bug"; name: string; message: string; stack?: string };

/**
 * An error made posting-ready: the store's errors keep their code and message, a refusal of
 * the input (a bad glob) its message, an abort is an abort, anything else is a bug with its
 * stack.
 *
 * @param error what was thrown
 * @param signal the search's signal, to tell an abort
 * @returns the error as data
 */
export function postedError(error: unknown, signal: AbortSignal): PostedError {
  if (signal.aborted) return { kind: "aborted" };
  if (error instanceof StoreError) {
    return { kind: "store", code: error.code, path: error.path, message: error.message };
  }
  if (error instanceof InputError) return { kind: "input", message: error.message };
  const { name, message, stack } = error instanceof Error
    ? error
    : { name: "Error", message: String(error), stack: undefined };
  return { kind: "bug", name, message, stack };
}

/** The error a posted one stands for on this thread. */
function thrownError(posted: PostedError, signal: AbortSignal | undefined): unknown {
  if (posted.kind === "aborted") return signal?.reason ?? new Error("the search was aborted");
  if (posted.kind === "store") return new StoreError(posted.code, posted.path, posted.message);
  if (posted.kind === "input") return new InputError(posted.message);
  const error = new Error(`the search thread failed: ${posted.message}`);
  error.stack = `${posted.name}: ${posted.message}\n(on the search thread)\n${posted.stack ?? ""}`;
  return error;
}

interface Pending {
  query: SearchQuery;
  /** What was posted, to post again to a thread that replaces a stuck one. */
  message: ThreadSearch;
  /** The kept results held here when the search was posted, by number. */
  held: ReadonlyMap<number, SearchResult>;
  /** The strings of its result, posted ahead of the rest. */
  strings?: PackedStrings;
  resolve: (result: SearchResult) => void;
  reject: (error: unknown) => void;
}

/** A result of nothing searched, stopped by the time budget. */
function stoppedByTime(): SearchResult {
  return {
    files: [],
    matchedLines: 0,
    filesSearched: 0,
    binaryFilesSkipped: 0,
    filesNotSearched: 0,
    stopped: "time",
  };
}

/** The search thread, started with the first search (or at once) and replaced if it fails. */
export class SearchThread {
  readonly #init: Omit<ThreadInit, "watchDir">;
  readonly #module: URL | undefined;
  #worker: Worker | undefined;
  /** The id of the worker's thread, once it said. */
  #threadId: number | undefined;
  #watchDir: string | undefined;
  /** The running thread's flag (see `ThreadInit.stopping`). */
  #stopping: Int32Array | undefined;
  #next = 1;
  readonly #pending = new Map<number, Pending>();
  /** Kept results, unpacked and frozen, by number; the most recently used last. */
  readonly #kept = new Map<number, SearchResult>();
  /** Per lane ({@linkcode laneOf}), the searches waiting for a turn, oldest first. */
  readonly #waiting: [Array<() => void>, Array<() => void>] = [[], []];
  /** Per lane, the searches running. */
  readonly #running = [0, 0];
  #closed = false;
  /** While a late thread is asked whether it is alive: what its answer calls off. */
  #probe: (() => void) | undefined;

  private constructor(init: Omit<ThreadInit, "watchDir">, module: URL | undefined) {
    this.#init = init;
    this.#module = module;
  }

  /**
   * A search thread for a sandbox, where the runtime has workers. It loads the search
   * engine, a thread's worth of memory, so it starts with the first search
   * unless told to start now (as for an index saved on disk, which it takes at once).
   *
   * @param sandbox the sandbox, shared
   * @param store the search options of the thread's store
   * @param module the thread's module (tests give one that misbehaves)
   * @param startNow whether to start it at once rather than with the first search
   * @returns the thread, or undefined where the runtime has no workers (searches then stay
   *   on the caller's thread)
   */
  static where(
    sandbox: SharedSandbox,
    store: ThreadStoreOptions,
    module?: URL,
    startNow = false,
  ): SearchThread | undefined {
    if (!HAS_WORKERS) return undefined;
    const thread = new SearchThread({ sandbox, store }, module);
    if (startNow) thread.#started();
    return thread;
  }

  /**
   * Runs a search there when its turn comes.
   *
   * @param query the search (its matcher must have a recipe)
   * @returns the result, as the store's own search would give it
   */
  async search(query: SearchQuery): Promise<SearchResult> {
    const lane = laneOf(query);
    const waited = await this.#turn(query, lane);
    if (waited !== undefined) return waited;
    try {
      return await this.#run(query);
    } finally {
      this.#running[lane]--;
      if (this.#mayStart(lane)) this.#waiting[lane].shift()?.();
      if (this.#closed && this.#idle()) this.#stop();
    }
  }

  /**
   * Stops the thread (and its index) once the searches under way and waiting are answered;
   * the watcher's private directory goes at once (the process may be about to end).
   */
  close(): void {
    this.#closed = true;
    this.#removeWatchDir();
    if (this.#idle()) this.#stop();
  }

  /** Whether no search runs or waits. */
  #idle(): boolean {
    return this.#running[0] + this.#running[1] === 0 &&
      this.#waiting[0].length + this.#waiting[1].length === 0;
  }

  /** Whether one more search may start now in a lane. */
  #mayStart(lane: 0 | 1): boolean {
    const running = this.#running[lane];
    return running === 0 ||
      (running < RUNNING && process.memoryUsage().rss < SECOND_SEARCH_BELOW);
  }

  /**
   * Waits for a turn; returns a result instead when the deadline comes first, and rejects
   * when the signal aborts first.
   */
  #turn(query: SearchQuery, lane: 0 | 1): Promise<SearchResult | undefined> {
    const waiting = this.#waiting[lane];
    if (waiting.length === 0 && this.#mayStart(lane)) {
      this.#running[lane]++;
      return Promise.resolve(undefined);
    }
    return new Promise((resolve, reject) => {
      const { deadline, signal } = query;
      const leave = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        const at = waiting.indexOf(start);
        if (at !== -1) waiting.splice(at, 1);
      };
      const start = () => {
        leave();
        this.#running[lane]++;
        resolve(undefined);
      };
      const onAbort = () => {
        leave();
        reject(signal!.reason);
      };
      const timer = deadline === undefined ? undefined : setTimeout(() => {
        leave();
        resolve({ ...stoppedByTime(), neverStarted: true });
      }, Math.max(0, deadline - Date.now()));
      signal?.addEventListener("abort", onAbort, { once: true });
      waiting.push(start);
    });
  }

  #run(query: SearchQuery): Promise<SearchResult> {
    query.signal?.throwIfAborted();
    const worker = this.#started();
    if (worker === undefined) throw new Error("the search thread did not start");
    const id = this.#next++;
    // (onSkipped is for glob and list: a search does not tell of skipped entries. The files
    // come back in the result, not one at a time: onFile and onNoMatch are left uncalled.)
    const {
      matcher,
      signal,
      onProgress,
      onUnreadable,
      onSkipped: _skipped,
      onFile: _onFile,
      onNoMatch: _onNoMatch,
      ...rest
    } = query;
    const held = new Map(this.#kept);
    const message: ThreadSearch = {
      id,
      held: [...held.keys()],
      queued: this.#waiting[0].length + this.#waiting[1].length > 0,
      query: {
        ...rest,
        recipe: matcher.recipe!,
        progress: onProgress !== undefined,
        unreadable: onUnreadable !== undefined,
      },
    };
    return new Promise((resolve, reject) => {
      const onAbort = () => this.#worker?.postMessage({ cancel: id });
      const settled = () => {
        clearTimeout(watchdog);
        signal?.removeEventListener("abort", onAbort);
      };
      this.#pending.set(id, {
        query,
        message,
        held,
        resolve: (result) => (settled(), resolve(result)),
        reject: (error) => (settled(), reject(error)),
      });
      signal?.addEventListener("abort", onAbort, { once: true });
      // A search the thread is late with is answered; the thread is kept if it is alive.
      const watchdog = query.deadline === undefined ? undefined : setTimeout(() => {
        const pending = this.#pending.get(id);
        this.#pending.delete(id);
        pending?.resolve(stoppedByTime());
        const current = this.#worker; // (the one it was posted to, or its replacement)
        if (current === undefined) return;
        current.postMessage({ cancel: id });
        this.#askAlive(current);
      }, Math.max(0, query.deadline - Date.now()) + GRACE_MS);
      worker.postMessage(message);
    });
  }

  #started(): Worker | undefined {
    if (this.#worker !== undefined) return this.#worker;
    const worker = startWorker("searchThread", this.#module);
    if (worker === undefined) return undefined;
    // (Only where the index runs: elsewhere nothing would watch it. Where it cannot be made,
    // the thread's index tries itself, and goes without a watcher if it cannot either.)
    const indexed = this.#init.store.searchIndex && WATCH_ORDER_KEPT;
    this.#watchDir = indexed ? barrierDirOrNone() : undefined;
    worker.onmessage = (event: MessageEvent<ThreadReply>) => this.#reply(event.data);
    worker.onerror = (event) => {
      event.preventDefault?.();
      this.#stop(new Error(`the search thread failed: ${workerFailureReason(event)}`));
    };
    this.#stopping = HAS_SHARED_MEMORY ? new Int32Array(new SharedArrayBuffer(4)) : undefined;
    const init: ThreadInit = {
      ...this.#init,
      watchDir: this.#watchDir,
      stopping: this.#stopping?.buffer as SharedArrayBuffer | undefined,
    };
    worker.postMessage(init);
    this.#worker = worker;
    return worker;
  }

  /** Replaces the thread unless it answers a ping before it is taken for stuck. */
  #askAlive(worker: Worker): void {
    if (this.#probe !== undefined) return;
    const id = this.#threadId;
    const cpuAtPing = id === undefined ? undefined : threadCpuMs(id);
    const pinged = Date.now();
    let timer: ReturnType<typeof setTimeout>;
    const look = () => {
      const cpu = cpuAtPing === undefined ? undefined : threadCpuMs(id!);
      const stuck = takenForStuck(cpu === undefined ? undefined : cpu - cpuAtPing!, pinged);
      if (!stuck && this.#worker === worker) return wait();
      this.#probe = undefined;
      if (this.#worker === worker) this.#replace();
    };
    const wait = () => {
      timer = setTimeout(look, PROBE_MS);
      (timer as { unref?: () => void }).unref?.();
    };
    wait();
    this.#probe = () => {
      clearTimeout(timer);
      this.#probe = undefined;
    };
    worker.postMessage({ ping: true });
  }

  /** Replaces a stuck thread; the searches it had under way are posted again to the new one. */
  #replace(): void {
    const again = [...this.#pending.entries()];
    this.#pending.clear();
    this.#stop();
    const worker = this.#started();
    for (const [id, pending] of again) {
      if (worker === undefined) {
        pending.reject(new Error("the search thread was stuck and did not start again"));
        continue;
      }
      // (The new thread holds no kept results yet.)
      const message = { ...pending.message, held: [] };
      this.#pending.set(id, { ...pending, message, held: new Map(), strings: undefined });
      worker.postMessage(message);
    }
  }

  #reply(reply: ThreadReply): void {
    if ("pong" in reply) return this.#probe?.();
    if ("threadId" in reply) return void (this.#threadId = reply.threadId);
    const pending = this.#pending.get(reply.id);
    if (pending === undefined) return; // answered by the watchdog already
    if ("progress" in reply) return pending.query.onProgress?.(...reply.progress);
    if ("unreadable" in reply) return pending.query.onUnreadable?.(reply.unreadable);
    if ("strings" in reply) {
      return void (pending.strings = { texts: reply.texts, paths: reply.paths });
    }
    this.#pending.delete(reply.id);
    if ("error" in reply) pending.reject(thrownError(reply.error, pending.query.signal));
    else if ("apart" in reply && pending.strings === undefined) {
      pending.reject(new Error("the search thread posted a result without its rows"));
    } else {
      let result: SearchResult;
      try {
        result = this.#result(reply, pending);
      } catch (error) {
        // (Never left unanswered: a result that cannot be read is the thread's failure.)
        const reason = workerFailureReason(error);
        return pending.reject(
          new Error(`the search thread posted a result that could not be read (${reason})`),
        );
      }
      pending.resolve(result);
    }
  }

  /** A result posted, or one held here; a kept one is held (and used) as the latest. */
  #result(
    reply: { result?: PackedResult; kept?: number; apart?: true },
    pending: Pending,
  ): SearchResult {
    const { result: posted, kept, apart } = reply;
    // (The thread posts a number alone only for one held when the search was posted.)
    const result = posted === undefined
      ? pending.held.get(kept!)!
      : unpackResult(apart ? withStrings(posted, pending.strings!) : posted);
    if (kept === undefined) return result;
    this.#kept.delete(kept);
    if (this.#kept.size >= KEPT_HERE) this.#kept.delete(this.#kept.keys().next().value!);
    this.#kept.set(kept, posted === undefined ? result : freezeResult(result));
    return result;
  }

  /** Terminates the thread, failing what it had under way; the next search starts another. */
  #stop(reason?: Error): void {
    if (this.#stopping !== undefined) Atomics.store(this.#stopping, 0, 1);
    this.#stopping = undefined;
    this.#probe?.();
    this.#worker?.terminate();
    this.#worker = undefined;
    this.#threadId = undefined;
    this.#kept.clear(); // (the next thread numbers its kept results anew)
    this.#removeWatchDir();
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const one of pending) one.reject(reason);
  }

  #removeWatchDir(): void {
    if (this.#watchDir !== undefined) removeQuietly(this.#watchDir);
    this.#watchDir = undefined;
  }
}

/** A new barrier directory, or undefined where the temporary folder refuses one. */
function barrierDirOrNone(): string | undefined {
  try {
    return createBarrierDir();
  } catch {
    return undefined;
  }
}
