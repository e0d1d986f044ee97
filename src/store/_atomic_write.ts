// Atomic file writes: a temporary file in the same directory, fsync, then rename (or a
// hard link, for "create, never replace"), then fsync of the directory. After a crash the
// target holds the old or the new content, never a mix or a truncation.
import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import * as fs from "node:fs/promises";
import * as nodePath from "node:path";
import { isMissing, mapOsError, osErrorCode } from "./_os_errors.ts";
import { FileExistsError } from "./errors.ts";

const OPEN_TEMP = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL |
  (constants.O_NOFOLLOW ?? 0);

/** Hard links are not supported here: fall back to check-then-rename for "create, never replace". */
const NO_HARD_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "EXDEV", "ENOSYS", "EMLINK"]);

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
  }
  await syncDirectory(dir);
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
  return `.${base}.${randomBytes(6).toString("hex")}.linewise-tmp`;
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
