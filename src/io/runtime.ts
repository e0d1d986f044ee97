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
 * Whether `Worker.terminate()` stops a worker in the middle of a regular expression. V8
 * interrupts it (Deno, Node); JavaScriptCore (Bun) lets the match run on, so there a
 * pattern that may run without end must go to a process that can be killed.
 */
export const TERMINATE_STOPS_REGEX: boolean = RUNTIME !== "bun";
