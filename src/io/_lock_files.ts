/**
 * Edit locks as files, beside `flock`: Node has no `flock`, so a linewise process on Node
 * locks a file by creating one in a folder of the user's own (`linewise-locks-<uid>` in the
 * system's temporary folder), named for the file's device and inode and holding the pid (and
 * on Linux the start time) of the process that holds it. Every linewise process takes it, on
 * Node alone and beside `flock` where there is one, so that processes of either runtime
 * serialise their edits of one file. A lock whose process is gone (killed while it held it)
 * is taken over. Where the folder cannot be made safe (not ours, or not private) there are
 * no lock files, and `flock` is all there is.
 *
 * @module
 */
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { randomHex } from "./hashes.ts";

/** A file's identity: what its lock file is named for. */
export interface LockedFile {
  dev: bigint;
  ino: bigint;
}

/** The lock files this process holds, by the descriptor whose close releases each. */
const held = new Map<number, { path: string; content: string }>();

let folder: string | null | undefined; // (null: none can be used here)

/**
 * This process as its lock files name it: pid and, where /proc tells it, start time (asked
 * only once the folder is known to be usable: under Deno, /proc may need a permission).
 */
let me: string | undefined;

/** How old a takeover's guard is when the process that made it is taken for gone. */
const GUARD_STALE_MS = 5000;

/**
 * Takes the lock file of an open file.
 *
 * @param fd the descriptor whose close releases it ({@linkcode releaseLockFile})
 * @param file the file's identity
 * @returns true when taken (or where there are no lock files), false when another process
 *   holds it
 */
export function tryLockFile(fd: number, file: LockedFile): boolean {
  const dir = lockFolder();
  if (dir === null) return true;
  me ??= `${process.pid} ${procStat(process.pid)?.started ?? "-"}`;
  const path = join(dir, `${file.dev}-${file.ino}`);
  // (Each lock names its taking too, so that a release removes its own lock alone.)
  const content = `${me} ${randomHex(6)}`;
  for (let attempt = 0; attempt < 3; attempt++) {
    const made = create(path, content);
    if (made === "made") {
      held.set(fd, { path, content });
      return true;
    }
    if (made === "none") return true; // (no lock file then)
    const holder = readOrUndefined(path);
    if (holder === undefined) continue; // (released meanwhile: take it)
    if (holderAlive(holder, path)) return false;
    if (!takeOver(path, holder)) return false;
  }
  return false;
}

/**
 * Makes a lock file holding `content`, whole from the moment it exists: written beside it and
 * linked into place. (Made in place and then written, another process read it empty in
 * between, and such a moment could not be told from another one's: a process that took an
 * empty lock for stale then removed a new one, and two held it.)
 *
 * @returns "made"; "held" when one exists; "none" when lock files cannot be made here
 */
function create(path: string, content: string): "made" | "held" | "none" {
  const temporary = `${path}.${randomHex(6)}.new`;
  try {
    fs.writeFileSync(temporary, content, { flag: "wx", mode: 0o600 });
    fs.linkSync(temporary, path);
    return "made";
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "EEXIST") return "held";
    if (code === "ENOENT") folder = undefined; // (the folder went: made again next time)
    return "none";
  } finally {
    fs.rmSync(temporary, { force: true });
  }
}

/**
 * Removes a stale lock, under a guard that one process at a time holds: two that found the
 * same stale lock would otherwise each remove the other's new one. Within the guard, the
 * lock is removed only while it still holds what was found stale.
 *
 * @returns false when another process is taking it over
 */
function takeOver(path: string, stale: string): boolean {
  const guard = `${path}.takeover`;
  try {
    fs.writeFileSync(guard, "", { flag: "wx", mode: 0o600 });
  } catch {
    // (Another is taking it over; one that was killed doing so leaves an old guard.)
    if (Date.now() - mtimeOf(guard) > GUARD_STALE_MS) fs.rmSync(guard, { force: true });
    return false;
  }
  try {
    if (readOrUndefined(path) === stale) fs.rmSync(path, { force: true });
  } finally {
    fs.rmSync(guard, { force: true });
  }
  return true;
}

function readOrUndefined(path: string): string | undefined {
  try {
    return fs.readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/**
 * Releases the lock file an open file's lock took, if any: called as the descriptor closes.
 *
 * @param fd the descriptor
 */
export function releaseLockFile(fd: number): void {
  const lock = held.get(fd);
  if (lock === undefined) return;
  held.delete(fd);
  // (Only while it is ours: one taken over as stale by mistake is another's now.)
  if (readOrUndefined(lock.path) === lock.content) fs.rmSync(lock.path, { force: true });
}

/** The folder of lock files, made once: ours, a directory, private; else null. */
function lockFolder(): string | null {
  if (folder !== undefined) return folder;
  folder = null;
  // (Under Deno given the roots alone, nothing else is asked for: a prompt would stop a server.)
  const env = ["TMPDIR", "TMP", "TEMP"].map((variable) => ({ name: "env", variable }));
  if (!granted([...env, { name: "sys", kind: "getUid" }])) return folder;
  try {
    const uid = process.getuid?.();
    const dir = join(tmpdir(), `linewise-locks-${uid ?? "user"}`);
    if (!granted([{ name: "read", path: dir }, { name: "write", path: dir }])) return folder;
    try {
      fs.mkdirSync(dir, { mode: 0o700 });
    } catch (error) {
      if ((error as { code?: string }).code !== "EEXIST") return folder;
    }
    const stat = fs.lstatSync(dir);
    const ours = uid === undefined || stat.uid === uid;
    if (stat.isDirectory() && ours && (stat.mode & 0o077) === 0) folder = dir;
  } catch {
    // (No lock files here: flock is all there is.)
  }
  return folder;
}

/** Whether the runtime lets this process do all of these without asking (Deno's permissions). */
function granted(descriptors: Array<Record<string, string>>): boolean {
  const deno = (globalThis as unknown as {
    Deno?: { permissions: { querySync(p: Record<string, string>): { state: string } } };
  }).Deno;
  return deno === undefined ||
    descriptors.every((descriptor) => deno.permissions.querySync(descriptor).state === "granted");
}

/**
 * Whether the process a lock file names still runs: the same one (its start time too), and
 * not a zombie (killed, not yet reaped by its parent).
 */
function holderAlive(holder: string, path: string): boolean {
  const [pid, started] = holder.split(" ");
  // (Empty: made in place by a process of the earlier way, killed before it wrote it.)
  if (holder === "") return Date.now() - mtimeOf(path) < EMPTY_STALE_MS;
  if (!/^\d+$/.test(pid)) return false; // (not one of ours)
  try {
    process.kill(Number(pid), 0);
  } catch (error) {
    if ((error as { code?: string }).code === "ESRCH") return false;
  }
  const now = procStat(Number(pid));
  if (now === undefined) return true; // (no /proc to be read here: its pid alone)
  return now.state !== "Z" && now.state !== "X" &&
    (started === undefined || started === "-" || now.started === started);
}

/** How old an empty lock file is when the process that made it is taken for gone. */
const EMPTY_STALE_MS = 1000;

function mtimeOf(path: string): number {
  try {
    return fs.statSync(path).mtimeMs;
  } catch {
    return 0; // (gone: released)
  }
}

/** A process's state and start time (clock ticks since boot), where /proc tells them. */
function procStat(pid: number): { state: string; started: string } | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // (Fields 3 and 22, counted after the command's closing parenthesis, which may hold spaces.)
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { state: fields[0], started: fields[19] };
  } catch {
    return undefined;
  }
}
