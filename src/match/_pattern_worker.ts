// The helper as a worker, where terminating a worker stops a running match (V8: Deno,
// Node): the same scan as the helper process, over messages.
import { answerScan, type ScanRequest } from "./_pattern_scan.ts";

/** The part of a worker's global scope used here (the lib of `deno check` is the window's). */
interface WorkerScope {
  onmessage: ((event: MessageEvent<ScanRequest>) => void) | null;
  postMessage(message: unknown): void;
}

const scope = globalThis as unknown as WorkerScope;
scope.onmessage = (event) => scope.postMessage(answerScan(event.data));
