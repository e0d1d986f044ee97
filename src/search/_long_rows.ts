/**
 * A long line that holds an exact literal (see `Matcher.exactLiteral`, `Matcher.exactAlternatives`
 * for alternatives of them, and `Matcher.exactFolded` for one compared without case), made into the row
 * grep shows of it straight from its bytes: the window of `cut` code points around its first
 * occurrence that `windowRow` would cut from the decoded line, with the line's length in
 * code points. Minified bundles and source maps are lines of megabytes, and decoding them
 * (UTF-8 with a few characters beyond ASCII decodes at a few hundred MB/s) was most of what a
 * search of a `node_modules` tree cost; counting code points in the bytes is many times
 * faster, and only the window is decoded.
 *
 * @module
 */
import { Buffer, isAscii, isUtf8 } from "node:buffer";
import type { PassedLine } from "../store/_search_collector.ts";
import { decodeUtf8 } from "../store/_text.ts";
import { lowerAscii, type Occurrence } from "./_byte_search.ts";

/**
 * Lines up to this many bytes (terminator included) are decoded as they are; longer ones
 * holding an exact literal are windowed from their bytes. It must be at least 12 times the
 * cut (see {@linkcode windowedFromBytes}).
 */
export const WINDOWED_FROM_BYTES = 64 * 1024;

/**
 * The bytes a line must be longer than to be windowed with `cut`: longer than
 * {@linkcode WINDOWED_FROM_BYTES}, and than 12 times the cut, so that `windowRow` would
 * cut it too (a UTF-16 unit takes at most 3 bytes, and it cuts rows of over 4 cuts).
 *
 * @param cut the code points a row is shown with
 * @returns the least length in bytes, minus one
 */
export function windowedFromBytes(cut: number): number {
  return Math.max(WINDOWED_FROM_BYTES, 12 * cut);
}

const LF = 10;
const CR = 13;
/** Bytes tested at once for ASCII (a few characters beyond it leave most of a line to that test). */
const ASCII_RUN = 4096;

/**
 * The row of a long line windowed around a match, from its bytes; undefined when they are
 * not valid UTF-8 (the line is then decoded, with U+FFFD where bytes are invalid).
 *
 * @param bytes the bytes holding the line
 * @param start where the line's text starts (after a BOM that starts the file)
 * @param next where the next line starts (the terminator, if any, ends right before it)
 * @param match where the first occurrence of the literal in the line starts
 * @param length the literal's length in bytes
 * @param cut the code points the row is shown with
 * @returns the piece of the line that is shown, as a long line passed over gives it
 */
export function windowedLine(
  bytes: Uint8Array,
  start: number,
  next: number,
  match: number,
  length: number,
  cut: number,
): PassedLine | undefined {
  const text = lineText(bytes, start, next);
  return text && windowedPart(bytes, start, text.end, match, length, cut, text.around);
}

/**
 * Where a whole line's text ends, and its terminator, when the text is valid UTF-8.
 *
 * @returns the end and the line around its text, or undefined for invalid UTF-8
 */
function lineText(
  bytes: Uint8Array,
  start: number,
  next: number,
): { end: number; around: LineAround } | undefined {
  let end = next;
  if (end > start && bytes[end - 1] === LF) end -= end - 1 > start && bytes[end - 2] === CR ? 2 : 1;
  if (!isUtf8(bytes.subarray(start, end))) return undefined;
  const terminator = end === next ? "" : end === next - 1 ? "\n" : "\r\n";
  return { end, around: { before: 0, after: 0, terminator } };
}

/** Of a long line only a part is at hand: the code points of its text around that part. */
export interface LineAround {
  /** The code points of the line's text before the part. */
  before: number;
  /** The code points of the line's text after the part. */
  after: number;
  /** The line's terminator. */
  terminator: string;
}

/**
 * {@linkcode windowedLine} of the part of a line that `[start, end)` holds, valid UTF-8,
 * with the code points of the rest of its text: undefined when the window reaches past the
 * part (only where there is more of the line).
 *
 * @param bytes the bytes holding the part
 * @param start where the part starts
 * @param end where it ends (the line's text goes on for `around.after` code points)
 * @param match where the first occurrence of the literal in the line starts
 * @param length the literal's length in bytes
 * @param cut the code points the row is shown with
 * @param around the rest of the line
 * @returns the piece of the line that is shown, or undefined
 */
export function windowedPart(
  bytes: Uint8Array,
  start: number,
  end: number,
  match: number,
  length: number,
  cut: number,
  { before, after, terminator }: LineAround,
): PassedLine | undefined {
  const column = before + codePointsIn(bytes, start, match) + 1;
  const rest = codePointsIn(bytes, match, end);
  const codePoints = column - 1 + rest + after;
  // As windowRow: the match with some text before it, and no window past the line's end.
  const lead = Math.min(Math.floor(cut / 10), 200);
  const first = Math.max(1, Math.min(column - lead, codePoints - cut + 1));
  const back = column - first;
  if (back > column - 1 - before || back + rest < Math.min(cut, codePoints - first + 1)) {
    return undefined;
  }
  const from = backByCodePoints(bytes, match, back);
  const to = forwardByCodePoints(bytes, from, cut, end);
  const piece = decodeUtf8(bytes.subarray(from, to)).text;
  const shown = decodeUtf8(bytes.subarray(from, match)).text.length;
  const matched = decodeUtf8(bytes.subarray(match, Math.min(match + length, to))).text.length;
  return {
    piece,
    from: first,
    codePoints,
    terminator,
    match: { start: shown, end: shown + matched },
  };
}

/**
 * The match of a case-insensitive ASCII literal (`Matcher.exactFolded`) in a line, found in
 * its bytes: at `at`, where the first occurrence of a spelling of part of it puts it, when
 * the bytes there are the literal, ASCII letters compared without case. Undefined otherwise
 * (a `k` or an `s` there may stand as a Kelvin sign or a long s): the line is then decoded
 * and matched. Every match holds a spelling (of ASCII characters other than `k` and `s`),
 * so none starts before the first occurrence's.
 *
 * @param buffer the bytes holding the line
 * @param from where the line starts
 * @param to where the next line starts
 * @param at where the match would start
 * @param literal the literal, in lower case
 * @returns the match's place and length in bytes, or undefined
 */
export function foldedMatch(
  buffer: Buffer,
  from: number,
  to: number,
  at: number,
  literal: Uint8Array,
): { at: number; length: number } | undefined {
  if (at < from || at + literal.length > to) return undefined;
  for (let i = 0; i < literal.length; i++) {
    if (lowerAscii(buffer[at + i]) !== literal[i]) return undefined;
  }
  return { at, length: literal.length };
}

/**
 * A regex that is more than its needle, for rows of long lines (see `Matcher.stretch`): its
 * source, the ASCII characters none of its matches holds, and the cut rows are shown with.
 */
export interface Stretch {
  source: string;
  flags: string;
  barriers: string;
  /** The longest text the regex may run on, in UTF-16 units (see `Matcher.stretch`). */
  most?: number;
  cut: number;
}

/**
 * The longest stretch around an occurrence that is decoded and matched alone: a longer one
 * (a base64 blob for `\w+`) has its line decoded whole, as it would be without a stretch.
 */
export const MAX_STRETCH_BYTES = 4096;

/** The last stretch's compiled regex and barriers (a search asks for the same one each time). */
let compiled: { stretch: Stretch; regex: RegExp; barrier: Uint8Array } | undefined;

function compiledStretch(stretch: Stretch): { regex: RegExp; barrier: Uint8Array } {
  const { source, flags, barriers } = stretch;
  const last = compiled?.stretch;
  if (last?.source === source && last.flags === flags && last.barriers === barriers) {
    return compiled!;
  }
  const barrier = new Uint8Array(128);
  for (let i = 0; i < barriers.length; i++) barrier[barriers.charCodeAt(i)] = 1;
  compiled = { stretch, regex: new RegExp(source, flags), barrier };
  return compiled;
}

/**
 * The row of a long line holding a needle of a regex that is more than its needles, from the
 * stretches around their occurrences that hold none of the regex's barriers: every match lies
 * in one, and the first stretch (in the line's order) that holds a match holds the line's first
 * match. Each stretch is decoded with the character either side of it (a barrier,
 * which `\b` may look at), and matched alone; of the line, only the part shown is decoded.
 *
 * @param bytes the bytes holding the line
 * @param start where the line's text starts (after a BOM that starts the file)
 * @param lineEnd where the next line starts
 * @param first the first occurrence of a needle in the line
 * @param next the occurrences from an offset on (see `occurrences`: offsets never decrease)
 * @param stretch the regex and the cut
 * @returns the row; null when the line holds no match; undefined when the line is to be
 *   decoded whole (not valid UTF-8, or a stretch longer than {@linkcode MAX_STRETCH_BYTES} or
 *   than the regex may run on)
 */
export function stretchedLine(
  bytes: Uint8Array,
  start: number,
  lineEnd: number,
  first: Occurrence,
  next: (from: number) => Occurrence,
  stretch: Stretch,
): PassedLine | null | undefined {
  const line = first.at < start ? undefined : lineText(bytes, start, lineEnd);
  if (line === undefined) return undefined;
  return stretchedPart(bytes, start, line.end, first, next, stretch, line.around);
}

/**
 * {@linkcode stretchedLine} of the part of a long line that `[start, end)` holds, valid
 * UTF-8, with the code points of the rest of its text: also undefined when a stretch, or the
 * window around its match, reaches an end of the part where there is more of the line.
 *
 * @param bytes the bytes holding the part
 * @param start where the part starts
 * @param end where it ends (the line's text goes on for `around.after` code points)
 * @param first the first occurrence of a needle in the part
 * @param next the occurrences from an offset on (see `occurrences`: offsets never decrease)
 * @param stretch the regex and the cut
 * @param around the rest of the line
 * @returns the row; null when the part holds no match; undefined when it cannot tell
 */
export function stretchedPart(
  bytes: Uint8Array,
  start: number,
  end: number,
  first: Occurrence,
  next: (from: number) => Occurrence,
  stretch: Stretch,
  around: LineAround,
): PassedLine | null | undefined {
  if (first.at < start) return undefined;
  const { regex, barrier } = compiledStretch(stretch);
  // (A byte beyond ASCII is never a barrier: it is no character of its own.)
  const open = (byte: number) => byte >= 128 || barrier[byte] === 0;
  // (A text has at most as many UTF-16 units as UTF-8 bytes; the stretch's text has two more.)
  const longest = Math.min(MAX_STRETCH_BYTES, (stretch.most ?? Infinity) - 2);
  for (let occurrence = first; occurrence.at !== -1;) {
    const { at, length } = occurrence;
    if (at + length > end) break;
    let from = at;
    const least = Math.max(start, at - longest);
    while (from > least && open(bytes[from - 1])) from--;
    let to = at + length;
    const most = Math.min(end, from + longest);
    while (to < most && open(bytes[to])) to++;
    const cut = (from === least && from > start) || (to === most && to < end);
    if (cut || to - from > longest) return undefined;
    // (A stretch that reaches an end of the part may go on, or a barrier beyond may matter.)
    if ((from === start && around.before > 0) || (to === end && around.after > 0)) return undefined;
    const left = from > start ? from - 1 : from;
    const text = decodeUtf8(bytes.subarray(left, to < end ? to + 1 : to)).text;
    const found = regex.exec(text);
    if (found !== null) {
      const match = left + Buffer.byteLength(text.slice(0, found.index));
      const length = Buffer.byteLength(found[0]);
      return windowedPart(bytes, start, end, match, length, stretch.cut, around);
    }
    occurrence = next(to);
  }
  return null;
}

/**
 * The code points of valid UTF-8 in `[from, to)`: its bytes but continuation bytes.
 *
 * @param bytes the bytes
 * @param from the first offset (a code point's first byte)
 * @param to the offset after the last (likewise, or the end)
 * @returns how many code points lie between them
 */
export function codePointsIn(bytes: Uint8Array, from: number, to: number): number {
  let count = 0;
  for (let at = from; at < to; at += ASCII_RUN) {
    const stop = Math.min(to, at + ASCII_RUN);
    if (isAscii(bytes.subarray(at, stop))) {
      count += stop - at;
      continue;
    }
    for (let i = at; i < stop; i++) if ((bytes[i] & 0xc0) !== 0x80) count++;
  }
  return count;
}

/** Where the code point `count` code points before the one at `at` starts. */
function backByCodePoints(bytes: Uint8Array, at: number, count: number): number {
  for (let left = count; left > 0 && at > 0;) {
    at--;
    if ((bytes[at] & 0xc0) !== 0x80) left--;
  }
  return at;
}

/** Where the code point `count` code points after the one at `at` starts, or `end`. */
function forwardByCodePoints(bytes: Uint8Array, at: number, count: number, end: number): number {
  for (let left = count; left > 0 && at < end; left--) {
    at++;
    while (at < end && (bytes[at] & 0xc0) === 0x80) at++;
  }
  return at;
}
