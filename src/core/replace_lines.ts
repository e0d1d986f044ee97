/**
 * `replace_lines`: replace or delete ranges of lines, all numbered as the text was before
 * the call, optionally guarded by the text the caller expects those lines to hold.
 *
 * @module
 */
import { InputError, LineRangeError } from "./input_errors.ts";
import { splitBom } from "./bom.ts";
import { type ChangedRegion, type EditResult, ExpectedTextMismatchError } from "./edit_result.ts";
import { keepFinalState, lineStarts, terminated, terminatorAt, withBreaks } from "./_edit_text.ts";
import { plural } from "./slice_lines.ts";
import { countLines, dominantTerminator, lineSpanAt, lineText, splitLines } from "./split_lines.ts";

/** One range to replace. */
export interface LineEdit {
  /** First line, 1-based, as the text was before the call. */
  start_line: number;
  /** Last line, inclusive; default `start_line`. */
  end_line?: number;
  /** The new lines; "" deletes the range. */
  new_text: string;
  /** What the range holds now, compared line by line with terminators ignored. */
  expected_text?: string;
}

/** Options of the edit functions. */
export interface EditOptions {
  /**
   * Write the new text byte for byte: no line-ending conversion and no final-newline
   * upkeep (an edit still never joins two lines).
   * @default false
   */
  exact?: boolean;
}

/**
 * Replaces ranges of lines. Ranges must not overlap and must lie inside the text. When any
 * range has `expected_text` that no longer matches, the whole call is refused.
 *
 * @param text the whole text, BOM and all
 * @param edits ranges in any order, numbered as the text is now
 * @param options exact mode
 * @returns the new text and the changed regions
 * @throws {LineRangeError} for a range outside the text or overlapping another
 * @throws {ExpectedTextMismatchError} when an `expected_text` differs (without echoing the file)
 * @example
 * ```ts
 * import { replaceLines } from "./replace_lines.ts";
 * import assert from "node:assert/strict";
 * const out = replaceLines("a\r\nb\r\nc\r\n", [{ start_line: 2, new_text: "B1\nB2" }]);
 * assert.equal(out.text, "a\r\nB1\r\nB2\r\nc\r\n");
 * assert.equal(out.lineDelta, 1);
 * ```
 */
export function replaceLines(
  text: string,
  edits: readonly LineEdit[],
  options: EditOptions = {},
): EditResult {
  const { bom, body } = splitBom(text);
  const starts = lineStarts(body);
  const total = starts.length - 1;
  const sorted = checkRanges(edits, total);
  checkExpected(body, starts, sorted);
  const fallbackEol = dominantTerminator(body);
  const regions: ChangedRegion[] = [];
  let out = "";
  let done = 0;
  let delta = 0;
  for (const edit of sorted) {
    const from = starts[edit.start - 1];
    const to = starts[edit.end];
    const lastLine = lineSpanAt(body, starts[edit.end - 1]);
    const wasTerminated = lastLine.next > lastLine.end;
    const eol = body.slice(lastLine.end, lastLine.next) ||
      terminatorAt(body, starts, edit.start) || fallbackEol;
    let replacement = options.exact ? edit.newText : withBreaks(edit.newText, eol);
    if (wasTerminated) replacement = terminated(replacement, eol);
    out += body.slice(done, from) + replacement;
    done = to;
    const added = countLines(replacement);
    const newStart = edit.start + delta;
    regions.push({
      oldStart: edit.start,
      oldEnd: edit.end,
      newStart,
      newEnd: newStart + added - 1,
    });
    delta += added - (edit.end - edit.start + 1);
  }
  out += body.slice(done);
  if (!options.exact) out = keepFinalState(body, out, fallbackEol);
  return { text: bom + out, regions, lineDelta: delta };
}

interface CheckedEdit {
  start: number;
  end: number;
  newText: string;
  expected?: string;
  index: number;
}

function checkRanges(edits: readonly LineEdit[], total: number): CheckedEdit[] {
  if (edits.length === 0) throw new InputError("edits is empty; give at least one range");
  const checked = edits.map((edit, index): CheckedEdit => {
    const start = edit.start_line;
    const end = edit.end_line ?? start;
    const which = edits.length > 1 ? `edits[${index}]: ` : "";
    if (!Number.isInteger(start) || start < 1 || !Number.isInteger(end) || end < start) {
      throw new LineRangeError(
        `${which}start_line ${start} and end_line ${end} are not a valid range; use whole numbers with 1 <= start_line <= end_line`,
      );
    }
    if (end > total) {
      throw new LineRangeError(
        `${which}lines ${start}-${end} fall outside the file, which has ${total} ${plural(total)}${
          total === 0 ? "; use insert_lines with after_line=0 to add text" : ""
        }`,
      );
    }
    return { start, end, newText: edit.new_text, expected: edit.expected_text, index };
  });
  checked.sort((a, b) => a.start - b.start);
  for (let i = 1; i < checked.length; i++) {
    const [a, b] = [checked[i - 1], checked[i]];
    if (b.start <= a.end) {
      throw new LineRangeError(
        `edits[${a.index}] (lines ${a.start}-${a.end}) and edits[${b.index}] (lines ${b.start}-${b.end}) overlap; merge them into one range`,
      );
    }
  }
  return checked;
}

function checkExpected(body: string, starts: number[], edits: CheckedEdit[]): void {
  const mismatches = [];
  for (const edit of edits) {
    if (edit.expected === undefined) continue;
    // "" names one empty line here, though as a text it has no lines.
    const expected = edit.expected === "" ? [""] : splitLines(edit.expected);
    const count = edit.end - edit.start + 1;
    for (let i = 0; i < Math.max(count, expected.length); i++) {
      const actual = i < count
        ? lineText(body.slice(starts[edit.start - 1 + i], starts[edit.start + i]))
        : undefined;
      const wanted = i < expected.length ? lineText(expected[i]) : undefined;
      if (actual !== wanted) {
        mismatches.push({ start: edit.start, end: edit.end, firstDifferentLine: edit.start + i });
        break;
      }
    }
  }
  if (mismatches.length > 0) throw new ExpectedTextMismatchError(mismatches);
}
