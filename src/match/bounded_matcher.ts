/**
 * A test of a regular expression that never takes long: the runtime's backtracking engine
 * on inputs short enough that its worst case stays small, RE2 (linear time) on longer ones.
 * An expression with one unbounded repetition (`^[^/]*\.ts$`) backtracks at most linearly
 * and always runs natively; each further one multiplies the worst case by the input's
 * length (`*a*a*a*a*b` on a 250-character name took seconds).
 *
 * @module
 */
import { RE2JS } from "re2js";

/** Backtracking steps one test may cost the native engine, at worst. */
const STEP_BUDGET = 1e6;

/** Options of {@linkcode boundedTest}. */
export interface BoundedTestOptions {
  /**
   * Match regardless of case.
   * @default false
   */
  ignoreCase?: boolean;
}

/**
 * Compiles an expression (with the dotAll flag: `.` matches anything) into a test that runs
 * in time bounded by the input's length.
 *
 * @param source the expression, without lookarounds or backreferences (RE2 must run it)
 * @param unbounded how many unbounded repetitions it holds
 * @param options case
 * @returns the test
 * @example
 * ```ts
 * import { boundedTest } from "./bounded_matcher.ts";
 * import assert from "node:assert/strict";
 * const test = boundedTest("^(?:[^/]*a[^/]*a[^/]*a[^/]*a[^/]*b)$", 5);
 * assert.equal(test("a".repeat(250)), false); // at once, on RE2
 * assert.equal(test("aaaab"), true);
 * ```
 */
export function boundedTest(
  source: string,
  unbounded: number,
  options: BoundedTestOptions = {},
): (text: string) => boolean {
  const native = new RegExp(source, options.ignoreCase ? "sui" : "su");
  if (unbounded <= 1) return (text) => native.test(text);
  const limit = Math.floor(Math.pow(STEP_BUDGET, 1 / (unbounded + 1)));
  let linear: RE2JS | undefined;
  const flags = RE2JS.DOTALL | (options.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
  return (text) => {
    if (text.length <= limit) return native.test(text);
    linear ??= RE2JS.compile(source, flags);
    return linear.test(text);
  };
}
