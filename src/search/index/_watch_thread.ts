/**
 * The thread a `TreeWatcher` (`_tree_watcher.ts`) watches from. Bun's recursive `fs.watch`
 * sets a watch on every directory of the tree before it returns: on a tree of 12,000
 * directories that held the search thread for a quarter of a second, and a grep sent
 * meanwhile waited for it. Here it holds only this thread. The watches are set in the order
 * the watcher made them (the roots, then the private directory of the barrier), and each
 * batch of events is posted in the order Bun handed them over, so the order
 * `TreeWatcher.sync` relies on holds across the thread: one channel, first in, first out.
 *
 * @module
 */
import * as fs from "node:fs";
import process from "node:process";
import { setImmediate } from "node:timers";
import { decodeName } from "../../io/path_bytes.ts";

/** What the watcher asks: the paths to watch, in order, and which of them recursively. */
export interface WatchJob {
  watch: { path: string; recursive: boolean }[];
}

/**
 * One event: the watch's position in the job, the name below it or null when the runtime
 * gave none, and whether it was a rename.
 */
export type WatchEvent = [watch: number, name: string | null, rename: boolean];

/** What this thread tells: every watch set, events, or why a watch failed (before or after). */
export type WatchReply = { ready: true } | { events: WatchEvent[] } | { failed: string };

/** The part of a worker's global scope used here (the lib of `deno check` is the window's). */
interface WorkerScope {
  onmessage: ((event: MessageEvent<WatchJob>) => void) | null;
  postMessage(message: WatchReply): void;
}

const scope = globalThis as unknown as WorkerScope;
let pending: WatchEvent[] = [];

/** Posts the events heard since the last post, once Bun has handed over all of one read. */
function flush(): void {
  const events = pending;
  pending = [];
  scope.postMessage({ events });
}

scope.onmessage = (event) => {
  try {
    event.data.watch.forEach(({ path, recursive }, at) => {
      // (Bun's watcher reads a backslash as a separator, and would watch another folder.)
      if (process.platform !== "win32" && path.includes("\\")) {
        throw new Error(`${JSON.stringify(path)} holds a backslash, which Bun's watcher misreads`);
      }
      // (Names as bytes, read as the walks read them: one that is not UTF-8 would otherwise
      // come lossily decoded, and name no file the index knows.)
      const options = { recursive, persistent: false, encoding: "buffer" as const };
      const watcher = fs.watch(path, options, (kind, name) => {
        if (pending.length === 0) setImmediate(flush);
        // (No name, or none as bytes, as when a root itself is renamed: what changed is not
        // known.)
        const known = name instanceof Uint8Array ? decodeName(name) : null;
        pending.push([at, known, kind === "rename"]);
      });
      watcher.on("error", (error) => scope.postMessage({ failed: messageOf(error) }));
    });
    scope.postMessage({ ready: true });
  } catch (error) {
    scope.postMessage({ failed: messageOf(error) });
  }
};

/** An error's message alone (`ENOSPC: no space left on device, watch '…'`). */
function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
