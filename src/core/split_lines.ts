/**
 * The line rule, in one place. A line ends at `\n`; a `\r` directly before that `\n`
 * belongs to the terminator; a lone `\r` is ordinary text; text that ends with a terminator
 * has no empty line after it; "" has 0 lines. This is how `grep -n`, `sed -n`, `awk NR`,
 * ripgrep and git count, so a line number means the same line here and in the shell.
 *
 * @module
 */

/** Where one line lies in a text: `[start, end)` is its text, `[end, next)` its terminator. */
export interface LineSpan {
  /** Offset of the line's first character. */
  start: number;
  /** Offset just past the line's text, where its terminator (if any) begins. */
  end: number;
  /** Offset of the next line: just past the terminator (the text's length for the last line). */
  next: number;
}

/** A line terminator: `\n`, `\r\n`, or none (the last line of a text without a final newline). */
export type Terminator = "\n" | "\r\n" | "";

const LF = 10;
const CR = 13;

/**
 * Finds the line that starts at `start`. Every other function that needs line boundaries
 * calls this one, so there is one line rule.
 *
 * @param text the whole text
 * @param start offset where a line starts (0, or a `next` returned earlier)
 * @returns the line's text end and the start of the next line
 * @example
 * ```ts
 * import { lineSpanAt } from "./split_lines.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(lineSpanAt("a\r\nb", 0), { start: 0, end: 1, next: 3 });
 * ```
 */
export function lineSpanAt(text: string, start: number): LineSpan {
  const lf = text.indexOf("\n", start);
  if (lf === -1) return { start, end: text.length, next: text.length };
  const end = lf > start && text.charCodeAt(lf - 1) === CR ? lf - 1 : lf;
  return { start, end, next: lf + 1 };
}

/**
 * Where the line `count` lines after the one that starts at `start` starts (the text's length
 * when it has fewer): by the rule of {@linkcode lineSpanAt}, without a span made for each line
 * passed (an edit's report at line 3,000,000 passed each one).
 *
 * @param text the whole text
 * @param start offset where a line starts
 * @param count how many lines to pass
 * @returns the offset
 * @example
 * ```ts
 * import { lineStartAfter } from "./split_lines.ts";
 * import assert from "node:assert/strict";
 * assert.equal(lineStartAfter("a\r\nb\nc", 0, 2), 5);
 * assert.equal(lineStartAfter("a\nb", 0, 5), 3);
 * ```
 */
export function lineStartAfter(text: string, start: number, count: number): number {
  let at = start;
  for (let passed = 0; passed < count && at < text.length; passed++) {
    // (As lineSpanAt's next: past the next \n, or at the end.)
    const lf = text.indexOf("\n", at);
    at = lf === -1 ? text.length : lf + 1;
  }
  return at;
}

/**
 * Splits text into lines, each keeping its own terminator, so `lines.join("")` is the
 * text again byte for byte.
 *
 * @param text any text
 * @returns the lines; `[]` for ""
 * @example
 * ```ts
 * import { splitLines } from "./split_lines.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(splitLines("a\r\nb\rc\n"), ["a\r\n", "b\rc\n"]);
 * assert.deepEqual(splitLines(""), []);
 * ```
 */
export function splitLines(text: string): string[] {
  const lines: string[] = [];
  for (let at = 0; at < text.length;) {
    const { next } = lineSpanAt(text, at);
    lines.push(text.slice(at, next));
    at = next;
  }
  return lines;
}

/**
 * A line's text without its terminator.
 *
 * @param line one line as {@linkcode splitLines} returns it
 * @returns the line without `\n` or `\r\n`
 * @example
 * ```ts
 * import { lineText } from "./split_lines.ts";
 * import assert from "node:assert/strict";
 * assert.equal(lineText("x\r\n"), "x");
 * assert.equal(lineText("x\r"), "x\r");
 * ```
 */
export function lineText(line: string): string {
  return line.slice(0, lineSpanAt(line, 0).end);
}

/**
 * A line's terminator.
 *
 * @param line one line as {@linkcode splitLines} returns it
 * @returns `"\n"`, `"\r\n"`, or `""` for a last line without one
 * @example
 * ```ts
 * import { lineTerminator } from "./split_lines.ts";
 * import assert from "node:assert/strict";
 * assert.equal(lineTerminator("x\r\n"), "\r\n");
 * ```
 */
export function lineTerminator(line: string): Terminator {
  const { end, next } = lineSpanAt(line, 0);
  return line.slice(end, next) as Terminator;
}

/**
 * Counts lines without building them.
 *
 * @param text any text
 * @returns the number of lines {@linkcode splitLines} would return
 * @example
 * ```ts
 * import { countLines } from "./split_lines.ts";
 * import assert from "node:assert/strict";
 * assert.equal(countLines("a\nb\n"), 2);
 * assert.equal(countLines("a\nb"), 2);
 * ```
 */
export function countLines(text: string): number {
  return countLineBreaks(text, 0, text.length) + (endsWithTerminator(text) ? 0 : 1);
}

/**
 * Counts `\n` in `text[from, to)`: the number of line starts crossed, by the line rule.
 *
 * @param text any text
 * @param from first offset to look at
 * @param to offset to stop before
 * @returns how many `\n` lie in the range
 * @example
 * ```ts
 * import { countLineBreaks } from "./split_lines.ts";
 * import assert from "node:assert/strict";
 * assert.equal(countLineBreaks("a\nb\r\nc", 0, 6), 2);
 * ```
 */
export function countLineBreaks(text: string, from: number, to: number): number {
  // (indexOf cannot stop at `to`: in a long line it ran on to the line's end, once per call,
  // and a million calls over one line took minutes. A short range is looked through a
  // character at a time; a longer one as a slice, which shares the text's characters.)
  let count = 0;
  const start = Math.max(0, from);
  if (to - start <= SHORT_RANGE) {
    for (let at = start; at < to; at++) if (text.charCodeAt(at) === LF) count++;
    return count;
  }
  const range = text.slice(start, to);
  for (let at = range.indexOf("\n"); at !== -1; at = range.indexOf("\n", at + 1)) count++;
  return count;
}

/** The longest range {@linkcode countLineBreaks} looks through a character at a time. */
const SHORT_RANGE = 64;

/**
 * Whether the text ends with a line terminator. Empty text counts as ending with one,
 * since it has no unterminated last line.
 *
 * @param text any text
 * @returns true for "" and for text ending in `\n`
 * @example
 * ```ts
 * import { endsWithTerminator } from "./split_lines.ts";
 * import assert from "node:assert/strict";
 * assert.equal(endsWithTerminator("a\r\n"), true);
 * assert.equal(endsWithTerminator("a\r"), false);
 * ```
 */
export function endsWithTerminator(text: string): boolean {
  return text.length === 0 || text.charCodeAt(text.length - 1) === LF;
}

/**
 * The text's dominant line-ending style: `\r\n` when most terminators are `\r\n`, else `\n`
 * (also for text without terminators).
 *
 * @param text any text
 * @returns `"\r\n"` or `"\n"`
 * @example
 * ```ts
 * import { dominantTerminator } from "./split_lines.ts";
 * import assert from "node:assert/strict";
 * assert.equal(dominantTerminator("a\r\nb\r\nc\n"), "\r\n");
 * assert.equal(dominantTerminator("abc"), "\n");
 * ```
 */
export function dominantTerminator(text: string): "\n" | "\r\n" {
  let crlf = 0;
  let lf = 0;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) {
    if (at > 0 && text.charCodeAt(at - 1) === CR) crlf++;
    else lf++;
  }
  return crlf > lf ? "\r\n" : "\n";
}
