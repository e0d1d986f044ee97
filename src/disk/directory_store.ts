/**
 * The store over real files under one or more roots, through a {@linkcode Sandbox}. Uses
 * only `node:` built-ins, so it runs on Deno, Bun and Node; under Deno it needs nothing but
 * `--allow-read=ROOT --allow-write=ROOT`.
 *
 * @module
 */
import * as fs from "node:fs";
import process from "node:process";
import { nativePath, SEPARATOR } from "../io/native_path.ts";
import { describeKind, type FileStat } from "../io/file_stat.ts";
import type { DirHandle } from "../io/file_system.ts";
import { removeCreated, removeTempFilesInFlight, writeAtomically } from "../files/_atomic_write.ts";
import { checkRangeOptions } from "../store/_line_budget.ts";
import { LineIndexCache } from "../files/_line_index.ts";
import { LockTable } from "../store/_locks.ts";
import { isMissing, mapOsError } from "../files/_os_errors.ts";
import { searchDirectory } from "../search/_directory_search.ts";
import { defaultSearchThreads, WarmWorkers } from "../search/_search_pool.ts";
import { openForRead, readableFile, readAll } from "../files/_open_file.ts";
import { readLineRange } from "../files/_line_range.ts";
import { isInside, joinDisplay } from "../store/_paths.ts";
import { keepOffTopTier, NESTED_WORKERS_START_SLOWLY, WATCH_ORDER_KEPT } from "../io/runtime.ts";
import { checkQuery } from "../store/_search_collector.ts";
import {
  type IndexCacheFile,
  SearchIndex,
  type SearchIndexStats,
} from "../search/index/_search_index.ts";
import { cacheFileOf } from "../search/index/_index_cache.ts";
import { IndexRestarts } from "../search/index/_index_restarts.ts";
import { SearchThread } from "./_search_thread.ts";
import { excludeFileOf, globalExcludes, outerIgnoreFiles } from "./_outer_ignores.ts";
import { warmUpSearches } from "./_warm_up.ts";
import { sameBytes } from "../store/_text.ts";
import { identityText } from "../io/file_identity.ts";
import {
  BaseFileStore,
  type BaseFileStoreOptions,
  type DeleteCheck,
  directoryWhereSlashed,
  type EditableFile,
  type FileBytes,
  filePath,
  type PathStat,
  type StorePath,
  type WriteFileOptions,
} from "../store/base_store.ts";
import {
  DeniedPathError,
  FileBusyError,
  FileChangedError,
  FileExistsError,
  FileTooLargeError,
  MoveRefusedError,
  NotAFileError,
  NotFoundError,
  PathChangedError,
  PathOutsideRootError,
  ReadOnlyFileError,
  refuseMoveOver,
  StoreError,
} from "../store/errors.ts";
import type {
  EntryKind,
  LineRange,
  LineRangeOptions,
  SearchQuery,
  SearchResult,
  WalkOptions,
} from "../store/file_store.ts";
import { Sandbox, type SandboxOptions } from "./sandbox.ts";
import {
  compileGlob,
  type DirEntry,
  type IgnoreFileText,
  type IgnoreRank,
  type LinkLead,
  type OuterIgnoreFile,
  WALK_HOT_PATH,
  walkFileRuns,
  type WalkNode,
  type WalkSource,
} from "../store/walk.ts";

export type { SearchIndexStats };

/** Options of {@linkcode DirectoryStore}. */
export interface DirectoryStoreOptions extends BaseFileStoreOptions {
  /**
   * When a line-range read stops before the end of a file no larger than this, the rest is
   * counted so that the total is known; larger files leave the total out.
   * @default 8388608
   */
  countLinesUpTo?: number;
  /**
   * How many threads a search of many files reads and prefilters them with, its own
   * included, where the runtime has workers and shared memory (results are the same either
   * way; 1 reads on the search's own thread alone).
   * @default one per core the process may run on, at most 8
   */
  searchThreads?: number;
  /**
   * Searches of fewer files than this stay on one thread (starting a worker costs more
   * than it saves on a small tree).
   * @default 256
   */
  parallelSearchFrom?: number;
  /**
   * Keep the threads that read beside a search (see `searchThreads`) from one search to the
   * next, lent to one search at a time (another at the same time starts threads of its
   * own): they start with the store, and a later search finds their code compiled. A store
   * with a search index keeps its index's threads so anyway. Call
   * {@linkcode DirectoryStore.close} to stop them: under Deno the process does not end while
   * they run.
   * @default false
   */
  keepSearchWorkers?: boolean;
  /**
   * Walks also honour the `.gitignore` files above each root, up to the repository that
   * holds it, and that repository's `.git/info/exclude` (see `_outer_ignores.ts`), as ripgrep
   * started there does: for the command line, whose root is where it was started. A server's
   * roots are its world, and it leaves them.
   * @default false
   */
  outerIgnores?: boolean;
  /**
   * Walks also read these ignore files beside `.gitignore`, in every directory and (with
   * `outerIgnores`) in every directory above the root, as ripgrep reads its own: a rule of a
   * `.rgignore` decides before any of an `.ignore`, which decides before any of a `.gitignore`
   * or an exclude file, whatever their depths; these hold on into a repository inside the tree;
   * and a `!` rule of any ignore file takes back a hidden name too. For the command line
   * (`--no-ignore-dot` leaves `.ignore` out, as in ripgrep).
   * @default none: the walks of SPEC §3
   */
  ripgrepIgnores?: ReadonlyArray<".rgignore" | ".ignore">;
  /**
   * Walks also honour git's global excludes file (`core.excludesFile`, by default
   * `~/.config/git/ignore`: see `_outer_ignores.ts`), below every other ignore file, its rules
   * anchored at the root, as ripgrep's are where it runs (with `outerIgnores`). For the command
   * line (`--no-ignore-global` leaves it out).
   * @default false
   */
  globalExcludes?: boolean;
  /**
   * Keep what searches learn (the files of each walk, a trigram filter per file, the files
   * found without a literal, and whole results) while a file watcher vouches that nothing
   * changed, so that a new search reads only the files that may match and an identical one
   * reads nothing. Every change the watcher reports before a search starts is forgotten
   * first. Results are then frozen (they may be shared by identical searches). Only where
   * the runtime's watcher hands events over in the order it read them (Bun); other runtimes
   * search as if it were off. Call {@linkcode DirectoryStore.close} to stop it.
   * @default false
   */
  searchIndex?: boolean;
  /**
   * The most bytes the search index's filters may take (files beyond it are simply read).
   * @default 100663296
   */
  searchIndexBytes?: number;
  /**
   * A folder where the search index is kept between processes (one file per set of roots
   * and deny rules, mode 0600): a new store on the same roots loads it at once, and trusts a
   * file's filter, or a walk, only once the file, or every directory the walk listed, is
   * exactly what it was (see docs/search-index.md). `linewise serve` uses the user's cache
   * folder unless `--no-cache` is given.
   * @default none: nothing is loaded or saved
   */
  searchIndexCache?: string;
  /**
   * What the cache files must also have been written with (`linewise serve`: its version, so
   * that a release whose walks or filters differ ignores another's files).
   * @default none
   */
  searchIndexCacheTag?: string;
  /**
   * How long after the search index was given up (its watcher could no longer vouch for
   * what it heard) a search starts it again (milliseconds); the wait doubles each time one is
   * given up within 10 minutes of its start, up to 10 minutes.
   * @default 2000
   */
  searchIndexRestartMs?: number;
  /**
   * Run searches of compiled patterns (a matcher with a `recipe`) on a thread of their own,
   * where the runtime has workers, a few at a time in order of arrival, so that this thread
   * stays free for other calls (a server's). The search index then lives there, and
   * {@linkcode DirectoryStore.searchIndexStats} tells nothing. The thread starts with the
   * first such search, or with the store when `searchIndexCache` holds an index of its roots
   * (which it takes at once), or under Deno, which takes a second to start the workers the
   * thread starts (see `keepSearchWorkers`).
   * @default false
   */
  searchThread?: boolean;
  /**
   * The private directory of the search index's watcher (it must exist and be empty; it is
   * removed when the index stops).
   * @default a new one in the system's temporary folder
   */
  watchDir?: string;
  /**
   * How long an edit waits for another process's lock on the same file before it is
   * refused as busy (milliseconds).
   * @default 10000
   */
  lockWaitMs?: number;
}

/** The cache file of a sandbox's search index in a folder: one per roots and deny rules. */
function cacheOf(dir: string, sandbox: Sandbox, version: string | undefined): IndexCacheFile {
  const { deny, denyBases } = sandbox.share();
  const scope = JSON.stringify({ version, roots: sandbox.files.roots, deny, denyBases });
  return { file: cacheFileOf(dir, scope), scope, walks: deny.length === 0 };
}

/** A checked path of the directory store: `key` is the real path, `location` the link's own place. */
export interface DirectoryPath extends StorePath {
  /** The path as asked, lexically normalised under its real root (a symlink itself lies here). */
  location: string;
}

/** What a read saw of a file, to tell later whether it changed. */
interface FileVersion {
  dev: bigint;
  ino: bigint;
  size: number;
  mtimeNs: bigint;
  mode: number;
  uid: number;
  gid: number;
  bytes: Uint8Array;
}

/** A file open for reading, and its stat. */
interface OpenFile {
  fd: number;
  stat: FileStat;
}

/** Edits are serialised per real path across every store of the process. */
const PROCESS_LOCKS = new LockTable();

/** How much of a file the check before an edit's rename reads at a time. */
const CHECK_PIECE = 1 << 20;

/**
 * A FileStore over real files. Reads of line ranges and searches stream, so they work on
 * files of any size; whole-file reads and edits are capped (`maxEditBytes`). Directories,
 * FIFOs, sockets and devices are never opened as files (checked before opening, opened
 * non-blocking, and checked again on the open handle). Writes go to a temporary file in the
 * same directory, are fsynced and renamed into place, keeping the file mode; through an
 * in-root symlink they replace the target and keep the link.
 *
 * @example
 * ```ts
 * import { DirectoryStore } from "./directory_store.ts";
 * import * as fs from "node:fs/promises";
 * import * as os from "node:os";
 * import * as path from "node:path";
 * import assert from "node:assert/strict";
 * const root = await fs.mkdtemp(path.join(os.tmpdir(), "linewise-"));
 * try {
 *   const store = await DirectoryStore.create({ roots: [root] });
 *   await store.write("notes/a.txt", "one\ntwo\n");
 *   const range = await store.readLines("notes/a.txt", { start: 2, maxLines: 10, maxChars: 1000, cut: 2000 });
 *   assert.deepEqual(range.lines, ["two\n"]);
 * } finally {
 *   await fs.rm(root, { recursive: true });
 * }
 * ```
 */
export class DirectoryStore extends BaseFileStore {
  /** The roots and deny rules every path passes. */
  readonly sandbox: Sandbox;
  readonly #countLinesUpTo: number;
  readonly #lockWaitMs: number;
  /** The ignore files outside each root, by root, once read (`outerIgnores` only). */
  readonly #outerIgnores: Map<string, OuterIgnoreFile[]> | undefined;
  /** Whether walks honour git's global excludes file (`globalExcludes`). */
  readonly #globalExcludes: boolean;
  /** ripgrep's ignore files read beside `.gitignore`, with their ranks (`ripgrepIgnores`). */
  readonly #ripgrepIgnores: ReadonlyArray<{ name: string; rank: IgnoreRank }> | undefined;
  /** Whether the first root lies in another (a walk of that one reaches it). */
  readonly #firstRootNested: boolean;
  readonly #searchThreads: number;
  readonly #parallelSearchFrom: number;
  readonly #lineIndex = new LineIndexCache();
  /** The search index, started again when it is given up. */
  #searchIndex: IndexRestarts<SearchIndex> | undefined;
  /** The threads kept between searches without an index (`keepSearchWorkers`). */
  #searchWorkers: WarmWorkers | undefined;
  #searchThread: SearchThread | undefined;
  /** Directories written to, whose abandoned temporary files are gone. */
  readonly #tidied = new Set<string>();

  /**
   * Makes a store over the sandbox's roots.
   *
   * @param sandbox the roots and deny rules
   * @param options edit cap and line counting
   */
  constructor(sandbox: Sandbox, options: DirectoryStoreOptions = {}) {
    super(options);
    if (!(sandbox instanceof Sandbox)) throw new TypeError("sandbox must be a Sandbox");
    this.sandbox = sandbox;
    const [first, ...others] = sandbox.roots;
    this.#firstRootNested = others.some((root) => isInside(root, first, nativePath.sep));
    this.#countLinesUpTo = options.countLinesUpTo ?? 8 * 1024 * 1024;
    this.#lockWaitMs = options.lockWaitMs ?? 10_000;
    this.#outerIgnores = options.outerIgnores ? new Map() : undefined;
    this.#globalExcludes = options.globalExcludes ?? false;
    this.#ripgrepIgnores = options.ripgrepIgnores?.map((name) => ({
      name,
      rank: name === ".rgignore" ? 2 : 1,
    }));
    if (!Number.isInteger(this.#lockWaitMs) || this.#lockWaitMs < 0) {
      throw new TypeError(`lockWaitMs must be a non-negative integer, got ${this.#lockWaitMs}`);
    }
    this.#searchThreads = options.searchThreads ?? defaultSearchThreads();
    if (!Number.isInteger(this.#searchThreads) || this.#searchThreads < 1) {
      throw new TypeError(
        `searchThreads must be a positive integer, got ${this.#searchThreads}`,
      );
    }
    this.#parallelSearchFrom = options.parallelSearchFrom ?? 256;
    if (!Number.isInteger(this.#parallelSearchFrom) || this.#parallelSearchFrom < 1) {
      throw new TypeError(
        `parallelSearchFrom must be a positive integer, got ${this.#parallelSearchFrom}`,
      );
    }
    const indexBytes = options.searchIndexBytes ?? 96 * 1024 * 1024;
    if (!Number.isInteger(indexBytes) || indexBytes < 0) {
      throw new TypeError(`searchIndexBytes must be a non-negative integer, got ${indexBytes}`);
    }
    const restartMs = options.searchIndexRestartMs;
    if (restartMs !== undefined && !(restartMs >= 0)) {
      throw new TypeError(`searchIndexRestartMs must be a non-negative number, got ${restartMs}`);
    }
    const cache = options.searchIndexCache === undefined
      ? undefined
      : cacheOf(options.searchIndexCache, sandbox, options.searchIndexCacheTag);
    const indexed = options.searchIndex === true && WATCH_ORDER_KEPT;
    if (options.searchThread) {
      this.#searchThread = SearchThread.where(
        sandbox.share(),
        {
          searchIndex: options.searchIndex ?? false,
          searchIndexBytes: indexBytes,
          searchIndexCache: options.searchIndexCache,
          searchIndexCacheTag: options.searchIndexCacheTag,
          searchIndexRestartMs: options.searchIndexRestartMs,
          searchThreads: this.#searchThreads,
          parallelSearchFrom: this.#parallelSearchFrom,
        },
        undefined,
        // (An index saved on disk is taken at once, before the first search asks for it; and
        // where workers started by the thread take long to start, they start with the store.)
        (indexed && cache !== undefined && fs.existsSync(cache.file)) ||
          NESTED_WORKERS_START_SLOWLY,
      );
    }
    if (options.keepSearchWorkers && this.#searchThread === undefined) {
      this.#searchWorkers = new WarmWorkers(this.#searchThreads - 1);
      // (Started now, as an index starts its own: the first search finds them loaded.)
      if (!indexed) this.#searchWorkers.borrow()?.release(false);
    }
    if (indexed && this.#searchThread === undefined) {
      const denied = sandbox.deny.length > 0 ? (path: string) => sandbox.isDenied(path) : undefined;
      this.#searchIndex = new IndexRestarts(
        (watchDir) =>
          new SearchIndex(
            sandbox.files,
            indexBytes,
            watchDir,
            this.#searchThreads - 1,
            cache,
            this.walkSource,
            denied,
          ),
        { watchDir: options.watchDir, firstWaitMs: options.searchIndexRestartMs },
      );
    }
  }

  /** True when searches run on the search thread, taking turns there. */
  get searchesTakeTurns(): boolean {
    return this.#searchThread !== undefined;
  }

  /**
   * Builds the sandbox and the store in one step.
   *
   * @param options roots, deny globs, edit cap
   * @returns the store
   */
  static async create(options: SandboxOptions & DirectoryStoreOptions): Promise<DirectoryStore> {
    return new DirectoryStore(await Sandbox.create(options), options);
  }

  /**
   * Removes the temporary files of every write this process has under way, for a process
   * about to end by a signal: those writes will never finish, and their targets keep their
   * old content. (A process killed outright leaves its temporary files, hidden and named
   * with its id; a later write into the same directory removes them once a minute old.)
   *
   * @example
   * ```ts
   * import { DirectoryStore } from "./directory_store.ts";
   * import process from "node:process";
   *
   * process.once("SIGTERM", () => {
   *   DirectoryStore.removeTempFilesInFlight();
   *   process.exit(143);
   * });
   * ```
   */
  static removeTempFilesInFlight(): void {
    removeTempFilesInFlight();
  }

  /**
   * Resolves a path through the sandbox; the key is the real path. Another name of a denied
   * file is refused as the file itself is.
   */
  protected override async resolvePath(path: string, forWrite: boolean): Promise<DirectoryPath> {
    const resolved = await this.sandbox.resolve(path, { forWrite });
    if (resolved.exists && this.sandbox.deny.length > 0) {
      let stat;
      try {
        stat = lstatOrUndefined(this.sandbox.files, resolved.real);
      } catch (error) {
        throw mapOsError(error, path, "read");
      }
      if (stat !== undefined) await this.#refuseDenied(stat, path);
    }
    return {
      key: resolved.real,
      display: resolved.display,
      exists: resolved.exists,
      location: resolved.location,
    };
  }

  /** Kind, size and mtime of the real path (it holds no symlink: the sandbox resolved them). */
  protected override statPath(node: WalkNode): Promise<PathStat> {
    try {
      const stat = this.sandbox.files.lstat(node.key);
      if (stat.kind === "symlink") throw new PathChangedError(node.display);
      return Promise.resolve({
        kind: kindOf(stat),
        size: stat.kind === "file" ? stat.size : 0,
        mtimeMs: stat.mtimeMs,
        identity: identityText(stat),
      });
    } catch (error) {
      return Promise.reject(mapOsError(error, node.display, "read"));
    }
  }

  /** The node of a directory entry: native join for the key, `/` for the display path. */
  protected override childPath(dir: WalkNode, name: string): WalkNode {
    // The key is absolute and normalised and a name has no separator: plain concatenation
    // is what nativePath.join would give, without re-normalising the whole path.
    if (name === "" || name === "." || name === ".." || SEPARATOR.test(name)) {
      return { key: nativePath.join(dir.key, name), display: joinDisplay(dir.display, name) };
    }
    const key = dir.key.endsWith(nativePath.sep) ? dir.key + name : dir.key + nativePath.sep + name;
    return { key, display: joinDisplay(dir.display, name) };
  }

  /** The file a symlink leads to within the roots (an ignore file read through it). */
  protected override async linkedFile(node: WalkNode): Promise<WalkNode | undefined> {
    let stat;
    try {
      stat = this.sandbox.files.lstat(node.key);
    } catch {
      return undefined; // (not there: reading it says so)
    }
    if (stat.kind !== "symlink") return undefined;
    const target = await this.#linkTarget(node.key);
    return target === undefined ? undefined : { key: target, display: node.display };
  }

  /** The directories from the root holding the node down to its parent (for .gitignore files). */
  protected override ancestorsOf(node: WalkNode): WalkNode[] {
    const absolute = this.sandbox.absolute(node.display);
    const root = this.#rootOf(absolute);
    if (root === "" || root === absolute) return [];
    const result: WalkNode[] = [];
    for (let dir = nativePath.dirname(absolute);; dir = nativePath.dirname(dir)) {
      result.push({ key: dir, display: this.sandbox.display(dir) });
      if (dir === root || dir === nativePath.dirname(dir)) break;
    }
    return result.reverse();
  }

  /** A repository's top inside the roots, whose rules stand alone (`outerIgnores` only). */
  protected override repositoryAt(dir: WalkNode): { exclude: string | undefined } | undefined {
    if (this.#outerIgnores === undefined) return undefined;
    if (!fs.existsSync(nativePath.join(dir.key, ".git"))) return undefined;
    return { exclude: excludeFileOf(dir.key) };
  }

  /** The ignore files outside the root holding the node (`outerIgnores` only). */
  protected override outerIgnoreFilesOf(node: WalkNode): OuterIgnoreFile[] {
    if (this.#outerIgnores === undefined) return [];
    const root = this.#rootOf(this.sandbox.absolute(node.display));
    if (root === "") return [];
    let files = this.#outerIgnores.get(root);
    if (files === undefined) {
      files = outerIgnoreFiles(root, this.#ripgrepIgnores);
      const global = this.#globalExcludes ? globalExcludes(process.env) : undefined;
      if (global !== undefined) files.unshift({ text: global, everywhere: true });
      this.#outerIgnores.set(root, files);
    }
    return files;
  }

  /** ripgrep's ignore files, read beside `.gitignore` (`ripgrepIgnores` only). */
  protected override ripgrepIgnores(): WalkSource["ripgrepIgnores"] {
    return this.#ripgrepIgnores;
  }

  /**
   * The outermost root that holds an absolute path ("" for none): a root nested in another
   * still has that one's .gitignore files above it, as a walk of the outer one applies them.
   */
  #rootOf(absolute: string): string {
    return this.sandbox.roots
      .filter((r) => isInside(r, absolute, nativePath.sep))
      .reduce((a, b) => (a === "" || b.length < a.length ? b : a), "");
  }

  /**
   * An ignore file as the inherited read gives it, told as `linked` also when it has other
   * names (hard links): a write through one of those is heard as that name's change, not the
   * ignore file's, so a walk that read it is never kept by the search index (as one read
   * through a symlink).
   */
  protected override async readIgnoreFile(
    dir: WalkNode,
    name = ".gitignore",
  ): Promise<IgnoreFileText | undefined> {
    const read = await super.readIgnoreFile(dir, name);
    if (read === undefined || read.linked) return read;
    let names = 1;
    try {
      names = this.sandbox.files.lstat(this.childPath(dir, name).key).nlink;
    } catch (error) {
      // (Gone since it was read: what was read stands, as for a file read just before.)
      const code = (error as { code?: string }).code;
      if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
    }
    return names > 1 ? { ...read, linked: true } : read;
  }

  /** Reads a regular file whole; its version is device, inode, size, mtime and the bytes. */
  protected override async readFile(
    node: WalkNode,
    maxBytes: number | undefined,
  ): Promise<FileBytes> {
    const { handle, stat } = await openForRead(this.sandbox.files, node);
    try {
      await this.#refuseDenied(stat, node.display);
      if (maxBytes !== undefined && stat.size > maxBytes) {
        throw new FileTooLargeError(node.display, stat.size, maxBytes);
      }
      const bytes = await readAll(handle, stat.size, maxBytes, node.display);
      const { dev, ino, size, mtimeNs, mode, uid, gid } = stat;
      const version: FileVersion = { dev, ino, size, mtimeNs, mode, uid, gid, bytes };
      return { bytes, version };
    } finally {
      await handle.close();
    }
  }

  /** One directory, without denied entries and without symlinks leading outside, to denied paths, or nowhere. */
  protected override async listDirectory(
    dir: WalkNode,
    sizes: boolean,
    links?: LinkLead[],
  ): Promise<DirEntry[]> {
    const files = this.sandbox.files;
    let handle: DirHandle;
    let listed;
    try {
      handle = files.openDir(dir.key);
    } catch (error) {
      throw mapOsError(error, dir.display, "read");
    }
    try {
      listed = handle.list();
    } catch (error) {
      handle.close();
      throw mapOsError(error, dir.display, "read");
    }
    const entries: DirEntry[] = [];
    const checkDeny = this.sandbox.deny.length > 0;
    try {
      for (const { name, kind: listedKind } of listed) {
        // Plain files and directories without deny rules need no path (most of a big tree).
        if (!checkDeny && !sizes) {
          if (listedKind === "directory") {
            entries.push({ name, kind: "directory", size: 0, symlink: false });
            continue;
          }
          if (listedKind === "file") {
            entries.push({ name, kind: "file", size: 0, symlink: false });
            continue;
          }
        }
        const child = this.childPath(dir, name);
        if (
          checkDeny && (
            this.sandbox.isDenied(child.key) ||
            this.sandbox.isDenied(this.sandbox.absolute(child.display))
          )
        ) {
          continue;
        }
        const entry = await this.#entry(handle, name, listedKind, child, sizes, links);
        if (entry !== undefined) entries.push(entry);
      }
    } finally {
      handle.close();
    }
    return entries;
  }

  /** One listed entry as a walk sees it, or undefined when it is not to be shown. */
  async #entry(
    dir: DirHandle,
    name: string,
    listedKind: string | undefined,
    child: WalkNode,
    sizes: boolean,
    links: LinkLead[] | undefined,
  ): Promise<DirEntry | undefined> {
    // (A symlink is told of as left out until what it leads to is shown.)
    const link = { name, lead: "" };
    try {
      let stat: FileStat | undefined;
      let kind = listedKind;
      // (Deny rules need the link count: another name of a denied file is not shown.)
      const identities = this.sandbox.deny.length > 0;
      if (kind === undefined || ((sizes || identities) && kind === "file")) {
        stat = dir.lstat(name);
        kind = stat.kind;
      }
      if (kind === "symlink") {
        links?.push(link);
        const target = await this.#linkTarget(child.key);
        if (target === undefined) return undefined;
        const pointed = this.sandbox.files.lstat(target);
        if (await this.sandbox.deniedByIdentity(pointed)) return undefined;
        const targetKind = kindOf(pointed);
        link.lead = `${pointed.kind}:${target}`;
        return {
          name,
          kind: targetKind,
          size: targetKind === "file" ? pointed.size : 0,
          symlink: true,
          key: target,
        };
      }
      if (kind === "directory") return { name, kind: "directory", size: 0, symlink: false };
      if (stat !== undefined && (await this.sandbox.deniedByIdentity(stat))) return undefined;
      if (kind === "file") return { name, kind: "file", size: stat?.size ?? 0, symlink: false };
      return { name, kind: "other", size: 0, symlink: false };
    } catch (error) {
      // The entry went away (or changed) between the listing and the stat: it is not there.
      if (isMissing(error) || (error instanceof StoreError && error.code === "raced")) {
        return undefined;
      }
      throw mapOsError(error, child.display, "read");
    }
  }

  /**
   * Writes the file in its directory (made first where missing, and removed again when the
   * write fails): a temporary file, fsynced and renamed (or linked) into place, everything
   * relative to the directory's handle. Replacing a file takes its edit lock.
   */
  protected override async writeFile(
    node: StorePath,
    bytes: Uint8Array,
    options: WriteFileOptions,
  ): Promise<void> {
    const files = this.sandbox.files;
    const name = nativePath.basename(node.key);
    let opened;
    try {
      opened = files.openDirCreating(nativePath.dirname(node.key));
    } catch (error) {
      removeCreated(files, (error as { created?: string[] }).created ?? []);
      throw mapOsError(error, node.display, "write");
    }
    const { dir, created } = opened;
    let locked: OpenFile | undefined;
    try {
      if (options.overwrite) locked = await this.#openLocked(dir, name, node.display);
      const version = options.ifVersion as FileVersion | undefined;
      await this.#place(dir, name, node, bytes, {
        overwrite: options.overwrite,
        keep: locked?.stat,
        signal: options.signal,
        unchanged: version,
        executable: options.executable,
      });
    } catch (error) {
      removeCreated(files, created);
      throw error;
    } finally {
      if (locked) files.close(locked.fd);
      dir.close();
    }
  }

  /**
   * The file open for an edit, from its directory's handle, and locked against other
   * linewise processes from the read to the rename of the new content.
   */
  protected override async editFile<T>(
    node: StorePath,
    maxBytes: number,
    work: (file: EditableFile) => Promise<T>,
  ): Promise<T> {
    // (A root has no folder of its own to be opened from.)
    if (this.sandbox.roots.includes(node.key)) throw new NotAFileError(node.display, "a directory");
    const files = this.sandbox.files;
    const name = nativePath.basename(node.key);
    let dir: DirHandle;
    try {
      dir = files.openDir(nativePath.dirname(node.key));
    } catch (error) {
      throw mapOsError(error, node.display, "read");
    }
    try {
      const locked = await this.#openLocked(dir, name, node.display);
      if (locked === undefined) throw new NotFoundError(node.display);
      try {
        const { stat } = locked;
        await this.#refuseDenied(stat, node.display);
        if (stat.size > maxBytes) throw new FileTooLargeError(node.display, stat.size, maxBytes);
        const handle = readableFile(files, locked.fd, stat.size);
        const bytes = await readAll(handle, stat.size, maxBytes, node.display);
        const version: FileVersion = { ...stat, bytes };
        return await work({
          bytes,
          commit: (next, signal, executable) =>
            this.#place(dir, name, node, next, {
              overwrite: true,
              keep: stat,
              signal,
              unchanged: version,
              executable,
            }),
        });
      } finally {
        files.close(locked.fd); // (which releases the lock)
      }
    } finally {
      dir.close();
    }
  }

  /** Puts new content in place in an open directory, keeping a replaced file's mode and owner. */
  async #place(
    dir: DirHandle,
    name: string,
    node: StorePath,
    bytes: Uint8Array,
    options: {
      overwrite: boolean;
      keep: FileStat | undefined;
      signal: AbortSignal | undefined;
      /** The version the file must still be at, checked just before the rename. */
      unchanged: FileVersion | undefined;
      /** The execute bits to give it (see `WriteOptions.executable`). */
      executable?: boolean;
    },
  ): Promise<void> {
    const { keep, unchanged } = options;
    if (keep !== undefined && !writableIn(dir, name, node.display)) {
      throw new ReadOnlyFileError(node.display, keep.mode);
    }
    const tidy = !this.#tidied.has(dir.path);
    this.#tidied.add(dir.path);
    await writeAtomically(this.sandbox.files, dir, name, bytes, {
      display: node.display,
      mode: keep?.mode,
      executable: options.executable,
      owner: keep && { uid: keep.uid, gid: keep.gid },
      overwrite: options.overwrite,
      tidy,
      // (A denied file is left alone, whatever its name looks like.)
      untouchable: (temp) => this.sandbox.isDenied(nativePath.join(dir.path, temp)),
      signal: options.signal,
      beforeRename: unchanged && (() => this.#refuseChanged(dir, name, node.display, unchanged)),
      // (A file renamed into place after that check is caught by what the swap set aside.)
      replaced: unchanged && ((aside) => {
        if (aside === undefined || !sameState(lstatIn(dir, aside), unchanged)) {
          throw new FileChangedError(node.display);
        }
      }),
    });
  }

  /**
   * The resolved parent directory of a path's own place (its link, not what it points to),
   * with errors naming the path as the caller gave it rather than the parent's real path.
   */
  async #resolveParent(location: string, display: string) {
    try {
      return await this.sandbox.resolve(nativePath.dirname(location));
    } catch (error) {
      if (!(error instanceof StoreError)) throw error;
      if (error.code === "raced") throw new PathChangedError(display);
      if (error.code === "not_found") throw new NotFoundError(display);
      if (error instanceof PathOutsideRootError) throw new PathOutsideRootError(display);
      throw error;
    }
  }

  /**
   * Deletes a file, or a symlink itself; never a directory. A file's edit lock is taken
   * first, and held while `check` reads it; a symlink checked is checked by its target's
   * bytes, under the target's lock.
   */
  protected override async deletePath(node: StorePath, check?: DeleteCheck): Promise<void> {
    const { location, display } = node as DirectoryPath;
    // A root is a directory; resolving its parent below would name a place outside.
    if (this.sandbox.roots.includes(location)) throw new NotAFileError(display, "a directory");
    // Deleting a symlink deletes the link, as `rm` does, not the file it points to.
    const parent = await this.#resolveParent(location, display);
    const name = nativePath.basename(location);
    const files = this.sandbox.files;
    let dir: DirHandle | undefined;
    let target: DirHandle | undefined;
    let locked: OpenFile | undefined;
    try {
      dir = files.openDir(parent.real);
      const stat = dir.lstat(name);
      if (stat.kind !== "file" && stat.kind !== "symlink") {
        throw new NotAFileError(display, describeKind(stat.kind));
      }
      if (stat.kind === "file") locked = await this.#openLocked(dir, name, display);
      else if (check !== undefined) {
        target = files.openDir(nativePath.dirname(node.key));
        locked = await this.#openLocked(target, nativePath.basename(node.key), display);
      }
      if (check !== undefined) {
        if (locked === undefined) throw new NotFoundError(display);
        const { fd, stat: { size } } = locked;
        if (size > check.maxBytes) throw new FileTooLargeError(display, size, check.maxBytes);
        check.test(await readAll(readableFile(files, fd, size), size, check.maxBytes, display));
      }
      dir.unlink(name);
    } catch (error) {
      throw mapOsError(error, display, "write");
    } finally {
      if (locked) files.close(locked.fd);
      target?.close();
      dir?.close();
    }
  }

  /**
   * Renames a file, a symlink (the link itself) or a directory with one `renameat2`, from
   * the handle of its directory to the handle of the target's (made where missing), never
   * replacing a directory and replacing a file only with `overwrite`. The edit locks of a file
   * moved and of a file replaced are taken first. A directory is not moved while a deny rule
   * names a path (one with a `/`): files in it could leave that rule, or enter it.
   */
  protected override async movePath(
    from: StorePath,
    to: StorePath,
    options: { overwrite: boolean; kind: "file" | "directory" },
  ): Promise<void> {
    const { location, display } = from as DirectoryPath;
    if (this.sandbox.roots.includes(location)) throw new MoveRefusedError(display, "it is a root");
    // (A root's handle would follow the directory, and its paths name where it was.)
    const held = this.sandbox.roots.find((root) => isInside(location, root, nativePath.sep));
    if (held !== undefined) {
      throw new MoveRefusedError(display, `it holds the root ${this.sandbox.display(held)}`);
    }
    const placed = this.sandbox.deny.filter((rule) =>
      /\//.test(rule.replace(/^!?(\*\*\/)?|\/$/g, ""))
    );
    if (options.kind === "directory" && placed.length > 0) {
      throw new MoveRefusedError(
        display,
        `deny rules name paths (${
          placed.join(", ")
        }), and files in a moved directory could leave or enter them`,
      );
    }
    const parent = await this.#resolveParent(location, display);
    const name = nativePath.basename(location);
    const files = this.sandbox.files;
    let source: DirHandle | undefined;
    let target: { dir: DirHandle; created: string[] } | undefined;
    let locked: OpenFile | undefined;
    let replaced: OpenFile | undefined;
    try {
      source = files.openDir(parent.real);
      const origin = source;
      const kind = origin.lstat(name).kind;
      target = files.openDirCreating(nativePath.dirname(to.key));
      const into = target.dir;
      const toName = nativePath.basename(to.key);
      const there = to.exists ? into.lstat(toName).kind : undefined;
      refuseMoveOver(to.display, kind === "directory", there, options.overwrite);
      if (
        kind === "file" && there === "file" && sameFile(origin.lstat(name), lstatIn(into, toName))
      ) {
        throw new MoveRefusedError(display, `${to.display} is another name of the same file`);
      }
      // A file replaced is locked too: an edit of it under way in another process would
      // otherwise rename its result over what was moved there, and that would be gone. Both
      // locks are taken in the order of the paths, as every move takes them: two moves the
      // opposite ways would otherwise each hold one and wait for the other.
      const lockMoved = async () => {
        if (kind === "file") locked = await this.#openLocked(origin, name, display);
      };
      const lockReplaced = async () => {
        if (there === "file") replaced = await this.#openLocked(into, toName, to.display);
      };
      for (
        const lock of from.key < to.key ? [lockMoved, lockReplaced] : [lockReplaced, lockMoved]
      ) {
        await lock();
      }
      origin.moveTo(name, into, toName, !options.overwrite || kind === "directory");
    } catch (error) {
      if (target) removeCreated(files, target.created);
      else removeCreated(files, (error as { created?: string[] }).created ?? []);
      if ((error as { code?: string }).code === "EEXIST") throw new FileExistsError(to.display);
      throw mapOsError(error, display, "write");
    } finally {
      if (replaced) files.close(replaced.fd);
      if (locked) files.close(locked.fd);
      source?.close();
      target?.dir.close();
    }
  }

  /**
   * Runs edits of one real path one after another across every store of the process (the
   * edit lock, {@linkcode #openLocked}, orders them across processes).
   *
   * @param key the real path
   * @param work the edit
   * @returns what `work` returns
   */
  protected override withLock<T>(key: string, work: () => Promise<T>): Promise<T> {
    return PROCESS_LOCKS.run(key, work);
  }

  /**
   * Opens a regular file of a directory for reading and takes the advisory lock (`flock`)
   * every linewise process takes from reading a file to renaming its new content into
   * place, so that edits of one file by several processes run one after another. The lock
   * belongs to the file's inode: a process that finds the name given to a new inode while it
   * waited (the edit before it was renamed in) locks that one. A lock dies with its process,
   * so none is left stale; one held longer than `lockWaitMs` is reported.
   *
   * @returns the open file (closing it releases the lock) and its stat, or undefined when
   *   nothing is there
   */
  async #openLocked(dir: DirHandle, name: string, display: string): Promise<OpenFile | undefined> {
    const files = this.sandbox.files;
    const deadline = Date.now() + this.#lockWaitMs;
    for (let pause = 1;; pause = Math.min(pause * 2, 50)) {
      let fd: number;
      try {
        const kind = dir.lstat(name).kind;
        if (kind !== "file") throw new NotAFileError(display, describeKind(kind));
        fd = dir.openRead(name);
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw mapOsError(error, display, "read");
      }
      let locked: boolean | undefined;
      try {
        const stat = files.fstat(fd);
        if (stat.kind !== "file") throw new NotAFileError(display, describeKind(stat.kind));
        locked = files.tryLock(fd);
        // (No locks here: the process's own order and the last check are all there is.)
        if (locked === undefined || (locked && sameFile(stat, lstatIn(dir, name)))) {
          return { fd, stat };
        }
      } catch (error) {
        files.close(fd);
        throw mapOsError(error, display, "read");
      }
      files.close(fd);
      if (locked) continue; // replaced while we waited: lock the file there now
      if (Date.now() > deadline) throw new FileBusyError(display, this.#lockWaitMs / 1000);
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }

  /**
   * Lines of a file of any size, reading only up to the last line returned: see
   * `_line_range.ts`.
   *
   * @param path the caller's path
   * @param options the range and budget
   * @returns the lines
   */
  override async readLines(path: string, options: LineRangeOptions): Promise<LineRange> {
    checkRangeOptions(options);
    const node = await this.resolvePath(filePath(path), false);
    return await readLineRange(node, options, {
      files: this.sandbox.files,
      check: (stat) => this.#refuseDenied(stat, path),
      path,
      lineIndex: this.#lineIndex,
      countLinesUpTo: this.#countLinesUpTo,
    });
  }

  /**
   * Lists files like the inherited `glob` (the same files in the same order), straight from
   * the walk: its files are already checked, so none is resolved again (resolving each one
   * again made a glob of a large tree slow).
   *
   * @param options start path, glob, hidden and ignored files
   * @returns display paths in path order
   */
  override async glob(options: WalkOptions): Promise<string[]> {
    const start = await this.resolvePath(options.path ?? ".", false);
    const { kind } = await this.statPath(start);
    if (kind !== "directory") {
      const name = start.display.slice(start.display.lastIndexOf("/") + 1);
      const accepted = options.glob === undefined || compileGlob(options.glob)(name);
      return kind === "file" && accepted ? [start.display] : [];
    }
    const found: string[] = [];
    for await (const run of walkFileRuns(this.walkSource, start, options)) {
      for (const file of run) found.push(this.#shown(file.display));
    }
    return found;
  }

  /**
   * A display path as every tool shows the file: a walk of a root that holds the first one
   * names the first one's files by absolute paths, which are relative to it everywhere else
   * (the session then took them for other files: a numbered edit after a grep of the outer
   * root was taken against an older read).
   */
  #shown(display: string): string {
    return this.#firstRootNested && nativePath.isAbsolute(display)
      ? this.sandbox.display(display)
      : display;
  }

  /**
   * Searches like the inherited `search` (same files, rows and counts), reading each file
   * the cheapest exact way: see `_directory_search.ts`.
   *
   * @param query the search
   * @returns the matches and counts
   */
  override async search(query: SearchQuery): Promise<SearchResult> {
    const result = await this.#search(query);
    if (!this.#firstRootNested) return result;
    if (!result.files.some((file) => this.#shown(file.path) !== file.path)) return result;
    return {
      ...result,
      files: result.files.map((file) => ({ ...file, path: this.#shown(file.path) })),
    };
  }

  async #search(query: SearchQuery): Promise<SearchResult> {
    checkQuery(query);
    query.signal?.throwIfAborted();
    if (this.#searchThread !== undefined && query.matcher.recipe !== undefined) {
      if (query.glob !== undefined) compileGlob(query.glob); // (a bad one is refused at once)
      return await this.#searchThread.search(query);
    }
    const start = await this.resolvePath(query.path ?? ".", false);
    const { kind } = await this.statPath(start);
    directoryWhereSlashed(query.path, kind);
    let index = kind === "directory" ? this.#searchIndex?.now() : undefined;
    const state = await index?.refresh();
    if (state === "closed") {
      // (No trustworthy watcher here: this search goes without an index, and the index
      // starts again after a wait.)
      this.#searchIndex?.givenUp(index!);
      index = undefined;
    }
    return await searchDirectory(query, {
      start,
      kind,
      walkSource: this.walkSource,
      files: this.sandbox.files,
      denies: this.sandbox.deny.length > 0
        ? (stat) => this.sandbox.deniedByIdentity(stat)
        : undefined,
      threads: this.#searchThreads,
      parallelFrom: this.#parallelSearchFrom,
      index,
      indexTrusted: state === "trusted",
      workers: this.#searchWorkers,
    });
  }

  /**
   * Once the search index is ready (see {@linkcode searchIndexReady}), runs small searches
   * (see `_warm_up.ts`), so that the session's next search finds the search code compiled:
   * a new server's first grep on a tree it knows, and a session's first greps after its
   * first, are that much faster.
   *
   * @param signal aborts it: abort it when a search comes, and wait for it to end
   * @param then given each search's result (the search thread packs it, as a search's)
   * @returns whether it ran to its end (false at once without an index, or when the index
   *   is closed before it is ready)
   */
  async warmUp(
    signal: AbortSignal,
    then?: (result: SearchResult, query: SearchQuery) => void,
  ): Promise<boolean> {
    if (!(await this.searchIndexReady())) return false;
    return await warmUpSearches(async (query) => {
      const result = await this.search(query);
      then?.(result, query);
      return result;
    }, signal);
  }

  /**
   * Waits until the search index first holds what a search uses: what it took from the
   * cache on disk, or else what it learned from the first search, once that is indexed.
   * Without a cache file it settles only after a search: a Bun process that awaits it with
   * nothing else to keep it alive spins at 100% CPU (Bun 1.4.5, with the index's workers
   * unref'd) rather than exit.
   *
   * @returns true then; false at once without an index, or when it is closed before
   */
  searchIndexReady(): Promise<boolean> {
    return this.#searchIndex?.current?.ready() ?? Promise.resolve(false);
  }

  /**
   * What the search index holds, or undefined when there is none (off, not on this
   * runtime, closed, or given up because the watcher failed and not started again yet).
   *
   * @returns sizes of the walks and filters kept
   */
  searchIndexStats(): SearchIndexStats | undefined {
    return this.#searchIndex?.current?.stats;
  }

  /**
   * Stops the search index's watcher and worker, the threads kept between searches, and the
   * search thread, if any; searches go on without them, on the caller's thread (a search of
   * many files starts threads of its own, stopped when it ends).
   */
  close(): void {
    this.#searchThread?.close();
    this.#searchThread = undefined;
    this.#searchIndex?.close();
    this.#searchIndex = undefined;
    this.#searchWorkers?.close();
  }

  /** The real target of a symlink met in a listing, or undefined when the walk must not show it. */
  async #linkTarget(link: string): Promise<string | undefined> {
    try {
      const resolved = await this.sandbox.resolve(link);
      return resolved.real;
    } catch (error) {
      // (One whose way is closed, no permission on the way, is left out and counted as one
      // that leads nowhere: it must not take the rest of its directory with it.)
      if (error instanceof StoreError) return undefined;
      throw error;
    }
  }

  /**
   * The last check, just before the rename (no await): refuses the write when the file is
   * not the version read, by stat and bytes.
   */
  #refuseChanged(dir: DirHandle, name: string, display: string, version: FileVersion): void {
    const files = this.sandbox.files;
    let fd: number;
    try {
      fd = dir.openRead(name);
    } catch (error) {
      if (isMissing(error)) throw new FileChangedError(display);
      throw error;
    }
    try {
      if (!sameState(files.fstat(fd), version)) throw new FileChangedError(display);
      // (Compared a piece at a time: a buffer the size of the file, 48 MB, made this step take
      // a collection of the whole heap, 0.25 s on the thread that answers requests.)
      const piece = new Uint8Array(Math.min(version.size + 1, CHECK_PIECE));
      let at = 0;
      for (let got = 1; got > 0; at += got) {
        got = files.read(fd, piece, 0, piece.length, at);
        const read = piece.subarray(0, got);
        // (A byte past the size read: the file grew.)
        if (at + got > version.size || !sameBytes(read, version.bytes.subarray(at, at + got))) {
          throw new FileChangedError(display);
        }
      }
      if (at !== version.size) throw new FileChangedError(display);
    } finally {
      files.close(fd);
    }
  }

  /** Refuses another name of a denied file (with the refusal of a denied path). */
  async #refuseDenied(stat: FileStat, asked: string): Promise<void> {
    if (await this.sandbox.deniedByIdentity(stat)) throw new DeniedPathError(asked);
  }
}

/** What a stat says the path is. */
function kindOf(stat: FileStat): EntryKind {
  return stat.kind === "file" ? "file" : stat.kind === "directory" ? "directory" : "other";
}

/** Whether the process may write an entry (as the system says: by mode, or Deno's permissions). */
function writableIn(dir: DirHandle, name: string, display: string): boolean {
  try {
    return dir.writable(name);
  } catch (error) {
    throw mapOsError(error, display, "write");
  }
}

/**
 * Whether a stat is of the file a version was read from, at the same size and mtime, and with
 * the same mode and owner: the new content takes those read with the file, and a chmod made
 * meanwhile (to make it private, say) would be undone.
 */
function sameState(stat: FileStat | undefined, version: FileVersion): boolean {
  return stat !== undefined && stat.dev === version.dev && stat.ino === version.ino &&
    stat.size === version.size && stat.mtimeNs === version.mtimeNs &&
    stat.mode === version.mode && stat.uid === version.uid && stat.gid === version.gid;
}

/** Whether two stats are of the same file system object. */
function sameFile(a: FileStat, b: FileStat | undefined): boolean {
  return b !== undefined && a.dev === b.dev && a.ino === b.ino;
}

function lstatIn(dir: DirHandle, name: string): FileStat | undefined {
  try {
    return dir.lstat(name);
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

function lstatOrUndefined(files: Sandbox["files"], path: string): FileStat | undefined {
  try {
    return files.lstat(path);
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

keepOffTopTier(DirectoryStore.prototype["childPath"], ...WALK_HOT_PATH);
