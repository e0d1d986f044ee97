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
  if (killWithParent() && Number.isInteger(parent) && process.ppid !== parent) return;
  const { createInterface } = builtin<typeof import("node:readline")>("node:readline");
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (line === "") continue;
    const reply = answerScan(JSON.parse(line) as ScanRequest);
    process.stdout.write(JSON.stringify(reply) + "\n");
  }
}
