/**
 * The private directory of a {@linkcode TreeWatcher}'s barrier, in the system's temporary
 * folder. Its name carries the server's process id, so that a server killed before it could
 * remove its own (SIGKILL, a crash) has it removed by the next one that starts watching.
 *
 * @module
 */
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { isRunning } from "./_pids.ts";

/** How a barrier directory's name starts; the process id and random characters follow. */
export const BARRIER_PREFIX = "linewise-watch-";

/** A barrier directory's name, with the process id. */
const BARRIER_NAME = new RegExp(`^${BARRIER_PREFIX}(\\d+)-`);

/**
 * Creates a new barrier directory, first removing those of servers that are gone.
 *
 * @param parent where to create it
 * @returns its path
 */
export function createBarrierDir(parent: string = tmpdir()): string {
  removeStaleBarrierDirs(parent);
  return fs.mkdtempSync(join(parent, `${BARRIER_PREFIX}${process.pid}-`));
}

/**
 * Removes a barrier directory, or a file in it, if it can: a server that cannot (out of file
 * descriptors, say) leaves it for the next one to remove (see
 * {@linkcode removeStaleBarrierDirs}) rather than fail the work it was tidying after.
 *
 * @param path the directory or file
 */
export function removeQuietly(path: string): void {
  try {
    fs.rmSync(path, { recursive: true, force: true });
  } catch {
    // (Left for the next server.)
  }
}

/**
 * Removes the barrier directories in `parent` whose process is no longer running. A
 * directory of another user's server, or of a process that reused a dead server's id, is
 * left alone, and so is one whose removal fails for any reason: the temporary folder is
 * anyone's, and what is there (a directory someone keeps changing, a mount) must not keep a
 * server from starting. It is tidying, not the server's work.
 *
 * @param parent the folder to look in
 * @param remove removes one directory and all it holds (tests stand in another)
 * @returns the names removed
 */
export function removeStaleBarrierDirs(
  parent: string,
  remove: (path: string) => void = (path) => fs.rmSync(path, { recursive: true, force: true }),
): string[] {
  const removed: string[] = [];
  for (const name of fs.readdirSync(parent)) {
    const pid = BARRIER_NAME.exec(name)?.[1];
    if (pid === undefined || isRunning(Number(pid))) continue;
    try {
      remove(join(parent, name));
      removed.push(name);
    } catch {
      // (Left as it is: see above.)
    }
  }
  return removed;
}
