/**
 * Where the code points of a large file are, kept with its block filters, so that a search
 * can show the row of a long line from the blocks around its match. A source map or a
 * minified bundle is one line of megabytes, and the row grep shows of it starts
 * `[from column N]`, counted in code points from the line's start: without these counts the
 * whole line is read to count them, though the blocks that may hold the match are few.
 *
 * @module
 */
import { codePointsIn } from "../_long_rows.ts";

/** The code points of a file valid in UTF-8, at its blocks' line breaks and every granule. */
export interface CodePoints {
  /** The bytes between two entries of `before` (a sixteenth of a block, at least 1). */
  granule: number;
  /** Per granule, the code points before it; one more entry: the file's. */
  before: Uint32Array;
  /** Per block, the code points before the text of the line its last `\n` starts. */
  lineStarts: Uint32Array;
  /**
   * Per block, the code points before the end of the text of the line its first `\n` ends
   * (a `\r` before that `\n` is the terminator's).
   */
  lineEnds: Uint32Array;
  /** Per block, 1 when its first `\n` follows a `\r`. */
  crlf: Uint32Array;
  /** The code points of the BOM that starts the file, if any (line 1's text follows it). */
  bom: number;
}

const CR = 13;
const BOM = [0xef, 0xbb, 0xbf];

/**
 * The code points of a file valid in UTF-8 (a code point is a byte that is not a
 * continuation byte, so counts of any two ranges add up).
 *
 * @param bytes the whole file
 * @param block the bytes of a block
 * @param firstLf per block, its first `\n` (-1: none)
 * @param lastLf per block, its last `\n` (-1: none)
 * @returns where its code points are
 */
export function codePointsOf(
  bytes: Uint8Array,
  block: number,
  firstLf: Int32Array,
  lastLf: Int32Array,
): CodePoints {
  const granule = granuleOf(block);
  const granules = Math.ceil(bytes.length / granule);
  const before = new Uint32Array(granules + 1);
  for (let g = 0; g < granules; g++) {
    const start = g * granule;
    before[g + 1] = before[g] +
      codePointsIn(bytes, start, Math.min(bytes.length, start + granule));
  }
  const at = (offset: number) => {
    const g = Math.floor(offset / granule);
    return before[g] + codePointsIn(bytes, g * granule, offset);
  };
  const count = firstLf.length;
  const lineStarts = new Uint32Array(count);
  const lineEnds = new Uint32Array(count);
  const crlf = new Uint32Array(count);
  for (let b = 0; b < count; b++) {
    if (firstLf[b] === -1) continue;
    lineStarts[b] = at(lastLf[b] + 1);
    crlf[b] = firstLf[b] > 0 && bytes[firstLf[b] - 1] === CR ? 1 : 0;
    lineEnds[b] = at(firstLf[b]) - crlf[b];
  }
  const bom = BOM.every((byte, i) => bytes[i] === byte) ? 1 : 0;
  return { granule, before, lineStarts, lineEnds, crlf, bom };
}

/**
 * The bytes between two counts of code points before granules.
 *
 * @param block the bytes of a block
 * @returns a sixteenth of them, at least 1
 */
export function granuleOf(block: number): number {
  return Math.max(1, Math.floor(block / 16));
}

/**
 * The code points before an offset that starts a granule, or ends the file.
 *
 * @param points the file's code points
 * @param offset the offset
 * @returns how many code points lie before it
 */
export function codePointsBefore(points: CodePoints, offset: number): number {
  const { before, granule } = points;
  return offset % granule === 0 ? before[offset / granule] : before[before.length - 1];
}

/** The bytes code points take, as block filters count them. */
export function codePointBytes(points: CodePoints): number {
  const { before, lineStarts, lineEnds, crlf } = points;
  return before.byteLength + lineStarts.byteLength + lineEnds.byteLength + crlf.byteLength;
}
