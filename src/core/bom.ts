/**
 * The UTF-8 byte-order mark: never part of line 1's text, and kept by every edit.
 *
 * @module
 */

/** U+FEFF, the byte-order mark as it appears in decoded text. */
export const BOM = "\uFEFF";

/** Text with its byte-order mark set aside. */
export interface BomSplit {
  /** `BOM` or "". */
  bom: string;
  /** The text after the mark. */
  body: string;
}

/**
 * Sets aside a leading byte-order mark, so that line 1's text never contains it.
 *
 * @param text decoded text (decode with `ignoreBOM: true` so the mark survives)
 * @returns the mark (or "") and the rest
 * @example
 * ```ts
 * import { splitBom } from "./bom.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(splitBom("\uFEFFa\n"), { bom: "\uFEFF", body: "a\n" });
 * ```
 */
export function splitBom(text: string): BomSplit {
  return text.startsWith(BOM) ? { bom: BOM, body: text.slice(1) } : { bom: "", body: text };
}
