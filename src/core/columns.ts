/**
 * Columns are 1-based and counted in Unicode code points; JavaScript strings index UTF-16
 * code units. These convert between the two.
 *
 * @module
 */
import { hasSurrogates } from "./_surrogates.ts";

/**
 * Counts the code points in `text[from, to)`.
 *
 * @param text any text
 * @param from first UTF-16 offset; default 0
 * @param to UTF-16 offset to stop before; default the end
 * @returns the number of code points (a lone surrogate counts as one)
 * @example
 * ```ts
 * import { codePointCount } from "./columns.ts";
 * import assert from "node:assert/strict";
 * assert.equal(codePointCount("a😀b"), 3);
 * ```
 */
export function codePointCount(text: string, from = 0, to: number = text.length): number {
  if (!hasSurrogates(text)) return Math.max(0, to - from);
  let count = 0;
  for (let at = from; at < to; at++) {
    const unit = text.charCodeAt(at);
    if (unit >= 0xd800 && unit <= 0xdbff && at + 1 < to) {
      const low = text.charCodeAt(at + 1);
      if (low >= 0xdc00 && low <= 0xdfff) at++;
    }
    count++;
  }
  return count;
}

/**
 * The 1-based column of a UTF-16 offset.
 *
 * @param text one line's text
 * @param offset UTF-16 offset into it
 * @returns the code-point column, 1-based
 * @example
 * ```ts
 * import { columnAt } from "./columns.ts";
 * import assert from "node:assert/strict";
 * assert.equal(columnAt("😀x", 2), 2);
 * ```
 */
export function columnAt(text: string, offset: number): number {
  return codePointCount(text, 0, offset) + 1;
}

/**
 * The UTF-16 offset of a 1-based code-point column; past the end gives the text's length.
 *
 * @param text one line's text
 * @param column 1-based code-point column
 * @param from the UTF-16 offset that counts as column 1; default 0
 * @returns the UTF-16 offset where that column starts
 * @example
 * ```ts
 * import { offsetOfColumn } from "./columns.ts";
 * import assert from "node:assert/strict";
 * assert.equal(offsetOfColumn("😀x", 2), 2);
 * ```
 */
export function offsetOfColumn(text: string, column: number, from = 0): number {
  if (!hasSurrogates(text)) return Math.min(text.length, from + Math.max(0, column - 1));
  let at = from;
  for (let col = 1; col < column && at < text.length; col++) {
    const unit = text.charCodeAt(at);
    at += unit >= 0xd800 && unit <= 0xdbff && isLowSurrogate(text.charCodeAt(at + 1)) ? 2 : 1;
  }
  return at;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}
