/**
 * The budget of a line-range read, shared by every store so that they stop at the same line.
 *
 * @module
 */
import type { LineRangeOptions } from "./file_store.ts";
export { LineBudget } from "../core/line_budget.ts";

/** Checks line-range options; RangeError for numbers out of range, TypeError for the rest. */
export function checkRangeOptions(options: LineRangeOptions): void {
  if (typeof options !== "object" || options === null) {
    throw new TypeError("line range options must be an object");
  }
  const { start, end, maxLines, maxChars, cut } = options;
  if (!Number.isInteger(start) || start < 1) {
    throw new RangeError(`start line must be an integer of at least 1, got ${start}`);
  }
  if (end !== undefined && (!Number.isInteger(end) || end < start)) {
    throw new RangeError(
      `end line must be an integer of at least the start line ${start}, got ${end}`,
    );
  }
  for (
    const [name, value] of [["maxLines", maxLines], ["maxChars", maxChars], ["cut", cut]] as const
  ) {
    if (!(Number.isInteger(value) && value >= 1) && value !== Infinity) {
      throw new TypeError(`${name} must be a positive integer, got ${value}`);
    }
  }
}
