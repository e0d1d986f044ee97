/**
 * The search index's knowledge of file contents: a trigram filter per file (or the mark of
 * a binary file) and block filters for a large one, built on a worker thread from a queue of
 * files to learn, within a byte budget. It knows nothing of watching: the index tells it what changed.
 *
 * @module
 */
import { sep } from "node:path";
import type { FileSystem, SharedFileSystem } from "../../io/file_system.ts";
import { inodeOfIdentity, inodeOfStat } from "../../io/file_identity.ts";
import { collectGarbageWhenIdle, reportWorkerFailure } from "../../io/runtime.ts";
import type { IndexedFile } from "../_search_file.ts";
import { startSearchWorkers, unref } from "../_search_pool.ts";
import { blockBytes, type BlockFilters, RACY_MS } from "./_block_filters.ts";
import { type EntryNow, entryNow } from "./_kept_walks.ts";

/** Files per message to the indexing worker. */
const INDEX_BATCH = 256;

/** The mark of a binary file. */
export const BINARY = "binary";

/** What is kept per file: a trigram filter, or the mark of a binary file. */
export type Filter = Uint8Array | typeof BINARY;

/** A file's filter as the cache on disk keeps it: real path, filter, identity, block filters. */
export type SavedFilter = [string, Filter, Uint32Array, BlockFilters | undefined];

/** What the indexing worker is sent. */
export interface IndexJob {
  /** Real paths of the files to index. */
  index: string[];
  /** Where they are. */
  files: SharedFileSystem;
}

/** What the indexing worker sends back. */
export interface IndexReply {
  /** One per file of the job, in order. */
  indexed: IndexedFile[];
}

/** Trigram filters of files, built on a worker thread within a byte budget. */
export class FileFilters {
  readonly #files: FileSystem;
  readonly #maxBytes: number;
  readonly #onIdle: () => void;
  readonly #filters = new Map<string, Filter>();
  /** What a file with a filter was when read for it, unless just changed (for the cache). */
  readonly #identities = new Map<string, Uint32Array>();
  readonly #blocks = new Map<string, BlockFilters>();
  #blockBytes = 0; // of #blocks, within #bytes
  readonly #unindexable = new Set<string>(); // read and found too large or unreadable
  #bytes = 0;
  #version = 0;
  #savedVersion = 0; // grows when what may be saved changes
  #queue: string[] = [];
  readonly #queued = new Set<string>();
  #worker: Worker | undefined;
  #started = false;
  #closed = false;
  /** Searches under way: the worker gets no new batch meanwhile (see {@linkcode pause}). */
  #pauses = 0;
  #held = false; // a batch is due, held back by a pause
  /** Paths changed while a batch was out: its results for them (or below them) are stale. */
  #changedInFlight: Set<string> | undefined;

  /**
   * @param files where the files are read
   * @param maxBytes the most bytes filters may take
   * @param onIdle called whenever the queue has been worked off
   */
  constructor(files: FileSystem, maxBytes: number, onIdle: () => void) {
    this.#files = files;
    this.#maxBytes = maxBytes;
    this.#onIdle = onIdle;
  }

  /** A number that grows whenever a filter comes or goes. */
  get version(): number {
    return this.#version;
  }

  /** A number that grows whenever what {@linkcode saved} gives changes. */
  get savedVersion(): number {
    return this.#savedVersion;
  }

  /** Whether a search is under way (see {@linkcode pause}). */
  get paused(): boolean {
    return this.#pauses > 0;
  }

  /** Files known, those with block filters, bytes of filters, files waiting and on the worker. */
  get stats(): { files: number; blocked: number; bytes: number; queued: number; indexing: number } {
    const queued = this.#queue.length;
    return {
      files: this.#filters.size,
      blocked: this.#blocks.size,
      bytes: this.#bytes,
      queued,
      indexing: this.#queued.size - queued,
    };
  }

  /**
   * The filter of a file, if it has one.
   *
   * @param key the real path
   * @returns its filter, the binary mark, or undefined
   */
  get(key: string): Filter | undefined {
    return this.#filters.get(key);
  }

  /**
   * The block filters of a large file, if it has them.
   *
   * @param key the real path
   * @returns its block filters, or undefined
   */
  blocks(key: string): BlockFilters | undefined {
    return this.#blocks.get(key);
  }

  /**
   * Queues files not known yet; they are worked off once {@linkcode start} was called.
   *
   * @param keys real paths
   */
  learn(keys: Iterable<string>): void {
    if (this.#closed || this.#full()) return;
    for (const key of keys) {
      if (this.#filters.has(key) || this.#unindexable.has(key) || this.#queued.has(key)) continue;
      this.#queued.add(key);
      this.#queue.push(key);
    }
    if (this.#started && this.#worker === undefined) this.#next();
  }

  /**
   * Takes a filter from the cache on disk, checked against the file by the caller (after the
   * watcher started, so that a later change is heard), when the file has none and the
   * budget allows it.
   *
   * @param key the real path
   * @param filter its filter or the binary mark
   * @param identity what the file was when the filter was made
   * @param blocks its block filters, if it had them
   */
  adopt(key: string, filter: Filter, identity: Uint32Array, blocks?: BlockFilters): void {
    if (this.#closed || this.#filters.has(key)) return;
    if (filter !== BINARY && this.#bytes + filter.length > this.#maxBytes) return;
    this.#version++;
    this.#set(key, filter, identity);
    if (blocks !== undefined) this.#setBlocks(key, blocks);
  }

  /**
   * The filters that may be kept on disk, with what their files were when read.
   *
   * @returns real path, filter, identity and block filters of each
   */
  *saved(): Iterable<SavedFilter> {
    for (const [key, identity] of this.#identities) {
      const filter = this.#filters.get(key);
      if (filter !== undefined) yield [key, filter, identity, this.#blocks.get(key)];
    }
  }

  /** Starts working off the queue (the changes of files read from now on will be heard). */
  start(): void {
    this.#started = true;
    if (this.#worker === undefined) this.#next();
  }

  /**
   * Forgets the changed paths and everything below them (a path that had no filter may be a
   * directory, or have been one: renamed away, its files are not heard of). A path that is a
   * regular file now is not looked under: what lay below it can only be walked again once it is
   * a directory again, which is a change heard then.
   *
   * @param paths absolute paths
   * @param now what a path is now (by default, looked at; the caller may know already)
   * @returns the paths that had no filter and are no regular file now (directories among them)
   */
  forget(
    paths: Set<string>,
    now: (path: string) => EntryNow = (path) => entryNow(this.#files, path),
  ): Set<string> {
    const unknown = new Set<string>();
    for (const path of paths) {
      this.#changedInFlight?.add(path);
      if (!this.drop(path) && now(path) !== "file") unknown.add(path);
    }
    if (unknown.size === 0) return unknown;
    const under = underAnyOf(unknown);
    // (A map or set skips, not repeats, what is deleted while it is iterated.)
    for (const key of this.#filters.keys()) if (under(key)) this.drop(key);
    for (const key of this.#unindexable) if (under(key)) this.drop(key);
    return unknown;
  }

  /**
   * The files known by other names of the changed paths that are regular files with several
   * names: one may have been written through a hard link made since the other was read, and
   * inotify tells of the name written through only. They are found by inode among the files
   * read with one name; every file read without one (with several names, or just changed)
   * is among them too.
   *
   * @param paths absolute paths that changed
   * @returns the other files to take for changed
   */
  otherNames(paths: ReadonlySet<string>): Set<string> {
    const linked = new Set<string>();
    for (const path of paths) {
      try {
        const stat = this.#files.lstat(path);
        if (stat.kind === "file" && stat.nlink > 1) linked.add(inodeOfStat(stat));
      } catch {
        // (Gone, or not to be looked at: nothing is written through it.)
      }
    }
    const others = new Set<string>();
    if (linked.size === 0) return others;
    for (const key of this.#filters.keys()) {
      const identity = this.#identities.get(key);
      if (identity === undefined || linked.has(inodeOfIdentity(identity))) others.add(key);
    }
    return others;
  }

  /**
   * Forgets one file.
   *
   * @param key the real path
   * @returns false when it was not known
   */
  drop(key: string): boolean {
    const filter = this.#filters.get(key);
    if (filter === undefined) {
      if (!this.#unindexable.delete(key)) return false;
      this.#version++;
      return true;
    }
    this.#version++;
    if (filter !== BINARY) this.#bytes -= filter.length;
    this.#filters.delete(key);
    if (this.#identities.delete(key)) this.#savedVersion++;
    this.#dropBlocks(key);
    return true;
  }

  /**
   * Holds back the next batch until {@linkcode resume}: while searches run, learning waits,
   * so that it takes neither their cores nor memory beside theirs.
   */
  pause(): void {
    this.#pauses++;
  }

  /** Ends one {@linkcode pause}; the last one sends the batch held back. */
  resume(): void {
    this.#pauses--;
    if (this.#pauses > 0 || !this.#held) return;
    this.#held = false;
    this.#next();
  }

  /** Stops the worker and forgets everything. */
  close(): void {
    this.#closed = true;
    this.#worker?.terminate();
    this.#worker = undefined;
    this.#filters.clear();
    this.#identities.clear();
    this.#blocks.clear();
    this.#blockBytes = 0;
    this.#unindexable.clear();
    this.#queue = [];
    this.#queued.clear();
    this.#bytes = 0;
  }

  /** Sends the next batch to the worker, or stops the worker when there is none. */
  #next(): void {
    if (this.#pauses > 0 && !this.#closed) {
      this.#held = true;
      return;
    }
    if (this.#full()) {
      // (Forgotten, not left queued: room made later lets them be learned again.)
      this.#queue = [];
      this.#queued.clear();
    }
    const batch = this.#queue.splice(0, INDEX_BATCH);
    if (batch.length === 0 || this.#closed) {
      this.#worker?.terminate();
      this.#worker = undefined;
      if (!this.#closed) this.#onIdle();
      return;
    }
    this.#worker ??= this.#startWorker();
    if (this.#worker === undefined) {
      this.#queue = [];
      this.#queued.clear();
      return;
    }
    this.#changedInFlight = new Set();
    const job: IndexJob = { index: batch, files: this.#files.share() };
    this.#worker.postMessage(job);
  }

  #startWorker(): Worker | undefined {
    const worker = unref(startSearchWorkers(1)[0]);
    if (worker === undefined) return undefined;
    worker.onmessage = (event: MessageEvent<IndexReply>) => this.#take(event.data.indexed);
    const stop = (event: Event) => {
      event.preventDefault(); // (Deno would otherwise end the process)
      reportWorkerFailure("search", event);
      this.#worker?.terminate();
      this.#worker = undefined;
      this.#queue = [];
      this.#queued.clear();
    };
    worker.onerror = stop;
    worker.onmessageerror = stop;
    return worker;
  }

  #take(indexed: IndexedFile[]): void {
    if (this.#closed) return;
    this.#version++;
    const stale = this.#changedInFlight ?? new Set<string>();
    this.#changedInFlight = undefined;
    const underStale = underAnyOf(stale);
    for (const file of indexed) {
      this.#queued.delete(file.key);
      if (stale.has(file.key) || underStale(file.key)) continue;
      if (file.filter !== undefined) {
        if (!this.#makeRoom(file.filter.length)) continue;
        this.#set(file.key, file.filter, file.identity);
        if (file.blocks !== undefined) this.#setBlocks(file.key, file.blocks);
        else if (file.recent) this.#learnAgainLater(file.key);
      } else if (file.binary) this.#set(file.key, BINARY, file.identity);
      else this.#unindexable.add(file.key);
    }
    // (What the batch's message left, once learning stops; not set up during a search.)
    if (this.#pauses === 0) collectGarbageWhenIdle();
    this.#next();
  }

  #set(key: string, filter: Filter, identity: Uint32Array | undefined): void {
    const old = this.#filters.get(key);
    if (old !== undefined && old !== BINARY) this.#bytes -= old.length;
    this.#filters.set(key, filter);
    if (filter !== BINARY) this.#bytes += filter.length;
    const hadIdentity = this.#identities.has(key);
    if (identity !== undefined) this.#identities.set(key, identity);
    else this.#identities.delete(key);
    if (hadIdentity || identity !== undefined) this.#savedVersion++;
    this.#dropBlocks(key);
  }

  /** Queues a file to be read (again), unless it is queued already or nothing fits. */
  #enqueue(key: string): void {
    if (this.#closed || this.#queued.has(key) || this.#full()) return;
    this.#queued.add(key);
    this.#queue.push(key);
    if (this.#started && this.#worker === undefined) this.#next();
  }

  /**
   * Learns a large file again once it is old enough for block filters (see `RACY_MS`), if
   * it still has its filter then (it did not change meanwhile) and no block filters.
   */
  #learnAgainLater(key: string): void {
    const filter = this.#filters.get(key);
    const timer = setTimeout(() => {
      if (this.#filters.get(key) === filter && !this.#blocks.has(key)) this.#enqueue(key);
    }, RACY_MS + 100);
    (timer as { unref?: () => void }).unref?.();
  }

  /** Keeps a file's block filters, within the budget (without them, it is read whole). */
  #setBlocks(key: string, blocks: BlockFilters): void {
    const bytes = blockBytes(blocks);
    if (this.#bytes + bytes > this.#maxBytes) return;
    this.#savedVersion++;
    this.#blocks.set(key, blocks);
    this.#bytes += bytes;
    this.#blockBytes += bytes;
  }

  /** Whether no filter fits any more (block filters, which give way to filters, are gone). */
  #full(): boolean {
    return this.#bytes >= this.#maxBytes && this.#blocks.size === 0;
  }

  /**
   * Makes room for a filter of `bytes`, dropping block filters (the oldest first) if it
   * must: a file without a filter is read by every search, one without block filters only
   * read whole.
   */
  #makeRoom(bytes: number): boolean {
    if (this.#bytes - this.#blockBytes + bytes > this.#maxBytes) return false;
    for (const key of this.#blocks.keys()) {
      if (this.#bytes + bytes <= this.#maxBytes) break;
      this.#dropBlocks(key);
    }
    return true;
  }

  #dropBlocks(key: string): void {
    const blocks = this.#blocks.get(key);
    if (blocks === undefined) return;
    const bytes = blockBytes(blocks);
    this.#bytes -= bytes;
    this.#blockBytes -= bytes;
    this.#blocks.delete(key);
  }
}

/**
 * Whether a directory in `dirs` holds `key` (at any depth).
 *
 * @param key an absolute path
 * @param dirs absolute paths of directories
 * @returns true when one of them is an ancestor of `key`
 */
export function underAny(key: string, dirs: ReadonlySet<string>): boolean {
  for (let at = key.lastIndexOf(sep); at > 0; at = key.lastIndexOf(sep, at - 1)) {
    if (dirs.has(key.slice(0, at))) return true;
  }
  return false;
}

/** Directories past which {@linkcode underAnyOf} looks a path's ancestors up instead. */
const FEW_DIRS = 8;

/**
 * {@linkcode underAny} for many paths against the same directories: a few are compared as
 * prefixes, which costs a tenth of looking each path's ancestors up (the Linux tree's 78,268
 * paths against one directory: 2 against 35 ms), the usual case after a change.
 *
 * @param dirs absolute paths of directories
 * @returns whether one of them is an ancestor of a path
 */
export function underAnyOf(dirs: ReadonlySet<string>): (key: string) => boolean {
  if (dirs.size === 0) return () => false;
  if (dirs.size > FEW_DIRS) return (key) => underAny(key, dirs);
  const prefixes = [...dirs].map((dir) => dir + sep);
  return (key) => prefixes.some((prefix) => key.startsWith(prefix));
}
