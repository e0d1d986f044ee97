/**
 * A file's rows kept flat: in typed arrays and one string shared by every file of a result,
 * made into row objects only when asked for. A result that crosses threads arrives flat (see
 * `src/disk/_packed_result.ts`); hundreds of thousands of row objects made again there took
 * longer than showing the rows, and held the collector up on the thread that answers. A
 * caller that only shows the rows reads them with {@linkcode eachRow}, which makes none.
 *
 * @module
 */
import type { LinePiece, ScanRow } from "../core/mod.ts";
import type { FileMatches } from "./file_store.ts";

/** The rows of the files of a result, flat, and where one file's are. */
export interface FlatRows {
  /** Per row: its line number. */
  lines: Int32Array;
  /** Per row: its text's length in UTF-16 code units. */
  textLengths: Int32Array;
  /** Every row's text, one after another. */
  texts: string;
  /** Per row: the match's start and end, or -1 and -1 for a context row. */
  matches: Int32Array;
  /** The rows that hold a part of a long line, by index. */
  pieces: ReadonlyMap<number, LinePiece>;
  /** The file's first row. */
  from: number;
  /** How many rows the file has. */
  count: number;
  /** Where the file's first row's text starts in `texts`. */
  at: number;
}

const flatRows = new WeakMap<FileMatches, FlatRows>();

/**
 * Gives a file rows made from flat ones when first asked for (and frozen then when the file
 * is frozen by then).
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
  const { lines, textLengths, texts, matches, pieces, from, count } = flat;
  let at = flat.at;
  for (let r = from; r < from + count; r++) {
    const text = texts.slice(at, at += textLengths[r]);
    if (!each(lines[r], text, matches[2 * r], matches[2 * r + 1], pieces.get(r))) return;
  }
}
