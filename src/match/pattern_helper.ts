/**
 * The helper process that scans for patterns that may run without end (see
 * `stoppable_scan.ts`): JSON lines of {@linkcode ScanRequest} on stdin, one
 * {@linkcode ScanReply} line each on stdout. It holds no file and no permission; the main
 * process kills it when a scan's time is up.
 *
 * @module
 */
import { createInterface } from "node:readline";
import process from "node:process";
import { answerScan, type ScanRequest } from "./_pattern_scan.ts";

/** The environment variable that makes the binary run as this helper. */
export const PATTERN_HELPER_ENV = "LINEWISE_PATTERN_HELPER";

/**
 * Answers requests from stdin until it ends.
 *
 * @returns when stdin has ended
 */
export async function runPatternHelper(): Promise<void> {
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (line === "") continue;
    const reply = answerScan(JSON.parse(line) as ScanRequest);
    process.stdout.write(JSON.stringify(reply) + "\n");
  }
}
