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
  newText: string;
  /** Neither the old text nor the new one holds a line break: one line becomes one line. */
  inLine: boolean;
}

/** One replacement of {@linkcode replaceTexts}. */
export interface TextEdit {
  /** The text to find; must occur exactly once unless `replace_all`. */
  old_text: string;
  /** Its replacement; "" deletes it. */
  new_text: string;
  /** Replace every occurrence. */
  replace_all?: boolean;
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
  return replaceTexts(text, [{
    old_text: oldText,
    new_text: newText,
    replace_all: options.replaceAll,
  }], options);
}

/**
 * Several replacements at once, each located in the original text (as {@linkcode replaceText}
 * locates one): their occurrences must not overlap, and if any edit fails nothing is changed.
 * Regions that share a line are reported once; `occurrences` counts every replacement.
 *
 * @param text the whole text, BOM and all
 * @param edits the replacements
 * @param options exact mode
 * @returns the new text and the changed regions
 * @throws {InputError} for an empty old_text, or occurrences that overlap
 * @throws {OldTextMatchError} when an old_text is missing, or not unique without replace_all
 * @example
 * ```ts
 * import { replaceTexts } from "./replace_text.ts";
 * import assert from "node:assert/strict";
 * const out = replaceTexts("a b\nc\n", [
 *   { old_text: "a", new_text: "A" },
 *   { old_text: "b", new_text: "B" },
 * ]);
 * assert.equal(out.text, "A B\nc\n");
 * assert.equal(out.regions.length, 1);
 * assert.equal(out.occurrences, 2);
 * ```
 */
export function replaceTexts(
  text: string,
  edits: readonly TextEdit[],
  options: EditOptions = {},
): EditResult {
  if (edits.length === 0) throw new InputError("edits is empty; give at least one replacement");
  const { bom, body } = splitBom(text);
  const each = edits.map((edit, index) => {
    const which = edits.length > 1 ? `edits[${index}]: ` : "";
    if (edit.old_text.length === 0) {
      throw new InputError(
        `${which}old_text is empty; give the exact text to replace, or use insert_lines to add lines`,
      );
    }
    const mine = occurrences(body, edit.old_text, options.exact ?? false, edit.new_text);
    if (mine.length === 0 || (mine.length > 1 && !edit.replace_all)) {
      throw new OldTextMatchError(mine.map((o) => o.line), which);
    }
    return mine;
  });
  // (One edit's occurrences come in order as they are: copying and sorting a million took
  // 0.3-0.5 s. A spread of 130,000 into push overflows the stack.)
  let found = each[0];
  if (each.length > 1) {
    found = [];
    for (const mine of each) for (const occurrence of mine) found.push(occurrence);
    found.sort((a, b) => a.start - b.start);
  }
  for (let i = 1; i < found.length; i++) {
    if (found[i].start < found[i - 1].end) {
      throw new InputError(
        `two of the edits overlap at line ${found[i].line}; merge them into one replacement`,
      );
    }
  }
  const fallbackEol = dominantTerminator(body);
  // The terminator of the line an occurrence lies in, looked up once per line: a line of a
  // million occurrences was walked once for each (minutes).
  let eolLine = 0;
  let eolOfLine = "";
  const lineEol = (line: number, start: number) => {
    if (line !== eolLine) {
      eolLine = line;
      eolOfLine = lineTerminatorAround(body, start) || fallbackEol;
    }
    return eolOfLine;
  };
  const regions: ChangedRegion[] = [];
  let out = "";
  let done = 0;
  let lastOut = NaN; // (the last code unit of out: none yet)
  let delta = 0;
  for (const { start, end, line, newText, inLine } of found) {
    // (One line for one line, where neither text holds a line break: what the rest comes to
    // then, without its passes over each occurrence; replace_all of a million took 1.1-1.5 s.)
    let replacement = newText;
    let oldSpan = 1;
    let newSpan = 1;
    if (!inLine) {
      const matched = body.slice(start, end);
      const eol = matched.includes("\r\n")
        ? "\r\n"
        : matched.includes("\n")
        ? "\n"
        : lineEol(line, start);
      if (!options.exact) replacement = withBreaks(newText, eol);
      if (matched.endsWith("\n")) {
        replacement = terminated(replacement, eol);
        // Deleting text that ends with a terminator but starts inside a line would run that
        // line into the next one ("a\nb\nc" without "\nb\n" is "ac"): keep one terminator.
        if (replacement === "" && start > 0 && body[start - 1] !== "\n") replacement = eol;
      }
      const oldBreaks = countLineBreaks(matched, 0, matched.length);
      oldSpan = oldBreaks - (matched.endsWith("\n") ? 1 : 0) + 1;
      newSpan = oldSpan + countLineBreaks(replacement, 0, replacement.length) - oldBreaks;
    }
    // (A lone `\r`, which is text, put before a line break would become part of its terminator:
    // the line's text and ending would not be what was asked. What comes before is looked at
    // where it came from: reading the end of `out`, a rope, flattened it each time, 1,000,000
    // occurrences ran for minutes under V8.)
    const left = start > done ? body.charCodeAt(start - 1) : lastOut;
    const right = body.charCodeAt(end);
    out += body.slice(done, start);
    const first = replacement === "" ? right : replacement.charCodeAt(0);
    const last = replacement === "" ? left : replacement.charCodeAt(replacement.length - 1);
    if (!options.exact && ((left === CR && first === LF) || (last === CR && right === LF))) {
      throw new InputError(
        `at line ${line}, the replacement would put a lone \\r (text) right before a line break, which makes it part of the terminator; leave that \\r out, or set exact to write the bytes as given`,
      );
    }
    out += replacement;
    if (replacement !== "") lastOut = replacement.charCodeAt(replacement.length - 1);
    else if (start > done) lastOut = left;
    done = end;
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
  return { text: bom + out, regions: merged(regions), lineDelta: delta, occurrences: found.length };
}

/** How many lines a region added (negative: removed). */
function spanDelta(r: ChangedRegion): number {
  return (r.newEnd - r.newStart) - (r.oldEnd - r.oldStart);
}

/** Regions that share a line (several occurrences on one line) as one. */
function merged(regions: ChangedRegion[]): ChangedRegion[] {
  const out: ChangedRegion[] = [];
  for (const region of regions) {
    const last = out.at(-1);
    if (last && region.oldStart <= last.oldEnd) {
      const delta = spanDelta(last) + spanDelta(region);
      last.oldEnd = Math.max(last.oldEnd, region.oldEnd);
      last.newEnd = last.newStart + (last.oldEnd - last.oldStart) + delta;
    } else out.push(region); // (made for this list alone: no copy needed)
  }
  return out;
}

/**
 * Non-overlapping occurrences, leftmost first, with their line numbers; line breaks match
 * either style unless exact. A plain string search, not a RegExp: V8 refuses a pattern built
 * from a long old_text ("Regular expression too large").
 */
function occurrences(
  body: string,
  oldText: string,
  exact: boolean,
  newText: string,
): Occurrence[] {
  const parts = exact ? [oldText] : oldText.split(/\r?\n/);
  const inLine = !oldText.includes("\n") && !newText.includes("\n");
  const found: Occurrence[] = [];
  let line = 1;
  let counted = 0;
  for (let from = 0; from <= body.length;) {
    const start = nextStart(body, parts[0], from);
    if (start === -1) break;
    const end = matchRest(body, parts, start);
    // (Unless exact, an occurrence takes a CRLF terminator whole: `a\r` in `a\r\n` is no
    // occurrence, since replacing it would change the line's ending.)
    if (end === -1 || (!exact && splitsCrlf(body, start, end))) {
      from = start + 1;
      continue;
    }
    line += countLineBreaks(body, counted, start);
    counted = start;
    found.push({ start, end, line, newText, inLine });
    from = end;
  }
  return found;
}

/** Whether a span starts at the `\n` or ends at the `\r` of a CRLF terminator. */
function splitsCrlf(body: string, start: number, end: number): boolean {
  return (body.charCodeAt(start) === LF && body.charCodeAt(start - 1) === CR) ||
    (end > start && body.charCodeAt(end - 1) === CR && body.charCodeAt(end) === LF);
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
