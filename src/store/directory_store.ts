/**
 * The store over real files under one or more roots, through a {@linkcode Sandbox}. Uses
 * only `node:` built-ins, so it runs on Deno, Bun and Node; under Deno it needs nothing but
 * `--allow-read=ROOT --allow-write=ROOT`.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { constants } from "node:fs";
import * as fsSync from "node:fs";
import { setImmediate } from "node:timers";
import * as fs from "node:fs/promises";
import * as nodePath from "node:path";
import { splitLines } from "../core/mod.ts";
import { writeAtomically } from "./_atomic_write.ts";
import { checkRangeOptions, LineBudget } from "./_line_budget.ts";
import { FileReader, type ReadOutcome } from "./_file_reader.ts";
import { LineIndexCache } from "./_line_index.ts";
import { BLOCK_BYTES, concat, LineReader } from "./_line_reader.ts";
import { LockTable } from "./_locks.ts";
import { isMissing, mapOsError } from "./_os_errors.ts";
import { isInside, joinDisplay } from "./_paths.ts";
import { checkQuery, SearchCollector } from "./_search_collector.ts";
import { examineBytes, type Examined, WHOLE_FILE_BYTES } from "./_search_file.ts";
import { ExaminedBatches, startSearchWorker } from "./_search_pool.ts";
import { BINARY_PROBE_BYTES, decodeUtf8, isBinary, sameBytes } from "./_text.ts";
import {
  BaseFileStore,
  type BaseFileStoreOptions,
  type FileBytes,
  filePath,
  type PathStat,
  type StorePath,
  type WriteFileOptions,
} from "./base_store.ts";
import {
  BinaryFileError,
  FileChangedError,
  FileTooLargeError,
  NotAFileError,
  StoreError,
} from "./errors.ts";
import type {
  EntryKind,
  LineRange,
  LineRangeOptions,
  SearchQuery,
  SearchResult,
} from "./file_store.ts";
import { Sandbox, type SandboxOptions } from "./sandbox.ts";
import { compileGlob, type DirEntry, walkFiles, type WalkNode } from "./walk.ts";

/** Options of {@linkcode DirectoryStore}. */
export interface DirectoryStoreOptions extends BaseFileStoreOptions {
  /**
   * When a line-range read stops before the end of a file no larger than this, the rest is
   * counted so that the total is known; larger files leave the total out.
   * @default 8388608
   */
  countLinesUpTo?: number;
  /**
   * Let a search of many files read and prefilter them on a worker thread as well as the
   * main one, where the runtime has workers and the machine a second core (results are the
   * same either way).
   * @default true
   */
  searchWorkers?: boolean;
  /**
   * Searches of fewer files than this stay on one thread (starting a worker costs more
   * than it saves on a small tree).
   * @default 256
   */
  parallelSearchFrom?: number;
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
  size: bigint;
  mtimeNs: bigint;
  bytes: Uint8Array;
}

/** Edits are serialised per real path across every store of the process. */
const PROCESS_LOCKS = new LockTable();

const OPEN_READ = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0);
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
  readonly #searchWorkers: boolean;
  readonly #parallelSearchFrom: number;
  readonly #lineIndex = new LineIndexCache();

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
    this.#countLinesUpTo = options.countLinesUpTo ?? 8 * 1024 * 1024;
    this.#searchWorkers = options.searchWorkers ?? true;
    this.#parallelSearchFrom = options.parallelSearchFrom ?? 256;
    if (!Number.isInteger(this.#parallelSearchFrom) || this.#parallelSearchFrom < 1) {
      throw new TypeError(
        `parallelSearchFrom must be a positive integer, got ${this.#parallelSearchFrom}`,
      );
    }
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

  /** Resolves a path through the sandbox; the key is the real path. */
  protected override async resolvePath(path: string, forWrite: boolean): Promise<DirectoryPath> {
    const resolved = await this.sandbox.resolve(path, { forWrite });
    return {
      key: resolved.real,
      display: resolved.display,
      exists: resolved.exists,
      location: resolved.location,
    };
  }

  /** Kind, size and mtime of the real path (symlinks followed). */
  protected override async statPath(node: WalkNode): Promise<PathStat> {
    try {
      const stat = await fs.stat(node.key);
      return { kind: kindOf(stat), size: stat.isFile() ? stat.size : 0, mtimeMs: stat.mtimeMs };
    } catch (error) {
      throw mapOsError(error, node.display, "read");
    }
  }

  /** The node of a directory entry: native join for the key, `/` for the display path. */
  protected override childPath(dir: WalkNode, name: string): WalkNode {
    // The key is absolute and normalised and a name has no separator: plain concatenation
    // is what nodePath.join would give, without re-normalising the whole path.
    if (name === "" || name === "." || name === ".." || /[\\/]/.test(name)) {
      return { key: nodePath.join(dir.key, name), display: joinDisplay(dir.display, name) };
    }
    const key = dir.key.endsWith(nodePath.sep) ? dir.key + name : dir.key + nodePath.sep + name;
    return { key, display: joinDisplay(dir.display, name) };
  }

  /** The directories from the root holding the node down to its parent (for .gitignore files). */
  protected override ancestorsOf(node: WalkNode): WalkNode[] {
    const absolute = this.sandbox.absolute(node.display);
    const root = this.sandbox.roots
      .filter((r) => isInside(r, absolute, nodePath.sep))
      .reduce((a, b) => (a.length >= b.length ? a : b), "");
    if (root === "" || root === absolute) return [];
    const result: WalkNode[] = [];
    for (let dir = nodePath.dirname(absolute);; dir = nodePath.dirname(dir)) {
      result.push({ key: dir, display: this.sandbox.display(dir) });
      if (dir === root || dir === nodePath.dirname(dir)) break;
    }
    return result.reverse();
  }

  /** Reads a regular file whole; its version is device, inode, size, mtime and the bytes. */
  protected override async readFile(
    node: WalkNode,
    maxBytes: number | undefined,
  ): Promise<FileBytes> {
    const { handle, stat } = await this.#open(node);
    try {
      const size = Number(stat.size);
      if (maxBytes !== undefined && size > maxBytes) {
        throw new FileTooLargeError(node.display, size, maxBytes);
      }
      const bytes = await readAll(handle, size, maxBytes, node.display);
      const version: FileVersion = {
        dev: stat.dev,
        ino: stat.ino,
        size: stat.size,
        mtimeNs: stat.mtimeNs,
        bytes,
      };
      return { bytes, version };
    } finally {
      await handle.close();
    }
  }

  /** One directory, without denied entries and without symlinks leading outside, to denied paths, or nowhere. */
  protected override async listDirectory(dir: WalkNode, sizes: boolean): Promise<DirEntry[]> {
    let dirents;
    try {
      // One blocking call: a promise per directory costs more than the listing itself.
      dirents = fsSync.readdirSync(dir.key, { withFileTypes: true });
    } catch (error) {
      throw mapOsError(error, dir.display, "read");
    }
    const entries: DirEntry[] = [];
    const checkDeny = this.sandbox.deny.length > 0;
    for (const dirent of dirents) {
      const name = String(dirent.name);
      // Plain files and directories without deny rules need no path (most of a big tree).
      if (!checkDeny && !sizes) {
        if (dirent.isDirectory()) {
          entries.push({ name, kind: "directory", size: 0, symlink: false });
          continue;
        }
        if (dirent.isFile()) {
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
      try {
        if (dirent.isSymbolicLink()) {
          const target = await this.#linkTarget(child.key);
          if (target === undefined) continue;
          const stat = await fs.stat(target);
          const kind = kindOf(stat);
          entries.push({
            name,
            kind,
            size: kind === "file" ? stat.size : 0,
            symlink: true,
            key: target,
          });
        } else if (dirent.isDirectory()) {
          entries.push({ name, kind: "directory", size: 0, symlink: false });
        } else if (dirent.isFile()) {
          const size = sizes ? (await fs.lstat(child.key)).size : 0;
          entries.push({ name, kind: "file", size, symlink: false });
        } else {
          entries.push({ name, kind: "other", size: 0, symlink: false });
        }
      } catch (error) {
        // The entry went away between readdir and stat: it is simply not there any more.
        if (isMissing(error)) continue;
        throw mapOsError(error, child.display, "read");
      }
    }
    return entries;
  }

  /** Writes a temporary file next to the target, fsyncs it and renames (or links) it into place. */
  protected override async writeFile(
    node: StorePath,
    bytes: Uint8Array,
    options: WriteFileOptions,
  ): Promise<void> {
    const target = node.key;
    const dir = nodePath.dirname(target);
    try {
      await fs.mkdir(dir, { recursive: true });
    } catch (error) {
      throw mapOsError(error, node.display, "write");
    }
    let mode: number | undefined;
    if (options.overwrite) {
      try {
        const stat = await fs.stat(target);
        if (stat.isFile()) mode = stat.mode & 0o7777;
      } catch (error) {
        if (!isMissing(error)) throw mapOsError(error, node.display, "read");
      }
    }
    await writeAtomically(target, bytes, {
      display: node.display,
      mode,
      overwrite: options.overwrite,
      beforePlace: options.ifVersion === undefined
        ? undefined
        : () => this.#checkUnchanged(node, options.ifVersion as FileVersion),
    });
  }

  /** Deletes a file, or a symlink itself; never a directory. */
  protected override async deletePath(node: StorePath): Promise<void> {
    const { location, display } = node as DirectoryPath;
    // A root is a directory; resolving its parent below would name a place outside.
    if (this.sandbox.roots.includes(location)) throw new NotAFileError(display, "a directory");
    // Deleting a symlink deletes the link, as `rm` does, not the file it points to.
    const parent = await this.sandbox.resolve(nodePath.dirname(location));
    const place = nodePath.join(parent.real, nodePath.basename(location));
    try {
      const stat = await fs.lstat(place);
      if (stat.isDirectory()) throw new NotAFileError(display, "a directory");
      if (!stat.isFile() && !stat.isSymbolicLink()) {
        throw new NotAFileError(display, describe(stat));
      }
      await fs.unlink(place);
    } catch (error) {
      throw mapOsError(error, display, "write");
    }
  }

  /**
   * Runs edits of one real path one after another across every store of the process.
   *
   * @param key the real path
   * @param work the edit
   * @returns what `work` returns
   */
  protected override withLock<T>(key: string, work: () => Promise<T>): Promise<T> {
    return PROCESS_LOCKS.run(key, work);
  }

  /**
   * Lines of a file of any size, reading only up to the last line returned (plus the rest
   * of a file no larger than `countLinesUpTo`, to count it): lines are found by counting
   * `\n` bytes and only the lines returned are decoded. Where lines start is remembered in
   * a sparse index per file version (device, inode, size, mtime), so a second read deep in
   * the same unchanged file starts from the nearest checkpoint; a changed file is counted
   * anew.
   *
   * @param path the caller's path
   * @param options the range and budget
   * @returns the lines
   */
  override async readLines(path: string, options: LineRangeOptions): Promise<LineRange> {
    checkRangeOptions(options);
    const node = await this.resolvePath(filePath(path), false);
    const { handle, stat } = await this.#open(node);
    try {
      const size = Number(stat.size);
      const head = await readHead(handle, Math.min(size, BINARY_PROBE_BYTES));
      if (isBinary(head)) throw new BinaryFileError(path, size);
      const bom = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
      const result: LineRange = {
        path: node.display,
        lines: [],
        start: options.start,
        more: false,
        invalidUtf8: false,
      };
      const seek = await this.#lineIndex.seekLine(handle, node.key, stat, bom, options.start);
      if (!seek.found) {
        result.total = seek.lines;
        return result;
      }
      const reader = new LineReader(handle, seek.offset);
      const budget = new LineBudget(options);
      const wantedLines = Math.min(
        options.maxLines,
        options.end === undefined ? Infinity : options.end - options.start + 1,
      );
      let number = options.start - 1;
      let moreExist = false;
      for (;;) {
        const run = await reader.nextLines();
        if (run === null) break;
        // Only the lines that can be returned are decoded, never the whole run.
        const cut = afterNthLine(run, wantedLines - result.lines.length);
        const { text, invalid } = decodeUtf8(run.subarray(0, cut));
        if (invalid) result.invalidUtf8 = true;
        const lines = splitLines(text);
        let stopped = false;
        for (let i = 0; i < lines.length; i++) {
          result.lines.push(lines[i]);
          if (budget.take(lines[i], ++number)) {
            moreExist = i < lines.length - 1 || cut < run.length || !(await reader.atEnd());
            stopped = true;
            break;
          }
        }
        if (stopped) break;
      }
      result.more = moreExist && (options.end === undefined || number < options.end);
      if (!moreExist) result.total = number;
      else {
        result.total = this.#lineIndex.knownLineCount(node.key, stat) ??
          (size <= this.#countLinesUpTo
            ? await this.#lineIndex.lineCount(handle, node.key, stat, bom)
            : undefined);
      }
      if (result.total === undefined) delete result.total;
      return result;
    } finally {
      await handle.close();
    }
  }

  /**
   * Searches like the inherited `search` (same files, rows and counts), but streams each
   * file in runs of whole lines, so files of any size can be searched, and skips small files
   * that cannot contain the matcher's `requiredLiteral` without decoding them. On a tree of
   * `parallelSearchFrom` files or more, a worker thread reads and prefilters files too
   * (see `_search_pool.ts`); the scan and the results stay on this thread, in path order.
   *
   * @param query the search
   * @returns the matches and counts
   */
  override async search(query: SearchQuery): Promise<SearchResult> {
    checkQuery(query);
    query.signal?.throwIfAborted();
    const start = await this.resolvePath(query.path ?? ".", false);
    const { kind } = await this.statPath(start);
    const literal = query.matcher.requiredLiteral;
    const needle = literal && !literal.includes("\uFFFD") ? Buffer.from(literal) : undefined;
    const context = query.context ?? 0;
    const reader = new FileReader(WHOLE_FILE_BYTES);
    const examine = (worker: Worker | undefined) =>
      new ExaminedBatches({
        needle: needle === undefined ? undefined : new Uint8Array(needle),
        context,
        reader,
        worker,
      });
    let files: WalkNode[];
    let batches: ExaminedBatches | undefined;
    try {
      if (kind === "directory") {
        files = [];
        for await (const file of walkFiles(this.walkSource, start, query)) {
          files.push(file);
          if (batches !== undefined) batches.add(file.key);
          else if (files.length === this.#parallelSearchFrom && this.#searchWorkers) {
            // A big tree: the worker starts reading while the walk goes on.
            const worker = startSearchWorker();
            if (worker !== undefined) {
              batches = examine(worker);
              for (const found of files) batches.add(found.key);
            }
          }
          if (files.length % 1024 === 0) query.signal?.throwIfAborted();
        }
      } else if (kind === "file") {
        const name = start.display.slice(start.display.lastIndexOf("/") + 1);
        files = query.glob === undefined || compileGlob(query.glob)(name) ? [start] : [];
      } else {
        throw new NotAFileError(query.path ?? ".", "a device, FIFO or socket");
      }
    } catch (error) {
      batches?.close();
      throw error;
    }
    if (batches === undefined) {
      batches = examine(undefined);
      for (const file of files) batches.add(file.key);
    }
    batches.end();
    const collector = new SearchCollector(query, files.length);
    const explicit = kind === "file";
    try {
      let slice = performance.now();
      let i = 0;
      search: for (let b = 0; b < batches.count; b++) {
        if (!collector.proceed()) break;
        const outcomes = await batches.get(b);
        for (const outcome of outcomes) {
          if (!collector.proceed()) break search;
          // Files are read with blocking calls (one promise per file costs more than the
          // read); the event loop gets a turn every few milliseconds, so cancellation is heard.
          if (performance.now() - slice > YIELD_EVERY_MS) {
            await yieldToEventLoop();
            slice = performance.now();
            if (!collector.proceed()) break search;
          }
          const node = files[i];
          if (!(await recordExamined(collector, node.display, outcome))) {
            await this.#searchOne(node, reader, collector, { needle, explicit, context });
          }
          i++;
          if (collector.done) break search;
        }
      }
      if (i < files.length) collector.notSearched(files.length - i);
    } finally {
      batches.close();
    }
    return collector.result();
  }

  /** Searches one file the examination left to the caller (large, not a file, unreadable). */
  async #searchOne(
    node: WalkNode,
    reader: FileReader,
    collector: SearchCollector,
    { needle, explicit, context }: { needle?: Buffer; explicit: boolean; context: number },
  ): Promise<void> {
    let outcome: ReadOutcome;
    try {
      outcome = reader.read(node.key);
    } catch (error) {
      const mapped = mapOsError(error, node.display, "read");
      // A file of a walk that vanished or cannot be read is skipped, as ripgrep does; a
      // file asked for by name reports why.
      if (!explicit && mapped instanceof StoreError && SKIP_IN_WALK.has(mapped.code)) return;
      throw mapped;
    }
    if (outcome.kind === "not_file") {
      if (!explicit) return;
      throw new NotAFileError(node.display, describe(outcome.stat));
    }
    if (outcome.kind === "large") {
      await this.#searchFile(node, collector, needle, explicit);
      return;
    }
    await recordExamined(collector, node.display, examineBytes(outcome.bytes, needle, context));
  }

  async #searchFile(
    node: WalkNode,
    collector: SearchCollector,
    needle: Buffer | undefined,
    explicit: boolean,
  ): Promise<void> {
    let opened;
    try {
      opened = await this.#open(node);
    } catch (error) {
      // A file of a walk that vanished, turned into something else, or cannot be read is
      // skipped, as ripgrep does; a file asked for by name reports why.
      if (!explicit && error instanceof StoreError && SKIP_IN_WALK.has(error.code)) return;
      throw error;
    }
    const { handle } = opened;
    try {
      const reader = new LineReader(handle);
      const first = await reader.nextLines();
      if (first === null) {
        collector.searchedWithoutMatch();
        return;
      }
      if (
        isBinary(
          first.length >= BINARY_PROBE_BYTES ? first : await readHead(handle, BINARY_PROBE_BYTES),
        )
      ) {
        collector.binary();
        return;
      }
      if (needle !== undefined && (await reader.atEnd())) {
        const bytes = Buffer.from(first.buffer, first.byteOffset, first.length);
        if (bytes.indexOf(needle) === -1) {
          collector.searchedWithoutMatch();
          return;
        }
      }
      let invalid = false;
      const decode = (run: Uint8Array) => {
        const decoded = decodeUtf8(run);
        if (decoded.invalid) invalid = true;
        return decoded.text;
      };
      await collector.scanFile(node.display, decodedRuns(first, reader, decode), () => invalid);
    } finally {
      await handle.close();
    }
  }

  /**
   * Opens a regular file for reading without ever blocking: stat first (a FIFO is refused
   * before it is opened), open non-blocking and without following a last-segment symlink
   * (the key is already the real path), then stat the open handle, in case the path was
   * swapped in between.
   */
  async #open(node: WalkNode): Promise<{ handle: fs.FileHandle; stat: BigIntStats }> {
    try {
      const before = await fs.stat(node.key);
      if (!before.isFile()) throw new NotAFileError(node.display, describe(before));
      const handle = await fs.open(node.key, OPEN_READ);
      try {
        const stat = await handle.stat({ bigint: true });
        if (!stat.isFile()) throw new NotAFileError(node.display, describe(stat));
        return { handle, stat };
      } catch (error) {
        await handle.close();
        throw error;
      }
    } catch (error) {
      throw mapOsError(error, node.display, "read");
    }
  }

  /** The real target of a symlink met in a listing, or undefined when the walk must not show it. */
  async #linkTarget(link: string): Promise<string | undefined> {
    try {
      const resolved = await this.sandbox.resolve(link);
      return resolved.real;
    } catch (error) {
      if (error instanceof StoreError && error.code !== "permission") return undefined;
      throw error;
    }
  }

  /** Refuses the write when the file is no longer what the edit read. */
  async #checkUnchanged(node: StorePath, version: FileVersion): Promise<void> {
    let now: FileBytes;
    try {
      now = await this.readFile(node, Number(version.size) + 1);
    } catch (error) {
      if (
        error instanceof StoreError && (error.code === "not_found" || error.code === "too_large")
      ) {
        throw new FileChangedError(node.display);
      }
      throw error;
    }
    const seen = now.version as FileVersion;
    const same = seen.dev === version.dev && seen.ino === version.ino &&
      seen.size === version.size && seen.mtimeNs === version.mtimeNs &&
      sameBytes(seen.bytes, version.bytes);
    if (!same) throw new FileChangedError(node.display);
  }
}

type BigIntStats = Awaited<ReturnType<fs.FileHandle["stat"]>> & {
  mtimeNs: bigint;
  dev: bigint;
  ino: bigint;
  size: bigint;
};

/** Longest run of blocking reads before the event loop gets a turn. */
const YIELD_EVERY_MS = 8;

/** Lets pending events (a cancellation, a progress write) run. */
/** Records a file that was examined whole; false when it must be searched another way. */
async function recordExamined(
  collector: SearchCollector,
  display: string,
  examined: Examined,
): Promise<boolean> {
  switch (examined.kind) {
    case "binary":
      collector.binary();
      return true;
    case "none":
      collector.searchedWithoutMatch();
      return true;
    case "text":
      await collector.scanFile(
        display,
        [examined.text],
        () => examined.invalid,
        examined.linesBefore,
      );
      return true;
    case "redo":
      return false;
  }
}

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Store errors that make a walked file be skipped by search. */
const SKIP_IN_WALK = new Set(["not_found", "not_a_file", "permission", "invalid_path"]);

/** What a stat says the path is. */
function kindOf(stat: { isFile(): boolean; isDirectory(): boolean }): EntryKind {
  return stat.isFile() ? "file" : stat.isDirectory() ? "directory" : "other";
}

/** A phrase for a non-file, for {@linkcode NotAFileError}. */
function describe(stat: {
  isDirectory(): boolean;
  isFIFO(): boolean;
  isSocket(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
}): string {
  if (stat.isDirectory()) return "a directory";
  if (stat.isFIFO()) return "a FIFO (named pipe)";
  if (stat.isSocket()) return "a socket";
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return "a device";
  return "not a regular file";
}

/** The offset just past the `count`-th `\n` of a run of whole lines (the run's length if fewer). */
function afterNthLine(run: Uint8Array, count: number): number {
  if (count >= run.length) return run.length;
  let at = -1;
  for (let i = 0; i < count; i++) {
    at = run.indexOf(10, at + 1);
    if (at === -1) return run.length;
  }
  return at + 1;
}

/** The first bytes of a file (fewer when it is shorter). */
async function readHead(handle: fs.FileHandle, count: number): Promise<Uint8Array> {
  const buffer = new Uint8Array(count);
  let filled = 0;
  while (filled < count) {
    const { bytesRead } = await handle.read(buffer, filled, count - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

/** Reads a whole file whose size was `size` when opened; it may have changed since. */
async function readAll(
  handle: fs.FileHandle,
  size: number,
  maxBytes: number | undefined,
  display: string,
): Promise<Uint8Array> {
  const pieces: Uint8Array[] = [];
  let total = 0;
  let blockBytes = Math.max(size, 1);
  for (;;) {
    const buffer = new Uint8Array(blockBytes);
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(
        buffer,
        filled,
        buffer.length - filled,
        total + filled,
      );
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    total += filled;
    if (filled > 0) pieces.push(buffer.subarray(0, filled));
    if (filled < buffer.length) break;
    if (maxBytes !== undefined && total > maxBytes) {
      throw new FileTooLargeError(display, total, maxBytes);
    }
    blockBytes = BLOCK_BYTES; // the file grew while being read
  }
  return concat(pieces.length === 0 ? [new Uint8Array(0)] : pieces);
}

/** The decoded runs of whole lines of a file, the first one already read. */
async function* decodedRuns(
  first: Uint8Array,
  reader: LineReader,
  decode: (run: Uint8Array) => string,
): AsyncGenerator<string> {
  yield decode(first);
  for (let run = await reader.nextLines(); run !== null; run = await reader.nextLines()) {
    yield decode(run);
  }
}
