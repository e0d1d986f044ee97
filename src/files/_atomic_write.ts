// Atomic file writes: a temporary file in the same directory, fsync, then rename (or a
// hard link, for "create, never replace"), then fsync of the directory. After a crash the
// target holds the old or the new content, never a mix or a truncation. Every step is made
// relative to the directory's handle, so a directory swapped on the way cannot redirect it.
//
// The temporary file is hidden and named with the process id. A process stopped by a signal
// removes those it is writing (removeTempFilesInFlight); one killed outright leaves them,
// and a later write into the same directory removes them once they are a minute old.
import { unlinkSync } from "node:fs";
import { nativePath } from "../io/native_path.ts";
import { randomHex } from "../io/hashes.ts";
import process from "node:process";
import type { DirHandle, FileSystem } from "../io/file_system.ts";
import { isMissing, mapOsError, osErrorCode } from "./_os_errors.ts";
import { isRunning } from "./_pids.ts";
import { FileExistsError } from "../store/errors.ts";

/** Hard links are not supported here: fall back to check-then-rename for "create, never replace". */
const NO_HARD_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "EXDEV", "ENOSYS", "EMLINK"]);

/** A temporary file's name: `.<target's name>.<pid>-<12 hex digits>.linewise-tmp`. */
const TEMP_NAME = /^\..*\.(\d+)-[0-9a-f]{12}\.linewise-tmp$/;

/** How old another process's temporary file must be before it counts as abandoned. */
const ABANDONED_AFTER_MS = 60_000;

/** This process's temporary files being written now. */
const inFlight = new Set<string>();

/** Directory fsync is not possible here (Windows, some file systems); the rename stands. */
const NO_DIRECTORY_SYNC = new Set(["EISDIR", "EINVAL", "EPERM", "EBADF", "EACCES", "ENOTSUP"]);

/** A file's owner and group. */
export interface Owner {
  uid: number;
  gid: number;
}

/** How {@linkcode writeAtomically} puts the new content in place. */
export interface AtomicWriteOptions {
  /** The path as shown to the caller, for errors. */
  display: string;
  /** File mode for the new content (an overwritten file's mode); default 0o666 less umask. */
  mode?: number;
  /**
   * The execute bits, as git's modes give them: true sets them where the mode has read bits
   * (100755; a new file is made 0o777 less the umask), false clears them (100644); undefined
   * leaves `mode` as it is.
   */
  executable?: boolean;
  /**
   * Owner and group to keep (an overwritten file's). Where the process may not give the file
   * to them, the file gets the process's, and loses setuid (and setgid) as `cp` drops them.
   */
  owner?: Owner;
  /** Replace an existing target; otherwise refuse it with FileExistsError, atomically. */
  overwrite: boolean;
  /**
   * Remove the temporary files killed processes left in the directory (once per directory
   * per process is enough).
   */
  tidy: boolean;
  /** Names the tidying must leave, whatever they look like (a store's denied files). */
  untouchable?: (name: string) => boolean;
  /**
   * Runs after the temporary file is complete, just before the rename with no await between
   * (an edit's check that the file is still what it read); it throws to refuse.
   */
  beforeRename?: () => void;
  /**
   * Checks the file the new content replaced, once it is in place: where the directory can
   * swap two entries, the new content is swapped with the target instead of renamed over it,
   * and this is called with the name the replaced file has then (undefined when there was
   * none: the target went after `beforeRename`). When it throws, the replaced file is put back
   * (unless another writer replaced the new content meanwhile) and the write refused. A writer
   * that takes no lock and renames its file into place just before the swap is caught so,
   * where a check before a rename could not catch it. Where nothing can swap, the rename
   * stands and only `beforeRename` checks.
   */
  replaced?: (aside: string | undefined) => void;
  /** Aborted before the rename: nothing is put in place (after it, the write is done). */
  signal?: AbortSignal;
}

/**
 * Writes `bytes` to the entry `name` of an open directory atomically.
 *
 * @param files the file system
 * @param dir the target's directory, open
 * @param name the target's name in it
 * @param bytes the content
 * @param options mode, owner, whether to replace, and the last checks
 */
export async function writeAtomically(
  files: FileSystem,
  dir: DirHandle,
  name: string,
  bytes: Uint8Array,
  options: AtomicWriteOptions,
): Promise<void> {
  let temp: string | undefined;
  try {
    if (options.tidy) removeAbandonedTempFiles(dir, ABANDONED_AFTER_MS, options.untouchable);
    temp = tempName(name);
    inFlight.add(nativePath.join(dir.path, temp));
    await fillTemp(files, dir, temp, bytes, options);
    // No await from here to the rename: a cancel heard now stops the write, one heard after
    // it finds the write done.
    options.beforeRename?.();
    options.signal?.throwIfAborted();
    if (!options.overwrite) createFrom(dir, temp, name, options.display);
    else if (!swapped(dir, temp, name, options.replaced)) dir.rename(temp, name);
    else removeQuietly(dir, temp); // (the file replaced, as a rename would have removed it)
    inFlight.delete(nativePath.join(dir.path, temp));
    temp = undefined;
  } catch (error) {
    if (temp !== undefined) {
      removeQuietly(dir, temp);
      inFlight.delete(nativePath.join(dir.path, temp));
    }
    throw mapOsError(error, options.display, "write");
  }
  await syncDirectory(dir);
}

/** Why a swap is not possible here: the caller renames instead. */
const NO_EXCHANGE = new Set(["EINVAL", "ENOSYS", "EOPNOTSUPP", "ENOTSUP"]);

/**
 * Puts the temporary file in place by swapping it with the target, and checks what it
 * replaced (see `AtomicWriteOptions.replaced`); a check that throws puts that back first.
 *
 * @returns true when swapped and checked (`temp` then names the replaced file), false when
 *   the caller must rename
 */
function swapped(
  dir: DirHandle,
  temp: string,
  name: string,
  replaced: AtomicWriteOptions["replaced"],
): boolean {
  if (replaced === undefined || dir.exchange === undefined) return false;
  const ours = dir.lstat(temp);
  try {
    dir.exchange(temp, name);
  } catch (error) {
    const code = osErrorCode(error);
    if (code === "ENOENT") replaced(undefined); // (nothing to replace: may it be made?)
    else if (!NO_EXCHANGE.has(code ?? "")) throw error;
    return false;
  }
  try {
    replaced(temp);
  } catch (error) {
    // (Put back while the new content is still there: a rename of another writer's made
    // since stands, and what was swapped out is older than it.)
    try {
      const now = dir.lstat(name);
      if (now.dev === ours.dev && now.ino === ours.ino) dir.exchange(temp, name);
    } catch {
      // (Gone, or it cannot be swapped back: the refusal stands, and says the file changed.)
    }
    throw error;
  }
  return true;
}

/** Writes the temporary file whole, with its owner and mode, and makes it durable. */

async function fillTemp(
  files: FileSystem,
  dir: DirHandle,
  temp: string,
  bytes: Uint8Array,
  options: AtomicWriteOptions,
): Promise<void> {
  const made = options.mode ?? (options.executable ? 0o777 : 0o666);
  const fd = dir.create(temp, made & 0o777);
  try {
    let written = 0;
    while (written < bytes.length) {
      written += await files.write(fd, bytes, written, bytes.length - written, written);
    }
    let mode = options.mode === undefined
      ? undefined
      : withExecutable(options.mode, options.executable);
    if (options.owner !== undefined && mode !== undefined) {
      mode &= ~lostBits(files, fd, options.owner);
    }
    // (After the owner: changing it clears setuid and setgid.)
    if (mode !== undefined) files.fchmod(fd, mode);
    await files.fsync(fd);
  } finally {
    files.close(fd);
  }
}

/** A mode with its execute bits set where it has read bits, or cleared (see `executable`). */
function withExecutable(mode: number, executable: boolean | undefined): number {
  if (executable === undefined) return mode;
  return executable ? mode | ((mode & 0o444) >> 2) : mode & ~0o111;
}

const S_ISUID = 0o4000;

const S_ISGID = 0o2000;

/**
 * Gives the new file the owner and group of the one it replaces, where the process may;
 * returns the mode bits that must go for the rest (setuid without the owner, setgid
 * without the group).
 */
function lostBits(files: FileSystem, fd: number, owner: Owner): number {
  const now = files.fstat(fd);
  if (now.uid === owner.uid && now.gid === owner.gid) return 0;
  if (tryChown(files, fd, owner.uid, owner.gid)) return 0;
  // Not the owner, but perhaps the group (a member may give a file to its group).
  const group = now.gid !== owner.gid && tryChown(files, fd, now.uid, owner.gid);
  return S_ISUID | (group || now.gid === owner.gid ? 0 : S_ISGID);
}

function tryChown(files: FileSystem, fd: number, uid: number, gid: number): boolean {
  try {
    files.fchown(fd, uid, gid);
    return true;
  } catch (error) {
    if (osErrorCode(error) === "EPERM" || osErrorCode(error) === "EINVAL") return false;
    throw error;
  }
}

/**
 * Removes the temporary files this process is writing now, at once: for a process about to
 * end by a signal, whose writes will never finish. Their targets keep their old content.
 */
export function removeTempFilesInFlight(): void {
  for (const temp of inFlight) {
    try {
      unlinkSync(temp);
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
  }
  inFlight.clear();
}

/**
 * Removes from a directory the temporary files of processes that no longer run (killed in
 * the middle of a write), once they are old enough that no write of theirs can be under way
 * (another machine's process on a shared file system would not be seen running). It is
 * tidying: a name it must not touch is left, and so is anything it cannot list or remove,
 * and the write goes on.
 *
 * @param dir the directory
 * @param olderThanMs how old a file must be
 * @param untouchable names to leave whatever they look like (a store's denied files)
 * @returns the names removed
 */
export function removeAbandonedTempFiles(
  dir: DirHandle,
  olderThanMs: number = ABANDONED_AFTER_MS,
  untouchable?: (name: string) => boolean,
): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = dir.list().map((entry) => entry.name);
  } catch {
    return removed;
  }
  for (const name of names) {
    const pid = TEMP_NAME.exec(name)?.[1];
    if (pid === undefined || Number(pid) === process.pid || isRunning(Number(pid))) continue;
    if (untouchable?.(name)) continue;
    try {
      const stat = dir.lstat(name);
      if (stat.kind !== "file" || Date.now() - stat.mtimeMs < olderThanMs) continue;
      dir.unlink(name);
      removed.push(name);
    } catch {
      // (Gone, another user's, or busy: left as it is.)
    }
  }
  return removed;
}

/** A hidden temporary name next to the target (hidden, so walks never show it). */
function tempName(target: string): string {
  const base = target.slice(0, 64);
  return `.${base}.${process.pid}-${randomHex(6)}.linewise-tmp`;
}

/** Puts the temporary file in place only if nothing is there: link() refuses atomically. */
function createFrom(dir: DirHandle, temp: string, name: string, display: string): void {
  try {
    dir.link(temp, name);
  } catch (error) {
    const code = osErrorCode(error);
    if (code === "EEXIST") throw new FileExistsError(display);
    if (code === undefined || !NO_HARD_LINKS.has(code)) throw error;
    try {
      dir.lstat(name);
      throw new FileExistsError(display);
    } catch (missing) {
      if (!isMissing(missing)) throw missing;
    }
    dir.rename(temp, name);
    return;
  }
  removeQuietly(dir, temp);
}

/** Removes a temporary file; one that is already gone is fine. */
function removeQuietly(dir: DirHandle, name: string): void {
  try {
    dir.unlink(name);
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
}

const LEFT_TO_OTHERS = new Set(["ENOTEMPTY", "EEXIST", "ENOENT", "ENOTDIR", "EBUSY", "ELOOP"]);

/**
 * Removes the directories a failed write created, deepest first (each only if still empty:
 * what is in one now is someone else's).
 *
 * @param files the file system
 * @param created the directories, outermost first
 */
export function removeCreated(files: FileSystem, created: readonly string[]): void {
  for (const path of [...created].reverse()) {
    try {
      const parent = files.openDir(nativePath.dirname(path));
      try {
        parent.rmdir(nativePath.basename(path));
      } finally {
        parent.close();
      }
    } catch (error) {
      if (LEFT_TO_OTHERS.has(osErrorCode(error) ?? "")) return;
      throw error;
    }
  }
}

/** Makes a rename durable: fsync the directory, where the system allows it. */
async function syncDirectory(dir: DirHandle): Promise<void> {
  try {
    await dir.sync();
  } catch (error) {
    const code = osErrorCode(error);
    if (code === undefined || !NO_DIRECTORY_SYNC.has(code)) {
      throw mapOsError(error, dir.path, "write");
    }
  }
}
