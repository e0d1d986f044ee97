/**
 * A FileStore built on a few primitives. A store implements how to resolve a path, stat,
 * read a whole file, list one directory, write a file atomically and delete one; it inherits
 * reads, line ranges, listing, globbing, edits and a correct search (numbered by the core
 * scanner, so grep's line numbers address the lines `readLines` returns).
 *
 * @module
 */
import process from "node:process";
import { LineIndex, splitBom, takeLines } from "../core/mod.ts";
import { checkRangeOptions } from "./_line_budget.ts";
import { LockTable } from "./_locks.ts";
import { comparePaths, joinDisplay, segments } from "./_paths.ts";
import { checkQuery, SearchCollector } from "./_search_collector.ts";
import { decodeUtf8, encodeUtf8, isBinary } from "./_text.ts";
import {
  BinaryFileError,
  FileChangedError,
  FileExistsError,
  InvalidUtf8Error,
  MoveRefusedError,
  NotADirectoryError,
  NotAFileError,
  StoreError,
} from "./errors.ts";
import { skippedCounter } from "./file_store.ts";
import type {
  DeleteOptions,
  EditOutcome,
  EntryKind,
  FileInfo,
  FileStore,
  LineRange,
  LineRangeOptions,
  ListEntry,
  ListOptions,
  MoveOptions,
  MoveResult,
  SearchQuery,
  SearchResult,
  TextFile,
  UpdateOptions,
  WalkOptions,
  WriteOptions,
  WriteResult,
} from "./file_store.ts";
import {
  compileGlob,
  createWalkFilter,
  type DirEntry,
  type IgnoreFileText,
  type LinkLead,
  type OuterIgnoreFile,
  walkEntries,
  walkFiles,
  type WalkNode,
  type WalkSource,
} from "./walk.ts";

/** The default cap for reading a whole file into memory to edit it: 64 MiB. */
export const DEFAULT_MAX_EDIT_BYTES: number = 64 * 1024 * 1024;

/** What `delete` asks `deletePath` to check under the file's lock (see `FileStore.delete`). */
export interface DeleteCheck {
  /** The most bytes read. */
  maxBytes: number;
  /** Throws to keep the file. */
  test(bytes: Uint8Array): void;
}

/** A path a store has checked: its key for the store, how to show it, whether it exists. */
export interface StorePath extends WalkNode {
  /** Whether something exists there. */
  exists: boolean;
}

/** What {@linkcode BaseFileStore.statPath} reports. */
export interface PathStat {
  /** Kind of the resolved target. */
  kind: EntryKind;
  /** Size in bytes. */
  size: number;
  /** Modification time in milliseconds since the epoch. */
  mtimeMs: number;
  /** See {@linkcode FileInfo.identity}. */
  identity?: string;
}

/** What {@linkcode BaseFileStore.readFile} returns. */
export interface FileBytes {
  /** The whole content. */
  bytes: Uint8Array;
  /**
   * A token for this content as read (e.g. size, mtime and inode), passed back to
   * {@linkcode BaseFileStore.writeFile} as `ifVersion` so it can refuse a changed file.
   */
  version: unknown;
}

/** Options of {@linkcode BaseFileStore.writeFile}. */
export interface WriteFileOptions {
  /** Replace an existing file; otherwise refuse it with {@linkcode FileExistsError}, atomically. */
  overwrite: boolean;
  /**
   * The version read before an edit: refuse with {@linkcode FileChangedError} if the file no
   * longer has it.
   */
  ifVersion?: unknown;
  /**
   * Aborted before the content is put in place: put nothing in place and reject with the
   * signal's reason (check it last, with no await between the check and the placing).
   */
  signal?: AbortSignal;
  /** As {@linkcode WriteOptions.executable}: a store without modes ignores it. */
  executable?: boolean;
}

/** A file open for an edit (see {@linkcode BaseFileStore.editFile}). */
export interface EditableFile {
  /** Its bytes as read. */
  bytes: Uint8Array;
  /**
   * Puts new content in place, atomically, if the file is still as read (else
   * {@linkcode FileChangedError}); nothing when `signal` is aborted before that.
   */
  commit(bytes: Uint8Array, signal?: AbortSignal, executable?: boolean): Promise<void>;
}

/** Options of {@linkcode BaseFileStore}. */
export interface BaseFileStoreOptions {
  /**
   * Largest file `readText` and `update` read whole, in bytes.
   * @default 67108864
   */
  maxEditBytes?: number;
}

/**
 * The FileStore contract on top of six primitives. Subclasses implement the `protected
 * abstract` methods; every public method checks its path with {@linkcode resolvePath} first,
 * and the primitives only ever see keys that came from it or from a walk.
 *
 * A subclass may override any public method for speed. An override of `search` owes the
 * same result as the inherited one: the same files in path order with the same rows (line
 * numbers by the core scanner over the file as `readLines` numbers it, context rows once),
 * binary files skipped and counted, `maxMatches` matching lines at most with
 * `stopped: "max_matches"` only when another match exists, `stopped: "time"` and
 * `filesNotSearched` at the deadline, rejection with the signal's reason on abort, and no
 * denied, hidden, ignored or glob-excluded file (unless `includeIgnored`).
 *
 * @example
 * ```ts
 * import { MemoryStore } from "./memory_store.ts";
 * import { literalMatcher } from "../core/mod.ts";
 * import assert from "node:assert/strict";
 * const store = new MemoryStore({ "a.txt": "x\ny\n" }); // a BaseFileStore
 * const found = await store.search({ matcher: literalMatcher("y") });
 * assert.equal(found.files[0].rows[0].line, 2);
 * ```
 */
export abstract class BaseFileStore implements FileStore {
  /** Largest file read whole for edits, in bytes. */
  readonly maxEditBytes: number;
  readonly #locks = new LockTable();
  /** The walk's view of this store. */
  protected readonly walkSource: WalkSource;

  /**
   * Sets up the walk's view of the store.
   *
   * @param options the edit cap
   */
  constructor(options: BaseFileStoreOptions = {}) {
    const max = options.maxEditBytes ?? DEFAULT_MAX_EDIT_BYTES;
    if (!Number.isInteger(max) || max < 0) {
      throw new TypeError(`maxEditBytes must be a non-negative integer, got ${max}`);
    }
    this.maxEditBytes = max;
    // deno-lint-ignore no-this-alias
    const store = this;
    this.walkSource = {
      listDirectory: (dir, options) => this.listDirectory(dir, options.sizes, options.links),
      child: (dir, name) => this.childPath(dir, name),
      readIgnoreFile: (dir, name) => this.readIgnoreFile(dir, name),
      ancestors: (node) => this.ancestorsOf(node),
      outerIgnoreFiles: (node) => this.outerIgnoreFilesOf(node),
      repositoryAt: (dir) => this.repositoryAt(dir),
      get ripgrepIgnores() {
        return store.ripgrepIgnores();
      },
    };
  }

  /**
   * Checks a caller's path (roots, deny rules) and returns the store's key for it.
   *
   * @param path the caller's path
   * @param forWrite whether a missing path is acceptable (else {@linkcode NotFoundError})
   * @returns the checked path
   */
  protected abstract resolvePath(path: string, forWrite: boolean): Promise<StorePath>;

  /**
   * Kind, size and mtime of a checked path.
   *
   * @param node a checked path
   * @returns what is there
   */
  protected abstract statPath(node: WalkNode): Promise<PathStat>;

  /**
   * Reads a whole regular file, refusing anything else ({@linkcode NotAFileError}) and files
   * over `maxBytes` ({@linkcode FileTooLargeError}) without reading them.
   *
   * @param node a checked path
   * @param maxBytes the cap; undefined for none
   * @returns the bytes and their version
   */
  protected abstract readFile(node: WalkNode, maxBytes: number | undefined): Promise<FileBytes>;

  /**
   * Lists one directory (see {@linkcode WalkSource.listDirectory}): without denied entries
   * or symlinks that lead outside, to denied paths, or nowhere.
   *
   * @param dir a checked directory
   * @param sizes whether file sizes are needed (else they may be 0)
   * @param links where to add every symlink it holds, with where it leads (if asked)
   * @returns its entries, in any order
   */
  protected abstract listDirectory(
    dir: WalkNode,
    sizes: boolean,
    links?: LinkLead[],
  ): Promise<DirEntry[]>;

  /**
   * Writes a whole file atomically (all or nothing, even across a crash), creating missing
   * parent directories and keeping an existing file's mode.
   *
   * @param node a checked path (for writing)
   * @param bytes the new content
   * @param options whether to replace, and the version an edit read
   */
  protected abstract writeFile(
    node: StorePath,
    bytes: Uint8Array,
    options: WriteFileOptions,
  ): Promise<void>;

  /**
   * Deletes a file, refusing a directory ({@linkcode NotAFileError}).
   *
   * @param node a checked, existing path
   * @param check when given, its `test` is called with the file's bytes (a symlink's
   *   target's, at most `maxBytes`), read under the lock that orders edits of the file, before
   *   it is removed; it throws to keep the file. (`delete` has checked them already under this
   *   store's own lock: a store whose edits are ordered only within the process may leave it
   *   out.)
   */
  protected abstract deletePath(node: StorePath, check?: DeleteCheck): Promise<void>;

  /**
   * Renames a checked, existing file or directory to a checked path. The default refuses:
   * a store that can move overrides it.
   *
   * @param from the checked, existing path
   * @param to the checked path it goes to
   * @param options whether to replace a file at `to`, and what `from` is
   */
  protected movePath(
    from: StorePath,
    _to: StorePath,
    _options: { overwrite: boolean; kind: "file" | "directory" },
  ): Promise<void> {
    return Promise.reject(new MoveRefusedError(from.display, "this store cannot move files"));
  }

  /**
   * Runs `work` after every earlier `write`, `update` or `delete` of the same key has
   * settled. The default serialises within this store; override to share a wider table.
   *
   * @param key the store's key of the file
   * @param work what to run
   * @returns what `work` returns
   */
  protected withLock<T>(key: string, work: () => Promise<T>): Promise<T> {
    return this.#locks.run(key, work);
  }

  /**
   * The node of an entry of a directory. The default joins display paths with `/` and uses
   * them as keys.
   *
   * @param dir a directory node
   * @param name an entry's name
   * @returns the entry's node
   */
  protected childPath(dir: WalkNode, name: string): WalkNode {
    return { key: joinDisplay(dir.key, name), display: joinDisplay(dir.display, name) };
  }

  /**
   * The directories above a node, from its root down (for their `.gitignore` files). The
   * default assumes relative display paths under one root ".".
   *
   * @param node any node
   * @returns the ancestors, outermost first
   */
  protected ancestorsOf(node: WalkNode): WalkNode[] {
    if (node.display === ".") return [];
    const parts = segments(node.display);
    const result: WalkNode[] = [{ key: ".", display: "." }];
    for (let i = 1; i < parts.length; i++) {
      const display = parts.slice(0, i).join("/");
      result.push({ key: display, display });
    }
    return result;
  }

  /**
   * The `.gitignore` files above the root of a node that apply to it (see
   * `WalkSource.outerIgnoreFiles`); none by default.
   *
   * @param _node any node
   * @returns the files, outermost first
   */
  protected outerIgnoreFilesOf(_node: WalkNode): OuterIgnoreFile[] {
    return [];
  }

  /**
   * The ignore files read beside `.gitignore` as ripgrep reads them (see
   * `WalkSource.ripgrepIgnores`); none by default.
   *
   * @returns their names and ranks, or undefined
   */
  protected ripgrepIgnores(): WalkSource["ripgrepIgnores"] {
    return undefined;
  }

  /**
   * Whether a directory is the top of a repository whose rules stand alone (see
   * `WalkSource.repositoryAt`); no store's by default.
   *
   * @param _dir a directory
   * @returns its exclude file's text, or undefined
   */
  protected repositoryAt(_dir: WalkNode): { exclude: string | undefined } | undefined {
    return undefined;
  }

  /**
   * The text of an ignore file in a directory, or undefined; through a symlink, the text of
   * the file it leads to within the roots ({@linkcode linkedFile}).
   *
   * @param dir a directory node
   * @param name the file's name
   * @returns the file's text, and whether it was read through a symlink
   */
  protected async readIgnoreFile(
    dir: WalkNode,
    name = ".gitignore",
  ): Promise<IgnoreFileText | undefined> {
    try {
      const child = this.childPath(dir, name);
      const target = await this.linkedFile(child);
      const { bytes } = await this.readFile(target ?? child, 1024 * 1024);
      return { text: decodeUtf8(bytes).text, linked: target !== undefined };
    } catch (error) {
      if (error instanceof StoreError && error.code !== "permission") return undefined;
      throw error;
    }
  }

  /**
   * The file a node leads to when it is a symlink to a file within the roots (its key the
   * target's real path), else undefined. A store without symlinks has none.
   *
   * @param _node a node of a directory's entry
   * @returns the target's node, or undefined
   */
  protected linkedFile(_node: WalkNode): Promise<WalkNode | undefined> {
    return Promise.resolve(undefined);
  }

  /**
   * Proposes the files a search should look at: every file it should search, and possibly
   * more (the inherited `search` filters them again by path, walk rules, glob and deny
   * rules, and reads each). The default walks the tree. A store with an index may use the
   * matcher's `requiredLiteral` to propose fewer files, but never too few.
   *
   * @param query the search
   * @returns display paths of candidate files, in any order
   */
  async findMatchingFiles(query: SearchQuery): Promise<string[]> {
    const start = await this.resolvePath(query.path ?? ".", false);
    const { kind } = await this.statPath(start);
    directoryWhereSlashed(query.path, kind);
    if (kind !== "directory") return [start.display];
    const found: string[] = [];
    for await (const file of walkFiles(this.walkSource, start, query)) found.push(file.display);
    return found;
  }

  /**
   * Kind, size and mtime of a path.
   *
   * @param path the caller's path
   * @returns what is there
   */
  async stat(path: string): Promise<FileInfo> {
    const node = await this.resolvePath(path, false);
    const info = await this.statPath(node);
    directoryWhereSlashed(path, info.kind);
    return { path: node.display, ...info };
  }

  /**
   * A whole file's bytes, refusing directories and other non-files and, with `maxBytes`,
   * larger files.
   *
   * @param path the caller's path
   * @param options the size cap
   * @returns the bytes
   */
  async readBytes(path: string, options: { maxBytes?: number } = {}): Promise<Uint8Array> {
    const node = await this.resolvePath(filePath(path), false);
    return (await this.readFile(node, options.maxBytes)).bytes;
  }

  /**
   * A whole file as text (see {@linkcode FileStore.readText}); `maxBytes` defaults to the
   * edit cap.
   *
   * @param path the caller's path
   * @param options the size cap
   * @returns the text
   */
  async readText(path: string, options: { maxBytes?: number } = {}): Promise<TextFile> {
    const node = await this.resolvePath(filePath(path), false);
    const { bytes } = await this.readFile(node, options.maxBytes ?? this.maxEditBytes);
    if (isBinary(bytes)) throw new BinaryFileError(path, bytes.length);
    const { text, invalid } = decodeUtf8(bytes);
    return { path: node.display, text, invalidUtf8: invalid, size: bytes.length };
  }

  /**
   * Lines of a file (see {@linkcode FileStore.readLines}). The default reads the whole file;
   * a store for large files should override it with a streaming read.
   *
   * @param path the caller's path
   * @param options the range and budget
   * @returns the lines
   */
  async readLines(path: string, options: LineRangeOptions): Promise<LineRange> {
    checkRangeOptions(options);
    const node = await this.resolvePath(filePath(path), false);
    const { bytes } = await this.readFile(node, undefined);
    if (isBinary(bytes)) throw new BinaryFileError(path, bytes.length);
    const { text, invalid } = decodeUtf8(bytes);
    const all = new LineIndex(splitBom(text).body);
    const { lines, more } = takeLines(all, options.start, options);
    return {
      path: node.display,
      lines,
      start: options.start,
      total: all.length,
      more,
      invalidUtf8: invalid,
    };
  }

  /**
   * Entries under a directory (see {@linkcode FileStore.list}).
   *
   * @param path the caller's path
   * @param options depth (default 1) and whether to include ignored entries
   * @returns the entries
   */
  async list(path: string, options: ListOptions = {}): Promise<ListEntry[]> {
    const depth = options.depth ?? 1;
    if (!Number.isInteger(depth) || depth < 1) {
      throw new TypeError(`depth must be an integer of at least 1, got ${depth}`);
    }
    const node = await this.resolvePath(path, false);
    if ((await this.statPath(node)).kind !== "directory") throw new NotADirectoryError(path);
    const entries: ListEntry[] = [];
    for await (const entry of walkEntries(this.walkSource, node, { ...options, depth })) {
      entries.push({ path: entry.display, kind: entry.kind, size: entry.size });
    }
    return entries;
  }

  /**
   * Files matching a glob (see {@linkcode FileStore.glob}), in path order.
   *
   * @param options where to look and what to match
   * @returns display paths
   */
  async glob(options: WalkOptions): Promise<string[]> {
    const candidates = await this.findMatchingFiles({
      ...options,
      matcher: { matchLine: () => null },
    });
    const start = await this.resolvePath(options.path ?? ".", false);
    return (await this.#filterCandidates(start, options, candidates)).map((file) => file.display);
  }

  /**
   * Searches files line by line (see {@linkcode FileStore.search}): candidates from
   * {@linkcode findMatchingFiles}, filtered again, read whole, scanned by the core scanner.
   *
   * @param query the search
   * @returns the matches and counts
   */
  async search(query: SearchQuery): Promise<SearchResult> {
    checkQuery(query);
    query.signal?.throwIfAborted();
    const start = await this.resolvePath(query.path ?? ".", false);
    let unreadableDirectories = 0;
    const skipped = skippedCounter();
    const candidates = await this.findMatchingFiles({
      ...query,
      onUnreadable: (display) => {
        unreadableDirectories++;
        query.onUnreadable?.(display);
      },
      onSkipped: skipped.count,
    });
    const files = await this.#filterCandidates(start, query, candidates);
    const collector = new SearchCollector(query, files.length);
    collector.countUnreadable(unreadableDirectories);
    collector.countSkipped(skipped.counts);
    for (let i = 0; i < files.length; i++) {
      if (!collector.proceed()) {
        collector.notSearched(files.length - i);
        break;
      }
      let bytes: Uint8Array;
      try {
        bytes = (await this.readFile(files[i], undefined)).bytes;
      } catch (error) {
        // A file that vanished or turned into something else since the walk is not searched;
        // one that cannot be read is skipped and counted.
        if (
          error instanceof StoreError && (error.code === "not_found" || error.code === "not_a_file")
        ) {
          continue;
        }
        if (error instanceof StoreError && UNREADABLE.has(error.code)) {
          collector.unreadable(files[i].display);
          continue;
        }
        throw error;
      }
      if (isBinary(bytes)) {
        collector.binary();
        continue;
      }
      const { text, invalid } = decodeUtf8(bytes);
      await collector.scanFile(files[i].display, [text], () => invalid);
      if (collector.done) {
        collector.notSearched(files.length - i - 1);
        break;
      }
    }
    return collector.result();
  }

  /**
   * Creates or replaces a file (see {@linkcode FileStore.write}).
   *
   * @param path the caller's path
   * @param text the whole content
   * @param options whether to replace an existing file
   * @returns the file's display path and whether it was created
   */
  async write(path: string, text: string, options: WriteOptions = {}): Promise<WriteResult> {
    if (typeof text !== "string") {
      throw new TypeError(`content must be a string, got ${typeof text}`);
    }
    const node = await this.resolvePath(filePath(path), true);
    await this.withLock(node.key, async () => {
      if (node.exists) {
        const { kind } = await this.statPath(node);
        if (kind === "directory") throw new NotAFileError(path, "a directory");
        if (kind !== "file") throw new NotAFileError(path, "a device, FIFO or socket");
        if (!options.overwrite) throw new FileExistsError(path);
      }
      options.signal?.throwIfAborted();
      await this.writeFile(node, encodeUtf8(text), {
        overwrite: options.overwrite ?? false,
        signal: options.signal,
        executable: options.executable,
      });
    });
    return { path: node.display, created: !node.exists };
  }

  /**
   * Edits a file (see {@linkcode FileStore.update}): reads it under the file's lock, refuses
   * binary, invalid UTF-8 and over-cap files, and writes the edit only if the file is still
   * as it was read. Text equal to the current text writes nothing.
   *
   * @param path the caller's path
   * @param edit computes the new text from the current one (and its bytes); may be async
   * @param options the size cap (default the store's `maxEditBytes`) and the signal
   * @returns what `edit` returned as `value`
   */
  async update<T>(
    path: string,
    edit: (
      text: string,
      display: string,
      bytes: Uint8Array,
    ) => EditOutcome<T> | Promise<EditOutcome<T>>,
    options: UpdateOptions = {},
  ): Promise<T> {
    if (typeof edit !== "function") throw new TypeError("edit must be a function");
    const node = await this.resolvePath(filePath(path), false);
    const maxBytes = options.maxBytes ?? this.maxEditBytes;
    return await this.withLock(
      node.key,
      () =>
        this.editFile(node, maxBytes, async ({ bytes, commit }) => {
          if (isBinary(bytes)) throw new BinaryFileError(path, bytes.length);
          const { text, invalid } = decodeUtf8(bytes);
          if (invalid) throw new InvalidUtf8Error(path);
          const outcome = await edit(text, node.display, bytes);
          // (The same text is written again to change the mode alone.)
          const same = outcome.text === text && options.executable === undefined;
          if (outcome.text === undefined || same) return outcome.value;
          if (typeof outcome.text !== "string") {
            throw new TypeError("an edit's text must be a string");
          }
          options.signal?.throwIfAborted();
          await commit(encodeUtf8(outcome.text), options.signal, options.executable);
          return outcome.value;
        }),
    );
  }

  /**
   * Reads a file for an edit and hands `work` its bytes and the way to put new content in
   * place if the file is still as read ({@linkcode FileChangedError} otherwise). Called
   * within {@linkcode withLock} for the file. The default reads with `readFile` and writes
   * with `writeFile` (with `ifVersion`); a store may override it to keep the file open, or
   * locked against other processes, from the read to the write.
   *
   * @param node a checked, existing path
   * @param maxBytes the size cap ({@linkcode FileTooLargeError} above it)
   * @param work the edit
   * @returns what `work` returns
   */
  protected async editFile<T>(
    node: StorePath,
    maxBytes: number,
    work: (file: EditableFile) => Promise<T>,
  ): Promise<T> {
    const { bytes, version } = await this.readFile(node, maxBytes);
    return await work({
      bytes,
      commit: (next, signal, executable) =>
        this.writeFile(node, next, { overwrite: true, ifVersion: version, signal, executable }),
    });
  }

  /**
   * Renames a file or directory (see {@linkcode FileStore.move}), after the edits of both
   * paths that came before it.
   *
   * @param from the caller's path of what to move
   * @param to the caller's path it goes to
   * @param options whether to replace a file at `to`
   * @returns both display paths and what was moved
   */
  async move(from: string, to: string, options: MoveOptions = {}): Promise<MoveResult> {
    const source = await this.resolvePath(filePath(from), false);
    const target = await this.resolvePath(filePath(to), true);
    const { kind } = await this.statPath(source);
    if (kind === "other") throw new NotAFileError(source.display, "not a file or directory");
    if (source.display === ".") throw new MoveRefusedError(source.display, "it is a root");
    if (source.key === target.key) {
      throw new MoveRefusedError(source.display, "it is already there");
    }
    if (kind === "directory" && target.display.startsWith(`${source.display}/`)) {
      throw new MoveRefusedError(source.display, `${target.display} is inside it`);
    }
    const overwrite = options.overwrite ?? false;
    // (In the order of the keys, as every move takes them: two moves the opposite ways would
    // otherwise each hold one and wait for the other, and every edit of either behind them.)
    const [first, second] = [source.key, target.key].sort();
    await this.withLock(first, () =>
      this.withLock(second, () => {
        options.signal?.throwIfAborted();
        return this.movePath(source, target, { overwrite, kind });
      }));
    return { from: source.display, to: target.display, kind };
  }

  /**
   * Deletes a file (see {@linkcode FileStore.delete}), after the edits of it that came
   * before; with `expected`, only while the file's text is that.
   *
   * @param path the caller's path
   * @param options the text it must have, and the signal (aborted before the file is
   *   removed: nothing is removed)
   * @returns the file's display path
   */
  async delete(path: string, options: DeleteOptions = {}): Promise<string> {
    const node = await this.resolvePath(filePath(path), false);
    const { expected, maxBytes = this.maxEditBytes } = options;
    const check = expected === undefined ? undefined : {
      maxBytes,
      test: (bytes: Uint8Array) => {
        const { text, invalid } = decodeUtf8(bytes);
        if (invalid || isBinary(bytes) || text !== expected) throw new FileChangedError(path);
      },
    };
    await this.withLock(node.key, async () => {
      if (check !== undefined) check.test((await this.readFile(node, maxBytes)).bytes);
      options.signal?.throwIfAborted();
      return await this.deletePath(node, check);
    });
    return node.display;
  }

  /**
   * Keeps the candidates a walk from `start` would visit, resolved through the store's own
   * checks, in path order and without duplicates. A file as the start stands for itself
   * (the glob still applies to its name).
   */
  async #filterCandidates(
    start: StorePath,
    options: WalkOptions,
    candidates: readonly string[],
  ): Promise<WalkNode[]> {
    const isDirectory = (await this.statPath(start)).kind === "directory";
    const accepts = isDirectory
      ? await createWalkFilter(this.walkSource, start, options)
      : (file: string) =>
        Promise.resolve(file === start.display && globAccepts(options.glob, file));
    // (A file given as the start is searched whatever its size.)
    const most = isDirectory ? options.maxFileSize ?? Infinity : Infinity;
    const unique = [...new Set(candidates)].sort(comparePaths);
    const files: WalkNode[] = [];
    for (const display of unique) {
      if (!(await accepts(display))) continue;
      let node: StorePath;
      try {
        node = await this.resolvePath(display, false);
      } catch (error) {
        // Candidates are only proposals: one that is gone, outside or denied is dropped.
        if (error instanceof StoreError && error.code !== "permission") continue;
        throw error;
      }
      const { kind, size } = await this.statPath(node);
      if (kind === "file" && size <= most) files.push(node);
    }
    return files;
  }
}

/** Store errors of a file that is there but cannot be read: searches skip and count it. */
const UNREADABLE = new Set(["permission", "invalid_path", "raced"]);

/** Whether a single file given as the start passes the glob (matched against its name). */
function globAccepts(glob: string | readonly string[] | undefined, file: string): boolean {
  if (glob === undefined) return true;
  return compileGlob(glob)(file.slice(file.lastIndexOf("/") + 1));
}

/**
 * A path that must name a file. A trailing slash names a directory (as in POSIX, where
 * `cat a.txt/` fails), so it is refused rather than quietly dropped.
 *
 * @param path the caller's path
 * @returns the same path
 * @throws {NotAFileError} when it ends with a separator
 */
export function filePath(path: string): string {
  if (endsWithSlash(path)) throw new NotAFileError(path, "a directory path (it ends with a slash)");
  return path;
}

/**
 * Refuses what is not a directory at a path that ends with a slash, as POSIX does (`grep -r
 * x a.txt/` fails): a search or a stat of `a.txt/` does not quietly take the file.
 *
 * @param path the caller's path
 * @param kind what is there
 * @throws {NotADirectoryError} when the path ends with a separator and names no directory
 */
export function directoryWhereSlashed(path: string | undefined, kind: EntryKind): void {
  if (kind !== "directory" && endsWithSlash(path)) throw new NotADirectoryError(path!);
}

function endsWithSlash(path: string | undefined): boolean {
  // (A backslash is a separator on Windows alone: elsewhere `foo\\` is a name.)
  return typeof path === "string" &&
    (process.platform === "win32" ? /[^/\\][/\\]+$/ : /[^/]\/+$/).test(path);
}
