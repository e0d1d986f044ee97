// An edit of a large file computed on a thread of its own (see _edit_thread.ts).
import { answerPostedJob, type PostedJob } from "./_edit_jobs.ts";

/** The part of a worker's global scope used here (the lib of `deno check` is the window's). */
interface WorkerScope {
  onmessage: ((event: MessageEvent<PostedJob>) => void) | null;
  postMessage(message: unknown): void;
}

const scope = globalThis as unknown as WorkerScope;
scope.onmessage = (event) => scope.postMessage(answerPostedJob(event.data));
