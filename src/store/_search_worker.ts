/**
 * The worker thread of a directory search (see `_search_pool.ts`): it is given the job, then
 * the batches of files in order as the walk completes them; it claims batches it knows from
 * a counter shared with the main thread, examines each file with {@linkcode examineFile}
 * (read, binary check, literal prefilter, decode of the window) and posts the outcomes of
 * each batch back. It never sees the matcher: scanning, the match cap and the order of
 * results stay on the main thread.
 *
 * @module
 */
import { FileReader } from "./_file_reader.ts";
import { examineFile, indexFile, WHOLE_FILE_BYTES } from "./_search_file.ts";
import type { IndexJob, IndexReply } from "./_file_filters.ts";
import {
  BATCH_SIZE,
  claimForWorker,
  handOver,
  type SearchBatches,
  type SearchJob,
} from "./_search_pool.ts";

/** The part of a worker's global scope used here (the lib of `deno check` is the window's). */
interface WorkerScope {
  onmessage: ((event: MessageEvent<SearchJob | SearchBatches | IndexJob>) => void) | null;
  postMessage(message: unknown, transfer?: Transferable[]): void;
}

const scope = globalThis as unknown as WorkerScope;
const reader = new FileReader(WHOLE_FILE_BYTES);
let job: SearchJob | undefined;
let claims: Int32Array | undefined;
const batches: string[][] = [];

scope.onmessage = (event) => {
  const data = event.data;
  if ("index" in data) {
    // A worker of the search index: filters of files, handed over without a copy.
    const reply: IndexReply = { indexed: data.index.map((key) => indexFile(reader, key)) };
    const filters = reply.indexed.flatMap((file) =>
      file.filter ? [file.filter.buffer as ArrayBuffer] : []
    );
    scope.postMessage(reply, filters);
    return;
  }
  if ("paths" in data) {
    const paths = data.paths.split("\0");
    for (let i = 0; i < paths.length; i += BATCH_SIZE) batches.push(paths.slice(i, i + BATCH_SIZE));
  } else {
    // A new search (the worker may be kept warm between searches).
    job = data;
    claims = new Int32Array(data.counter);
    batches.length = 0;
  }
  if (job === undefined || claims === undefined) return;
  const current = job;
  // Examine every batch known and not claimed by the main thread; more arrive as messages.
  for (let batch = claimForWorker(claims, batches.length); batch !== -1;) {
    const outcomes = batches[batch].map((key) => examineFile(reader, key, current));
    handOver(claims, { id: current.id, batch, outcomes }, (message) => scope.postMessage(message));
    batch = claimForWorker(claims, batches.length);
  }
};
