/**
 * The budget of a line-range read: how many lines a read takes before it stops, shared by
 * every store and the tools so that they stop at the same line.
 *
 * @module
 */

/** The limits of a line-range read (as `LineRangeOptions` of the store contract gives them). */
export interface LineLimits {
  /** Last line wanted, inclusive. */
  end?: number;
  /** Most lines. */
  maxLines: number;
  /** Most characters, each line counted as at most `cut + 1`. */
  maxChars: number;
  /** The long-line cut, in code points. */
  cut: number;
}

/** A text's lines by index from 0, terminators kept: an array, or a `LineIndex`. */
export interface LineList {
  /** How many lines. */
  readonly length: number;
  /** The line at `index` (from 0), or undefined past the end. */
  at(index: number): string | undefined;
}

/** Counts lines and characters against a read's limits. */
export class LineBudget {
  readonly #options: LineLimits;
  #lines = 0;
  #chars = 0;

  /**
   * A budget for one read.
   *
   * @param options the end and the limits
   */
  constructor(options: LineLimits) {
    this.#options = options;
  }

  /**
   * Counts one line taken (it is always taken); returns true when no further line may be,
   * because of `maxLines`, `maxChars` (each line counted as at most `cut + 1`), or `end`.
   */
  take(line: string, lineNumber: number): boolean {
    const { end, maxLines, maxChars, cut } = this.#options;
    this.#lines++;
    this.#chars += Math.min(line.length, cut + 1);
    return this.#lines >= maxLines || this.#chars > maxChars || lineNumber === end;
  }
}

/**
 * The lines a read of `lines` from `start` takes within `limits` (at least one when one exists).
 *
 * @param lines every line of the text, terminators kept (an array, or a `LineIndex`)
 * @param start the first line wanted, 1-based
 * @param limits the end and the budget
 * @returns the lines taken, and whether lines wanted are left after them
 * @example
 * ```ts
 * import { takeLines } from "./line_budget.ts";
 * import assert from "node:assert/strict";
 * const taken = takeLines(["a\n", "b\n", "c\n"], 2, { maxLines: 1, maxChars: 100, cut: 10 });
 * assert.deepEqual(taken, { lines: ["b\n"], more: true });
 * ```
 */
export function takeLines(
  lines: LineList,
  start: number,
  limits: LineLimits,
): { lines: string[]; more: boolean } {
  const taken: string[] = [];
  const budget = new LineBudget(limits);
  let next = start;
  while (next <= lines.length) {
    const line = lines.at(next - 1)!;
    taken.push(line);
    if (budget.take(line, next++)) break;
  }
  const more = next <= lines.length && (limits.end === undefined || next <= limits.end);
  return { lines: taken, more };
}
