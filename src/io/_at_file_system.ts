/**
 * The handle-relative file system (see `file_system.ts`): Linux system calls through FFI.
 * Each root is opened once; a path is opened from its root's handle by `openat2` with
 * `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS`, so the kernel itself
 * refuses a symlink or a `..` on the way. Where `openat2` is missing (Linux before 5.6, or
 * a seccomp filter that refuses it), the path is opened one component at a time with
 * `openat(..., O_NOFOLLOW)` from the handle opened last, which refuses the same things.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { constants } from "node:fs";
import { decodeName } from "./path_bytes.ts";
import { cString } from "./path_bytes.ts";
import { releaseLockFile, tryLockFile } from "./_lock_files.ts";
import { ERRNO, NOT_WRITABLE, systemError } from "./_errno.ts";
import { type FileStat, parseStatx, STATX_BASIC_STATS, STATX_BYTES } from "./file_stat.ts";
import type { StatKind } from "./file_stat.ts";
import { type IdentityKind, identityOfStatx } from "./file_identity.ts";
import type { DirHandle, FileSystem, RawDirEntry, SharedFileSystem } from "./_file_system_types.ts";
import type { Libc } from "./libc.ts";
import { offerCore } from "./thread_priority.ts";

/** What {@linkcode AtFileSystem.readCached} takes for "not in memory, or cannot tell". */
const CANNOT_TELL = new Set<number>([
  ERRNO.EAGAIN,
  ERRNO.EOPNOTSUPP,
  ERRNO.EINVAL,
  ERRNO.ENOSYS,
]);

const O_RDONLY = constants.O_RDONLY;
const O_WRONLY = constants.O_WRONLY;
const O_CREAT = constants.O_CREAT;
const O_EXCL = constants.O_EXCL;
const O_NONBLOCK = constants.O_NONBLOCK;
const O_DIRECTORY = constants.O_DIRECTORY;
const O_NOFOLLOW = constants.O_NOFOLLOW;
const O_CLOEXEC = 0o2000000;
const O_PATH = 0o10000000;
const AT_FDCWD = -100;
const AT_SYMLINK_NOFOLLOW = 0x100;
const RENAME_NOREPLACE = 1;
const RENAME_EXCHANGE = 2;
const AT_REMOVEDIR = 0x200;
const AT_EMPTY_PATH = 0x1000;
const RESOLVE_NO_MAGICLINKS = 0x02;
const RESOLVE_NO_SYMLINKS = 0x04;
const RESOLVE_BENEATH = 0x08;
const LOCK_EX = 2;
const LOCK_NB = 4;
const DT_KINDS: Record<number, StatKind> = {
  1: "fifo",
  2: "device",
  4: "directory",
  6: "device",
  8: "file",
  10: "symlink",
  12: "socket",
};
const EMPTY = new Uint8Array(1); // "" for the calls on a descriptor itself
/** A rename on the way makes `openat2` ask for a retry (EAGAIN); a few are enough. */
const RETRIES = 8;

/** Buffers reused by the calls of one thread (every call here is synchronous). */
export class Scratch {
  path = new Uint8Array(4096 + 1);
  second = new Uint8Array(4096 + 1);
  how = new Uint8Array(24);
  howView = new DataView(this.how.buffer);
  /** The open flags `how` holds for {@linkcode openHow} (-1: none yet). */
  howFlags = -1;
  statx = new Uint8Array(STATX_BYTES);
  statxWords = new Uint32Array(this.statx.buffer);
  link = new Uint8Array(4096);
  dirents = new Uint8Array(64 * 1024);
  direntsView = new DataView(this.dirents.buffer);
  /** The same bytes, for decoding names without a view per name. */
  direntsText = Buffer.from(this.dirents.buffer);

  /**
   * `how` of an `openat2` beneath a root following no symlink, with these open flags (set
   * only when they differ from the last call's: most opens of a search are alike).
   */
  openHow(flags: number): Uint8Array {
    if (flags !== this.howFlags) {
      this.howView.setBigUint64(0, BigInt(flags), true);
      this.howView.setBigUint64(8, 0n, true);
      this.howView.setBigUint64(
        16,
        BigInt(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS),
        true,
      );
      this.howFlags = flags;
    }
    return this.how;
  }
}

/**
 * The entries of the first `n` bytes of `s.dirents`, records as `getdents64` fills them, but
 * for "." and "..", added to `entries`.
 *
 * @param s the buffers (`dirents` and its views)
 * @param n how many bytes of records there are
 * @param entries where the entries go
 */
export function direntEntries(s: Scratch, n: number, entries: RawDirEntry[]): void {
  const { dirents: buffer, direntsView: view, direntsText: text } = s;
  // struct linux_dirent64: u64 ino, s64 off, u16 reclen, u8 type, char name[].
  for (let at = 0; at < n;) {
    const length = view.getUint16(at + 16, true);
    const type = buffer[at + 18];
    const start = at + 19;
    // (The name ends at a NUL within the record; a byte of 0x80 or more makes it more than
    // ASCII.)
    const limit = at + length;
    let end = start;
    let high = 0;
    for (; end < limit && buffer[end] !== 0; end++) high |= buffer[end];
    at = limit;
    if (end === start + 1 && buffer[start] === 0x2e) continue; // "."
    if (end === start + 2 && buffer[start] === 0x2e && buffer[start + 1] === 0x2e) continue;
    const name = high < 0x80
      ? text.toString("latin1", start, end)
      : decodeName(buffer.subarray(start, end));
    entries.push({ name, kind: DT_KINDS[type] });
  }
}

/** A root: its real path and its handle. */
interface Root {
  path: string;
  /** A handle of the directory at `base`. */
  fd: number;
  /**
   * Where `fd` is: the root itself, or for a root narrowed from another, that one's. Paths
   * are opened from there, so a narrowed root moved away is no way out of its original one.
   */
  base: string;
}

/** A root, with what the real paths beneath it start with. */
interface Place extends Root {
  prefix: string;
}

class AtFileSystem implements FileSystem {
  readonly raceFree = true;
  readonly racyBecause = undefined;
  readonly roots: readonly string[];
  readonly #c: Libc;
  /** The roots and their handles, in the order given (the first anchors relative paths). */
  readonly #given: readonly Root[];
  /** Deepest first, so that a nested root wins. */
  readonly #places: Place[];
  readonly #openat2: boolean;
  readonly #s = new Scratch();

  constructor(c: Libc, roots: Root[], openat2: boolean) {
    this.#c = c;
    this.#given = roots;
    this.roots = roots.map((root) => root.path);
    this.#places = roots.map((root) => ({
      ...root,
      prefix: root.path === "/" ? "/" : root.path + "/",
    }))
      .sort((a, b) => b.path.length - a.path.length);
    this.#openat2 = openat2;
  }

  openRead(path: string): number {
    return this.#open(path, O_RDONLY | O_NONBLOCK, "open");
  }

  lstat(path: string): FileStat {
    const fd = this.#open(path, O_PATH, "lstat");
    try {
      return this.fstat(fd);
    } finally {
      this.#c.close(fd);
    }
  }

  readlink(path: string): string {
    const fd = this.#open(path, O_PATH, "readlink");
    try {
      return readlinkAt(this.#c, this.#s, fd, EMPTY, path);
    } finally {
      this.#c.close(fd);
    }
  }

  openDir(path: string): DirHandle {
    return new AtDirHandle(
      this.#c,
      this.#s,
      path,
      this.#open(path, O_RDONLY | O_DIRECTORY, "opendir"),
    );
  }

  openDirCreating(path: string): { dir: DirHandle; created: string[] } {
    const { root, rel } = this.#place(path);
    const created: string[] = [];
    const c = this.#c;
    const parts = rel === "." ? ["."] : rel.split("/");
    let dir = root.fd;
    let at = root.base;
    try {
      for (let i = 0; i < parts.length; i++) {
        const part = parts[i];
        if (part !== ".") at = at === "/" ? `/${part}` : `${at}/${part}`;
        // The last one is opened for listing and syncing; the ones on the way as paths only.
        const flags = (i === parts.length - 1 ? O_RDONLY : O_PATH) | O_DIRECTORY | O_NOFOLLOW |
          O_CLOEXEC;
        const name = cString(part, this.#s.path);
        let next = c.openat(dir, name, flags, 0);
        if (next < 0 && c.errno() === ERRNO.ENOENT) {
          if (c.mkdirat(dir, name, 0o777) === 0) created.push(at);
          else if (c.errno() !== ERRNO.EEXIST) throw systemError(c.errno(), "mkdir", at);
          next = c.openat(dir, name, flags, 0);
        }
        if (next < 0) throw systemError(c.errno(), "mkdir", at);
        if (dir !== root.fd) c.close(dir);
        dir = next;
      }
    } catch (error) {
      if (dir !== root.fd) c.close(dir);
      throw Object.assign(error as Error, { created });
    }
    return { dir: new AtDirHandle(c, this.#s, path, dir), created };
  }

  read(fd: number, buffer: Uint8Array, offset: number, length: number, position: number): number {
    const into = offset === 0 && length === buffer.length
      ? buffer
      : buffer.subarray(offset, offset + length);
    const n = this.#c.pread(fd, into, length, position);
    if (n < 0) throw systemError(this.#c.errno(), "read");
    return n;
  }

  readCached(
    fd: number,
    buffer: Uint8Array,
    offset: number,
    length: number,
    position: number,
  ): number {
    // (At most the view's length: the kernel writes where the call says, past the view too.)
    const into = buffer.subarray(offset, offset + length);
    const n = this.#c.preadCached(fd, into, into.length, position);
    if (n >= 0) return n;
    const errno = this.#c.errno();
    // Not in memory; or a file system that cannot read without waiting, or a kernel before
    // 4.14 (without RWF_NOWAIT: EINVAL) or without preadv2 (ENOSYS). A read that fails for
    // another reason fails again as the caller reads the bytes the other way.
    if (CANNOT_TELL.has(errno)) return -1;
    throw systemError(errno, "read");
  }

  async readAsync(
    fd: number,
    buffer: Uint8Array,
    offset: number,
    length: number,
    position: number,
  ): Promise<number> {
    const n = await this.#c.preadAsync(
      fd,
      buffer.subarray(offset, offset + length),
      length,
      position,
    );
    if (n < 0) throw systemError(-n, "read");
    return n;
  }

  async write(
    fd: number,
    bytes: Uint8Array,
    offset: number,
    length: number,
    position: number,
  ): Promise<number> {
    const n = await this.#c.pwriteAsync(
      fd,
      bytes.subarray(offset, offset + length),
      length,
      position,
    );
    if (n < 0) throw systemError(-n, "write");
    return n;
  }

  fstat(fd: number): FileStat {
    return statxAt(this.#c, this.#s, fd, EMPTY, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW);
  }

  fchmod(fd: number, mode: number): void {
    if (this.#c.fchmod(fd, mode) !== 0) throw systemError(this.#c.errno(), "fchmod");
  }

  fchown(fd: number, uid: number, gid: number): void {
    if (this.#c.fchown(fd, uid, gid) !== 0) throw systemError(this.#c.errno(), "fchown");
  }

  async fsync(fd: number): Promise<void> {
    const n = await this.#c.fsyncAsync(fd);
    if (n < 0) throw systemError(-n, "fsync");
  }

  close(fd: number): void {
    releaseLockFile(fd);
    // (A failed close has released the descriptor all the same; nothing to do about it.)
    this.#c.close(fd);
  }

  tryLock(fd: number): boolean {
    // (And the lock file, which linewise processes on Node, which has no flock, take.)
    if (this.#c.flock(fd, LOCK_EX | LOCK_NB) === 0) return tryLockFile(fd, this.fstat(fd));
    const errno = this.#c.errno();
    if (errno === ERRNO.EAGAIN) return false;
    throw systemError(errno, "flock");
  }

  narrowed(roots: readonly string[]): FileSystem {
    // (Each a directory now, reached beneath a root of this one: its paths are opened from that
    // root's handle, never from one of the narrowed directory, which could be moved out.)
    const narrowed = roots.map((path) => {
      this.#c.close(this.#open(path, O_PATH | O_DIRECTORY, "open"));
      const { root } = this.#place(path);
      return { path, fd: root.fd, base: root.base };
    });
    return new AtFileSystem(this.#c, narrowed, this.#openat2);
  }

  share(): SharedFileSystem {
    return {
      kind: "at",
      // (In their order: a nested root first would anchor another thread's relative paths.)
      roots: this.#given.map((root) => [root.path, root.fd, root.base]),
      openat2: this.#openat2,
    };
  }

  /** The root a real path lies in, and the path relative to its handle's directory. */
  #place(path: string): { root: Root; rel: string } {
    for (const root of this.#places) {
      if (path !== root.path && !path.startsWith(root.prefix)) continue;
      const { base } = root;
      return { root, rel: path === base ? "." : path.slice(base === "/" ? 1 : base.length + 1) };
    }
    // The sandbox hands over only paths inside the roots: this is a bug, not a refusal.
    throw systemError(ERRNO.EXDEV, "open", path);
  }

  /** Opens a real path beneath its root, following no symlink. */
  #open(path: string, flags: number, syscall: string): number {
    offerCore(); // (in a search thread, while a request or an answer waits)
    const { root, rel } = this.#place(path);
    const all = flags | O_NOFOLLOW | O_CLOEXEC;
    if (!this.#openat2) return this.#openEachComponent(root.fd, rel, all, path, syscall);
    const c = this.#c;
    const s = this.#s;
    const how = s.openHow(all);
    const name = cString(rel, s.path);
    for (let attempt = 0;; attempt++) {
      const fd = c.openat2(root.fd, name, how);
      if (fd >= 0) return fd;
      const errno = c.errno();
      if ((errno === ERRNO.EAGAIN || errno === ERRNO.EINTR) && attempt < RETRIES) continue;
      throw systemError(errno, syscall, path);
    }
  }

  /** {@linkcode #open} without `openat2`: one `openat` per component, none followed. */
  #openEachComponent(
    rootFd: number,
    rel: string,
    flags: number,
    path: string,
    syscall: string,
  ): number {
    const c = this.#c;
    const parts = rel === "." ? ["."] : rel.split("/");
    let dir = rootFd;
    try {
      for (let i = 0; i < parts.length - 1; i++) {
        const next = c.openat(
          dir,
          cString(parts[i], this.#s.path),
          O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC,
          0,
        );
        if (next < 0) throw systemError(c.errno(), syscall, path);
        if (dir !== rootFd) c.close(dir);
        dir = next;
      }
      const fd = c.openat(dir, cString(parts[parts.length - 1], this.#s.path), flags, 0);
      if (fd < 0) throw systemError(c.errno(), syscall, path);
      return fd;
    } finally {
      if (dir !== rootFd) c.close(dir);
    }
  }
}

class AtDirHandle implements DirHandle {
  readonly path: string;
  readonly #c: Libc;
  readonly #s: Scratch;
  readonly #fd: number;
  #listed = false;

  constructor(c: Libc, s: Scratch, path: string, fd: number) {
    this.#c = c;
    this.#s = s;
    this.path = path;
    this.#fd = fd;
  }

  list(): RawDirEntry[] {
    const c = this.#c;
    const s = this.#s;
    // (A listing reads the handle to its end: listed again, it starts over. A walk lists
    // each handle once, and needs no seek.)
    if (this.#listed && c.lseek(this.#fd, 0, 0) < 0) {
      throw systemError(c.errno(), "lseek", this.path);
    }
    this.#listed = true;
    const entries: RawDirEntry[] = [];
    for (;;) {
      const n = c.getdents64(this.#fd, s.dirents, s.dirents.length);
      if (n < 0) throw systemError(c.errno(), "scandir", this.path);
      if (n === 0) return entries;
      direntEntries(s, n, entries);
    }
  }

  lstat(name: string): FileStat {
    return statxAt(this.#c, this.#s, this.#fd, this.#name(name), AT_SYMLINK_NOFOLLOW);
  }

  identify(name: string | null, out: Uint32Array, at: number): IdentityKind | undefined {
    const s = this.#s;
    const path = name === null ? EMPTY : this.#name(name);
    const flags = AT_SYMLINK_NOFOLLOW | (name === null ? AT_EMPTY_PATH : 0);
    if (this.#c.statx(this.#fd, path, flags, STATX_BASIC_STATS, s.statx) !== 0) return undefined;
    return identityOfStatx(s.statxWords, out, at);
  }

  readlink(name: string): string {
    return readlinkAt(this.#c, this.#s, this.#fd, this.#name(name), `${this.path}/${name}`);
  }

  create(name: string, mode: number): number {
    const flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
    const fd = this.#c.openat(this.#fd, this.#name(name), flags, mode);
    if (fd < 0) throw systemError(this.#c.errno(), "open", `${this.path}/${name}`);
    return fd;
  }

  openRead(name: string): number {
    const flags = O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC;
    const fd = this.#c.openat(this.#fd, this.#name(name), flags, 0);
    if (fd < 0) throw systemError(this.#c.errno(), "open", `${this.path}/${name}`);
    return fd;
  }

  writable(name: string): boolean {
    const flags = O_WRONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC;
    const fd = this.#c.openat(this.#fd, this.#name(name), flags, 0);
    if (fd >= 0) {
      this.#c.close(fd);
      return true;
    }
    const error = systemError(this.#c.errno(), "open", `${this.path}/${name}`);
    if (NOT_WRITABLE.has(error.code)) return false;
    throw error;
  }

  rename(from: string, to: string): void {
    const c = this.#c;
    if (c.renameat(this.#fd, this.#name(from), this.#fd, this.#second(to)) !== 0) {
      throw systemError(c.errno(), "rename", `${this.path}/${to}`);
    }
  }

  exchange(a: string, b: string): void {
    const c = this.#c;
    if (c.renameat2(this.#fd, this.#name(a), this.#fd, this.#second(b), RENAME_EXCHANGE) !== 0) {
      throw systemError(c.errno(), "rename", `${this.path}/${b}`);
    }
  }

  moveTo(from: string, target: DirHandle, to: string, noReplace: boolean): void {
    const c = this.#c;
    const other = (target as AtDirHandle).#fd;
    const flags = noReplace ? RENAME_NOREPLACE : 0;
    if (c.renameat2(this.#fd, this.#name(from), other, this.#second(to), flags) !== 0) {
      throw systemError(c.errno(), "rename", `${target.path}/${to}`);
    }
  }

  link(from: string, to: string): void {
    const c = this.#c;
    if (c.linkat(this.#fd, this.#name(from), this.#fd, this.#second(to), 0) !== 0) {
      throw systemError(c.errno(), "link", `${this.path}/${to}`);
    }
  }

  unlink(name: string): void {
    if (this.#c.unlinkat(this.#fd, this.#name(name), 0) !== 0) {
      throw systemError(this.#c.errno(), "unlink", `${this.path}/${name}`);
    }
  }

  mkdir(name: string, mode: number): void {
    if (this.#c.mkdirat(this.#fd, this.#name(name), mode) !== 0) {
      throw systemError(this.#c.errno(), "mkdir", `${this.path}/${name}`);
    }
  }

  rmdir(name: string): void {
    if (this.#c.unlinkat(this.#fd, this.#name(name), AT_REMOVEDIR) !== 0) {
      throw systemError(this.#c.errno(), "rmdir", `${this.path}/${name}`);
    }
  }

  async sync(): Promise<void> {
    const n = await this.#c.fsyncAsync(this.#fd);
    if (n < 0) throw systemError(-n, "fsync", this.path);
  }

  close(): void {
    this.#c.close(this.#fd);
  }

  #name(name: string): Uint8Array {
    return cString(checkedName(name), this.#s.path);
  }

  #second(name: string): Uint8Array {
    return cString(checkedName(name), this.#s.second);
  }
}

/** A name relative to a directory handle must be one component. */
function checkedName(name: string): string {
  if (name === "" || name === "." || name === ".." || name.includes("/")) {
    throw new TypeError(`${JSON.stringify(name)} is not a single name`);
  }
  return name;
}

function statxAt(c: Libc, s: Scratch, dirfd: number, name: Uint8Array, flags: number): FileStat {
  if (c.statx(dirfd, name, flags, STATX_BASIC_STATS, s.statx) !== 0) {
    throw systemError(c.errno(), "lstat");
  }
  return parseStatx(s.statx);
}

function readlinkAt(c: Libc, s: Scratch, dirfd: number, name: Uint8Array, path: string): string {
  const n = c.readlinkat(dirfd, name, s.link, s.link.length);
  if (n < 0) throw systemError(c.errno(), "readlink", path);
  if (n === s.link.length) throw systemError(ERRNO.ERANGE, "readlink", path);
  return decodeName(s.link.subarray(0, n));
}

/**
 * Opens the roots and the handle-relative file system over them, using `openat2` when the
 * kernel offers it.
 *
 * @param c the C library
 * @param roots the roots' real paths
 * @param options `openat2: false` opens one component at a time even where `openat2` works
 * @returns the file system
 */
export function openAtFileSystem(
  c: Libc,
  roots: readonly string[],
  options: { openat2?: boolean } = {},
): FileSystem {
  const s = new Scratch();
  const opened = roots.map((path) => {
    const fd = c.openat(AT_FDCWD, cString(path, s.path), O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
    if (fd < 0) throw systemError(c.errno(), "open", path);
    return { path, fd, base: path };
  });
  const openat2 = options.openat2 !== false && hasOpenat2(c, opened[0].fd, s);
  return new AtFileSystem(c, opened, openat2);
}

/**
 * The handle-relative file system over handles another thread opened (not closed here).
 *
 * @param c this thread's C library
 * @param shared the roots and their handles
 * @returns the file system
 */
export function sharedAtFileSystem(
  c: Libc,
  shared: Extract<SharedFileSystem, { kind: "at" }>,
): FileSystem {
  const roots = shared.roots.map(([path, fd, base]) => ({ path, fd, base }));
  return new AtFileSystem(c, roots, shared.openat2);
}

/** Whether `openat2` works here (a kernel before 5.6, or a seccomp filter, refuses it). */
function hasOpenat2(c: Libc, rootFd: number, s: Scratch): boolean {
  const fd = c.openat2(rootFd, cString(".", s.path), s.openHow(O_PATH | O_CLOEXEC));
  if (fd >= 0) {
    c.close(fd);
    return true;
  }
  return false;
}
