/**
 * The file system by path through `node:fs` (see `file_system.ts`), where the handle-relative
 * calls are missing: the last component is opened with `O_NOFOLLOW`, but a directory higher
 * up that is swapped for a symlink between the sandbox's check and the call is followed.
 *
 * @module
 */
import * as fs from "node:fs";
import { nativePath, SEPARATOR } from "./native_path.ts";
import { releaseLockFile, tryLockFile } from "./_lock_files.ts";
import { nodePathOf } from "./path_bytes.ts";
import { decodeName } from "./path_bytes.ts";
import { type FileStat, fromNodeStat, type StatKind } from "./file_stat.ts";
import { type IdentityKind, identityOfStat } from "./file_identity.ts";
import type { DirHandle, FileSystem, RawDirEntry, SharedFileSystem } from "./_file_system_types.ts";
import { NOT_WRITABLE } from "./_errno.ts";

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL } = fs.constants;
const O_NONBLOCK = fs.constants.O_NONBLOCK ?? 0;
const O_NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;
const OPEN_READ = O_RDONLY | O_NONBLOCK | O_NOFOLLOW;

class PathFileSystem implements FileSystem {
  readonly raceFree = false;
  readonly racyBecause: string;
  readonly roots: readonly string[];

  constructor(roots: readonly string[], racyBecause: string) {
    this.roots = roots;
    this.racyBecause = racyBecause;
  }

  openRead(path: string): number {
    return fs.openSync(nodePathOf(path), OPEN_READ);
  }

  lstat(path: string): FileStat {
    return fromNodeStat(fs.lstatSync(nodePathOf(path), { bigint: true }));
  }

  readlink(path: string): string {
    return decodeName(fs.readlinkSync(nodePathOf(path), { encoding: "buffer" }));
  }

  openDir(path: string): DirHandle {
    if (!fs.lstatSync(nodePathOf(path)).isDirectory()) {
      throw Object.assign(new Error(`ENOTDIR: not a directory, opendir '${path}'`), {
        code: "ENOTDIR",
      });
    }
    return new PathDirHandle(path);
  }

  openDirCreating(path: string): { dir: DirHandle; created: string[] } {
    const created: string[] = [];
    const root = this.roots.filter((r) => !nativePath.relative(r, path).startsWith(".."))
      .reduce((a, b) => (a.length >= b.length ? a : b), "");
    let at = root;
    try {
      for (const part of nativePath.relative(root, path).split(nativePath.sep)) {
        if (part === "") continue;
        at = nativePath.join(at, part);
        try {
          fs.mkdirSync(nodePathOf(at), 0o777);
          created.push(at);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
          if (!fs.lstatSync(nodePathOf(at)).isDirectory()) throw enotdir(at);
        }
      }
    } catch (error) {
      throw Object.assign(error as Error, { created });
    }
    return { dir: this.openDir(path), created };
  }

  read(fd: number, buffer: Uint8Array, offset: number, length: number, position: number): number {
    return fs.readSync(fd, buffer, offset, length, position);
  }

  readAsync(
    fd: number,
    buffer: Uint8Array,
    offset: number,
    length: number,
    position: number,
  ): Promise<number> {
    return new Promise((resolve, reject) => {
      fs.read(
        fd,
        buffer,
        offset,
        length,
        position,
        (error, n) => error ? reject(error) : resolve(n),
      );
    });
  }

  write(
    fd: number,
    bytes: Uint8Array,
    offset: number,
    length: number,
    position: number,
  ): Promise<number> {
    return new Promise((resolve, reject) => {
      fs.write(
        fd,
        bytes,
        offset,
        length,
        position,
        (error, n) => error ? reject(error) : resolve(n),
      );
    });
  }

  fstat(fd: number): FileStat {
    return fromNodeStat(fs.fstatSync(fd, { bigint: true }));
  }

  fchmod(fd: number, mode: number): void {
    fs.fchmodSync(fd, mode);
  }

  fchown(fd: number, uid: number, gid: number): void {
    fs.fchownSync(fd, uid, gid);
  }

  fsync(fd: number): Promise<void> {
    return new Promise((resolve, reject) => fs.fsync(fd, (e) => e ? reject(e) : resolve()));
  }

  close(fd: number): void {
    releaseLockFile(fd);
    fs.closeSync(fd);
  }

  tryLock(fd: number): boolean {
    // (node:fs has no flock: the lock file alone, which every linewise process takes.)
    const { dev, ino } = fs.fstatSync(fd, { bigint: true });
    return tryLockFile(fd, { dev, ino });
  }

  narrowed(roots: readonly string[]): FileSystem {
    return new PathFileSystem(roots, this.racyBecause);
  }

  share(): SharedFileSystem {
    return { kind: "path", roots: [...this.roots], racyBecause: this.racyBecause };
  }
}

class PathDirHandle implements DirHandle {
  readonly path: string;

  constructor(path: string) {
    this.path = path;
  }

  list(): RawDirEntry[] {
    const dirents = fs.readdirSync(nodePathOf(this.path), { withFileTypes: true });
    // A name that is not valid UTF-8 comes back with U+FFFD: list again as bytes.
    if (!dirents.some((dirent) => String(dirent.name).includes("\uFFFD"))) {
      return dirents.map((dirent) => ({ name: String(dirent.name), kind: kindOf(dirent) }));
    }
    // (Without the types: Bun cannot give both. Deno gives U+FFFD again; such names are lost.)
    const raw = fs.readdirSync(nodePathOf(this.path), { encoding: "buffer" });
    return raw.map((name) => ({ name: decodeName(name), kind: undefined }));
  }

  lstat(name: string): FileStat {
    return fromNodeStat(fs.lstatSync(this.#at(name), { bigint: true }));
  }

  identify(name: string | null, out: Uint32Array, at: number): IdentityKind | undefined {
    try {
      const path = name === null ? nodePathOf(this.path) : this.#at(name);
      return identityOfStat(fromNodeStat(fs.lstatSync(path, { bigint: true })), out, at);
    } catch {
      return undefined;
    }
  }

  readlink(name: string): string {
    return decodeName(fs.readlinkSync(this.#at(name), { encoding: "buffer" }));
  }

  create(name: string, mode: number): number {
    return fs.openSync(this.#at(name), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode);
  }

  openRead(name: string): number {
    return fs.openSync(this.#at(name), OPEN_READ);
  }

  writable(name: string): boolean {
    let fd: number;
    try {
      fd = fs.openSync(this.#at(name), O_WRONLY | O_NONBLOCK | O_NOFOLLOW);
    } catch (error) {
      if (NOT_WRITABLE.has((error as NodeJS.ErrnoException).code ?? "")) return false;
      throw error;
    }
    fs.closeSync(fd);
    return true;
  }

  rename(from: string, to: string): void {
    fs.renameSync(this.#at(from), this.#at(to));
  }

  moveTo(from: string, target: DirHandle, to: string, noReplace: boolean): void {
    const destination = (target as PathDirHandle).#at(to);
    // (node:fs has no rename that refuses to replace: checked just before, one more of the
    // windows this racy fallback admits.)
    if (noReplace && fs.existsSync(destination)) {
      throw Object.assign(new Error(`EEXIST: ${target.path}/${to} exists`), { code: "EEXIST" });
    }
    fs.renameSync(this.#at(from), destination);
  }

  link(from: string, to: string): void {
    fs.linkSync(this.#at(from), this.#at(to));
  }

  unlink(name: string): void {
    fs.unlinkSync(this.#at(name));
  }

  mkdir(name: string, mode: number): void {
    fs.mkdirSync(this.#at(name), mode);
  }

  rmdir(name: string): void {
    fs.rmdirSync(this.#at(name));
  }

  async sync(): Promise<void> {
    const fd = fs.openSync(nodePathOf(this.path), O_RDONLY);
    try {
      await new Promise<void>((resolve, reject) => fs.fsync(fd, (e) => e ? reject(e) : resolve()));
    } finally {
      fs.closeSync(fd);
    }
  }

  close(): void {}

  #at(name: string) {
    if (name === "" || name === "." || name === ".." || SEPARATOR.test(name)) {
      throw new TypeError(`${JSON.stringify(name)} is not a single name`);
    }
    return nodePathOf(nativePath.join(this.path, name));
  }
}

function kindOf(dirent: fs.Dirent): StatKind | undefined {
  if (dirent.isFile()) return "file";
  if (dirent.isDirectory()) return "directory";
  if (dirent.isSymbolicLink()) return "symlink";
  if (dirent.isFIFO()) return "fifo";
  if (dirent.isSocket()) return "socket";
  if (dirent.isCharacterDevice() || dirent.isBlockDevice()) return "device";
  return undefined;
}

function enotdir(path: string): Error {
  return Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${path}'`), { code: "ENOTDIR" });
}

/**
 * The file system by path.
 *
 * @param roots the roots' real paths
 * @param racyBecause why the handle-relative calls are not used
 * @returns the file system
 */
export function openPathFileSystem(roots: readonly string[], racyBecause: string): FileSystem {
  return new PathFileSystem(roots, racyBecause);
}
