/**
 * The core's refusals of its caller's input, as classes of their own, so that a tool can
 * tell the caller's mistake (said as it is) from a bug (an internal error): a plain
 * `TypeError` or `RangeError` is a bug.
 *
 * @module
 */

/**
 * A line number or column outside the text; the message names the line count.
 *
 * @example
 * ```ts
 * import { LineRangeError } from "./input_errors.ts";
 * import assert from "node:assert/strict";
 * assert.ok(new LineRangeError("start_line 9 is past the end") instanceof RangeError);
 * ```
 */
export class LineRangeError extends RangeError {
  /**
   * Makes the error.
   *
   * @param message what is out of range, with the values, and what to do
   */
  constructor(message: string) {
    super(message);
    this.name = "LineRangeError";
  }
}

/**
 * Input that cannot be worked with: an empty list of edits, an empty `old_text`, a path that
 * names no bytes.
 *
 * @example
 * ```ts
 * import { InputError } from "./input_errors.ts";
 * import assert from "node:assert/strict";
 * assert.ok(new InputError("edits is empty") instanceof TypeError);
 * ```
 */
export class InputError extends TypeError {
  /**
   * Makes the error.
   *
   * @param message what is wrong, and what to do
   */
  constructor(message: string) {
    super(message);
    this.name = "InputError";
  }
}
