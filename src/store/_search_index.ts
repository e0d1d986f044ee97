/**
 * What a directory store keeps between searches while a {@linkcode TreeWatcher} vouches that
 * nothing changed: the files of recent walks, and a trigram filter per file (or the fact
 * that it is binary), built on a worker thread after a search has walked the files. A
 * later search skips the walk when it is cached, and skips reading every file whose filter
 * says a required literal is not in it. Whatever the watcher reports changed is forgotten
 * at the start of the next search, before anything is used.
 *
 * The watcher is started after the first search has answered (setting its watches takes
 * tens of milliseconds on a large tree): that search and any that began before the watcher
 * was running only teach the index which files to index; they neither use nor remember a
 * walk.
 *
 * Memory is bounded: filters take at most `maxBytes` (files beyond it are simply read), and
 * at most {@linkcode MAX_WALKS} walks are kept.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { sep } from "node:path";
import type { Matcher } from "../core/mod.ts";
import type { SearchQuery, SearchResult } from "./file_store.ts";
import { FileReader } from "./_file_reader.ts";
import { type Examined, type IndexedFile, WHOLE_FILE_BYTES } from "./_search_file.ts";
import { startSearchWorker, type WorkerLease } from "./_search_pool.ts";
import { TreeWatcher } from "./_tree_watcher.ts";
import { mayContain, needleTrigrams } from "./_trigram_filter.ts";
import type { WalkNode } from "./walk.ts";

/** Walks kept (one per start, glob and `includeIgnored` searched recently). */
export const MAX_WALKS = 8;
/** Literals whose absence from files read is kept (the most recently searched). */
export const MAX_LITERALS = 16;
/** Results kept for repeated searches, and the most matching lines one may hold. */
export const MAX_RESULTS = 16;
export const MAX_RESULT_LINES = 20_000;
/** Files per message to the indexing worker. */
const INDEX_BATCH = 256;
const BINARY = "binary";
const KNOWN_BINARY: Examined = { kind: "binary" };
const KNOWN_NONE: Examined = { kind: "none" };

/** What the indexing worker is sent. */
export interface IndexJob {
  /** Real paths of the files to index. */
  index: string[];
}

/** What the indexing worker sends back. */
export interface IndexReply {
  /** One per file of the job, in order. */
  indexed: IndexedFile[];
}

/** Sizes of what a {@linkcode SearchIndex} holds. */
export interface SearchIndexStats {
  /** Files with a filter or known to be binary. */
  files: number;
  /** Bytes of filters. */
  bytes: number;
  /** Walks kept. */
  walks: number;
  /** Files waiting to be indexed. */
  queued: number;
}

/** What {@linkcode SearchIndex.refresh} found. */
export type IndexState =
  /** The watcher is running and every change so far is accounted for: use the index. */
  | "trusted"
  /** The watcher is not running yet: only {@linkcode SearchIndex.learn} may be used. */
  | "learning"
  /** The watcher failed: the index is closed and must be dropped. */
  | "closed";

/** Walks and trigram filters kept between searches, dropped as the watcher reports changes. */
export class SearchIndex {
  /**
   * The reader of the searches that use this index: its buffer stays grown (up to
   * `WHOLE_FILE_BYTES`) instead of growing again in every search. It is only ever used
   * between two awaits, so concurrent searches can share it.
   */
  readonly reader: FileReader = new FileReader(WHOLE_FILE_BYTES);
  readonly #roots: readonly string[];
  readonly #maxBytes: number;
  #watcher: TreeWatcher | undefined;
  readonly #walks = new Map<string, WalkNode[]>();
  readonly #filters = new Map<string, Uint8Array | typeof BINARY>();
  readonly #unindexable = new Set<string>(); // read and found too large or unreadable
  /** Per literal, files a search read and found without it (those its filter let through). */
  readonly #absent = new Map<string, Set<string>>();
  #changes = 0; // refreshes that forgot something
  #version = 0; // grows when a filter comes or goes, or something is forgotten
  #absentVersion = 0; // grows when searches find literals absent from more files
  /** Results of complete searches, by {@linkcode resultKey}, as of a count of changes. */
  readonly #results = new Map<string, { changes: number; result: SearchResult }>();
  /** Answers of {@linkcode knownFiles}. */
  readonly #known = new Map<string, KnownFiles>();
  /** Each remembered walk's filters, in its order, as of a version. */
  readonly #aligned = new WeakMap<WalkNode[], { version: number; filters: Filter[] }>();
  #bytes = 0;
  #queue: string[] = [];
  readonly #queued = new Set<string>();
  #worker: Worker | undefined; // indexing
  #searchWorker: Worker | undefined; // lent to searches, kept warm
  #searchWorkerLent = false;
  /** Paths changed while a batch was out: its results for them (or below them) are stale. */
  #changedInFlight: Set<string> | undefined;
  #closed = false;
  #starting = false;
  #walkEpoch = 0; // grows whenever remembered walks are dropped
  /** Walks made before the watcher ran, to make again once it does. */
  readonly #walksToMake = new Map<string, () => AsyncIterable<WalkNode[]>>();

  /**
   * An index of the roots; it starts watching them after the first {@linkcode learn}.
   *
   * @param roots real paths of the roots
   * @param maxBytes the most bytes filters may take
   */
  constructor(roots: readonly string[], maxBytes: number) {
    this.#roots = roots;
    this.#maxBytes = maxBytes;
    // Started now, it is loaded by the time the first search wants it.
    setTimeout(() => {
      if (!this.#closed) this.#searchWorker ??= unref(startSearchWorker());
    }, 0);
  }

  /** What it holds now. */
  get stats(): SearchIndexStats {
    return {
      files: this.#filters.size,
      bytes: this.#bytes,
      walks: this.#walks.size,
      queued: this.#queue.length,
    };
  }

  /**
   * Waits for the watcher to report every change made so far and forgets what they touch.
   *
   * @returns whether the index may be used now
   */
  async refresh(): Promise<IndexState> {
    if (this.#closed) return "closed";
    if (this.#watcher === undefined) return "learning";
    const changes = await this.#watcher.sync();
    if (changes.lost || !this.#watcher.healthy) {
      this.close();
      return "closed";
    }
    if (changes.structural) {
      this.#walks.clear();
      this.#walkEpoch++;
    }
    if (changes.paths.size > 0) {
      this.#changes++;
      this.#results.clear();
      this.#forget(changes.paths);
    }
    return "trusted";
  }

  /**
   * The files of a walk made since the last structural change.
   *
   * @param key the walk's start, glob and options
   * @returns the files, or undefined
   */
  walk(key: string): WalkNode[] | undefined {
    return this.#walks.get(key);
  }

  /**
   * A mark of the structural changes so far, for {@linkcode rememberWalk}.
   *
   * @returns a number that grows whenever remembered walks are dropped
   */
  get walkEpoch(): number {
    return this.#walkEpoch;
  }

  /**
   * Keeps the files of a complete walk, unless a structural change was heard since it began.
   *
   * @param key the walk's start, glob and options
   * @param files its files in order
   * @param since {@linkcode walkEpoch} when the walk began
   */
  rememberWalk(key: string, files: WalkNode[], since: number): void {
    if (this.#closed || since !== this.#walkEpoch || this.#watcher === undefined) return;
    this.#walks.delete(key);
    if (this.#walks.size >= MAX_WALKS) this.#walks.delete(this.#walks.keys().next().value!);
    this.#walks.set(key, files);
  }

  /**
   * A mark of the changes forgotten so far, for {@linkcode recordAbsent}.
   *
   * @returns a number that grows with every refresh that forgot something
   */
  get changes(): number {
    return this.#changes;
  }

  /**
   * A test of what is known of a file without reading it, for a search with `matcher`:
   * binary, or certainly without one of the literals every match contains (by its filter,
   * or because a search read it and found the literal absent).
   *
   * @param matcher the search's matcher
   * @returns per real path, the outcome, or undefined when the file must be read
   */
  knowing(matcher: Matcher): (key: string) => Examined | undefined {
    const literals = this.#literals(matcher);
    return (key) => judge(this.#filters.get(key), key, literals);
  }

  /**
   * {@linkcode knowing} for every file of a remembered walk, and the required literal that
   * the fewest of them may contain (the best one to look for in the bytes of the files that
   * must be read). The answer is kept, so an identical search asks nothing per file: it is
   * made again when the index forgets something or learns filters, and brought up to date
   * when searches find literals absent.
   *
   * @param walkKey the walk's key
   * @param files the walk's files (from {@linkcode walk})
   * @param matcher the search's matcher
   * @returns per file, the outcome (undefined: it must be read), and the rarest literal
   */
  knownFiles(walkKey: string, files: WalkNode[], matcher: Matcher): KnownFiles {
    const key = [walkKey, matcher.requiredLiteral, ...(matcher.requiredLiterals ?? [])].join("\0");
    let answer = this.#known.get(key);
    if (answer === undefined || answer.files !== files || answer.version !== this.#version) {
      answer = this.#judgeAll(files, matcher);
      this.#known.delete(key);
      if (this.#known.size >= MAX_WALKS) this.#known.delete(this.#known.keys().next().value!);
      this.#known.set(key, answer);
    } else if (answer.absentVersion !== this.#absentVersion) {
      // Only files still to be read can be ruled out by the absences found since.
      // (A copy: a search still running may hold the old array.)
      const literals = this.#literals(matcher);
      const known = answer.known = answer.known.slice();
      answer.toRead = answer.toRead.filter((i) =>
        (known[i] = judge(undefined, files[i].key, literals)) === undefined
      );
      answer.absentVersion = this.#absentVersion;
    }
    return answer;
  }

  /**
   * The result of an identical search made since the last change the watcher reported.
   *
   * @param key the search's {@linkcode resultKey}
   * @returns that result (frozen), or undefined
   */
  result(key: string): SearchResult | undefined {
    const kept = this.#results.get(key);
    return kept !== undefined && kept.changes === this.#changes ? kept.result : undefined;
  }

  /**
   * Keeps a search's result for an identical search, when it is complete (not stopped by
   * the time budget), not too large, and nothing changed since the search started. The
   * result is frozen, as it is shared with every search that gets it.
   *
   * @param key the search's {@linkcode resultKey}
   * @param result its result
   * @param since {@linkcode changes} when it started
   */
  rememberResult(key: string, result: SearchResult, since: number): void {
    if (this.#closed || since !== this.#changes || result.stopped === "time") return;
    if (result.matchedLines > MAX_RESULT_LINES) return;
    this.#results.delete(key);
    if (this.#results.size >= MAX_RESULTS) this.#results.delete(this.#results.keys().next().value!);
    this.#results.set(key, { changes: since, result: deepFreeze(result) });
  }

  /**
   * Keeps the files a search read and found without its required literal; ignored when
   * something changed since the search started (a file may have changed after it was read).
   *
   * @param literal the required literal
   * @param keys the files read without it
   * @param since {@linkcode changes} when the search started
   */
  recordAbsent(literal: string, keys: readonly string[], since: number): void {
    if (this.#closed || since !== this.#changes || keys.length === 0) return;
    const known = this.#absent.get(literal) ?? new Set();
    const before = known.size;
    for (const key of keys) known.add(key);
    if (known.size !== before) this.#absentVersion++;
    this.#absent.delete(literal);
    if (this.#absent.size >= MAX_LITERALS) this.#absent.delete(this.#absent.keys().next().value!);
    this.#absent.set(literal, known);
  }

  /**
   * Queues files for indexing on a worker thread (those not indexed yet); the first call
   * starts the watcher, once the current task (the search answering) is over.
   *
   * @param keys real paths
   * @param walk a walk made before the watcher was running, to make again (in the background,
   *   once the files are indexed) so that the next such search needs none
   */
  learn(
    keys: Iterable<string>,
    walk?: { key: string; files: () => AsyncIterable<WalkNode[]> },
  ): void {
    if (walk !== undefined && !this.#walks.has(walk.key)) {
      this.#walksToMake.set(walk.key, walk.files);
    }
    if (this.#closed || this.#bytes >= this.#maxBytes) return;
    for (const key of keys) {
      if (this.#filters.has(key) || this.#unindexable.has(key) || this.#queued.has(key)) continue;
      this.#queued.add(key);
      this.#queue.push(key);
    }
    if (this.#watcher === undefined) {
      if (!this.#starting) {
        this.#starting = true;
        setTimeout(() => this.#startWatching(), 0);
      }
    } else if (this.#worker === undefined) this.#next();
  }

  /**
   * Lends the warm search worker to one search (it reads and prefilters files beside the
   * main thread, see `_search_pool.ts`), when it is not lent already.
   *
   * @returns the lease, or undefined
   */
  borrowWorker(): WorkerLease | undefined {
    if (this.#closed || this.#searchWorkerLent) return undefined;
    const worker = this.#searchWorker ??= unref(startSearchWorker());
    if (worker === undefined) return undefined;
    this.#searchWorkerLent = true;
    return {
      worker,
      release: (dead) => {
        this.#searchWorkerLent = false;
        if (dead || this.#closed) {
          worker.terminate();
          if (this.#searchWorker === worker) this.#searchWorker = undefined;
        }
      },
    };
  }

  /** Stops watching and indexing, and forgets everything. */
  close(): void {
    this.#closed = true;
    this.#watcher?.close();
    this.#worker?.terminate();
    this.#worker = undefined;
    if (!this.#searchWorkerLent) this.#searchWorker?.terminate(); // (else at its release)
    this.#searchWorker = undefined;
    this.#walks.clear();
    this.#walksToMake.clear();
    this.#filters.clear();
    this.#unindexable.clear();
    this.#absent.clear();
    this.#known.clear();
    this.#results.clear();
    this.#queue = [];
    this.#queued.clear();
    this.#bytes = 0;
  }

  #startWatching(): void {
    if (this.#closed) return;
    this.#watcher = TreeWatcher.start(this.#roots);
    if (this.#watcher === undefined) this.close();
    else this.#next();
  }

  /** The filters of a walk's files, in its order. */
  #alignedFilters(files: WalkNode[]): Filter[] {
    let aligned = this.#aligned.get(files);
    if (aligned === undefined || aligned.version !== this.#version) {
      aligned = {
        version: this.#version,
        filters: files.map((file) => this.#filters.get(file.key)),
      };
      this.#aligned.set(files, aligned);
    }
    return aligned.filters;
  }

  #judgeAll(files: WalkNode[], matcher: Matcher): KnownFiles {
    const filters = this.#alignedFilters(files);
    const literals = this.#literals(matcher);
    const passed = literals.map(() => 0);
    const known: (Examined | undefined)[] = [];
    const toRead: number[] = [];
    for (let i = 0; i < files.length; i++) {
      known.push(judge(filters[i], files[i].key, literals, passed));
      if (known[i] === undefined) toRead.push(i);
    }
    let rarest = matcher.requiredLiteral;
    let fewest = Infinity;
    literals.forEach(({ literal }, i) => {
      if (passed[i] < fewest) [rarest, fewest] = [literal, passed[i]];
    });
    return {
      files,
      known,
      toRead,
      rarest,
      version: this.#version,
      absentVersion: this.#absentVersion,
    };
  }

  /** The matcher's usable literals, with the files known to lack each. */
  #literals(matcher: Matcher): Literal[] {
    return literalsOf(matcher).map((literal) => ({
      ...literal,
      absent: this.#absent.get(literal.literal),
    }));
  }

  /** Drops what is known of the changed paths and of everything below them. */
  #forget(paths: Set<string>): void {
    const below: string[] = [];
    for (const path of paths) {
      this.#changedInFlight?.add(path);
      if (!this.#drop(path)) below.push(path);
    }
    if (below.length === 0) return;
    // A path that was no indexed file may be a directory: drop what lies below it.
    const dirs = new Set(below);
    const absent = [...this.#absent.values()].flatMap((keys) => [...keys]);
    for (const key of [...this.#filters.keys(), ...this.#unindexable, ...absent]) {
      if (underAny(key, dirs)) this.#drop(key);
    }
  }

  /** Forgets what is known of one file; false when nothing was. */
  #drop(key: string): boolean {
    this.#version++;
    let known = false;
    for (const keys of this.#absent.values()) known = keys.delete(key) || known;
    const filter = this.#filters.get(key);
    if (filter === undefined) return this.#unindexable.delete(key) || known;
    if (filter !== BINARY) this.#bytes -= filter.length;
    this.#filters.delete(key);
    return true;
  }

  #setFilter(key: string, filter: Uint8Array | typeof BINARY): void {
    const old = this.#filters.get(key);
    if (old !== undefined && old !== BINARY) this.#bytes -= old.length;
    this.#filters.set(key, filter);
    if (filter !== BINARY) this.#bytes += filter.length;
  }

  /** Sends the next batch to the worker, or stops the worker when there is none. */
  #next(): void {
    const batch = this.#queue.splice(0, INDEX_BATCH);
    if (batch.length === 0 || this.#closed || this.#bytes >= this.#maxBytes) {
      this.#worker?.terminate();
      this.#worker = undefined;
      void this.#makeWalks();
      return;
    }
    this.#worker ??= this.#startWorker();
    if (this.#worker === undefined) {
      this.#queue = [];
      this.#queued.clear();
      return;
    }
    this.#changedInFlight = new Set();
    const job: IndexJob = { index: batch };
    this.#worker.postMessage(job);
  }

  /**
   * Indexing done: makes the walks asked for (the watcher is running, so each is good until
   * it reports a structural change), and lines the filters up with every remembered walk,
   * all before the next search needs them.
   */
  async #makeWalks(): Promise<void> {
    for (const [key, walk] of this.#walksToMake) {
      this.#walksToMake.delete(key);
      const since = this.#walkEpoch;
      const files: WalkNode[] = [];
      try {
        for await (const run of walk()) files.push(...run);
      } catch {
        continue; // (the next search walks itself, and says what went wrong)
      }
      this.rememberWalk(key, files, since);
    }
    for (const files of this.#walks.values()) this.#alignedFilters(files);
  }

  #startWorker(): Worker | undefined {
    const worker = unref(startSearchWorker());
    if (worker === undefined) return undefined;
    worker.onmessage = (event: MessageEvent<IndexReply>) => this.#take(event.data.indexed);
    const stop = (event: Event) => {
      event.preventDefault(); // (Deno would otherwise end the process)
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
    for (const file of indexed) {
      this.#queued.delete(file.key);
      if (stale.size > 0 && (stale.has(file.key) || underAny(file.key, stale))) continue;
      if (file.filter !== undefined) {
        if (this.#bytes + file.filter.length > this.#maxBytes) continue;
        this.#setFilter(file.key, file.filter);
      } else if (file.binary) this.#setFilter(file.key, BINARY);
      else this.#unindexable.add(file.key);
    }
    this.#next();
  }
}

/** What the index holds per file: a trigram filter, or the mark of a binary file. */
type Filter = Uint8Array | typeof BINARY | undefined;

/** A required literal as the index tests it. */
interface Literal {
  literal: string;
  trigrams: Uint32Array;
  /** Files a search read and found without it. */
  absent?: Set<string>;
}

/** What {@linkcode SearchIndex.knownFiles} answers. */
export interface KnownFiles {
  /** The walk it was made for. */
  files: WalkNode[];
  /** Per file, what is known without reading it (undefined: it must be read). */
  known: (Examined | undefined)[];
  /** The positions of the files to read. */
  toRead: number[];
  /** The literal the fewest files may contain. */
  rarest: string | undefined;
  /** The index's versions it was made for. */
  version: number;
  absentVersion: number;
}

/**
 * What is known of one file: binary, certainly without a literal, or nothing.
 *
 * @param passed when given, counts per literal the files it does not rule out (every
 *   literal is then tested)
 */
function judge(
  filter: Filter,
  key: string,
  literals: Literal[],
  passed?: number[],
): Examined | undefined {
  if (filter === BINARY) return KNOWN_BINARY;
  let none = false;
  for (let i = 0; i < literals.length && (passed !== undefined || !none); i++) {
    const { trigrams, absent } = literals[i];
    if (absent?.has(key) || (filter !== undefined && !mayContain(filter, trigrams))) none = true;
    else if (passed !== undefined) passed[i]++;
  }
  return none ? KNOWN_NONE : undefined;
}

/**
 * What makes two searches identical, for {@linkcode SearchIndex.result}: the matcher's key,
 * the real start, and every option that changes the result; undefined when the matcher has
 * no key.
 *
 * @param start the real path of the start
 * @param query the search
 * @returns the key, or undefined
 */
export function resultKey(start: string, query: SearchQuery): string | undefined {
  const { matcher, glob, includeIgnored, context, maxMatches } = query;
  if (matcher.key === undefined) return undefined;
  return JSON.stringify([matcher.key, start, glob, includeIgnored, context, maxMatches]);
}

/** Freezes an object and everything it holds. */
function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/** Lets the process end while the worker is alive (Bun; the index runs nowhere else). */
function unref(worker: Worker | undefined): Worker | undefined {
  (worker as { unref?: () => void } | undefined)?.unref?.();
  return worker;
}

/**
 * The matcher's required literals that the index can use, with their trigrams: those made of
 * whole characters (no U+FFFD, which stands for bytes that are not UTF-8) and of three bytes
 * or more, the longest first.
 */
function literalsOf(matcher: Matcher): { literal: string; trigrams: Uint32Array }[] {
  const literals = matcher.requiredLiterals ??
    (matcher.requiredLiteral === undefined ? [] : [matcher.requiredLiteral]);
  return literals
    .filter((literal) => !literal.includes("\uFFFD"))
    .map((literal) => ({ literal, trigrams: needleTrigrams(new Uint8Array(Buffer.from(literal))) }))
    .filter(({ trigrams }) => trigrams.length > 0)
    .sort((a, b) => b.literal.length - a.literal.length);
}

/** Whether a directory in `dirs` holds `key` (at any depth). */
function underAny(key: string, dirs: Set<string>): boolean {
  for (let at = key.lastIndexOf(sep); at > 0; at = key.lastIndexOf(sep, at - 1)) {
    if (dirs.has(key.slice(0, at))) return true;
  }
  return false;
}
