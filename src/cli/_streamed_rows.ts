/**
 * A file's rows as grep prints them while the search scans the file chunk by chunk (standard
 * input as it comes, a log of millions of matching lines): context cut to `-B` and `-A`, and
 * `-m`'s last shown match with its context, decided row by row as soon as no line still to
 * come can change it. The store gives the larger of `-B` and `-A` on both sides of a match; a
 * row past a match's `-A` lines is held until the lines within `-B` after it have been
 * scanned, for a match there would show it.
 *
 * @module
 */
import type { ScanRow } from "../core/mod.ts";

/** What decides which rows are shown: `-B`, `-A` and `-m`. */
export interface RowRules {
  before: number;
  after: number;
  maxCount: number | undefined;
}

/** Rows of one stream, settled as the lines after them are scanned. */
export class StreamedRows {
  readonly #rules: RowRules;
  /** Rows not settled yet, in line order. */
  #held: ScanRow[] = [];
  /** The line of the last match settled, shown. */
  #lastMatch = -Infinity;
  /** Matches seen (`-m`), and the last line shown once `-m` of them were. */
  #matches = 0;
  #cut = Infinity;

  /**
   * @param rules `-B`, `-A` and `-m`
   * @example
   * ```ts
   * import { StreamedRows } from "./_streamed_rows.ts";
   * import assert from "node:assert/strict";
   * const rows = new StreamedRows({ before: 1, after: 0, maxCount: undefined });
   * const row = (line: number, match = false) =>
   *   ({ line, text: `${line}\n`, match: match ? { start: 0, end: 1 } : undefined });
   * // (Line 3 is shown only if line 4 matches: it waits until line 4 is scanned.)
   * assert.deepEqual(rows.take([row(2, true), row(3)], 3).map((r) => r.line), [2]);
   * assert.deepEqual(rows.take([row(4, true)], 5).map((r) => r.line), [3, 4]);
   * ```
   */
  constructor(rules: RowRules) {
    this.#rules = rules;
  }

  /**
   * Takes the rows a run brought, and gives those now settled that are shown.
   *
   * @param rows the run's rows, in line order, after every row given before
   * @param linesScanned the lines of the stream scanned so far
   * @returns the rows to print now, in line order
   */
  take(rows: readonly ScanRow[], linesScanned: number): ScanRow[] {
    this.#hold(rows);
    // (A match still to come lies after the lines scanned: only rows within -B of them wait,
    // and none up to the last match, nor within -A after it: those are shown whatever comes.)
    let lastMatch = this.#lastMatch;
    for (let i = this.#held.length - 1; i >= 0; i--) {
      if (this.#held[i].match === undefined) continue;
      lastMatch = this.#held[i].line;
      break;
    }
    const { before, after } = this.#rules;
    return this.#settle(Math.max(linesScanned - before, lastMatch + after));
  }

  /**
   * Gives the rows left at the stream's end (and those its last rows bring) that are shown.
   *
   * @param rows the rows found after the last run's
   * @returns the rows to print, in line order
   */
  end(rows: readonly ScanRow[]): ScanRow[] {
    this.#hold(rows);
    return this.#settle(Infinity);
  }

  /** Holds rows after those held (not spread: a file read whole gives them all at once). */
  #hold(rows: readonly ScanRow[]): void {
    this.#held = this.#held.length === 0 ? [...rows] : this.#held.concat(rows);
  }

  /** The held rows up to line `through` that are shown; the others stay held. */
  #settle(through: number): ScanRow[] {
    const held = this.#held;
    let settled = 0;
    while (settled < held.length && held[settled].line <= through) settled++;
    if (settled === 0) return [];
    const { before, after, maxCount } = this.#rules;
    // (A settled row's next match, if any, was scanned: it is among the held rows.)
    const keep = held.map((row) => row.match !== undefined);
    let lastMatch = this.#lastMatch;
    for (let i = 0; i < settled; i++) {
      const row = held[i];
      if (row.match !== undefined) lastMatch = row.line;
      else if (row.line - lastMatch <= after) keep[i] = true;
    }
    let nextMatch = Infinity;
    for (let i = held.length - 1; i >= 0; i--) {
      if (held[i].match !== undefined) nextMatch = held[i].line;
      else if (i < settled && nextMatch - held[i].line <= before) keep[i] = true;
    }
    const shown: ScanRow[] = [];
    for (let i = 0; i < settled; i++) {
      const row = held[i];
      if (!keep[i] || row.line > this.#cut) continue;
      shown.push(row);
      // (-m: the context after its last match is shown, a match within it as a match.)
      if (row.match !== undefined && maxCount !== undefined && ++this.#matches === maxCount) {
        this.#cut = row.line + after;
      }
    }
    this.#lastMatch = lastMatch;
    this.#held = held.slice(settled);
    return shown;
  }
}
