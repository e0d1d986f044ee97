/**
 * The search thread (see `_search_thread.ts`): a directory store over the sandbox it is
 * given, with the search index, running the searches posted to it. Each pattern is
 * compiled again here from its recipe (a matcher cannot be posted).
 *
 * @module
 */
import process from "node:process";
import {
  cancelIdleCollection,
  collectGarbage,
  collectGarbageWhenIdle,
  STRINGS_POST_APART,
} from "../io/runtime.ts";
import { lowerThisThread, offerCoreFromNowOn } from "../io/thread_priority.ts";
import { thisThreadId } from "../io/thread_cpu.ts";
import { compilePattern } from "../match/safe_matcher.ts";
import { DirectoryStore } from "./directory_store.ts";
import { quietWhen } from "../search/index/_tree_watcher.ts";
import { keptNumber, packResult, splitStrings } from "./_packed_result.ts";
import { IdleWarmUp } from "./_warm_up.ts";
import { Sandbox } from "./sandbox.ts";
import {
  collectsAtOnce,
  IDLE_AFTER_SEARCH_MS,
  postedError,
  type ThreadInit,
  type ThreadReply,
  type ThreadSearch,
} from "./_search_thread.ts";

/** The part of a worker's global scope used here (the lib of `deno check` is the window's). */
interface WorkerScope {
  onmessage:
    | ((
      event: MessageEvent<ThreadInit | ThreadSearch | { cancel: number } | { ping: true }>,
    ) => void)
    | null;
  postMessage(message: ThreadReply, transfer?: Transferable[]): void;
}

const scope = globalThis as unknown as WorkerScope;
// (Behind the thread that answers: a read or a ping gets a core at once, a search the rest.
// The server alone has this thread: its searches hand their cores over to requests waiting.)
lowerThisThread();
offerCoreFromNowOn();
// (So that a late thread can be told stuck from starved: see SearchThread's probe.)
const threadId = thisThreadId();
if (threadId !== undefined) scope.postMessage({ threadId });
const searches = new Map<number, AbortController>();
let store: DirectoryStore | undefined;
/** The store's warm-up (see `DirectoryStore.warmUp`). */
let warmUp: IdleWarmUp | undefined;

scope.onmessage = (event) => {
  const data = event.data;
  if ("sandbox" in data) {
    // (Stopped by its owner, whatever its watcher meets then goes unsaid.)
    if (data.stopping !== undefined) {
      const flag = new Int32Array(data.stopping);
      quietWhen(() => Atomics.load(flag, 0) === 1);
    }
    // (Its workers are kept between searches: they end with this thread.)
    store = new DirectoryStore(Sandbox.fromShared(data.sandbox), {
      ...data.store,
      watchDir: data.watchDir,
      keepSearchWorkers: true,
    });
    // (Its index is ready once taken from disk, or built after the first search.)
    const warmed = store;
    warmUp = new IdleWarmUp(
      store.searchIndexReady(),
      async (signal) => {
        // (Each result is packed as a search's is, for that code to be compiled too.)
        await warmed.warmUp(signal, (result, query) => void packResult(result, query.rowCut));
        // (What it left is collected as what a search leaves, unless a search runs now.)
        if (searches.size === 0) collectAfter(false, false);
      },
      () => searches.size > 0,
    );
  } else if ("cancel" in data) {
    searches.get(data.cancel)?.abort();
  } else if ("ping" in data) {
    scope.postMessage({ pong: true }); // (alive: see SearchThread's watchdog)
  } else {
    void search(data);
  }
};

async function search({ id, query, held, queued }: ThreadSearch): Promise<void> {
  cancelIdleCollection();
  const controller = new AbortController();
  searches.set(id, controller);
  let repeated = false;
  try {
    await warmUp?.stop();
    const { recipe, progress, unreadable, ...rest } = query;
    const { matcher } = compilePattern(recipe.pattern, recipe);
    const result = await store!.search({
      ...rest,
      matcher,
      signal: controller.signal,
      onProgress: progress
        ? (done, total) => scope.postMessage({ id, progress: [done, total] })
        : undefined,
      onUnreadable: unreadable
        ? (display) => scope.postMessage({ id, unreadable: display })
        : undefined,
    });
    const kept = keptNumber(result, rest.rowCut);
    repeated = kept !== undefined && held.includes(kept);
    if (repeated) scope.postMessage({ id, kept: kept! });
    else {
      const { packed, transfer } = packResult(result, rest.rowCut);
      if (STRINGS_POST_APART) {
        const { strings, rest: shell } = splitStrings(packed);
        scope.postMessage({ id, strings: true, ...strings });
        scope.postMessage({ id, result: shell, kept, apart: true }, transfer);
      } else scope.postMessage({ id, result: packed, kept }, transfer);
    }
  } catch (error) {
    scope.postMessage({ id, error: postedError(error, controller.signal) });
  } finally {
    searches.delete(id);
    // (The last search to end collects: a collection set up meanwhile would stop the others.)
    if (searches.size === 0) collectAfter(repeated, queued);
    warmUp?.idle();
  }
}

/** Collects what a search left, at once or once idle: see `collectsAtOnce`. */
function collectAfter(repeated: boolean, queued: boolean): void {
  if (collectsAtOnce(repeated, queued, process.memoryUsage().rss)) setTimeout(collectGarbage, 0);
  else collectGarbageWhenIdle(IDLE_AFTER_SEARCH_MS);
}
