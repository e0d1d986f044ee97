/**
 * The helper process that scans for patterns that may run without end (see
 * `stoppable_scan.ts`): JSON lines of {@linkcode ScanRequest} on stdin, one
 * {@linkcode ScanReply} line each on stdout. It holds no file and no permission; the main
 * process kills it when a scan's time is up.
 *
 * @module
 */
import process from "node:process";
import { killWithParent } from "../io/libc.ts";
import { builtin } from "../io/runtime.ts";
import { answerScan, type ScanRequest } from "./_pattern_scan.ts";

/** The environment variable that makes the binary run as this helper. */
export const PATTERN_HELPER_ENV = "LINEWISE_PATTERN_HELPER";
/** The environment variable that names the helper's parent (its process id). */
export const PATTERN_PARENT_ENV = "LINEWISE_PATTERN_PARENT";

/**
 * Where the parent's end cannot end the helper (no `prctl` to ask for it: Node), a thread that
 * ends it once its parent is gone (the helper is then another process's child): the helper's
 * own thread may be deep in a match, and never hear that its stdin ended.
 *
 * @param parent the parent's process id
 */
function endWithParent(parent: number): void {
  const { Worker } = builtin<typeof import("node:worker_threads")>("node:worker_threads");
  const watch = `const { workerData } = require("node:worker_threads");
setInterval(() => { if (process.ppid !== workerData) process.kill(process.pid, "SIGKILL"); }, 250);`;
  new Worker(watch, { eval: true, workerData: parent }).unref();
}

/**
 * Answers requests from stdin until it ends. The helper dies with the thread that started
 * it: one stuck in a match never reads that its stdin ended, so a server that was killed
 * (or a search thread that was replaced) would leave it matching, a core busy, forever.
 *
 * @returns when stdin has ended, or at once when the parent is gone already
 */
export async function runPatternHelper(): Promise<void> {
  // (Run from source it is the last argument; the binary run as the helper has no arguments.)
  const parent = Number(process.argv[2] ?? process.env[PATTERN_PARENT_ENV]);
  // (A parent that ended before the call was made sends no signal: it is asked after.)
  const dies = killWithParent();
  if (Number.isInteger(parent)) {
    if (process.ppid !== parent) return;
    if (!dies) endWithParent(parent);
  }
  const { createInterface } = builtin<typeof import("node:readline")>("node:readline");
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (line === "") continue;
    const reply = answerScan(JSON.parse(line) as ScanRequest);
    process.stdout.write(JSON.stringify(reply) + "\n");
  }
}
