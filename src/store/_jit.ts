/**
 * Keeps JavaScriptCore's top tier (FTL) off functions that run hot only in bursts and spend
 * each call in system calls: a first search calls them tens of thousands of times in
 * 200 ms, enough for the JIT to compile them in the top tier, which costs more CPU than it
 * can save there (the time is the kernel's). On 2 cores that compiling competes with the
 * search itself: the bench's three first greps over a 260 MB tree of 27,000 files took
 * 174, 211 and 198 ms with it and 159, 191 and 180 ms without (medians of 11 and 9
 * interleaved runs). The lower tiers still compile these functions. Only Bun runs
 * JavaScriptCore; elsewhere this does nothing.
 *
 * @module
 */
import process from "node:process";

interface Jsc {
  noFTL(fn: unknown): unknown;
}

const jsc = "Bun" in globalThis
  ? (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule?.("bun:jsc") as
    | Jsc
    | undefined
  : undefined;

/**
 * Marks functions never to be compiled in JavaScriptCore's top tier.
 *
 * @param functions the functions (methods are taken from their prototype)
 */
export function keepOffTopTier(...functions: unknown[]): void {
  if (jsc === undefined) return;
  for (const fn of functions) jsc.noFTL(fn);
}
