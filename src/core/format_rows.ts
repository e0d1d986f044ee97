/**
 * Rows as the model reads them: `<n>\t<line verbatim>`, the terminator as row separator,
 * long lines cut with a marker that says how to see more, and an output budget.
 *
 * @module
 */
import { codePointCount, columnAt, offsetOfColumn } from "./columns.ts";
import { hasSurrogates } from "./_surrogates.ts";
import type { MatchSpan } from "./matcher.ts";
import { lineSpanAt } from "./split_lines.ts";

/** One row to show: a line, and for grep whether it is context and where it matched. */
export interface Row {
  /** Line number, 1-based. */
  line: number;
  /** The line verbatim, terminator included. */
  text: string;
  /** A context row (`<n>-\t`), not a matching one. */
  context?: boolean;
  /** Where the line matched (UTF-16 offsets into its text); a long line shows a window here. */
  match?: MatchSpan;
  /**
   * When `text` holds only part of a line too long to hold: the column its text starts at
   * and the whole line's length in code points. The part is shown as it is (cut to `cut`
   * code points); `column` has already been applied by whoever cut it.
   */
  piece?: LinePiece;
}

/** Where a part of a very long line lies in it (see {@linkcode Row.piece}). */
export interface LinePiece {
  /** The 1-based code-point column the part starts at. */
  from: number;
  /** The whole line's length in code points, without its terminator. */
  codePoints: number;
  /**
   * The line's terminator ("\r\n", "\n" or ""), which ends the row's text: the part itself
   * may end with a lone "\r" that the terminator "\n" follows.
   */
  terminator: string;
}

/** How rows are shown. */
export interface RowOptions {
  /**
   * Lines longer than this many code points are cut.
   * @default 2000
   */
  cut?: number;
  /**
   * Show the line from this 1-based code-point column (reads of one long line).
   * @default 1
   */
  column?: number;
}

/** One formatted row. */
export interface FormattedRow {
  /** `<n>\t…` with the terminator, or with the cut marker and then the terminator. */
  text: string;
  /** Whether the line was cut. */
  cut: boolean;
}

/** The default long-line cut, in code points. */
export const DEFAULT_CUT = 2000;

/**
 * Formats one row, cutting a long line: from `column` (default 1), or for a matching line
 * in a window around the match.
 *
 * @param row the row
 * @param options cut and column
 * @returns the row text and whether it was cut
 * @example
 * ```ts
 * import { formatRow } from "./format_rows.ts";
 * import assert from "node:assert/strict";
 * assert.equal(formatRow({ line: 7, text: "x = 1\r\n" }).text, "7\tx = 1\r\n");
 * assert.equal(
 *   formatRow({ line: 1, text: "abcdef\n" }, { cut: 3 }).text,
 *   "1\tabc … [line cut: 6 code points; column=4 shows more]\n",
 * );
 * ```
 */
export function formatRow(row: Row, options: RowOptions = {}): FormattedRow {
  const cut = options.cut ?? DEFAULT_CUT;
  const prefix = rowPrefix(row.line, row.context === true);
  if (row.piece) return formatPiece(row, row.piece, prefix, cut);
  if (shownWhole(row.text, row.piece, cut) && (options.column ?? 1) === 1) {
    return { text: prefix + row.text, cut: false };
  }
  const window = windowOf(row, cut, options.column ?? 1);
  if (window === undefined) return { text: prefix + row.text, cut: false };
  const { text, terminator, first, from, to, length } = window;
  const lead = first > 1 ? `[from column ${first}] ` : "";
  const tail = to < text.length
    ? ` … [line cut: ${length} code points; column=${window.columnOf(to)} shows more]`
    : "";
  return { text: prefix + lead + text.slice(from, to) + tail + terminator, cut: true };
}

/**
 * What a row is shown with in front of its text: its number and a tab, with `-` before the
 * tab for a context row.
 *
 * @param line the row's line number
 * @param context whether it is a context row
 * @returns the prefix
 * @example
 * ```ts
 * import { rowPrefix } from "./format_rows.ts";
 * import assert from "node:assert/strict";
 * assert.equal(rowPrefix(7, true), "7-\t");
 * ```
 */
export function rowPrefix(line: number, context: boolean): string {
  if (line >= KEPT_PREFIXES) return context ? `${line}-\t` : `${line}\t`;
  // (Kept: a grep of hundreds of thousands of rows made as many strings of a few numbers.)
  const slot = 2 * line + (context ? 1 : 0);
  return prefixes[slot] ??= context ? `${line}-\t` : `${line}\t`;
}

/** {@linkcode rowPrefix}'s prefixes made, a matching row's then a context row's for each line. */
const prefixes: string[] = [];
/** The line numbers whose prefixes are kept are those below it. */
const KEPT_PREFIXES = 1 << 16;

/**
 * The length of {@linkcode rowPrefix}'s prefix, without making it.
 *
 * @param line the row's line number
 * @param context whether it is a context row
 * @returns its length in UTF-16 code units
 * @example
 * ```ts
 * import { rowPrefix, rowPrefixLength } from "./format_rows.ts";
 * import assert from "node:assert/strict";
 * assert.equal(rowPrefixLength(1234, true), rowPrefix(1234, true).length);
 * ```
 */
export function rowPrefixLength(line: number, context: boolean): number {
  let digits = 1;
  for (let rest = line; rest >= 10; rest = Math.floor(rest / 10)) digits++;
  return digits + (context ? 2 : 1);
}

/**
 * Whether {@linkcode formatRow} shows a row from column 1 as its prefix and then its text
 * as it is: most rows, no longer than the cut in UTF-16 units, terminator and all.
 *
 * @param text the row's text
 * @param piece the row's piece, if it holds part of a long line
 * @param cut the cut it is shown with
 * @returns true when its text is shown whole
 */
export function shownWhole(text: string, piece: LinePiece | undefined, cut = DEFAULT_CUT): boolean {
  return piece === undefined && text.length <= cut;
}

/** Longest row {@linkcode windowRow} leaves whole, as a multiple of the cut. */
const WHOLE_ROW_CUTS = 4;

/**
 * A long row reduced to the part {@linkcode formatRow} shows of it with the same cut, as a
 * `piece` (which `formatRow` shows alike): so that a search can hand rows to another thread
 * without copying lines of megabytes it would not show.
 *
 * @param row the row (a matching one shows a window around its match)
 * @param cut the cut it will be shown with
 * @returns the row, or its shown part
 * @example
 * ```ts
 * import { formatRow, windowRow } from "./format_rows.ts";
 * import assert from "node:assert/strict";
 * const row = { line: 3, text: "x".repeat(50_000) + "needle\n", match: { start: 50_000, end: 50_006 } };
 * assert.ok(windowRow(row, 100).text.length < 200);
 * assert.equal(formatRow(windowRow(row, 100), { cut: 100 }).text, formatRow(row, { cut: 100 }).text);
 * ```
 */
export function windowRow<T extends Row>(row: T, cut: number = DEFAULT_CUT): T {
  if (row.piece || row.text.length <= WHOLE_ROW_CUTS * cut) return row;
  const window = windowOf(row, cut, 1);
  if (window === undefined) return row;
  const { text, terminator, first, from, to, length } = window;
  const shown = text.slice(from, to);
  const within = (offset: number) => Math.max(0, Math.min(shown.length, offset - from));
  return {
    ...row,
    text: shown + terminator,
    piece: { from: first, codePoints: length, terminator },
    match: row.match && { start: within(row.match.start), end: within(row.match.end) },
  };
}

/** What {@linkcode formatRow} shows of a long line: its text from `from` to `to`. */
interface Window {
  /** The line without its terminator, and the terminator. */
  text: string;
  terminator: string;
  /** The column shown first, and the UTF-16 offsets of the part shown. */
  first: number;
  from: number;
  to: number;
  /** The line's length in code points. */
  length: number;
  columnOf: (offset: number) => number;
}

/** The part of a row shown with `cut` from `column`, or undefined when it is shown whole. */
function windowOf(row: Row, cut: number, column: number): Window | undefined {
  const { end } = lineSpanAt(row.text, 0);
  // Fast path: a line with at most `cut` UTF-16 units has at most `cut` code points.
  if (column === 1 && end <= cut) return undefined;
  const text = row.text.slice(0, end);
  // Without surrogates (most lines) a column is an offset + 1: a long line is scanned for
  // them once, not by every conversion.
  const units = !hasSurrogates(text);
  const length = units ? text.length : codePointCount(text);
  if (column === 1 && length <= cut) return undefined;
  const columnOf = (offset: number) => units ? offset + 1 : columnAt(text, offset);
  const offsetOf = (at: number, from = 0) =>
    units ? Math.min(text.length, from + at - 1) : offsetOfColumn(text, at, from);
  let first = column;
  if (row.match && column === 1) {
    // A window of `cut` code points showing the match with some text before it.
    const lead = Math.min(Math.floor(cut / 10), 200);
    first = Math.max(1, Math.min(columnOf(row.match.start) - lead, length - cut + 1));
  }
  const from = offsetOf(first);
  const to = offsetOf(cut + 1, from);
  return { text, terminator: row.text.slice(end), first, from, to, length, columnOf };
}

/** A row holding part of a long line: shown from where it starts, as a cut line is. */
function formatPiece(row: Row, piece: LinePiece, prefix: string, cut: number): FormattedRow {
  const end = row.text.length - piece.terminator.length;
  const text = row.text.slice(0, end);
  const shown = text.slice(0, offsetOfColumn(text, cut + 1));
  const next = piece.from + codePointCount(shown);
  const lead = piece.from > 1 ? `[from column ${piece.from}] ` : "";
  const tail = next <= piece.codePoints
    ? ` … [line cut: ${piece.codePoints} code points; column=${next} shows more]`
    : "";
  return { text: prefix + lead + shown + tail + row.text.slice(end), cut: true };
}

/** The output budget of one result. */
export interface Budget {
  /**
   * Most rows in one result.
   * @default 2000
   */
  maxRows?: number;
  /**
   * Most characters of result text.
   * @default 60000
   */
  maxChars?: number;
}

/** Rows formatted under a budget. */
export interface FormattedRows {
  /** The rows, concatenated. */
  text: string;
  /** How many rows fit. */
  rows: number;
  /** Line numbers of rows that were cut. */
  cutLines: number[];
}

/** The default budget: 2,000 rows. */
export const DEFAULT_MAX_ROWS = 2000;
/** The default budget: 60,000 characters. */
export const DEFAULT_MAX_CHARS = 60000;

/**
 * Formats rows until the budget is spent. At least one row is shown when any is given, so
 * a result always makes progress.
 *
 * @param rows rows in order
 * @param options the budget and the long-line cut
 * @returns the text and how many rows fit
 * @example
 * ```ts
 * import { formatRows } from "./format_rows.ts";
 * import assert from "node:assert/strict";
 * const out = formatRows([{ line: 1, text: "a\n" }, { line: 2, text: "b" }], { maxRows: 1 });
 * assert.deepEqual(out, { text: "1\ta\n", rows: 1, cutLines: [] });
 * ```
 */
export function formatRows(rows: Iterable<Row>, options: Budget & RowOptions = {}): FormattedRows {
  const maxRows = options.maxRows ?? DEFAULT_MAX_ROWS;
  const maxChars = options.maxChars ?? DEFAULT_MAX_CHARS;
  let text = "";
  let count = 0;
  const cutLines: number[] = [];
  for (const row of rows) {
    if (count >= maxRows) break;
    const formatted = formatRow(row, options);
    if (count > 0 && text.length + formatted.text.length > maxChars) break;
    text += formatted.text;
    count++;
    if (formatted.cut) cutLines.push(row.line);
  }
  return { text, rows: count, cutLines };
}

/**
 * Appends a note (a line of its own in square brackets). A `\n` goes before it only when
 * the text so far ends without one (a last row with no terminator).
 *
 * @param text rows and notes so far
 * @param note the note's words, without brackets
 * @returns the text with the note line added
 * @example
 * ```ts
 * import { appendNote } from "./format_rows.ts";
 * import assert from "node:assert/strict";
 * assert.equal(appendNote("1\tlast", "lines 1-1 of 3"), "1\tlast\n[lines 1-1 of 3]\n");
 * ```
 */
export function appendNote(text: string, note: string): string {
  const gap = text.length > 0 && !text.endsWith("\n") ? "\n" : "";
  return `${text}${gap}[${note}]\n`;
}

/**
 * {@linkcode appendNote} of each note in turn to a text given in pieces, joined once: a text of
 * megabytes is then copied once, not again for each note (and for its serialization).
 *
 * @param pieces the text so far, in pieces
 * @param notes the notes' words, without brackets, in order
 * @returns the text with a line for each note
 * @example
 * ```ts
 * import { appendNote, appendNotes } from "./format_rows.ts";
 * import assert from "node:assert/strict";
 * assert.equal(appendNotes(["1\tfirst\n", "2\tlast"], ["a", "b"]), "1\tfirst\n2\tlast\n[a]\n[b]\n");
 * assert.equal(appendNotes(["1\tlast"], ["a"]), appendNote("1\tlast", "a"));
 * ```
 */
export function appendNotes(pieces: readonly string[], notes: readonly string[]): string {
  if (notes.length === 0) return pieces.join("");
  const last = pieces.findLast((piece) => piece.length > 0);
  const gap = last !== undefined && !last.endsWith("\n") ? "\n" : "";
  return [...pieces, gap, ...notes.map((note) => `[${note}]\n`)].join("");
}
