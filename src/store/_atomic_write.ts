// Atomic file writes: a temporary file in the same directory, fsync, then rename (or a
// hard link, for "create, never replace"), then fsync of the directory. After a crash the
// target holds the old or the new content, never a mix or a truncation.
//
// The temporary file is hidden and named with the process id. A process stopped by a signal
// removes those it is writing (removeTempFilesInFlight); one killed outright leaves them,
// and a later write into the same directory removes them once they are a minute old.
import { randomBytes } from "node:crypto";
import { constants, unlinkSync } from "node:fs";
import * as fs from "node:fs/promises";
import * as nodePath from "node:path";
import process from "node:process";
import { isMissing, mapOsError, osErrorCode } from "./_os_errors.ts";
import { isRunning } from "./_pids.ts";
import { FileExistsError } from "./errors.ts";

const OPEN_TEMP = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL |
  (constants.O_NOFOLLOW ?? 0);

/** Hard links are not supported here: fall back to check-then-rename for "create, never replace". */
const NO_HARD_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "EXDEV", "ENOSYS", "EMLINK"]);

/** A temporary file's name: `.<target's name>.<pid>-<12 hex digits>.linewise-tmp`. */
const TEMP_NAME = /^\..*\.(\d+)-[0-9a-f]{12}\.linewise-tmp$/;

/** How old another process's temporary file must be before it counts as abandoned. */
const ABANDONED_AFTER_MS = 60_000;

/** Errors that leave another process's temporary file to its owner. */
const NOT_OURS = new Set(["EACCES", "EPERM"]);

/** This process's temporary files being written now. */
const inFlight = new Set<string>();

/** Directory fsync is not possible here (Windows, some file systems); the rename stands. */
const NO_DIRECTORY_SYNC = new Set(["EISDIR", "EINVAL", "EPERM", "EBADF", "EACCES", "ENOTSUP"]);

/** How {@linkcode writeAtomically} puts the new content in place. */
export interface AtomicWriteOptions {
  /** The path as shown to the caller, for errors. */
  display: string;
  /** File mode for the new content (an overwritten file's mode); default 0o666 less umask. */
  mode?: number;
  /** Replace an existing target; otherwise refuse it with FileExistsError, atomically. */
  overwrite: boolean;
  /** Runs after the temporary file is complete and before it is put in place. */
  beforePlace?: () => Promise<void>;
}

/** Writes `bytes` to `target` atomically; the target's directory must exist. */
export async function writeAtomically(
  target: string,
  bytes: Uint8Array,
  options: AtomicWriteOptions,
): Promise<void> {
  const dir = nodePath.dirname(target);
  const temp = nodePath.join(dir, tempName(target));
  inFlight.add(temp);
  try {
    const handle = await fs.open(temp, OPEN_TEMP, options.mode ?? 0o666);
    try {
      await writeAll(handle, bytes);
      if (options.mode !== undefined) await handle.chmod(options.mode);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await options.beforePlace?.();
    if (options.overwrite) await fs.rename(temp, target);
    else await createFrom(temp, target, options.display);
  } catch (error) {
    await removeQuietly(temp);
    throw mapOsError(error, options.display, "write");
  } finally {
    inFlight.delete(temp);
  }
  await syncDirectory(dir);
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
 * Removes from `dir` the temporary files of processes that no longer run (killed in the
 * middle of a write), once they are old enough that no write of theirs can be under way
 * (another machine's process on a shared file system would not be seen running).
 *
 * @param dir the directory
 * @param olderThanMs how old a file must be
 * @returns the names removed
 */
export async function removeAbandonedTempFiles(
  dir: string,
  olderThanMs: number = ABANDONED_AFTER_MS,
): Promise<string[]> {
  const removed: string[] = [];
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch (error) {
    if (NOT_OURS.has(osErrorCode(error) ?? "")) return removed; // (a write can still succeed)
    throw error;
  }
  for (const name of names) {
    const pid = TEMP_NAME.exec(name)?.[1];
    if (pid === undefined || Number(pid) === process.pid || isRunning(Number(pid))) continue;
    const path = nodePath.join(dir, name);
    try {
      const stat = await fs.lstat(path);
      if (!stat.isFile() || Date.now() - stat.mtimeMs < olderThanMs) continue;
      await fs.unlink(path);
      removed.push(name);
    } catch (error) {
      if (!isMissing(error) && !NOT_OURS.has(osErrorCode(error) ?? "")) throw error;
    }
  }
  return removed;
}

async function writeAll(handle: fs.FileHandle, bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, written, bytes.length - written, written);
    written += bytesWritten;
  }
}

/** A hidden temporary name next to the target (hidden, so walks never show it). */
function tempName(target: string): string {
  const base = nodePath.basename(target).slice(0, 64);
  return `.${base}.${process.pid}-${randomBytes(6).toString("hex")}.linewise-tmp`;
}

/** Puts the temporary file in place only if nothing is there: link() refuses atomically. */
async function createFrom(temp: string, target: string, display: string): Promise<void> {
  try {
    await fs.link(temp, target);
  } catch (error) {
    const code = osErrorCode(error);
    if (code === "EEXIST") throw new FileExistsError(display);
    if (code === undefined || !NO_HARD_LINKS.has(code)) throw error;
    try {
      await fs.lstat(target);
      throw new FileExistsError(display);
    } catch (missing) {
      if (!isMissing(missing)) throw missing;
    }
    await fs.rename(temp, target);
    return;
  }
  await removeQuietly(temp);
}

/** Removes a temporary file; one that is already gone is fine. */
async function removeQuietly(path: string): Promise<void> {
  try {
    await fs.unlink(path);
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
}

/** Makes a rename durable: fsync the directory, where the system allows it. */
async function syncDirectory(dir: string): Promise<void> {
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(dir, constants.O_RDONLY);
    await handle.sync();
  } catch (error) {
    const code = osErrorCode(error);
    if (code === undefined || !NO_DIRECTORY_SYNC.has(code)) throw mapOsError(error, dir, "write");
  } finally {
    await handle?.close();
  }
}
