/**
 * Whether a file's bytes still hold the rows a search found: each row's line, at its number,
 * is the row's text (or, for a part of a long line, holds that part). Compared as bytes, so
 * that a file of long lines is not decoded to find out.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { utf8BomLength } from "./bom.ts";
import type { ScanRow } from "./scan_text.ts";
import { lineText } from "./split_lines.ts";

const LF = 10;
const encoder = new TextEncoder();

/**
 * Whether the bytes have the rows' lines at their numbers (a part of a long line inside it).
 * A file that is not valid UTF-8 must not be asked: in UTF-8 the bytes of a text are found
 * where the text is.
 *
 * @param bytes the whole file
 * @param rows rows of it, in line order
 * @returns true when every row is there
 */
export function rowsInBytes(bytes: Uint8Array, rows: readonly ScanRow[]): boolean {
  let line = 1;
  let at = utf8BomLength(bytes);
  for (const row of rows) {
    for (; line < row.line; line++) {
      at = bytes.indexOf(LF, at) + 1;
      if (at === 0) return false;
    }
    const lf = bytes.indexOf(LF, at);
    const end = lf === -1 ? bytes.length : lf + 1;
    const whole = Buffer.from(bytes.buffer, bytes.byteOffset + at, end - at);
    if (row.piece) {
      // (In the bytes: decoding a line of megabytes to find its piece cost more than the grep.)
      if (whole.indexOf(encoder.encode(lineText(row.text))) === -1) return false;
    } else if (!whole.equals(encoder.encode(row.text))) return false;
  }
  return true;
}
