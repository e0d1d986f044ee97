/**
 * A text's lines by number, without a string made for each: the line count, and where every
 * 64th line starts. A line is found from the nearest of those by the line rule
 * ({@linkcode lineStartAfter}). One pass builds it (60 ms for 6,291,456 lines, where
 * `splitLines` took 0.7-1.7 s and held a string for each, about 40 bytes a line, that every
 * collection then went through).
 *
 * @module
 */
import { lineStartAfter } from "./split_lines.ts";

/** Lines between two kept starts. */
const STRIDE = 64;

/** The lines of a text, as `splitLines` gives them (terminators kept), one at a time. */
export class LineIndex {
  /** The text the lines are of. */
  readonly text: string;
  /** How many lines it has (by the line rule: "" has none). */
  readonly length: number;
  /** Where lines 0, 64, 128, … (counted from 0) start. */
  readonly #marks: Uint32Array;
  /** The last line found, to go on from: a read takes lines in order. */
  #near = { index: 0, start: 0 };

  /**
   * Indexes a text.
   *
   * @param text the text (BOM aside, as the lines are numbered)
   * @example
   * ```ts
   * import { LineIndex } from "./line_index.ts";
   * import assert from "node:assert/strict";
   * const lines = new LineIndex("a\r\nb\rc\nd");
   * assert.equal(lines.length, 3);
   * assert.equal(lines.at(1), "b\rc\n");
   * assert.equal(lines.at(-1), "d");
   * assert.equal(lines.at(3), undefined);
   * ```
   */
  constructor(text: string) {
    this.text = text;
    let marks = new Uint32Array(STRIDE);
    let kept = 1; // (line 0 starts at 0)
    let breaks = 0;
    for (let lf = text.indexOf("\n"); lf !== -1; lf = text.indexOf("\n", lf + 1)) {
      if (++breaks % STRIDE !== 0 || lf + 1 === text.length) continue;
      if (kept === marks.length) {
        const grown = new Uint32Array(kept * 2);
        grown.set(marks);
        marks = grown;
      }
      marks[kept++] = lf + 1;
    }
    this.#marks = marks.slice(0, kept);
    const unterminated = text.length > 0 && text.charCodeAt(text.length - 1) !== 10;
    this.length = breaks + (unterminated ? 1 : 0);
  }

  /** Bytes the index holds besides the text. */
  get bytes(): number {
    return this.#marks.byteLength;
  }

  /**
   * One line with its terminator, as `Array.prototype.at` gives an element.
   *
   * @param index the line's index from 0 (negative: from the end)
   * @returns the line, or undefined past either end
   */
  at(index: number): string | undefined {
    // (As Array.prototype.at reads its index: toward zero, NaN as 0, then from the end.)
    let i = Math.trunc(index) || 0;
    if (i < 0) i += this.length;
    if (!(i >= 0 && i < this.length)) return undefined;
    const start = this.#startOf(i);
    const next = lineStartAfter(this.text, start, 1);
    this.#near = { index: i + 1, start: next };
    return this.text.slice(start, next);
  }

  /** Where line `i` (from 0, within the text) starts. */
  #startOf(i: number): number {
    const near = this.#near;
    const mark = Math.floor(i / STRIDE);
    if (near.index <= i && near.index >= mark * STRIDE) {
      return lineStartAfter(this.text, near.start, i - near.index);
    }
    return lineStartAfter(this.text, this.#marks[mark], i - mark * STRIDE);
  }
}
