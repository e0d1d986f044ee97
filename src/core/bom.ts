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

/**
 * The bytes of the byte-order mark that starts some UTF-8, as the bytes of line 1's text
 * start after it.
 *
 * @param bytes the first bytes of a file (or all of them)
 * @returns 3 when they start with EF BB BF, else 0
 * @example
 * ```ts
 * import { utf8BomLength } from "./bom.ts";
 * import assert from "node:assert/strict";
 * assert.equal(utf8BomLength(new Uint8Array([0xef, 0xbb, 0xbf, 0x61])), 3);
 * assert.equal(utf8BomLength(new Uint8Array([0x61])), 0);
 * ```
 */
export function utf8BomLength(bytes: Uint8Array): 0 | 3 {
  return bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
}
