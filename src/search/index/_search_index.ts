/**
 * What a directory store keeps between searches while a {@linkcode TreeWatcher} vouches that
 * nothing changed: the files of recent walks, a trigram filter per file (`_file_filters.ts`),
 * the files searches read and found without a literal, and whole results. A later search
 * skips the walk when it is kept, skips reading every file that certainly lacks a required
 * literal, and an identical search reads nothing. Whatever the watcher reports changed is
 * forgotten at the start of the next search, before anything is used.
 *
 * The watcher is started after the first search has answered (setting its watches on a
 * large tree takes a while): that search and any that began before the watcher
 * was running only teach the index which files to index (and which walk to make again);
 * they neither use nor keep anything.
 *
 * Memory is bounded: filters take at most `maxBytes` (files beyond it are simply read), and
 * the other tables keep only their most recent entries ({@linkcode MAX_WALKS},
 * {@linkcode MAX_LITERALS}, {@linkcode MAX_RESULTS} results of up to
 * {@linkcode MAX_RESULT_LINES} lines).
 *
 * @module
 */
import * as fs from "node:fs";
import type { Matcher } from "../../core/mod.ts";
import type { SearchQuery, SearchResult, SkippedEntries } from "../../store/file_store.ts";
import { freezeResult } from "../../store/frozen_result.ts";
import type { FileSystem } from "../../io/file_system.ts";
import { FileReader } from "../../io/_file_reader.ts";
import { BINARY, FileFilters, type Filter, underAnyOf } from "./_file_filters.ts";
import { type Examined, prefilterOf, WHOLE_FILE_BYTES } from "../_search_file.ts";
import { defaultSearchThreads, WarmWorkers, type WorkerLease } from "../_search_pool.ts";
import { TreeWatcher } from "./_tree_watcher.ts";
import {
  type CreatedEntry,
  entryNow,
  type KeptWalk,
  someFileOf,
  walkChanged,
  type WalkDirs,
} from "./_kept_walks.ts";
import { patchWalk } from "./_walk_patch.ts";
import {
  type FoldedTrigrams,
  foldedTrigrams,
  mayContain,
  mayContainFolded,
  mayHold,
  needleTrigrams,
} from "./_trigram_filter.ts";
import { plannedNeedles, type PlanShape, type ReadPlan, readPlan } from "./_block_filters.ts";
import {
  type WalkFilesOptions,
  type WalkNode,
  walkRulesOf,
  type WalkSource,
} from "../../store/walk.ts";
import { IDENTITY_WORDS } from "../../io/file_identity.ts";
import { type CachedWalk, loadIndex, saveIndex } from "./_index_cache.ts";
import {
  type CheckJob,
  type CheckReply,
  filesHeld,
  IdentityCheck,
  walkHolds,
  walkIdentities,
} from "./_cache_checks.ts";
import { RACY_MS } from "./_block_filters.ts";
import { notice, reportWorkerFailure, workerFailureReason } from "../../io/runtime.ts";

/** Walks kept (one per start, glob and `includeIgnored` searched recently). */
export const MAX_WALKS = 8;
/** Literals (or sets of alternatives) whose absence from files read is kept (the most recent). */
export const MAX_LITERALS = 16;
/** Results kept for identical searches. */
export const MAX_RESULTS = 16;
/** The most matching lines a kept result may hold. */
export const MAX_RESULT_LINES = 20_000;
/** How long after the index last changed it is saved. */
export const SAVE_AFTER_MS = 1000;
/** The least time between two saves (each writes the whole file). */
const SAVE_EVERY_MS = 5_000;
const KNOWN_BINARY: Examined = { kind: "binary" };
const KNOWN_NONE: Examined = { kind: "none" };

/**
 * How many files' checks one directory's costs, about (it is opened, then identified; a
 * file is identified in a directory already open): 31 against 10 µs on the bench tree.
 */
const DIRECTORY_CHECK_FILES = 3;

/** Sizes of what a {@linkcode SearchIndex} holds. */
export interface SearchIndexStats {
  /** Files with a filter or known to be binary. */
  files: number;
  /** Large files with block filters too. */
  blocked: number;
  /** Bytes of filters. */
  bytes: number;
  /** Walks kept. */
  walks: number;
  /** Files waiting to be indexed. */
  queued: number;
  /** Files being indexed on the worker. */
  indexing: number;
  /** Whether what the index kept on disk is still being checked (searches wait for it). */
  loading: boolean;
}

/** What {@linkcode SearchIndex.refresh} found. */
export type IndexState =
  /** The watcher is running and every change so far is accounted for: use the index. */
  | "trusted"
  /** The watcher is not running yet: only {@linkcode SearchIndex.learn} may be used. */
  | "learning"
  /** The watcher failed: the index is closed and must be dropped. */
  | "closed";

/** Files judged in one stretch before those to read among them are handed on. */
const JUDGED_AT_ONCE = 2048;

/** Where {@linkcode SearchIndex.knownFiles} hands the files to read, as it finds them. */
export interface FilesToRead {
  /** The literal to look for in their bytes: told once, before the first file. */
  rarest(literal: string | undefined): void;
  /** A file to read: its place in the walk, and what to read of it (a large file's plan). */
  read(i: number, plan: ReadPlan | undefined): void;
}

/** What {@linkcode SearchIndex.knownFiles} answers. */
export interface KnownFiles {
  /** The walk it was made for. */
  files: WalkNode[];
  /** Per file, what is known without reading it (undefined: it must be read). */
  known: (Examined | undefined)[];
  /** The positions of the files to read. */
  toRead: number[];
  /** By position, what to read of a large file that has block filters. */
  plans: Map<number, ReadPlan>;
  /** The literal the fewest files may contain. */
  rarest: string | undefined;
  /** The index's versions it was made for. */
  version: number;
  absentVersion: number;
}

/** A walk to make again once the watcher runs. */
export interface WalkToMake {
  /** The walk's key. */
  key: string;
  /**
   * Makes the walk: its runs of files, and the counts of what it leaves out and the
   * directories it lists as they go.
   */
  files: () => { runs: AsyncIterable<WalkNode[]>; skipped: SkippedEntries; dirs: WalkDirs };
}

/** A search's result kept, and the kept walk it went through (see `SearchIndex.rememberResult`). */
interface KeptResult {
  /** {@linkcode SearchIndex.changes} when it was last known to hold. */
  changes: number;
  result: SearchResult;
  walk: { key: string; kept: KeptWalk } | undefined;
}

/** Where the index is kept on disk between processes (see `_index_cache.ts`). */
export interface IndexCacheFile {
  /** The cache file. */
  file: string;
  /** What decides the walks (the roots and the deny rules): a file of another is ignored. */
  scope: string;
  /**
   * Whether walks may be saved: not under deny rules, which leave out of a listing another
   * name of a denied file (what decides that lies outside the directory).
   */
  walks: boolean;
}

/** Walks, filters, absences and results kept between searches, dropped as things change. */
export class SearchIndex {
  /**
   * The reader of the searches that use this index: its buffer stays grown (up to
   * `WHOLE_FILE_BYTES`) instead of growing again in every search. It is only ever used
   * between two awaits, so concurrent searches can share it.
   */
  readonly reader: FileReader;
  /** The workers lent to searches, kept warm between them. */
  readonly #workers: WarmWorkers;
  readonly #roots: readonly string[];
  readonly #watchDir: string | undefined;
  readonly #filters: FileFilters;
  #watcher: TreeWatcher | undefined;
  #starting = false;
  #closed = false;
  readonly #walks = new Map<string, KeptWalk>();
  readonly #walksToMake = new Map<string, WalkToMake["files"]>();
  /**
   * Per literal (or set of alternative literals), files a search read and found without it
   * (those its filter let through).
   */
  readonly #absent = new Map<string, Set<string>>();
  /** Results of complete searches, by {@linkcode resultKey}, with the walk each went through. */
  readonly #results = new Map<string, KeptResult>();
  /** Answers of {@linkcode knownFiles}. */
  readonly #known = new Map<string, KnownFiles>();
  /** Each kept walk's filters, in its order, as of a filters version. */
  readonly #aligned = new WeakMap<
    WalkNode[],
    { version: number; filters: (Filter | undefined)[] }
  >();
  readonly #files: FileSystem;
  /** Where walks are patched (none: a walk a change touched is always made again). */
  readonly #walkSource: WalkSource | undefined;
  readonly #denied: ((path: string) => boolean) | undefined;
  readonly #cache: IndexCacheFile | undefined;
  /** The start from the cache on disk, while it runs: searches wait for it. */
  #warming: Promise<void> | undefined;
  /** Whether files were taken from the cache on disk. */
  #tookFromDisk = false;
  /** Settles {@linkcode ready}. */
  #settleReady!: (ready: boolean) => void;
  readonly #ready = new Promise<boolean>((resolve) => this.#settleReady = resolve);
  #savedMark = "";
  #savedAt = 0;
  #saveFailed = false;
  #saveTimer: ReturnType<typeof setTimeout> | undefined;
  #changes = 0; // refreshes that forgot something
  #walkEpoch = 0; // changes heard that may change walks
  #absentVersion = 0; // grows when searches find literals absent from more files

  /**
   * An index of the roots; it starts watching them after the first {@linkcode learn}.
   *
   * @param files the roots' file system (its roots are watched)
   * @param maxBytes the most bytes filters may take
   * @param watchDir the watcher's private directory (see `TreeWatcher.start`)
   * @param helpers the workers that read beside a search's own thread
   * @param cache where the index is kept between processes: when the file holds one, the
   *   watcher starts at once and what still holds of it is taken before the first search
   * @param walkSource where the store walks: a kept walk that lacks only entries created where
   *   it listed is patched by listing those directories again there
   * @param denied whether a path is denied, under deny rules: a change of a denied name may
   *   make another name of its file denied, or no longer (a walk decides that by identity), so
   *   every kept walk goes
   */
  constructor(
    files: FileSystem,
    maxBytes: number,
    watchDir?: string,
    helpers: number = defaultSearchThreads() - 1,
    cache?: IndexCacheFile,
    walkSource?: WalkSource,
    denied?: (path: string) => boolean,
  ) {
    this.#walkSource = walkSource;
    this.#denied = denied;
    this.#roots = files.roots;
    this.#files = files;
    this.#cache = cache;
    this.#watchDir = watchDir;
    this.reader = new FileReader(files, WHOLE_FILE_BYTES);
    this.#filters = new FileFilters(files, maxBytes, () => void this.#makeWalks());
    // The workers load now, beside the session's start, rather than during its first grep.
    this.#workers = new WarmWorkers(helpers);
    this.#workers.borrow()?.release(false);
    if (cache !== undefined) {
      this.#warming = new Promise<void>((resolve) =>
        setTimeout(() => {
          // (It says what failed, and never rejects.)
          void this.#startFromCache(cache).then(() => {
            this.#warming = undefined;
            resolve();
          });
        }, 0)
      );
    }
  }

  /** What it holds now. */
  get stats(): SearchIndexStats {
    return {
      ...this.#filters.stats,
      walks: this.#walks.size,
      loading: this.#warming !== undefined,
    };
  }

  /**
   * Waits until the index first holds what a search uses: what it took from the cache on
   * disk, or else what it learned from the first search, once that is indexed.
   *
   * @returns true then, false when it was closed before
   */
  ready(): Promise<boolean> {
    return this.#ready;
  }

  /** A mark of the changes forgotten so far (it grows with every refresh that forgot one). */
  get changes(): number {
    return this.#changes;
  }

  /** A mark of the changes heard so far that may change walks, for {@linkcode rememberWalk}. */
  get walkEpoch(): number {
    return this.#walkEpoch;
  }

  /**
   * Waits for the watcher to report every change made so far and forgets what they touch.
   *
   * @returns whether the index may be used now
   */
  async refresh(): Promise<IndexState> {
    if (this.#warming !== undefined) await this.#warming;
    if (this.#closed) return "closed";
    if (this.#watcher === undefined) return "learning";
    const heardBy = Date.now(); // (every change made before it is in what the sync hands over)
    const changes = await this.#watcher.sync();
    if (changes.lost || !this.#watcher.healthy) {
      this.close();
      return "closed";
    }
    // (A walk that lacks only entries created where it listed is patched, below.)
    const patches: Array<{ key: string; walk: KeptWalk; created: CreatedEntry[] }> = [];
    if (changes.paths.size > 0) {
      for (const other of this.#filters.otherNames(changes.paths)) changes.paths.add(other);
      // (A walk also goes when one of its symlinks leads elsewhere: a change where it did not
      // look may be on the way. Each path is looked at, and each symlink resolved, once: the
      // kept walks share them.)
      const check = new IdentityCheck(this.#files);
      const now = remembered((path) => entryNow(this.#files, path));
      const leadOf = remembered((link) => check.leads(link));
      // (A name made, removed or renamed: a write changes no file's names.)
      const identities = this.#denied !== undefined && [...changes.moved].some(this.#denied);
      for (const [key, walk] of this.#walks) {
        const changed = changes.rules || identities ||
          !walk.dirs.links.every((link, i) => leadOf(link) === walk.dirs.leads[i]) ||
          walkChanged(walk, changes, now);
        if (changed === false) continue;
        this.#walks.delete(key);
        if (changed !== true && this.#walkSource !== undefined) {
          patches.push({ key, walk, created: changed });
        }
      }
      check.close();
      this.#changes++;
      this.#forgetResults(changes.paths);
      const maybeDirs = this.#filters.forget(changes.paths, now);
      // (A walk under way is not kept after an entry came or went, or a directory changed its
      // mode: it may have listed before. Inside .git, none that may be kept lists: what git
      // writes there, often, lets them be kept.)
      const outside = (path: string) => !inGit(path);
      if (changes.rules || [...changes.moved, ...maybeDirs].some(outside)) this.#walkEpoch++;
      const underMaybeDirs = underAnyOf(maybeDirs);
      for (const keys of this.#absent.values()) {
        for (const key of keys) {
          if (changes.paths.has(key) || underMaybeDirs(key)) keys.delete(key);
        }
      }
    }
    // Every walk still kept holds as of the sync: a directory it listed that changed before
    // then (an editor's save through a temporary file) was heard, and left it as it was. A
    // save checks the directories against this moment, and would take such a walk for stale.
    for (const walk of this.#walks.values()) walk.heardAt = heardBy;
    if (patches.length > 0) await this.#patch(patches, heardBy);
    return "trusted";
  }

  /**
   * Keeps again, patched, the walks that lacked only entries created where they listed (see
   * `_walk_patch.ts`): each once its patch is made, if no change that may change walks was
   * heard meanwhile (a walk kept since then holds no more than it does).
   */
  async #patch(
    patches: Array<{ key: string; walk: KeptWalk; created: CreatedEntry[] }>,
    heardBy: number,
  ): Promise<void> {
    const epoch = this.#walkEpoch;
    for (const { key, walk, created } of patches) {
      const rules = JSON.parse(key)[1] as WalkFilesOptions;
      const patched = await patchWalk(this.#walkSource!, rules, walk, created, heardBy);
      if (patched === undefined || this.#closed) continue;
      if (epoch !== this.#walkEpoch) continue;
      keepRecent(this.#walks, key, patched, MAX_WALKS);
      this.#saveSoon();
    }
  }

  /**
   * The files of a walk, kept until a change heard may change them (see `walkChanged`).
   *
   * @param key the walk's start, glob and options
   * @returns the files, or undefined
   */
  walk(key: string): KeptWalk | undefined {
    return this.#walks.get(key);
  }

  /**
   * Keeps the files of a complete walk, unless an entry was created, deleted or renamed (outside
   * `.git`), or an ignore file changed, since it began; never one that starts inside `.git`.
   *
   * @param key the walk's start, glob and options
   * @param walk its files in order, and what it left out
   * @param since {@linkcode walkEpoch} when the walk began
   */
  rememberWalk(key: string, walk: KeptWalk, since: number): void {
    if (this.#closed || since !== this.#walkEpoch || this.#watcher === undefined) return;
    if (walk.dirs.linkedIgnoreFile || inGit(walk.dirs.listed[0] ?? "")) return;
    keepRecent(this.#walks, key, walk, MAX_WALKS);
    this.#saveSoon();
  }

  /**
   * A test of what is known of a file without reading it, for a search with `matcher`:
   * binary, or certainly without one of the literals every match contains (by its filter,
   * or because a search read it and found the literal, or every alternative, absent).
   *
   * @param matcher the search's matcher
   * @returns per real path, the outcome, or undefined when the file must be read
   */
  knowing(matcher: Matcher): (key: string) => Examined | undefined {
    const literals = this.#literals(matcher);
    const alternatives = alternativesOf(matcher);
    const folded = foldedOf(matcher);
    const without = this.#absentAny(matcher);
    return (key) => judge(this.#filters.get(key), key, literals, alternatives, folded, without);
  }

  /**
   * {@linkcode knowing} for every file of a kept walk, and the required literal that the
   * fewest of them may contain (the best one to look for in the bytes of the files that must
   * be read). The answer is kept, so an identical search asks nothing per file: it is made
   * again when a filter comes or goes, and brought up to date when searches find literals
   * absent.
   *
   * @param walkKey the walk's key
   * @param files the walk's files (from {@linkcode walk})
   * @param matcher the search's matcher
   * @param shape how the plans of large files are made (for a search with context lines,
   *   or one whose long rows are windows)
   * @param reading told of the rarest literal, then of each file to read as soon as it is
   *   known: while the files of a new pattern are judged, the ones found so far are read
   *   (when the rarest literal is known before: the pattern has one literal the index uses)
   * @returns per file, the outcome (undefined: it must be read), and the rarest literal
   */
  knownFiles(
    walkKey: string,
    files: WalkNode[],
    matcher: Matcher,
    shape: PlanShape = {},
    reading?: FilesToRead,
  ): KnownFiles {
    const { requiredLiteral, requiredLiterals, alternativeLiterals } = matcher;
    const key = JSON.stringify([
      walkKey,
      requiredLiteral,
      requiredLiterals,
      alternativeLiterals,
      matcher.foldedLiterals,
      shape.wide,
      shape.cut,
    ]);
    let answer = this.#known.get(key);
    if (answer?.files !== files || answer.version !== this.#filters.version) {
      answer = this.#judgeAll(files, matcher, shape, reading);
      keepRecent(this.#known, key, answer, MAX_WALKS);
      return answer;
    } else if (answer.absentVersion !== this.#absentVersion) {
      // Only files still to be read can be ruled out by the absences found since.
      // (A copy: a search still running may hold the old array.)
      const literals = this.#literals(matcher);
      const without = this.#absentAny(matcher);
      const known = answer.known = answer.known.slice();
      answer.toRead = answer.toRead.filter((i) =>
        (known[i] = judge(undefined, files[i].key, literals, undefined, undefined, without)) ===
          undefined
      );
      answer.absentVersion = this.#absentVersion;
    }
    reading?.rarest(answer.rarest);
    for (const i of answer.toRead) reading?.read(i, answer.plans.get(i));
    return answer;
  }

  /**
   * Keeps the files a search read and found without what it looked for in their bytes: its
   * required literal, or else every one of the matcher's alternative literals (for a
   * case-insensitive matcher, those its folded literals confirm); ignored when something
   * changed since the search started (a file may have changed after it was read).
   *
   * @param literal the required literal looked for, if any
   * @param matcher the search's matcher
   * @param keys the files read without it
   * @param since {@linkcode changes} when the search started
   */
  recordAbsent(
    literal: string | undefined,
    matcher: Matcher,
    keys: readonly string[],
    since: number,
  ): void {
    if (this.#closed || since !== this.#changes || keys.length === 0) return;
    const absence = literal !== undefined ? literalKey(literal) : anyKey(matcher);
    if (absence === undefined) return; // (nothing was looked for: no file was found without it)
    const known = this.#absent.get(absence) ?? new Set();
    const before = known.size;
    for (const key of keys) known.add(key);
    if (known.size !== before) this.#absentVersion++;
    keepRecent(this.#absent, absence, known, MAX_LITERALS);
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
   * @param walk the kept walk it went through, by its key: the result outlives changes that
   *   leave that walk kept and touch none of its files
   */
  rememberResult(
    key: string,
    result: SearchResult,
    since: number,
    walk?: { key: string; kept: KeptWalk },
  ): void {
    if (this.#closed || since !== this.#changes || result.stopped === "time") return;
    if (result.matchedLines > MAX_RESULT_LINES) return;
    const kept = { changes: since, result: freezeResult(result), walk };
    keepRecent(this.#results, key, kept, MAX_RESULTS);
  }

  /**
   * After changes (the walks they touch dropped already), forgets each kept result but those
   * that went through a walk still kept none of whose files changed (a symlinked file is
   * there by the real path of its target).
   */
  #forgetResults(paths: ReadonlySet<string>): void {
    for (const [key, kept] of this.#results) {
      const walk = kept.walk;
      const holds = walk !== undefined && this.#walks.get(walk.key) === walk.kept &&
        !someFileOf(walk.kept.files, paths);
      if (holds) kept.changes = this.#changes;
      else this.#results.delete(key);
    }
  }

  /**
   * Queues files for indexing on a worker thread (those not indexed yet); the first call
   * starts the watcher, once the current task (the search answering) is over.
   *
   * @param keys real paths
   * @param walk a walk made before the watcher was running, to make again (in the background,
   *   once the files are indexed) so that the next such search needs none
   */
  learn(keys: Iterable<string>, walk?: WalkToMake): void {
    if (this.#closed) return;
    if (walk !== undefined && !this.#walks.has(walk.key)) {
      this.#walksToMake.set(walk.key, walk.files);
    }
    this.#filters.learn(keys);
    if (this.#watcher === undefined && !this.#starting) {
      this.#starting = true;
      setTimeout(() => void this.#startWatching(), 0);
    }
  }

  /**
   * Lends the warm search workers to one search, when they are not lent already.
   *
   * @returns the lease, or undefined
   */
  borrowWorkers(): WorkerLease | undefined {
    return this.#closed ? undefined : this.#workers.borrow();
  }

  /**
   * Marks a search under way: learning waits until none is (see `FileFilters.pause`).
   *
   * @returns the function that marks its end
   */
  searching(): () => void {
    this.#filters.pause();
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.#filters.resume();
    };
  }

  /** Stops watching and indexing, and forgets everything. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#saveTimer);
    this.#watcher?.close();
    this.#filters.close();
    this.#workers.close();
    for (const table of [this.#walks, this.#walksToMake, this.#absent, this.#known]) table.clear();
    this.#results.clear();
    this.#settleReady(false);
  }

  /**
   * Starts the watcher, then learning: what is learned from then on is heard of when it
   * changes. Until the watcher runs (its watches are set on a thread of its own, which takes
   * a while on a large tree), searches go on without the index.
   *
   * @returns whether it runs
   */
  async #startWatching(): Promise<boolean> {
    if (this.#closed) return false;
    const watcher = await TreeWatcher.start(this.#roots, undefined, this.#watchDir);
    if (this.#closed) watcher?.close();
    else if (watcher === undefined) this.close();
    else {
      this.#watcher = watcher;
      this.#filters.start();
      return true;
    }
    return false;
  }

  /**
   * Indexing done: makes the walks asked for (the watcher is running, so each is good until
   * it reports a change that may change it), and lines the filters up with every kept walk, all
   * before the next search needs them.
   */
  async #makeWalks(): Promise<void> {
    for (const [key, walk] of this.#walksToMake) {
      this.#walksToMake.delete(key);
      const since = this.#walkEpoch;
      const madeAt = Date.now();
      const files: WalkNode[] = [];
      const made = walk();
      try {
        // (Not spread: a run, one directory's files, may be more than a call takes arguments.)
        for await (const run of made.runs) for (const file of run) files.push(file);
      } catch {
        continue; // (the next search walks itself, and says what went wrong)
      }
      this.rememberWalk(key, { files, skipped: made.skipped, dirs: made.dirs, madeAt }, since);
    }
    for (const kept of this.#walks.values()) this.#alignedFilters(kept.files);
    this.#saveSoon();
    this.#settleReady(!this.#closed);
  }

  /**
   * Takes what still holds of the index kept on disk: the watcher is started first, so that
   * a change after a check is heard; then each file's filter is taken if the file is exactly
   * what was indexed, and each walk if every directory it listed and `.gitignore` it read
   * is what it was.
   */
  async #startFromCache(cache: IndexCacheFile): Promise<void> {
    try {
      await this.#takeFromCache(cache);
    } catch (error) {
      // (What a check could not take is read and learned anew; nothing else depends on it.)
      cacheFailed("the search index's cache file could not be used", error);
    }
    this.#savedMark = this.#saveMark();
    if (this.#tookFromDisk) this.#settleReady(!this.#closed);
  }

  async #takeFromCache(cache: IndexCacheFile): Promise<void> {
    if (!fs.existsSync(cache.file)) return; // (a tree never seen: it watches after a search)
    // The watcher sets its watches on its own thread while this one reads the file.
    this.#starting = true;
    const watching = this.#startWatching();
    const loaded = loadIndex(cache.file, cache.scope);
    if (!(await watching) || loaded === undefined || this.#closed) return;
    const { keys, identities, filters, blocks } = loaded;
    const holding: CachedWalk[] = [];
    let checkedAt = 0;
    const checkWalks = () => {
      checkedAt = Date.now();
      const check = new IdentityCheck(this.#files);
      try {
        for (const walk of loaded.walks) if (walkHolds(check, walk)) holding.push(walk);
      } finally {
        check.close();
      }
    };
    const directories = loaded.walks.reduce((sum, walk) => sum + walk.dirs.listed.length, 0);
    const held = await this.#filesHeld(keys, identities, checkWalks, directories);
    if (this.#closed) return;
    for (let i = 0; i < keys.length; i++) {
      if (held[i] !== 1) continue;
      const identity = identities.subarray(i * IDENTITY_WORDS, (i + 1) * IDENTITY_WORDS);
      this.#filters.adopt(keys[i], filters[i], identity, blocks.get(i));
      this.#tookFromDisk = true;
    }
    for (const { key, dirs, files, skipped, links, leads } of holding) {
      keepRecent(
        this.#walks,
        key,
        {
          files,
          skipped,
          dirs: {
            ...dirs,
            unreadable: 0,
            linkedIgnoreFile: false,
            links,
            leads,
            skipped: undefined,
          },
          madeAt: checkedAt,
        },
        MAX_WALKS,
      );
    }
    // (Lined up now, beside the session's start, rather than in its first search.)
    for (const kept of this.#walks.values()) this.#alignedFilters(kept.files);
  }

  /**
   * {@linkcode filesHeld} for the files of an index kept on disk, shared with the warm search
   * workers: each check is a system call, and a tree like the Linux source has 78,000 files.
   * This thread first does `first` (the checks of the walks' directories), and takes as many
   * fewer files as those checks cost. The watcher runs already: a change after a check is
   * heard. A share a worker failed to check is not trusted (its files are read and learned
   * anew).
   *
   * @param first what this thread does before its share of the files
   * @param directories how many directories `first` checks
   */
  async #filesHeld(
    keys: string[],
    identities: Uint32Array,
    first: () => void,
    directories: number,
  ): Promise<Uint8Array> {
    const lease = this.#workers.borrow();
    const workers = lease?.workers ?? [];
    const cost = DIRECTORY_CHECK_FILES * directories; // (of `first`, in files)
    const even = Math.ceil((keys.length + cost) / (workers.length + 1)) - cost;
    const ours = workers.length === 0 ? keys.length : Math.max(0, Math.min(keys.length, even));
    const share = Math.ceil((keys.length - ours) / Math.max(1, workers.length));
    const part = (n: number) => {
      const from = n === 0 ? 0 : ours + (n - 1) * share;
      const to = n === 0 ? ours : Math.min(keys.length, from + share);
      const words = identities.subarray(from * IDENTITY_WORDS, to * IDENTITY_WORDS);
      return { from, keys: keys.slice(from, to), identities: words };
    };
    const held = new Uint8Array(keys.length);
    let failed = false;
    const theirs = workers.map((worker, w) =>
      new Promise<void>((resolve) => {
        const { from, keys, identities } = part(w + 1);
        worker.onmessage = (event: MessageEvent<CheckReply>) => {
          held.set(event.data.held, from);
          resolve();
        };
        worker.onerror = worker.onmessageerror = (event: Event) => {
          event.preventDefault(); // (Deno would otherwise end the process)
          reportWorkerFailure("search", event);
          failed = true;
          resolve();
        };
        const check = { keys, identities: identities.slice(), files: this.#files.share() };
        worker.postMessage({ check } satisfies CheckJob);
      })
    );
    try {
      first();
      const own = part(0);
      held.set(filesHeld(this.#files, own.keys, own.identities));
    } finally {
      await Promise.all(theirs);
      lease?.release(failed);
    }
    return held;
  }

  /** What the cache on disk would hold, as a mark that changes when that does. */
  #saveMark(): string {
    return `${this.#filters.savedVersion} ${this.#walkEpoch} ${[...this.#walks.keys()]}`;
  }

  /**
   * Saves the index {@linkcode SAVE_AFTER_MS} from now (or `after`), and not sooner than
   * {@linkcode SAVE_EVERY_MS} after the last save, unless a save is due already.
   */
  #saveSoon(after = SAVE_AFTER_MS): void {
    if (this.#cache === undefined || this.#closed || this.#saveTimer !== undefined) return;
    const wait = Math.max(after, this.#savedAt + SAVE_EVERY_MS - Date.now());
    this.#saveTimer = setTimeout(() => {
      this.#save().catch((error) => {
        // (Once: a folder that cannot be written fails each save alike.)
        if (this.#saveFailed) return;
        this.#saveFailed = true;
        cacheFailed("the search index could not be saved", error);
      });
    }, wait);
    (this.#saveTimer as { unref?: () => void }).unref?.();
  }

  /**
   * Writes the index to the cache on disk, when it changed since it was last written: the
   * filters of files not changed within the racy window, and the walks that started at a
   * root, with what their directories are now. Between two waits for the watcher (so that
   * what changed before is forgotten, and a walk that changed meanwhile is left out).
   */
  async #save(): Promise<void> {
    this.#saveTimer = undefined;
    const cache = this.#cache;
    if (cache === undefined || this.#closed || this.#saveMark() === this.#savedMark) return;
    if (this.#filters.paused) return this.#saveSoon(); // (not beside a search)
    if (await this.refresh() !== "trusted") return;
    const epoch = this.#walkEpoch;
    const check = new IdentityCheck(this.#files);
    const walks: CachedWalk[] = [];
    let racy = false;
    try {
      for (const [key, walk] of this.#walks) {
        const unsure = walk.dirs.unreadable > 0;
        if (!cache.walks || unsure || !this.#roots.includes(JSON.parse(key)[0])) {
          continue;
        }
        const saved = { key, files: walk.files, skipped: walk.skipped, dirs: walk.dirs };
        const checks = walkIdentities(check, saved, walk.madeAt, walk.heardAt);
        if (checks === "stale") {
          // (Walked again when a search asks, and what was found through it is forgotten.)
          this.#walks.delete(key);
          this.#results.clear();
        } else if (checks === "racy") racy = true;
        else if (checks !== undefined) walks.push({ ...saved, ...checks });
      }
    } finally {
      check.close();
    }
    if (await this.refresh() !== "trusted") return;
    if (this.#walkEpoch !== epoch) return this.#saveSoon();
    const mark = this.#saveMark();
    let saved: boolean;
    try {
      saved = saveIndex(cache.file, cache.scope, this.#filters.saved(), walks);
    } finally {
      this.#savedAt = Date.now(); // (a save that failed waits its turn too, not a second)
    }
    // (A walk that changed just now is saved once it is old enough, if it still holds.)
    if (saved && !racy) this.#savedMark = mark;
    if (racy) this.#saveSoon(RACY_MS + 100);
  }

  /** The filters of a walk's files, in its order. */
  #alignedFilters(files: WalkNode[]): (Filter | undefined)[] {
    let aligned = this.#aligned.get(files);
    if (aligned === undefined || aligned.version !== this.#filters.version) {
      const filters = files.map((file) => this.#filters.get(file.key));
      aligned = { version: this.#filters.version, filters };
      this.#aligned.set(files, aligned);
    }
    return aligned.filters;
  }

  #judgeAll(
    files: WalkNode[],
    matcher: Matcher,
    shape: PlanShape,
    reading: FilesToRead | undefined,
  ): KnownFiles {
    const filters = this.#alignedFilters(files);
    const literals = this.#literals(matcher).map((literal) => ({
      ...literal,
      trigrams: rarestFirst(literal.trigrams, filters),
    }));
    const alternatives = alternativesOf(matcher);
    const folded = foldedOf(matcher);
    const without = this.#absentAny(matcher);
    const passed = literals.map(() => 0);
    const known: (Examined | undefined)[] = [];
    const toRead: number[] = [];
    const plans = new Map<number, ReadPlan>();
    // The rarest literal is known before the files are judged when there is one to choose;
    // then each stretch of files judged is read while the next is judged.
    const chosen = literals.length === 0 ||
      (literals.length === 1 && literals[0].literal === matcher.requiredLiteral);
    if (chosen) reading?.rarest(matcher.requiredLiteral);
    const stretch = chosen && reading !== undefined ? JUDGED_AT_ONCE : files.length;
    // (A file's key is read only when files are known to lack a literal: for a new one, the
    // loop reads the filters alone, not every file's node as well.)
    const keyed = without !== undefined || literals.some(({ absent }) => absent !== undefined);
    // (The common case, one literal and nothing else to test, judged by the filters alone.)
    const only = chosen && literals.length === 1 && !keyed && alternatives === undefined &&
        folded === undefined
      ? literals[0].trigrams
      : undefined;
    // (A large file's plan may rule it out: only those still to read are handed on.)
    const handOn = (indices: number[], literal: string | undefined) => {
      this.#plan(files, known, indices, literal, matcher, shape, plans);
      for (const i of indices) if (known[i] === undefined) reading?.read(i, plans.get(i));
    };
    for (let from = 0; from < files.length; from += stretch) {
      const to = Math.min(files.length, from + stretch);
      const first = toRead.length;
      if (only !== undefined) judgeByFilters(filters, from, to, only, known, toRead);
      else {
        for (let i = from; i < to; i++) {
          const key = keyed ? files[i].key : "";
          known.push(judge(filters[i], key, literals, alternatives, folded, without, passed));
          if (known[i] === undefined) toRead.push(i);
        }
      }
      if (!chosen) break; // (all judged: the plans wait for the rarest literal)
      handOn(toRead.slice(first), matcher.requiredLiteral);
    }
    let rarest = matcher.requiredLiteral;
    if (!chosen) {
      let fewest = Infinity;
      literals.forEach(({ literal }, i) => {
        if (passed[i] < fewest) [rarest, fewest] = [literal, passed[i]];
      });
      reading?.rarest(rarest);
      handOn(toRead, rarest);
    }
    return {
      files,
      known,
      toRead: toRead.filter((i) => known[i] === undefined), // (some ruled out by blocks)
      plans,
      rarest,
      version: this.#filters.version,
      absentVersion: this.#absentVersion,
    };
  }

  /**
   * What to read of each large file to read that has block filters, for the needles the
   * examination will look for (the rarest literal, or the alternatives); a file none of
   * whose blocks may hold them is known to be without a match.
   */
  #plan(
    files: WalkNode[],
    known: (Examined | undefined)[],
    toRead: number[],
    rarest: string | undefined,
    matcher: Matcher,
    shape: PlanShape,
    plans: Map<number, ReadPlan>,
  ): void {
    const { alternativeLiterals, foldedLiterals } = matcher;
    const prefilter = prefilterOf(rarest, alternativeLiterals, foldedLiterals);
    const needles = plannedNeedles(prefilter, foldedLiterals);
    if (needles === undefined) return;
    for (const i of toRead) {
      const blocks = this.#filters.blocks(files[i].key);
      const plan = blocks === undefined ? undefined : readPlan(blocks, needles, shape);
      if (plan === "none") known[i] = KNOWN_NONE;
      else if (plan !== undefined) plans.set(i, plan);
    }
  }

  /** The files known to lack every one of the matcher's alternative literals. */
  #absentAny(matcher: Matcher): Set<string> | undefined {
    const absence = anyKey(matcher);
    return absence === undefined ? undefined : this.#absent.get(absence);
  }

  /** The matcher's usable literals, with the files known to lack each. */
  #literals(matcher: Matcher): Literal[] {
    return literalsOf(matcher).map((literal) => ({
      ...literal,
      absent: this.#absent.get(literalKey(literal.literal)),
    }));
  }
}

/** A required literal as the index tests it. */
interface Literal {
  literal: string;
  trigrams: Uint32Array;
  /** Files a search read and found without it. */
  absent?: Set<string>;
}

/**
 * What is known of one file: binary, certainly without a required literal, without every
 * alternative literal, or without every folded literal (in lower case), or nothing.
 *
 * @param alternatives the trigrams of the matcher's alternative literals, when usable
 * @param folded per folded literal, its trigrams ({@linkcode foldedOf})
 * @param without the files a search read and found without any alternative literal
 * @param passed when given, counts per literal the files it does not rule out (every
 *   literal is then tested)
 */
function judge(
  filter: Filter | undefined,
  key: string,
  literals: Literal[],
  alternatives: Uint32Array[] | undefined,
  folded: FoldedTrigrams[] | undefined,
  without: Set<string> | undefined,
  passed?: number[],
): Examined | undefined {
  if (filter === BINARY) return KNOWN_BINARY;
  let none = without?.has(key) ?? false;
  for (let i = 0; i < literals.length && (passed !== undefined || !none); i++) {
    const { trigrams, absent } = literals[i];
    if (absent?.has(key) || (filter !== undefined && !mayContain(filter, trigrams))) none = true;
    else if (passed !== undefined) passed[i]++;
  }
  if (!none && filter !== undefined && alternatives !== undefined) {
    none = !alternatives.some((trigrams) => mayContain(filter, trigrams));
  }
  if (!none && filter !== undefined && folded !== undefined) {
    none = !folded.some((trigrams) => mayContainFolded(filter, trigrams));
  }
  return none ? KNOWN_NONE : undefined;
}

/**
 * {@linkcode judge} of files `from` to `to` for a search with one literal and nothing else to
 * test (no file known to lack it, no alternatives, no case ignored): a loop of its own, which
 * reads each file's filter and nothing else.
 *
 * @param trigrams the literal's
 * @param known where each file's outcome is pushed
 * @param toRead where a file that may hold the literal is pushed, by index
 */
function judgeByFilters(
  filters: readonly (Filter | undefined)[],
  from: number,
  to: number,
  trigrams: Uint32Array,
  known: (Examined | undefined)[],
  toRead: number[],
): void {
  for (let i = from; i < to; i++) {
    const filter = filters[i];
    const outcome = filter === BINARY
      ? KNOWN_BINARY
      : filter !== undefined && !mayContain(filter, trigrams)
      ? KNOWN_NONE
      : undefined;
    known.push(outcome);
    if (outcome === undefined) toRead.push(i);
  }
}

/** {@linkcode rarestFirst} samples the filter of one file in this many. */
const SAMPLED_EVERY = 61;

/**
 * A literal's trigrams, those the fewest files hold first (in a sample of the filters): a
 * file without the literal is then ruled out by its first test, where the literal's common
 * trigrams came first and each took a look into the filter (a cache miss in a large one).
 *
 * @param trigrams the literal's hashed trigrams ({@linkcode needleTrigrams})
 * @param filters the filters about to be judged
 * @returns the same trigrams, rarest first
 */
export function rarestFirst(
  trigrams: Uint32Array,
  filters: readonly (Filter | undefined)[],
): Uint32Array {
  if (trigrams.length < 2) return trigrams;
  const held = new Array<number>(trigrams.length).fill(0);
  for (let i = 0; i < filters.length; i += SAMPLED_EVERY) {
    const filter = filters[i];
    if (filter === undefined || filter === BINARY) continue;
    for (let t = 0; t < trigrams.length; t++) if (mayHold(filter, trigrams[t])) held[t]++;
  }
  const order = Array.from(trigrams.keys()).sort((a, b) => held[a] - held[b]);
  return Uint32Array.from(order, (t) => trigrams[t]);
}

/**
 * The trigrams of the matcher's alternative literals, when the index can use them all (a
 * shorter one than three bytes rules nothing out).
 */
function alternativesOf(matcher: Matcher): Uint32Array[] | undefined {
  const trigrams = matcher.alternativeLiterals?.map(trigramsOf);
  if (!trigrams?.length || !trigrams.every((one) => one !== undefined)) return undefined;
  return trigrams as Uint32Array[];
}

/**
 * The matcher's required literals that the index can use, with their trigrams, the longest
 * first.
 */
function literalsOf(matcher: Matcher): { literal: string; trigrams: Uint32Array }[] {
  const literals = matcher.requiredLiterals ??
    (matcher.requiredLiteral === undefined ? [] : [matcher.requiredLiteral]);
  return literals
    .flatMap((literal) => {
      const trigrams = trigramsOf(literal);
      return trigrams === undefined ? [] : [{ literal, trigrams }];
    })
    .sort((a, b) => b.literal.length - a.literal.length);
}

/**
 * Where the files found without a required literal are kept (a tag first: no literal's key is
 * another's alternatives').
 */
function literalKey(literal: string): string {
  return "=" + literal;
}

/**
 * Where the files found without every one of the matcher's alternative literals (as its
 * folded literals confirm them) are kept; undefined when it has none.
 */
function anyKey({ alternativeLiterals, foldedLiterals }: Matcher): string | undefined {
  if (!alternativeLiterals?.length) return undefined;
  return "|" + JSON.stringify([alternativeLiterals, foldedLiterals ?? null]);
}

/**
 * A literal's trigrams, when the index can use it: made of whole characters (no U+FFFD,
 * which stands for bytes that are not UTF-8) and of three bytes or more.
 */
function trigramsOf(literal: string): Uint32Array | undefined {
  if (literal.includes("\uFFFD")) return undefined;
  const trigrams = needleTrigrams(new TextEncoder().encode(literal));
  return trigrams.length > 0 ? trigrams : undefined;
}

/**
 * What makes two searches identical, for {@linkcode SearchIndex.result}: the matcher's key,
 * the start (its real path, and the path it is shown by: through a symlink to a directory, the
 * same files are shown under the symlink's name), and every option that changes the result;
 * undefined when the matcher has no key.
 *
 * @param start the start
 * @param query the search
 * @returns the key, or undefined
 */
export function resultKey(start: WalkNode, query: SearchQuery): string | undefined {
  const { matcher, context, maxMatches, maxChars, rowCut, maxMatchesPerFile, countOnly } = query;
  // (A search that hands its files over as it goes has none in its result to keep.)
  if (matcher.key === undefined || query.onFile !== undefined) return undefined;
  // (The cut too: a long line may be kept as the part of it shown with that cut.)
  return JSON.stringify([
    matcher.key,
    start.key,
    start.display,
    walkRulesOf(query),
    context,
    maxMatches,
    maxMatchesPerFile,
    countOnly,
    maxChars,
    rowCut,
  ]);
}

/** `answer`, asked once per key. */
function remembered<T>(answer: (key: string) => T): (key: string) => T {
  const answers = new Map<string, T>();
  return (key) => {
    if (!answers.has(key)) answers.set(key, answer(key));
    return answers.get(key)!;
  };
}

/** Whether a real path lies in a `.git` directory (or is one). */
function inGit(path: string): boolean {
  return path.endsWith("/.git") || path.includes("/.git/");
}

/** Sets a map entry as the most recent one, dropping the oldest beyond `max`. */
function keepRecent<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  if (map.size >= max) map.delete(map.keys().next().value!);
  map.set(key, value);
}

/**
 * For a case-insensitive matcher, the trigrams of its folded literals (one of which every
 * match contains, ASCII letters compared without case), for the filters (which hold each
 * trigram in lower case too) to test: the alternative literals spell only a short part of a literal, which
 * most files hold in some case. Undefined when a literal has no trigram the filters can
 * test (`foldedTrigrams`), or for a matcher without folded literals.
 */
function foldedOf(matcher: Matcher): FoldedTrigrams[] | undefined {
  const folded = matcher.foldedLiterals;
  if (folded === undefined || folded.length === 0) return undefined;
  const literals = [...new Set(folded)].map(foldedTrigrams);
  return literals.every((trigrams) => trigrams.all.length > 0) ? literals : undefined;
}

/** Says on stderr that the cache on disk failed (an internal failure, not the user's). */
function cacheFailed(what: string, error: unknown): void {
  notice(`${what} (${workerFailureReason(error)}); going on without it`);
}
