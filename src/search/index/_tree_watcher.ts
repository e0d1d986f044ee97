/**
 * Watches the roots of a store for changes, so that what a search learned about the tree
 * can be kept until something changes. {@linkcode TreeWatcher.sync} is the barrier that
 * makes "any change on disk is seen by the next search" hold: it creates a file in a
 * private directory watched by the same runtime watcher, waits for that file's event, then
 * does so once more. Bun reads all its watchers from one inotify descriptor, in the order
 * the kernel queued the events, and hands each read's events over watcher by watcher (in
 * the order the watchers were made) as tasks of the JavaScript thread, run in turn. The
 * second sentinel is created after the first was heard, so it comes in a later read than
 * every change made before the sync, and its event is handed over after theirs. (Under
 * load, one read can hold a change and the first sentinel, and a sentinel watcher made
 * first would hand its event over first: the test suite saw that happen with two busy
 * processes on the machine.) Runtimes without such an order (`WATCH_ORDER_KEPT` in `io/runtime.ts`)
 * must not use it, and their searches read everything. The watches live on a thread of their
 * own (`_watch_thread.ts`), whose events come over one channel in the order Bun handed them
 * over: setting them on a large tree takes long, and would hold the thread that searches.
 *
 * Bun drops an event that repeats the path and kind of the watcher's previous one within
 * about a millisecond. A change made just after a sync that reported the same path could
 * be lost that way, so a path is reported again by every sync that comes less than
 * {@linkcode REPEAT_WINDOW_MS} after its event was heard.
 *
 * Not seen by any inotify watcher, and so not by this one: writes through another name of a
 * file (a hard link) outside the roots, writes through a shared memory map, and changes
 * made by another machine on a network file system. (The search index never rules out a
 * file that has several names when it reads it.) Nor is a file system mounted over a
 * directory in a root, or unmounted from one: a sync compares the mounts inside the roots
 * with those when the watcher started (`_mount_table.ts`), and gives the watcher up when they
 * differ.
 *
 * @module
 */
import * as fs from "node:fs";
import { join } from "node:path";
import { createBarrierDir, removeQuietly } from "../../files/_barrier_dir.ts";
import { notice, reportWorkerFailure, startWorker } from "../../io/runtime.ts";
import { unref } from "../_search_pool.ts";
import type { WatchEvent, WatchJob, WatchReply } from "./_watch_thread.ts";
import { mountsInside } from "./_mount_table.ts";

/** What changed since the last {@linkcode TreeWatcher.sync}. */
export interface TreeChanges {
  /** Paths (absolute) that were created, deleted, renamed or written. */
  paths: Set<string>;
  /** Of those, the ones created, deleted or renamed (their directories' listings differ). */
  moved: Set<string>;
  /** True when an ignore file changed (any walk may find other files). */
  rules: boolean;
  /** True when changes may have been missed: forget everything learned. */
  lost: boolean;
}

/** How long after its event a path is still reported (Bun's repeat window, with a margin). */
export const REPEAT_WINDOW_MS = 20;

/**
 * Events heard between two syncs at the most, so changed paths held too (each took one); more
 * (a build writing a whole tree while nobody searches) count as lost changes, and the index
 * gives up instead of growing.
 */
export const MAX_PENDING_EVENTS = 100_000;

/** How long a sync waits for its sentinel before it gives the watcher up. */
const SYNC_TIMEOUT_MS = 2000;

/** Whether this thread is being stopped (see {@linkcode quietWhen}). */
let stopping: () => boolean = () => false;

/**
 * Tells this thread's watchers how to know that the thread is being stopped: its owner then
 * removes the watcher's directory while a sync may still be under way, and the check file
 * that cannot be written is no failure to say (the line came as a server ended).
 *
 * @param isStopping whether the thread is being stopped
 * @example
 * ```ts
 * import { quietWhen } from "./_tree_watcher.ts";
 * quietWhen(() => false);
 * ```
 */
export function quietWhen(isStopping: () => boolean): void {
  stopping = isStopping;
}

/** Watches roots recursively and tells what changed since the last sync. */
export class TreeWatcher {
  /** The thread that watches, until closed. */
  #thread: Worker | undefined;
  readonly #roots: readonly string[];
  readonly #barrierDir: string;
  readonly #maxPending: number;
  /** The mounts inside the roots when it started. */
  readonly #mounts: string;
  #changes: TreeChanges = noChanges();
  /** Events heard since the last sync (repeats of a path included). */
  #events = 0;
  /** Paths heard from lately: when, and whether created, deleted or renamed. */
  #recent = new Map<string, { at: number; moved: boolean }>();
  #lastSync = 0;
  #broken = false;
  #sentinels = 0;
  /** The sentinels of the syncs under way (concurrent searches sync at once). */
  readonly #waiting = new Map<string, () => void>();

  private constructor(roots: readonly string[], barrierDir: string, maxPending: number) {
    this.#roots = roots;
    this.#barrierDir = barrierDir;
    this.#maxPending = maxPending;
    this.#mounts = mountsInside(roots);
  }

  /**
   * Starts watching (trust it only where `WATCH_ORDER_KEPT`), on a thread of its own; the
   * calling thread goes on meanwhile.
   *
   * @param roots the real paths of the roots
   * @param maxPending events heard between syncs at the most (see
   *   {@linkcode MAX_PENDING_EVENTS})
   * @param barrierDir the private directory to use (made empty by the caller, removed by
   *   {@linkcode TreeWatcher.close}); by default a new one in the system's temporary folder
   * @returns the watcher once every watch is set; undefined when they cannot be (no inotify,
   *   too few watches left for a large tree, a root gone, no thread to watch from)
   */
  static start(
    roots: readonly string[],
    maxPending: number = MAX_PENDING_EVENTS,
    barrierDir?: string,
  ): Promise<TreeWatcher | undefined> {
    let watcher: TreeWatcher;
    try {
      watcher = new TreeWatcher(roots, barrierDir ?? createBarrierDir(), maxPending);
    } catch {
      return Promise.resolve(undefined);
    }
    const thread = unref(startWorker("watch"));
    if (thread === undefined) {
      watcher.close();
      return Promise.resolve(undefined);
    }
    watcher.#thread = thread;
    return new Promise((resolve) => {
      const given = (ready: boolean) => {
        if (!ready) watcher.close();
        resolve(ready ? watcher : undefined);
      };
      let started = false;
      thread.onmessage = (event: MessageEvent<WatchReply>) => {
        const reply = event.data;
        if ("events" in reply) watcher.#heard(reply.events);
        else if ("ready" in reply) given(started = true);
        else if (started) watcher.#fail(reply.failed);
        else {
          say("the roots cannot be watched for changes", reply.failed);
          given(false);
        }
      };
      const failed = (event: Event) => {
        event.preventDefault(); // (Deno would otherwise end the process)
        reportWorkerFailure("watch", event);
        if (started) watcher.#fail("its thread failed");
        else given(false);
      };
      thread.onerror = failed;
      thread.onmessageerror = failed;
      // Last: of the events Bun reads at once, it hands each watch's over in the order the
      // watches were made, so the roots' events come before the sentinel's.
      const job: WatchJob = {
        watch: [
          ...roots.map((path) => ({ path, recursive: true })),
          { path: watcher.#barrierDir, recursive: false },
        ],
      };
      thread.postMessage(job);
    });
  }

  /** False once the watcher failed; its changes can no longer be trusted. */
  get healthy(): boolean {
    return !this.#broken;
  }

  /**
   * Waits until every change made before the call has been reported, then hands over the
   * changes since the last sync.
   *
   * @returns the changes (`lost` when the watcher failed or the sentinel never came)
   */
  async sync(): Promise<TreeChanges> {
    // Two sentinels, one after the other: the second is created only once the first was
    // heard, so its event is read after every event read with the first, whatever order
    // the watchers of one read are handed over in.
    if (!this.#broken && await this.#sentinel()) await this.#sentinel();
    if (!this.#broken && mountsInside(this.#roots) !== this.#mounts) {
      this.#fail("a file system was mounted or unmounted inside the roots");
    }
    const changes = this.#changes;
    if (this.#broken) changes.lost = true;
    this.#changes = noChanges();
    this.#events = 0;
    // Report again what was heard so short a time before the last sync that a repeat of it
    // after that sync may have been dropped; forget what is older.
    for (const [path, heard] of this.#recent) {
      if (heard.at + REPEAT_WINDOW_MS <= this.#lastSync) this.#recent.delete(path);
      else {
        changes.paths.add(path);
        if (heard.moved) changes.moved.add(path);
        if (isIgnoreFile(path)) changes.rules = true;
      }
    }
    this.#lastSync = Date.now();
    return changes;
  }

  /** Stops watching and removes the private directory. */
  close(): void {
    this.#stopThread();
    this.#broken = true;
    for (const resolve of this.#waiting.values()) resolve();
    removeQuietly(this.#barrierDir);
  }

  /** Events from the thread, in order: a root's changes, or a sentinel of the barrier. */
  #heard(events: WatchEvent[]): void {
    for (const [watch, name, rename] of events) {
      if (this.#broken) return;
      if (watch < this.#roots.length) this.#changed(this.#roots[watch], name ?? undefined, rename);
      else this.#sentinelSeen(name ?? undefined);
    }
  }

  #stopThread(): void {
    this.#thread?.terminate();
    this.#thread = undefined;
  }

  #changed(root: string, name: string | undefined, structural: boolean): void {
    // A flood of events (a process renaming in a loop: Bun's recursive watcher then even
    // rescans the directories a symlink swapped in points to) would keep this thread busy
    // with nothing but events; past the cap the watcher gives up instead.
    if (++this.#events > this.#maxPending) {
      this.#fail(`more than ${this.#maxPending} events between two searches`);
      return;
    }
    if (name === undefined) {
      this.#changes.lost = true;
      return;
    }
    // (A change inside .git is told of too: a grep of `.git`, or through a symlink into it,
    // reads files there.)
    // (Joined as text: the runtime's path.join writes a name that is not UTF-8, which the
    // thread hands over as the walks spell it, lossily.)
    const path = `${root === "/" ? "" : root}/${name}`;
    this.#changes.paths.add(path);
    if (structural) this.#changes.moved.add(path);
    if (isIgnoreFile(path)) this.#changes.rules = true;
    const before = this.#recent.get(path);
    this.#recent.set(path, { at: Date.now(), moved: structural || before?.moved === true });
  }

  /** Creates a sentinel file and waits for its event; false (and failed) on a timeout. */
  async #sentinel(): Promise<boolean> {
    if (this.#broken) return false;
    const name = `s${++this.#sentinels}`;
    const seen = new Promise<boolean>((resolve) => this.#waiting.set(name, () => resolve(true)));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), SYNC_TIMEOUT_MS);
    });
    try {
      fs.writeFileSync(join(this.#barrierDir, name), "");
      if (await Promise.race([seen, timeout])) return true;
      this.#fail(`a change went unreported for ${SYNC_TIMEOUT_MS / 1000} s`);
    } catch (error) {
      this.#fail(`its check file could not be written (${(error as Error).message})`);
    } finally {
      clearTimeout(timer);
      this.#waiting.delete(name);
      removeQuietly(join(this.#barrierDir, name));
    }
    return false;
  }

  #sentinelSeen(name: string | undefined): void {
    if (name !== undefined) this.#waiting.get(name)?.();
  }

  /**
   * Gives the watcher up, and says why on stderr (searches then read every file until the
   * store starts its index again), unless its thread is being stopped.
   */
  #fail(why: string): void {
    if (this.#broken) return;
    if (!stopping()) say("the file watcher stopped", why);
    this.#broken = true;
    this.#changes.lost = true;
    // No more events: nothing they could tell is trusted any more.
    this.#stopThread();
    for (const resolve of this.#waiting.values()) resolve();
  }
}

/** No changes yet. */
function noChanges(): TreeChanges {
  return { paths: new Set(), moved: new Set(), rules: false, lost: false };
}

/** Whether a path names an ignore file (the walks' rules). */
function isIgnoreFile(path: string): boolean {
  return path.endsWith("/.gitignore");
}

/**
 * Says on stderr that watching failed, why, and what it means for searches; when inotify
 * watches ran out (ENOSPC), what a user can do about it.
 */
function say(what: string, why: string): void {
  const hint = why.includes("ENOSPC") ? " (raise fs.inotify.max_user_watches)" : "";
  notice(`${what} (${why}); searches read every file until the index starts again${hint}`);
}
