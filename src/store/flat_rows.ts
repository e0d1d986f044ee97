/**
 * A file's rows kept flat, in a table of the rows of every file of a result, made into row
 * objects only when asked for. A search collects its rows so (see `_search_collector.ts`), and
 * a result that crosses threads arrives so (see `src/disk/_packed_result.ts`): hundreds of
 * thousands of row objects, long-lived, cost the collector on each thread, and making them
 * again after the crossing took longer than showing the rows. A caller that only shows or
 * packs the rows reads them with {@linkcode eachRow}, which makes none.
 *
 * @module
 */
import type { LinePiece, MatchSpan, ScanRow } from "../core/mod.ts";
import { rowPrefixLength } from "../core/format_rows.ts";
import type { FileMatches } from "./file_store.ts";

/**
 * Rows of many files, column by column: as a search collects them (each row's text a string
 * of its own, the table growing as rows come), or as they crossed threads (every row's text
 * in one string, with their lengths).
 */
export class RowTable {
  /** Per row: its line number (a double: a file may have more than 2^31 lines). */
  lines: Float64Array;
  /** Per row: the match's start and end, or -1 and -1 for a context row. */
  matches: Int32Array;
  /** Per row, its text; or every row's text in one string, then with `textLengths`. */
  texts: string[] | string;
  /**
   * Per row, where `texts` is one string: the length in UTF-16 code units of its text there,
   * which comes after its prefix as a grep shows it (`rowPrefix`), counted in.
   */
  readonly textLengths: Int32Array | undefined;
  /** The rows that hold a part of a long line, by index. */
  readonly pieces: Map<number, LinePiece>;
  /** How many rows it holds. */
  count: number;

  /**
   * @param rows the rows as they crossed threads (see `src/disk/_packed_result.ts`); none: an
   *   empty table that grows
   */
  constructor(rows?: {
    lines: Float64Array;
    matches: Int32Array;
    texts: string;
    textLengths: Int32Array;
    pieces: Map<number, LinePiece>;
  }) {
    this.lines = rows?.lines ?? new Float64Array(256);
    this.matches = rows?.matches ?? new Int32Array(512);
    this.texts = rows?.texts ?? [];
    this.textLengths = rows?.textLengths;
    this.pieces = rows?.pieces ?? new Map();
    this.count = rows?.lines.length ?? 0;
  }

  /**
   * Adds a row to a growing table (made with no rows).
   *
   * @param line its line number
   * @param text its text
   * @param match where it matched; none for a context row
   * @param piece which part of a long line it holds, if it holds one
   */
  push(line: number, text: string, match?: MatchSpan, piece?: LinePiece): void {
    const r = this.count++;
    if (r === this.lines.length) {
      this.lines = grown(this.lines);
      this.matches = grown(this.matches);
    }
    this.lines[r] = line;
    this.matches[2 * r] = match?.start ?? -1;
    this.matches[2 * r + 1] = match?.end ?? -1;
    (this.texts as string[]).push(text);
    if (piece !== undefined) this.pieces.set(r, piece);
  }

  /** Gives back the room a grown table holds beyond its rows (once it is complete). */
  trim(): void {
    if (this.lines.length === this.count) return;
    this.lines = this.lines.slice(0, this.count);
    this.matches = this.matches.slice(0, 2 * this.count);
    if (typeof this.texts !== "string") this.texts = this.texts.slice();
  }
}

function grown<T extends Int32Array | Float64Array>(array: T): T {
  const bigger = new (array.constructor as new (length: number) => T)(array.length * 2);
  bigger.set(array);
  return bigger;
}

/** Where one file's rows are in a table. */
export interface FlatRows {
  table: RowTable;
  /** The file's first row. */
  from: number;
  /** How many rows the file has. */
  count: number;
  /** Where the file's first row's text starts, where the table's texts are one string. */
  at: number;
  /**
   * The cut at which every row of the file is shown as it is, after its prefix (see
   * {@linkcode shownRows}); undefined when not known so.
   */
  wholeAt?: number;
}

const flatRows = new WeakMap<FileMatches, FlatRows>();

/**
 * Gives a file rows made from flat ones when first asked for (and frozen then when the file
 * is frozen by then). They may be replaced, as a plain file's may, unless the file is frozen.
 *
 * @param file the file, its rows replaced
 * @param flat its rows, flat
 * @returns the same file
 */
export function withFlatRows(file: FileMatches, flat: FlatRows): FileMatches {
  let rows: ScanRow[] | undefined;
  const made = Object.defineProperty(file, "rows", {
    enumerable: true,
    get: () => {
      if (rows === undefined) {
        rows = rowsOf(flat, Object.isFrozen(made));
        flatRows.delete(made); // (made: from now on they are read as any file's)
      }
      return rows;
    },
    set: (given: ScanRow[]) => {
      if (Object.isFrozen(made)) throw new TypeError("the rows of a frozen result cannot change");
      rows = given;
      flatRows.delete(made);
    },
  }) as FileMatches;
  flatRows.set(made, flat);
  return made;
}

/**
 * Whether a file's rows are still flat, not made yet (see {@linkcode withFlatRows}): a frozen
 * file's are frozen as they are made.
 *
 * @param file a file of a result
 * @returns true for a file whose rows will be made when first asked for
 */
export function hasFlatRows(file: FileMatches): boolean {
  return flatRows.has(file);
}

/**
 * Calls `each` with every row of a file in order, without making a row object of a flat one.
 *
 * @param file the file
 * @param each given the row's line number, text, match (start and end, -1 for a context
 *   row) and piece; returns false to stop
 */
export function eachRow(
  file: FileMatches,
  each: (line: number, text: string, start: number, end: number, piece?: LinePiece) => boolean,
): void {
  const flat = flatRows.get(file);
  if (flat !== undefined) return eachRowOf(flat, each);
  for (const row of file.rows) {
    if (!each(row.line, row.text, row.match?.start ?? -1, row.match?.end ?? -1, row.piece)) return;
  }
}

/** The row objects of flat rows, frozen if asked. */
function rowsOf(flat: FlatRows, frozen: boolean): ScanRow[] {
  const rows: ScanRow[] = [];
  eachRowOf(flat, (line, text, start, end, piece) => {
    const row: ScanRow = { line, text };
    if (start !== -1) row.match = frozen ? Object.freeze({ start, end }) : { start, end };
    if (piece !== undefined) row.piece = frozen ? Object.freeze(piece) : piece;
    rows.push(frozen ? Object.freeze(row) : row);
    return true;
  });
  return frozen ? Object.freeze(rows) as ScanRow[] : rows;
}

function eachRowOf(flat: FlatRows, each: Parameters<typeof eachRow>[1]): void {
  const { table, from, count } = flat;
  const { lines, matches, texts, textLengths, pieces } = table;
  const pieced = pieces.size > 0;
  let at = flat.at;
  for (let r = from; r < from + count; r++) {
    const text = typeof texts === "string"
      ? texts.slice(at + rowPrefixLength(lines[r], matches[2 * r] === -1), at += textLengths![r])
      : texts[r];
    const piece = pieced ? pieces.get(r) : undefined;
    if (!each(lines[r], text, matches[2 * r], matches[2 * r + 1], piece)) return;
  }
}

/**
 * A file's rows as a grep shows them (each after its prefix) in one string, where it can be
 * taken whole: rows that crossed threads, every one of them short enough to be shown as it
 * is at the cut given.
 *
 * @param file a file of a result
 * @param cut the cut the rows are shown with
 * @returns the text, with the file's row count and the line numbers of its matching rows;
 *   undefined where the rows must be shown one by one
 */
export function shownRows(
  file: FileMatches,
  cut: number,
): { text: string; count: number; matchLines: number[] } | undefined {
  const flat = flatRows.get(file);
  if (flat === undefined || flat.wholeAt !== cut) return undefined;
  const { table: { lines, matches, textLengths, texts }, from, count, at } = flat;
  const matchLines: number[] = [];
  let end = at;
  for (let r = from; r < from + count; r++) {
    end += textLengths![r];
    if (matches[2 * r] !== -1) matchLines.push(lines[r]);
  }
  return { text: (texts as string).slice(at, end), count, matchLines };
}

/**
 * How many rows a file has, without making them.
 *
 * @param file a file of a result
 * @returns its rows' count
 */
export function rowCount(file: FileMatches): number {
  return flatRows.get(file)?.count ?? file.rows.length;
}
