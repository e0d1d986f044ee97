/**
 * Which runtime this is, and what that means for the rest: asked here, never by sniffing
 * globals elsewhere.
 *
 * @module
 */

/** The runtimes linewise runs on. */
export type RuntimeName = "bun" | "deno" | "node";

/** This runtime. */
export const RUNTIME: RuntimeName = "Bun" in globalThis
  ? "bun"
  : "Deno" in globalThis
  ? "deno"
  : "node";

/**
 * Whether this is a binary made by `bun build --compile`: its modules are embedded in it,
 * not files on disk, so another entry point is reached by running the binary itself.
 *
 * @returns true in such a binary
 */
export function isCompiledBinary(): boolean {
  const main = (globalThis as { Bun?: { main?: unknown } }).Bun?.main;
  return typeof main === "string" && /[$~]bunfs|~BUN/i.test(main);
}

/**
 * How to name a worker's module to `new Worker`: in a binary of `bun build --compile`,
 * where `import.meta.url` still names a source file that need not exist, the embedded
 * module by its path below `src/` (scripts/compile.ts makes each worker an entry point);
 * elsewhere its file.
 *
 * @param fromSrc the module's path below `src/`, as `./store/_search_worker.ts`
 * @param url the module's URL, resolved against the caller's `import.meta.url`
 * @returns the specifier
 * @example
 * ```ts
 * import { workerSpecifier } from "./runtime.ts";
 * import assert from "node:assert/strict";
 * const url = new URL("file:///src/store/w.ts");
 * assert.equal(workerSpecifier("./store/w.ts", url), url.href);
 * ```
 */
export function workerSpecifier(fromSrc: string, url: URL): string {
  return isCompiledBinary() ? fromSrc : url.href;
}

/**
 * Whether `Worker.terminate()` stops a worker in the middle of a regular expression. V8
 * interrupts it (Deno, Node); JavaScriptCore (Bun) lets the match run on, so there a
 * pattern that may run without end must go to a process that can be killed.
 */
export const TERMINATE_STOPS_REGEX: boolean = RUNTIME !== "bun";

/**
 * Collects garbage now, where the runtime lets a program ask (Bun); elsewhere does nothing.
 * For a background thread between jobs: what a search of a large tree leaves (its walk is
 * tens of megabytes) is otherwise collected at the collector's own pace, and the garbage of
 * a few searches then takes hundreds of megabytes.
 *
 * @example
 * ```ts
 * import { collectGarbage } from "./runtime.ts";
 * collectGarbage();
 * ```
 */
export function collectGarbage(): void {
  (globalThis as { Bun?: { gc(force: boolean): void } }).Bun?.gc(true);
}

let idleCollection: ReturnType<typeof setTimeout> | undefined;

/**
 * {@linkcode collectGarbage} once this thread has had nothing to do for `ms` milliseconds
 * (each call starts the wait again): for a worker that is handed job after job.
 *
 * @param ms how long the thread must have been idle
 * @example
 * ```ts
 * import { collectGarbageWhenIdle } from "./runtime.ts";
 * collectGarbageWhenIdle(10);
 * ```
 */
export function collectGarbageWhenIdle(ms = 200): void {
  if (RUNTIME !== "bun") return;
  clearTimeout(idleCollection);
  idleCollection = setTimeout(collectGarbage, ms);
  (idleCollection as { unref?: () => void }).unref?.();
}
