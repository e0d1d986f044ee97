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
import { type SharedFileSystem, sharedFileSystem } from "../io/file_system.ts";
import { collectGarbageWhenIdle } from "../io/runtime.ts";
import { FileReader } from "../io/_file_reader.ts";
import { lowerThisThread, offerCoreFromNowOn } from "../io/thread_priority.ts";
import { examineFile, indexFile, WHOLE_FILE_BYTES } from "./_search_file.ts";
import type { IndexJob, IndexReply } from "./index/_file_filters.ts";
import { type CheckJob, type CheckReply, filesHeld } from "./index/_cache_checks.ts";
import type { ReadPlan } from "./index/_block_filters.ts";
import {
  BATCH_SIZE,
  claimForWorker,
  handOver,
  type OfferCore,
  type SearchBatches,
  type SearchJob,
} from "./_search_pool.ts";

/** The part of a worker's global scope used here (the lib of `deno check` is the window's). */
interface WorkerScope {
  onmessage:
    | ((
      event: MessageEvent<SearchJob | SearchBatches | IndexJob | CheckJob | OfferCore>,
    ) => void)
    | null;
  postMessage(message: unknown, transfer?: Transferable[]): void;
}

const scope = globalThis as unknown as WorkerScope;
// (Behind the thread that answers: a read or a ping gets a core at once, a search the rest.)
lowerThisThread();
/** One reader per file system shared with this worker (its buffer is reused). */
const readers = new Map<string, FileReader>();
let reader: FileReader | undefined;
let job: SearchJob | undefined;

function readerFor(shared: SharedFileSystem): FileReader {
  const key = JSON.stringify(shared);
  let found = readers.get(key);
  if (found === undefined) {
    found = new FileReader(sharedFileSystem(shared), WHOLE_FILE_BYTES);
    readers.set(key, found);
  }
  return found;
}
let claims: Int32Array | undefined;
const batches: string[][] = [];
/** What to read of some files of the search, by position. */
const plans = new Map<number, ReadPlan>();

scope.onmessage = (event) => {
  const data = event.data;
  if ("offerCore" in data) return offerCoreFromNowOn(); // (its first message, if any)
  if ("check" in data) {
    // A share of the files of an index kept on disk, checked beside the index's thread.
    const { keys, identities, files } = data.check;
    const reply: CheckReply = { held: filesHeld(readerFor(files).files, keys, identities) };
    scope.postMessage(reply, [reply.held.buffer as ArrayBuffer]);
    return;
  }
  if ("index" in data) {
    // A worker of the search index: filters of files, handed over without a copy.
    const indexer = readerFor(data.files);
    const reply: IndexReply = { indexed: data.index.map((key) => indexFile(indexer, key)) };
    const filters = reply.indexed.flatMap((file) => [
      ...file.filter ? [file.filter.buffer as ArrayBuffer] : [],
      ...file.blocks?.filters.map((filter) => filter.buffer as ArrayBuffer) ?? [],
    ]);
    scope.postMessage(reply, filters);
    collectGarbageWhenIdle();
    return;
  }
  if ("paths" in data) {
    const paths = data.paths.split("\0");
    for (const [at, plan] of data.plans ?? []) plans.set(at, plan);
    for (let i = 0; i < paths.length; i += BATCH_SIZE) batches.push(paths.slice(i, i + BATCH_SIZE));
  } else {
    // A new search (the worker may be kept warm between searches).
    job = data;
    claims = new Int32Array(data.counter);
    reader = readerFor(data.files);
    batches.length = 0;
    plans.clear();
  }
  if (job === undefined || claims === undefined || reader === undefined) return;
  const current = job;
  const examiner = reader;
  // Examine every batch known and not claimed by the main thread; more arrive as messages.
  for (let batch = claimForWorker(claims, batches.length); batch !== -1;) {
    const from = batch * BATCH_SIZE;
    const outcomes = batches[batch].map((key, i) =>
      examineFile(examiner, key, current, plans.get(from + i), from + i, claims)
    );
    handOver(claims, { id: current.id, batch, outcomes }, (message) => scope.postMessage(message));
    batch = claimForWorker(claims, batches.length);
  }
  collectGarbageWhenIdle();
};
