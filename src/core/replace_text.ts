/**
 * `replace`: replace an exact piece of text that occurs once (or every occurrence).
 *
 * @module
 */
import { splitBom } from "./bom.ts";
import { type ChangedRegion, type EditResult, OldTextMatchError } from "./edit_result.ts";
import { keepFinalState, terminated, withBreaks } from "./_edit_text.ts";
import { escapeRegExp } from "./matcher.ts";
import type { EditOptions } from "./replace_lines.ts";
import { countLineBreaks, dominantTerminator, lineSpanAt } from "./split_lines.ts";

/** Options of {@linkcode replaceText}. */
export interface ReplaceOptions extends EditOptions {
  /**
   * Replace every occurrence instead of requiring exactly one.
   * @default false
   */
  replaceAll?: boolean;
}

interface Occurrence {
  start: number;
  end: number;
  line: number;
}

/**
 * Replaces `oldText` with `newText`. Outside exact mode a line break in either matches or
 * becomes the terminator of the line being replaced, so LF text edits a CRLF file.
 *
 * @param text the whole text, BOM and all
 * @param oldText the text to find; must occur exactly once unless `replaceAll`
 * @param newText its replacement; "" deletes it
 * @param options replaceAll and exact
 * @returns the new text and the changed regions
 * @throws {TypeError} when `oldText` is empty
 * @throws {OldTextMatchError} when it is not found, or found more than once without `replaceAll`
 * @example
 * ```ts
 * import { replaceText } from "./replace_text.ts";
 * import assert from "node:assert/strict";
 * assert.equal(replaceText("a\r\nb\r\n", "a\nb", "x\ny").text, "x\r\ny\r\n");
 * ```
 */
export function replaceText(
  text: string,
  oldText: string,
  newText: string,
  options: ReplaceOptions = {},
): EditResult {
  if (oldText.length === 0) {
    throw new TypeError(
      "old_text is empty; give the exact text to replace, or use insert_lines to add lines",
    );
  }
  const { bom, body } = splitBom(text);
  const found = occurrences(body, oldText, options.exact ?? false);
  if (found.length === 0 || (found.length > 1 && !options.replaceAll)) {
    throw new OldTextMatchError(found.map((o) => o.line));
  }
  const fallbackEol = dominantTerminator(body);
  const regions: ChangedRegion[] = [];
  let out = "";
  let done = 0;
  let delta = 0;
  for (const { start, end, line } of found) {
    const matched = body.slice(start, end);
    const eol = matched.includes("\r\n")
      ? "\r\n"
      : matched.includes("\n")
      ? "\n"
      : lineTerminatorAround(body, start) || fallbackEol;
    let replacement = options.exact ? newText : withBreaks(newText, eol);
    if (matched.endsWith("\n")) replacement = terminated(replacement, eol);
    out += body.slice(done, start) + replacement;
    done = end;
    const oldSpan = countLineBreaks(matched, 0, matched.length) - (matched.endsWith("\n") ? 1 : 0) +
      1;
    const newSpan = oldSpan + countLineBreaks(replacement, 0, replacement.length) -
      countLineBreaks(matched, 0, matched.length);
    regions.push({
      oldStart: line,
      oldEnd: line + oldSpan - 1,
      newStart: line + delta,
      newEnd: line + delta + newSpan - 1,
    });
    delta += newSpan - oldSpan;
  }
  out += body.slice(done);
  if (!options.exact) out = keepFinalState(body, out, fallbackEol);
  return { text: bom + out, regions, lineDelta: delta };
}

/** Non-overlapping occurrences with their line numbers; line breaks match either style unless exact. */
function occurrences(body: string, oldText: string, exact: boolean): Occurrence[] {
  const source = exact
    ? escapeRegExp(oldText)
    : oldText.split(/\r?\n/).map(escapeRegExp).join("\\r?\\n");
  const pattern = new RegExp(source, "g");
  const found: Occurrence[] = [];
  let line = 1;
  let counted = 0;
  for (const match of body.matchAll(pattern)) {
    line += countLineBreaks(body, counted, match.index);
    counted = match.index;
    found.push({ start: match.index, end: match.index + match[0].length, line });
  }
  return found;
}

/** The terminator of the line containing `offset`. */
function lineTerminatorAround(body: string, offset: number): string {
  const span = lineSpanAt(body, body.lastIndexOf("\n", offset - 1) + 1);
  return body.slice(span.end, span.next);
}
