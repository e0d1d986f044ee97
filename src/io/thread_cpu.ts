/**
 * The processor time of one thread of this process, read from Linux's `/proc`: what tells a
 * thread that is stuck (it spends processor time and never gets back to its messages) from
 * one that is starved of a core or waits on the system. Elsewhere, and under Deno without
 * `--allow-all` (which alone lets it read `/proc/self`), there is no answer.
 *
 * @module
 */
import * as fs from "node:fs";

/** The units of `/proc`'s times (`USER_HZ`, 100 on every Linux ABI). */
const TICKS_PER_SECOND = 100;

/**
 * The calling thread's id, as `/proc/self/task/` names it.
 *
 * @returns the id, or undefined where `/proc` does not tell it
 * @example
 * ```ts
 * import { thisThreadId } from "./thread_cpu.ts";
 * const id = thisThreadId(); // a number on Linux
 * ```
 */
export function thisThreadId(): number | undefined {
  try {
    const id = Number(fs.readlinkSync("/proc/thread-self").split("/").at(-1));
    return Number.isInteger(id) ? id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The processor time a thread of this process has used, in user and system mode.
 *
 * @param id the thread's id ({@linkcode thisThreadId} on that thread)
 * @returns milliseconds (in steps of 10), or undefined when the thread is gone or `/proc`
 *   does not tell
 * @example
 * ```ts
 * import { thisThreadId, threadCpuMs } from "./thread_cpu.ts";
 * const id = thisThreadId();
 * if (id !== undefined) console.log(threadCpuMs(id));
 * ```
 */
export function threadCpuMs(id: number): number | undefined {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/self/task/${id}/stat`, "latin1");
  } catch {
    return undefined;
  }
  // (After the name in parentheses, which may hold spaces: state is field 3, utime 14.)
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]);
  return Number.isFinite(ticks) ? ticks * (1000 / TICKS_PER_SECOND) : undefined;
}
