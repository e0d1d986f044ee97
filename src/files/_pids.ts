/**
 * Whether a process still runs, for files a linewise process names with its id (the
 * watcher's private directory, temporary files of writes) and leaves behind when it is
 * killed.
 *
 * @module
 */
import process from "node:process";
import { osErrorCode } from "./_os_errors.ts";

/**
 * Whether a process with this id runs (one of another user's counts: EPERM).
 *
 * @param pid the process id
 * @returns true when it runs
 */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return osErrorCode(error) === "EPERM";
  }
}
