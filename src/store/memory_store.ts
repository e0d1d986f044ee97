/**
 * A store held in memory, for tests and for embedding: files by path, directories implied by
 * the paths (and kept once created).
 *
 * @module
 */
import { compileDeny, type DenyMatcher } from "./_deny.ts";
import { cleanUserPath, segments } from "./_paths.ts";
import { encodeUtf8 } from "./_text.ts";
import {
  BaseFileStore,
  type BaseFileStoreOptions,
  type FileBytes,
  type PathStat,
  type StorePath,
  type WriteFileOptions,
} from "./base_store.ts";
import {
  DeniedPathError,
  FileChangedError,
  FileExistsError,
  FileTooLargeError,
  MoveRefusedError,
  NotADirectoryError,
  NotAFileError,
  NotFoundError,
  PathOutsideRootError,
  refuseMoveOver,
} from "./errors.ts";
import type { DirEntry, WalkNode } from "./walk.ts";

/** Options of {@linkcode MemoryStore}. */
export interface MemoryStoreOptions extends BaseFileStoreOptions {
  /**
   * .gitignore-syntax globs on paths; matching paths are invisible.
   * @default []
   */
  deny?: readonly string[];
}

interface MemoryFile {
  bytes: Uint8Array;
  mtimeMs: number;
  version: number;
}

/**
 * A FileStore in memory. Its one root is "/": `a.txt`, `./a.txt` and `/a.txt` are the same
 * file, and `..` above the root is outside. Paths are shown relative (`src/a.ts`).
 *
 * @example
 * ```ts
 * import { MemoryStore } from "./memory_store.ts";
 * import assert from "node:assert/strict";
 * const store = new MemoryStore({ "src/a.ts": "let a = 1;\n", ".env": "KEY=1\n" }, { deny: [".env"] });
 * assert.deepEqual((await store.list(".")).map((e) => e.path), ["src"]);
 * await assert.rejects(store.readText(".env"), { code: "denied" });
 * ```
 */
export class MemoryStore extends BaseFileStore {
  readonly #files = new Map<string, MemoryFile>();
  readonly #directories = new Set<string>(["."]);
  readonly #denied: DenyMatcher;
  #versions = 0;

  /**
   * Makes a store holding `files`.
   *
   * @param files initial files by path (text is stored as UTF-8)
   * @param options deny globs and the edit cap
   */
  constructor(files: Record<string, string | Uint8Array> = {}, options: MemoryStoreOptions = {}) {
    super(options);
    this.#denied = compileDeny(options.deny ?? []);
    for (const [path, content] of Object.entries(files)) this.set(path, content);
  }

  /**
   * Sets a file's content directly, as a change from outside would: no checks but the path's
   * shape, no lock. For seeding and for simulating a concurrent change in tests.
   *
   * @param path a path inside the root
   * @param content the new content
   */
  set(path: string, content: string | Uint8Array): void {
    const key = this.#key(path);
    if (key === "." || this.#isDirectory(key)) {
      throw new TypeError(`${JSON.stringify(path)} is a directory`);
    }
    const parts = key.split("/");
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join("/");
      if (this.#files.has(dir)) {
        throw new TypeError(`${JSON.stringify(dir)} is a file, not a directory`);
      }
      this.#directories.add(dir);
    }
    const bytes = typeof content === "string" ? encodeUtf8(content) : new Uint8Array(content);
    this.#files.set(key, { bytes, mtimeMs: Date.now(), version: ++this.#versions });
  }

  /** Normalises a path against the root "/" and applies the deny rules. */
  protected override resolvePath(path: string, forWrite: boolean): Promise<StorePath> {
    const key = this.#key(path);
    if (this.#denied(key === "." ? "" : key)) return Promise.reject(new DeniedPathError(path));
    const exists = this.#files.has(key) || this.#isDirectory(key);
    if (!exists && !forWrite) return Promise.reject(new NotFoundError(path));
    return Promise.resolve({ key, display: key, exists });
  }

  /** Kind and size of a file or directory. */
  protected override statPath(node: WalkNode): Promise<PathStat> {
    const file = this.#files.get(node.key);
    if (file) {
      return Promise.resolve({
        kind: "file",
        size: file.bytes.length,
        mtimeMs: file.mtimeMs,
        identity: String(file.version),
      });
    }
    if (this.#isDirectory(node.key)) {
      return Promise.resolve({ kind: "directory", size: 0, mtimeMs: 0 });
    }
    return Promise.reject(new NotFoundError(node.display));
  }

  /** A copy of a file's bytes; its version counts the writes. */
  protected override readFile(node: WalkNode, maxBytes: number | undefined): Promise<FileBytes> {
    const file = this.#files.get(node.key);
    if (file === undefined) {
      return Promise.reject(
        this.#isDirectory(node.key)
          ? new NotAFileError(node.display, "a directory")
          : new NotFoundError(node.display),
      );
    }
    if (maxBytes !== undefined && file.bytes.length > maxBytes) {
      return Promise.reject(new FileTooLargeError(node.display, file.bytes.length, maxBytes));
    }
    return Promise.resolve({ bytes: file.bytes.slice(), version: file.version });
  }

  /** The entries one level below a directory, denied ones left out. */
  protected override listDirectory(dir: WalkNode): Promise<DirEntry[]> {
    const prefix = dir.key === "." ? "" : dir.key + "/";
    const entries = new Map<string, DirEntry>();
    for (const key of [...this.#directories, ...this.#files.keys()]) {
      if (key === "." || !key.startsWith(prefix)) continue;
      const name = key.slice(prefix.length).split("/")[0];
      const child = prefix + name;
      if (entries.has(name) || this.#denied(child)) continue;
      const file = this.#files.get(child);
      entries.set(name, {
        name,
        kind: file ? "file" : "directory",
        size: file ? file.bytes.length : 0,
        symlink: false,
      });
    }
    return Promise.resolve([...entries.values()]);
  }

  /** Sets a file, refusing an existing one without overwrite or a changed one. */
  protected override writeFile(
    node: StorePath,
    bytes: Uint8Array,
    options: WriteFileOptions,
  ): Promise<void> {
    const current = this.#files.get(node.key);
    if (this.#isDirectory(node.key)) {
      return Promise.reject(new NotAFileError(node.display, "a directory"));
    }
    if (current && !options.overwrite) return Promise.reject(new FileExistsError(node.display));
    if (options.ifVersion !== undefined && current?.version !== options.ifVersion) {
      return Promise.reject(new FileChangedError(node.display));
    }
    try {
      this.set(node.key, bytes);
    } catch (error) {
      if (error instanceof TypeError) return Promise.reject(new NotFoundError(node.display));
      throw error;
    }
    return Promise.resolve();
  }

  /** Removes a file; directories stay. */
  protected override deletePath(node: StorePath): Promise<void> {
    if (!this.#files.has(node.key)) {
      return Promise.reject(
        this.#isDirectory(node.key)
          ? new NotAFileError(node.display, "a directory")
          : new NotFoundError(node.display),
      );
    }
    this.#files.delete(node.key);
    return Promise.resolve();
  }

  /**
   * Renames a file, or a directory with everything under it; a directory that holds a denied
   * path, or whose entries would become denied, is refused (a move must not carry a file
   * out of its deny rule, or into one).
   */
  protected override movePath(
    from: StorePath,
    to: StorePath,
    options: { overwrite: boolean; kind: "file" | "directory" },
  ): Promise<void> {
    if (to.exists) {
      const there = this.#isDirectory(to.key) ? "directory" : "file";
      try {
        refuseMoveOver(to.display, options.kind === "directory", there, options.overwrite);
      } catch (error) {
        return Promise.reject(error);
      }
    }
    const under = (key: string) => key === from.key || key.startsWith(from.key + "/");
    const moved = (key: string) => to.key + key.slice(from.key.length);
    const keys = [...this.#files.keys(), ...this.#directories].filter(under);
    if (keys.some((key) => this.#denied(key) || this.#denied(moved(key)))) {
      return Promise.reject(
        new MoveRefusedError(
          from.display,
          "a deny rule matches something in it or where it would go",
        ),
      );
    }
    const parts = to.key.split("/");
    for (let i = 1; i < parts.length; i++) {
      const parent = parts.slice(0, i).join("/");
      if (this.#files.has(parent)) return Promise.reject(new NotADirectoryError(parent));
    }
    for (const key of keys.filter((key) => this.#files.has(key))) {
      const file = this.#files.get(key)!;
      this.#files.delete(key);
      this.set(moved(key), file.bytes);
    }
    for (const key of keys.filter((key) => this.#directories.has(key))) {
      this.#directories.delete(key);
      this.#directories.add(moved(key));
    }
    return Promise.resolve();
  }

  /** The normalised key of a caller's path: relative, `/`-separated, "." for the root. */
  #key(path: string): string {
    const clean = cleanUserPath(path);
    const parts: string[] = [];
    for (const part of segments(clean)) {
      if (part !== "..") parts.push(part);
      else if (parts.pop() === undefined) throw new PathOutsideRootError(path);
    }
    return parts.length === 0 ? "." : parts.join("/");
  }

  #isDirectory(key: string): boolean {
    return this.#directories.has(key);
  }
}
