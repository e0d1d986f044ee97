// The helper as a worker, under Deno where it may not run a process (see stoppable_scan.ts):
// the same scan as the helper process, over messages. Terminating it answers at the budget,
// but Deno leaves the thread matching (denoland/deno#35657).
import { answerScan, type ScanRequest } from "./_pattern_scan.ts";

/** The part of a worker's global scope used here (the lib of `deno check` is the window's). */
interface WorkerScope {
  onmessage: ((event: MessageEvent<ScanRequest>) => void) | null;
  postMessage(message: unknown): void;
}

const scope = globalThis as unknown as WorkerScope;
scope.onmessage = (event) => scope.postMessage(answerScan(event.data));
