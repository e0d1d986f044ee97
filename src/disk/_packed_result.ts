/**
 * A search result as it crosses from the search thread to the one that answers: the rows of
 * every file in a few flat arrays and two strings, instead of an object per row. Posting
 * tens of thousands of row objects took tens of milliseconds each way; a handful of typed
 * arrays (transferred, not copied) and strings take a fraction of that. So do the paths
 * joined in one string: Bun posted an array of 8,000 of them beside the rest in 18-30 ms,
 * and the same joined in about 2.
 *
 * Each row's text goes after its prefix as the grep tool shows it: a file whose rows are all
 * shown as they are (most files) is then laid out as one slice of the rows' string, not
 * row by row, and the answer is joined from a few long pieces instead of a million short ones.
 *
 * @module
 */
import { type LinePiece, rowPrefix, shownWhole, windowRow } from "../core/format_rows.ts";
import type { ScanRow } from "../core/mod.ts";
import type { FileMatches, SearchResult } from "../store/file_store.ts";
import { eachRow, rowCount, RowTable, withFlatRows } from "../store/flat_rows.ts";

/** The rows of a result's files, flat. */
export interface PackedFiles {
  /** The files' paths, joined with NUL (which no path holds). */
  paths: string;
  /** Per file: 1 when it was not valid UTF-8. */
  invalid: Uint8Array;
  /** Per file: how many rows it has. */
  rowCounts: Int32Array;
  /** Per file: its `matchedLines` (a count without rows), or -1. */
  matchedLines: Float64Array;
  /** Per row: its line number (doubles, as a file may have more than 2^31 lines). */
  lines: Float64Array;
  /** Per row: its text's length in UTF-16 code units, its prefix counted in. */
  textLengths: Int32Array;
  /** Every row's text after its prefix as a grep shows it ({@linkcode rowPrefix}), in order. */
  texts: string;
  /** Per file: 1 when every row of it is shown as it is at the cut it was packed with. */
  whole: Uint8Array;
  /** The cut the rows were packed with. */
  cut: number | undefined;
  /** Per row: the match's start and end, or -1 and -1 for a context row. */
  matches: Int32Array;
  /** The rows that hold a part of a long line: their index, and which part. */
  pieces: Array<[number, LinePiece]>;
  /** The files whose digest is known: their index, the digest, and the identity it is of. */
  sha1s: Array<[number, string, string?]>;
}

/** A {@linkcode SearchResult} with its files packed. */
export type PackedResult = Omit<SearchResult, "files"> & { files: PackedFiles };

/**
 * The strings of a packed result (every row's text, the paths), posted in a message of their
 * own ahead of the rest where that is faster (`STRINGS_POST_APART`): in the server, a result
 * of 84,000 rows (7 M characters) took 95-140 ms to post whole under Bun, and 2-4 ms as its
 * strings and then the rest.
 */
export interface PackedStrings {
  texts: string;
  paths: string;
}

/**
 * A packed result split for posting: its strings, and the rest without them.
 *
 * @param packed the packed result
 * @returns the strings, and the result with empty ones in their place
 */
export function splitStrings(packed: PackedResult): { strings: PackedStrings; rest: PackedResult } {
  const { texts, paths } = packed.files;
  return {
    strings: { texts, paths },
    rest: { ...packed, files: { ...packed.files, texts: "", paths: "" } },
  };
}

/**
 * A packed result with its strings back (see {@linkcode splitStrings}).
 *
 * @param rest the result posted without its strings
 * @param strings its strings
 * @returns the packed result
 */
export function withStrings(rest: PackedResult, strings: PackedStrings): PackedResult {
  return { ...rest, files: { ...rest.files, ...strings } };
}

/**
 * Packs a result, cutting rows much longer than they will be shown to the part shown.
 *
 * @param result the search's result
 * @param cut the code points a row is shown with (undefined: rows are kept whole)
 * @returns the packed result, and the buffers to transfer with it
 */
export function packResult(
  result: SearchResult,
  cut: number | undefined,
): { packed: PackedResult; transfer: ArrayBuffer[] } {
  const rows = result.files.reduce((sum, file) => sum + rowCount(file), 0);
  const paths: string[] = [];
  const files: PackedFiles = {
    paths: "",
    invalid: new Uint8Array(result.files.length),
    rowCounts: new Int32Array(result.files.length),
    matchedLines: new Float64Array(result.files.length),
    lines: new Float64Array(rows),
    textLengths: new Int32Array(rows),
    texts: "",
    whole: new Uint8Array(result.files.length),
    cut,
    matches: new Int32Array(rows * 2),
    pieces: [],
    sha1s: [],
  };
  const texts: string[] = []; // (each file's, joined)
  let r = 0;
  result.files.forEach((file, f) => {
    paths.push(file.path);
    if (file.sha1 !== undefined) {
      files.sha1s.push(
        file.identity === undefined ? [f, file.sha1] : [f, file.sha1, file.identity],
      );
    }
    files.invalid[f] = file.invalidUtf8 ? 1 : 0;
    files.rowCounts[f] = rowCount(file);
    files.matchedLines[f] = file.matchedLines ?? -1;
    // (Read without making a row object of each; a long row is cut to the part shown.)
    let whole = cut !== undefined;
    // (Joined file by file, while its rows are fresh in the cache: one join of a million rows
    // in the end took longer.)
    const own: string[] = [];
    eachRow(file, (line, text, start, end, piece) => {
      if (cut !== undefined && piece === undefined && text.length > cut) {
        const long: ScanRow = { line, text, ...start === -1 ? {} : { match: { start, end } } };
        const shown = windowRow(long, cut);
        ({ text, piece } = shown);
        ({ start, end } = shown.match ?? { start: -1, end: -1 });
      }
      if (!shownWhole(text, piece, cut)) whole = false;
      const prefix = rowPrefix(line, start === -1);
      files.lines[r] = line;
      files.textLengths[r] = prefix.length + text.length;
      own.push(prefix, text);
      files.matches[2 * r] = start;
      files.matches[2 * r + 1] = end;
      if (piece !== undefined) files.pieces.push([r, piece]);
      r++;
      return true;
    });
    files.whole[f] = whole ? 1 : 0;
    texts.push(own.join(""));
  });
  files.texts = texts.join("");
  files.paths = paths.join("\0");
  const { files: _, ...rest } = result;
  const transfer = [
    files.invalid,
    files.rowCounts,
    files.matchedLines,
    files.whole,
    files.lines,
    files.textLengths,
    files.matches,
  ].map((array) => array.buffer as ArrayBuffer);
  return { packed: { ...rest, files }, transfer };
}

/**
 * The result a {@linkcode packResult} packed, its rows left flat until asked for (see
 * `src/store/flat_rows.ts`).
 *
 * @param packed what crossed the threads
 * @returns the result
 */
export function unpackResult(packed: PackedResult): SearchResult {
  const { files: flat, ...rest } = packed;
  const { lines, textLengths, texts, matches } = flat;
  const table = new RowTable({ lines, matches, texts, textLengths, pieces: new Map(flat.pieces) });
  const sha1s = new Map(flat.sha1s.map(([f, sha1, identity]) => [f, { sha1, identity }]));
  const files: FileMatches[] = [];
  let from = 0;
  let at = 0;
  const paths = flat.rowCounts.length === 0 ? [] : flat.paths.split("\0");
  paths.forEach((path, f) => {
    const count = flat.rowCounts[f];
    const file: FileMatches = { path, rows: [], invalidUtf8: flat.invalid[f] === 1 };
    const wholeAt = flat.whole[f] === 1 ? flat.cut : undefined;
    if (count > 0) withFlatRows(file, { table, from, count, at, wholeAt });
    for (const end = from + count; from < end; from++) at += textLengths[from];
    const digest = sha1s.get(f);
    if (digest !== undefined) file.sha1 = digest.sha1;
    if (digest?.identity !== undefined) file.identity = digest.identity;
    if (flat.matchedLines[f] !== -1) file.matchedLines = flat.matchedLines[f];
    files.push(file);
  });
  return { ...rest, files };
}

/** The numbers of kept results, with the cut they were packed with (see {@linkcode keptNumber}). */
const keptNumbers = new WeakMap<SearchResult, { cut: number | undefined; number: number }>();
let lastNumber = 0;

/**
 * The number a kept result (frozen: every identical search gets the same one) goes by across
 * the threads. The answering thread keeps the last few it unpacked by their numbers, so that
 * a search answered with one of those posts its number alone: no packing, copying and
 * unpacking of thousands of rows for a grep repeated.
 *
 * @param result the search's result
 * @param cut the code points a row is shown with (a result packed with another cut is
 *   another one there)
 * @returns its number, the same for every search answered with it; undefined for a result
 *   that is not kept
 */
export function keptNumber(result: SearchResult, cut: number | undefined): number | undefined {
  if (!Object.isFrozen(result)) return undefined;
  const known = keptNumbers.get(result);
  if (known !== undefined && known.cut === cut) return known.number;
  const number = ++lastNumber;
  keptNumbers.set(result, { cut, number });
  return number;
}
