/**
 * The worker thread of a directory search (see `_search_pool.ts`): it claims batches of
 * files from a counter shared with the main thread, examines each file with
 * {@linkcode examineFile} (read, binary check, literal prefilter, decode of the window) and
 * posts the outcomes of each batch back. It never sees the matcher: scanning, the match
 * cap and the order of results stay on the main thread.
 *
 * @module
 */
import { FileReader } from "./_file_reader.ts";
import { examineFile, WHOLE_FILE_BYTES } from "./_search_file.ts";
import type { SearchJob } from "./_search_pool.ts";

/** The part of a worker's global scope used here (the lib of `deno check` is the window's). */
interface WorkerScope {
  onmessage: ((event: MessageEvent<SearchJob>) => void) | null;
  postMessage(message: unknown): void;
}

const scope = globalThis as unknown as WorkerScope;

scope.onmessage = (event) => {
  const { keys, needle, context, counter, batchSize } = event.data;
  const claims = new Int32Array(counter);
  const reader = new FileReader(WHOLE_FILE_BYTES);
  const batches = Math.ceil(keys.length / batchSize);
  for (;;) {
    const batch = Atomics.add(claims, 0, 1);
    if (batch >= batches) break;
    const end = Math.min(keys.length, (batch + 1) * batchSize);
    const outcomes = [];
    for (let i = batch * batchSize; i < end; i++) {
      outcomes.push(examineFile(reader, keys[i], needle, context));
    }
    scope.postMessage({ batch, outcomes });
  }
};
