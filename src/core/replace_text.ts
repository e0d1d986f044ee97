/**
 * `replace`: replace an exact piece of text that occurs once (or every occurrence).
 *
 * @module
 */
import { InputError } from "./input_errors.ts";
import { splitBom } from "./bom.ts";
import { type ChangedRegion, type EditResult, OldTextMatchError } from "./edit_result.ts";
import { keepFinalState, terminated, withBreaks } from "./_edit_text.ts";
import type { EditOptions } from "./replace_lines.ts";
import {
  countLineBreaks,
  countLines,
  dominantTerminator,
  endsWithTerminator,
  lineSpanAt,
} from "./split_lines.ts";

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
 * @throws {InputError} when `oldText` is empty
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
    throw new InputError(
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
    if (matched.endsWith("\n")) {
      replacement = terminated(replacement, eol);
      // Deleting text that ends with a terminator but starts inside a line would run that
      // line into the next one ("a\nb\nc" without "\nb\n" is "ac"): keep one terminator.
      if (replacement === "" && start > 0 && body[start - 1] !== "\n") replacement = eol;
    }
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
  // Counting breaks is off by one when the last line changed its final-newline state (or
  // keepFinalState changed it back, or the text became ""): then count lines. Only the
  // last occurrence can reach the end, so only the last region moves.
  const endChanged = out.length === 0 || endsWithTerminator(out) !== endsWithTerminator(body);
  if (!options.exact) out = keepFinalState(body, out, fallbackEol);
  const drift = endChanged ? countLines(out) - countLines(body) - delta : 0;
  if (drift !== 0) {
    regions[regions.length - 1].newEnd += drift;
    delta += drift;
  }
  return { text: bom + out, regions, lineDelta: delta };
}

/**
 * Non-overlapping occurrences, leftmost first, with their line numbers; line breaks match
 * either style unless exact. A plain string search, not a RegExp: V8 refuses a pattern built
 * from a long old_text ("Regular expression too large").
 */
function occurrences(body: string, oldText: string, exact: boolean): Occurrence[] {
  const parts = exact ? [oldText] : oldText.split(/\r?\n/);
  const found: Occurrence[] = [];
  let line = 1;
  let counted = 0;
  for (let from = 0; from <= body.length;) {
    const start = nextStart(body, parts[0], from);
    if (start === -1) break;
    const end = matchRest(body, parts, start);
    if (end === -1) {
      from = start + 1;
      continue;
    }
    line += countLineBreaks(body, counted, start);
    counted = start;
    found.push({ start, end, line });
    from = end;
  }
  return found;
}

/** Where an occurrence may start at or after `from`: its first part, or else its first break. */
function nextStart(body: string, first: string, from: number): number {
  if (first.length > 0) return body.indexOf(first, from);
  const lf = body.indexOf("\n", from);
  return lf > from && body.charCodeAt(lf - 1) === CR ? lf - 1 : lf;
}

/** The end of the occurrence whose first part starts at `start`: parts joined by \n or \r\n. */
function matchRest(body: string, parts: string[], start: number): number {
  let at = start + parts[0].length;
  for (let i = 1; i < parts.length; i++) {
    if (body.startsWith("\r\n", at)) at += 2;
    else if (body.charCodeAt(at) === LF) at += 1;
    else return -1;
    if (!body.startsWith(parts[i], at)) return -1;
    at += parts[i].length;
  }
  return at;
}

const CR = 13;
const LF = 10;

/** The terminator of the line containing `offset`. */
function lineTerminatorAround(body: string, offset: number): string {
  const span = lineSpanAt(body, body.lastIndexOf("\n", offset - 1) + 1);
  return body.slice(span.end, span.next);
}
