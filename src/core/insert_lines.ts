/**
 * `insert_lines`: insert text as whole lines after a given line.
 *
 * @module
 */
import { InputError, LineRangeError } from "./input_errors.ts";
import { splitBom } from "./bom.ts";
import { type EditResult, ExpectedTextMismatchError } from "./edit_result.ts";
import {
  keepFinalState,
  lineStarts,
  terminated,
  terminatorAt,
  withBreaks,
  withTerminator,
} from "./_edit_text.ts";
import type { EditOptions } from "./replace_lines.ts";
import { plural } from "./slice_lines.ts";
import { countLines, dominantTerminator, lineText } from "./split_lines.ts";

/** Options of {@linkcode insertLines}. */
export interface InsertOptions extends EditOptions {
  /**
   * The text of line `afterLine` as the caller saw it (terminator ignored): the insert is
   * refused when that line no longer says it.
   */
  expected?: string;
}

/**
 * Inserts `text` as whole lines after line `afterLine` (0: before line 1; the line count:
 * at the end). Line breaks in `text` take the neighbouring line's terminator.
 *
 * @param text the whole text, BOM and all
 * @param afterLine the line to insert after, 0 to the line count
 * @param insert the lines to insert; must not be empty
 * @param options exact mode, and the expected text of line `afterLine`
 * @returns the new text and the inserted region
 * @throws {LineRangeError} when `afterLine` is outside 0..line count
 * @throws {InputError} when `insert` is empty, or `expected` is given with `afterLine` 0
 * @throws {ExpectedTextMismatchError} when line `afterLine` does not say `expected`
 * @example
 * ```ts
 * import { insertLines } from "./insert_lines.ts";
 * import assert from "node:assert/strict";
 * assert.equal(insertLines("a\nc", 1, "b").text, "a\nb\nc");
 * assert.equal(insertLines("a\nb", 2, "c").text, "a\nb\nc");
 * ```
 */
export function insertLines(
  text: string,
  afterLine: number,
  insert: string,
  options: InsertOptions = {},
): EditResult {
  const { bom, body } = splitBom(text);
  const starts = lineStarts(body);
  const total = starts.length - 1;
  if (!Number.isInteger(afterLine) || afterLine < 0 || afterLine > total) {
    throw new LineRangeError(
      `after_line ${afterLine} is outside the file, which has ${total} ${
        plural(total)
      }; use 0 to insert before line 1 or ${total} to append`,
    );
  }
  if (insert.length === 0) throw new InputError("text is empty; there is nothing to insert");
  if (options.expected !== undefined) {
    if (afterLine === 0) {
      throw new InputError("after_line 0 has no line to compare expected_text with; leave it out");
    }
    const line = body.slice(starts[afterLine - 1], starts[afterLine]);
    if (lineText(line) !== lineText(options.expected)) {
      throw new ExpectedTextMismatchError([
        { start: afterLine, end: afterLine, firstDifferentLine: afterLine },
      ]);
    }
  }
  const eol = terminatorAt(body, starts, afterLine) || terminatorAt(body, starts, afterLine + 1) ||
    dominantTerminator(body);
  let lines = options.exact ? insert : withBreaks(insert, eol);
  let head = body.slice(0, starts[afterLine]);
  // Appending after a last line that has no terminator: that line gets one, or the two join.
  if (head.length > 0 && !head.endsWith("\n")) head = withTerminator(head, eol);
  if (afterLine < total) lines = terminated(lines, eol);
  let out = head + lines + body.slice(starts[afterLine]);
  if (!options.exact) out = keepFinalState(body, out, eol);
  const added = countLines(lines);
  return {
    text: bom + out,
    regions: [{
      oldStart: afterLine + 1,
      oldEnd: afterLine,
      newStart: afterLine + 1,
      newEnd: afterLine + added,
    }],
    lineDelta: added,
  };
}
