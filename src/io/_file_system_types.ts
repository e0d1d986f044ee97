/**
 * The types of the file system (see `file_system.ts`, which opens one), apart so that its
 * implementations need not import the module that chooses between them.
 *
 * @module
 */
import type { FileStat, StatKind } from "./file_stat.ts";
import type { IdentityKind } from "./file_identity.ts";

/** One entry of a directory. */
export interface RawDirEntry {
  /** Its name (invalid UTF-8 as U+DC80-U+DCFF, see `path_bytes.ts`). */
  name: string;
  /** What it is, when the directory listing says (some file systems do not). */
  kind: StatKind | undefined;
}

/** An open directory: every operation is relative to it (names are single components). */
export interface DirHandle {
  /** The directory's real path, as opened. */
  readonly path: string;
  /** Its entries, without `.` and `..`, in the system's order. */
  list(): RawDirEntry[];
  /** Stat of an entry, not following a symlink. */
  lstat(name: string): FileStat;
  /**
   * Writes the identity (see `file_identity.ts`) of an entry, not following a symlink, or of
   * the directory itself (`name` null) into `out` at `at`.
   *
   * @returns what it is of; undefined when it is neither a regular file with one name nor
   *   a directory, or cannot be stat'ed
   */
  identify(name: string | null, out: Uint32Array, at: number): IdentityKind | undefined;
  /** A symlink entry's target. */
  readlink(name: string): string;
  /** Creates a new file for writing (`O_EXCL`, never through a symlink). */
  create(name: string, mode: number): number;
  /** Opens an entry for reading (never through a symlink, never blocking on a FIFO). */
  openRead(name: string): number;
  /**
   * Whether this process may write an entry, as the kernel decides an open for writing: by
   * mode, owner and group; root may write anything, and nothing on a read-only mount.
   */
  writable(name: string): boolean;
  /** Renames an entry within the directory, replacing the target. */
  rename(from: string, to: string): void;
  /**
   * Swaps two entries of the directory atomically (`renameat2` with `RENAME_EXCHANGE`);
   * absent where there is no such call. A file system without it fails with EINVAL.
   */
  exchange?(a: string, b: string): void;

  /**
   * Renames entry `from` of this directory to `to` in directory `target` (which may be this
   * one), refusing with EEXIST when `to` exists and `noReplace` (atomically where the
   * system allows).
   */
  moveTo(from: string, target: DirHandle, to: string, noReplace: boolean): void;
  /** Gives an entry a second name in the directory (fails with EEXIST if taken). */
  link(from: string, to: string): void;
  /** Removes a file or symlink entry. */
  unlink(name: string): void;
  /** Creates a subdirectory. */
  mkdir(name: string, mode: number): void;
  /** Removes an empty subdirectory. */
  rmdir(name: string): void;
  /** Makes the directory's entries durable. */
  sync(): Promise<void>;
  /** Closes the handle. */
  close(): void;
}

/** What a worker thread needs to reach the same files through the same handles. */
export type SharedFileSystem =
  | { kind: "at"; roots: [path: string, fd: number, base: string][]; openat2: boolean }
  | { kind: "path"; roots: string[]; racyBecause: string };

/** The file system below a set of roots, by real paths, following no symlink. */
export interface FileSystem {
  /** Whether every operation is relative to a directory handle, so none can be raced. */
  readonly raceFree: boolean;
  /** When not race-free, what is missing here (for the warning). */
  readonly racyBecause: string | undefined;
  /** The real paths of the roots. */
  readonly roots: readonly string[];
  /** Opens a file for reading (non-blocking, so a FIFO never hangs). */
  openRead(path: string): number;
  /** Stat of a path, not following a symlink at its end. */
  lstat(path: string): FileStat;

  /** A symlink's target. */
  readlink(path: string): string;
  /** Opens a directory for operations relative to it. */
  openDir(path: string): DirHandle;
  /**
   * Opens a directory, creating it and its missing parents first (0o777 less the umask).
   * When it fails midway, the error it throws carries `created`: the directories it made.
   *
   * @returns the directory's handle, and the directories created, outermost first
   */
  openDirCreating(path: string): { dir: DirHandle; created: string[] };
  /** Reads at a position; returns the bytes read (0 at the end). */
  read(fd: number, buffer: Uint8Array, offset: number, length: number, position: number): number;
  /**
   * {@linkcode read} of what is in memory alone (the page cache): it never waits for the
   * disk, and gives -1 when none of the bytes asked for are there, or when the file system
   * cannot tell. Absent where there is no such read.
   */
  readCached?(
    fd: number,
    buffer: Uint8Array,
    offset: number,
    length: number,
    position: number,
  ): number;
  /** {@linkcode read} off the calling thread. */
  readAsync(
    fd: number,
    buffer: Uint8Array,
    offset: number,
    length: number,
    position: number,
  ): Promise<number>;
  /** Writes at a position, off the calling thread; returns the bytes written. */
  write(
    fd: number,
    bytes: Uint8Array,
    offset: number,
    length: number,
    position: number,
  ): Promise<number>;
  /** Stat of an open file. */
  fstat(fd: number): FileStat;
  /** Sets an open file's mode. */
  fchmod(fd: number, mode: number): void;
  /** Sets an open file's owner and group. */
  fchown(fd: number, uid: number, gid: number): void;
  /** Makes an open file's content durable. */
  fsync(fd: number): Promise<void>;
  /** Closes a descriptor. */
  close(fd: number): void;
  /**
   * Tries to take an exclusive advisory lock on an open file (`flock`, and the lock file every
   * linewise process takes: `_lock_files.ts`), released when it is closed.
   *
   * @returns true when taken, false when another holds it, undefined where there are no locks
   */
  tryLock(fd: number): boolean | undefined;
  /** The same file system limited to directories inside the roots (opened beneath them). */
  narrowed(roots: readonly string[]): FileSystem;
  /** What a worker thread passes to `sharedFileSystem`. */
  share(): SharedFileSystem;
}

/** Options of `openFileSystem`. */
export interface FileSystemOptions {
  /**
   * Use handle-relative system calls where the runtime can make them; false forces
   * `node:fs` by path (resolution can then be raced).
   * @default true
   */
  raceFree?: boolean;
  /**
   * Use `openat2` where the kernel has it; false opens one component at a time with
   * `openat`, as on kernels without it (for tests of that path).
   * @default true
   */
  openat2?: boolean;
}
