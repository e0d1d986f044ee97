// Where an edit is computed. The core's edits are synchronous, and on the thread that answers
// requests a large one held every other request: replace_all of 3,145,728 occurrences in a
// file of 24 MB kept a ping waiting 4.1 s. An edit of a text of OFF_THREAD_CHARS or more is
// computed on a worker of its own, started for it and ended with it (a cancelled call ends
// it at once); a smaller one, or one where the runtime has no workers (Node) or a worker
// failed (then every later one too), is computed here.
import { reportWorkerFailure, startWorker } from "../../io/runtime.ts";
import {
  type ComputedEdit,
  type EditAnswer,
  type EditJob,
  kept,
  type PostedJob,
  rebuiltError,
  runEditJob,
} from "./_edit_jobs.ts";

/**
 * The length of text (UTF-16 code units) from which an edit is computed on a worker. Below
 * it the worker's start and the copies of the text cost more than the edit could hold the
 * thread (at 1 MiB, replace_all of every line: about 0.1 s).
 */
export const OFF_THREAD_CHARS = 1 << 20;

/** Whether an edit worker failed to start or failed later: edits are then computed here. */
let failed = false;

/**
 * Computes an edit: on a worker for a large text, else here.
 *
 * @param job the edit and the file's text
 * @param bytes the file's bytes (the text's UTF-8), which a worker is given a copy of
 * @param signal ends the worker and rejects with its reason when aborted
 * @returns the core's result, with the first `job.keep` regions
 * @throws what the core throws, as its own class (a refusal of the input, or a bug)
 */
export async function computeEdit(
  job: EditJob,
  bytes: Uint8Array,
  signal?: AbortSignal,
): Promise<ComputedEdit> {
  signal?.throwIfAborted();
  if (job.text.length < OFF_THREAD_CHARS || failed) return kept(runEditJob(job), job.keep);
  const worker = startWorker("edit");
  if (worker === undefined) {
    failed = true;
    return kept(runEditJob(job), job.keep);
  }
  let abort = () => {};
  try {
    const answer = await new Promise<EditAnswer | undefined>((resolve, reject) => {
      abort = () => reject(signal!.reason);
      signal?.addEventListener("abort", abort, { once: true });
      worker.onmessage = (event: MessageEvent<EditAnswer>) => resolve(event.data);
      worker.onerror = worker.onmessageerror = (event: Event) => {
        event.preventDefault(); // (Deno would otherwise end the process)
        reportWorkerFailure("edit", event);
        failed = true;
        resolve(undefined);
      };
      const { text, ...spec } = job;
      const copy = new Uint8Array(bytes);
      const posted: PostedJob = { ...spec, bytes: copy, length: text.length };
      worker.postMessage(posted, [copy.buffer]);
    });
    if (answer === undefined) return kept(runEditJob(job), job.keep);
    if ("error" in answer) throw rebuiltError(answer.error);
    return answer.result;
  } finally {
    signal?.removeEventListener("abort", abort);
    worker.terminate();
  }
}
