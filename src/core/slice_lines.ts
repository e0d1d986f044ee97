/**
 * Line ranges with the `read` tool's semantics: 1-based, inclusive, the end clamped to the
 * last line, and errors that name the line count.
 *
 * @module
 */
import { LineRangeError } from "./input_errors.ts";
import { splitBom } from "./bom.ts";
import { countLines, lineSpanAt, lineStartAfter } from "./split_lines.ts";

/** Lines taken from a text. */
export interface LineSlice {
  /** The lines verbatim, terminators kept; line 1 never holds the BOM. */
  lines: string[];
  /** Number of the first line in `lines`. */
  start: number;
  /** Number of the last line in `lines` (`start - 1` when there are none). */
  end: number;
  /** The text's line count. */
  total: number;
}

/**
 * Checks a requested range against a line count, with read's rules. An empty text read
 * from line 1 is allowed (the caller shows a note, not an error).
 *
 * @param start first line asked for
 * @param end last line asked for, or undefined for "to the end"
 * @param total the text's line count
 * @throws {LineRangeError} for start < 1, end < start, or start past the last line
 * @example
 * ```ts
 * import { checkLineRange } from "./slice_lines.ts";
 * import assert from "node:assert/strict";
 * assert.throws(() => checkLineRange(11, undefined, 10), RangeError);
 * checkLineRange(1, undefined, 0);
 * ```
 */
export function checkLineRange(start: number, end: number | undefined, total: number): void {
  if (!Number.isInteger(start) || start < 1) {
    throw new LineRangeError(
      `start_line must be a whole number of 1 or more, got ${start}; the file has ${total} ${
        plural(total)
      }`,
    );
  }
  if (end !== undefined && (!Number.isInteger(end) || end < start)) {
    throw new LineRangeError(
      `end_line ${end} is before start_line ${start}; ask for end_line >= start_line (the file has ${total} ${
        plural(total)
      })`,
    );
  }
  if (start > total && !(start === 1 && total === 0)) {
    throw new LineRangeError(
      `start_line ${start} is past the end: the file has ${total} ${plural(total)}${
        total > 0 ? `; read from start_line=1 to ${total}` : ""
      }`,
    );
  }
}

/**
 * Takes lines `start..end` of a text (end clamped), without splitting the rest of it.
 *
 * @param text the whole text, BOM and all
 * @param start first line, 1-based
 * @param end last line, inclusive; omitted: to the end
 * @returns the lines and the text's line count
 * @throws {LineRangeError} as {@linkcode checkLineRange}
 * @example
 * ```ts
 * import { sliceLines } from "./slice_lines.ts";
 * import assert from "node:assert/strict";
 * const slice = sliceLines("a\nb\nc\n", 2, 9);
 * assert.deepEqual(slice.lines, ["b\n", "c\n"]);
 * assert.equal(slice.total, 3);
 * ```
 */
export function sliceLines(text: string, start: number, end?: number): LineSlice {
  const { body } = splitBom(text);
  const total = countLines(body);
  checkLineRange(start, end, total);
  const last = Math.min(end ?? total, total);
  const lines: string[] = [];
  let at = lineStartAfter(body, 0, start - 1);
  for (let line = start; line <= last; line++) {
    const span = lineSpanAt(body, at);
    lines.push(body.slice(at, span.next));
    at = span.next;
  }
  return { lines, start, end: start + lines.length - 1, total };
}

/**
 * "line" or "lines".
 *
 * @param count how many
 * @returns the word agreeing with `count`
 * @example
 * ```ts
 * import { plural } from "./slice_lines.ts";
 * import assert from "node:assert/strict";
 * assert.equal(plural(1), "line");
 * ```
 */
export function plural(count: number): string {
  return count === 1 ? "line" : "lines";
}
