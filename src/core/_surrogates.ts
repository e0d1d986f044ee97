/**
 * Whether a text holds UTF-16 surrogates, the one case where a column is not an offset + 1.
 *
 * @module
 */
import { Buffer } from "node:buffer";

/**
 * Whether a text holds a UTF-16 surrogate. Most lines hold none, and a native scan settles
 * that faster than a loop. A text whose UTF-8 length is
 * its length is ASCII: JavaScriptCore's regex engine scans even such a text for a surrogate
 * (V8's does not), and a minified line of megabytes took milliseconds per row shown.
 *
 * @param text any text
 * @returns true when it holds one
 * @example
 * ```ts
 * import { hasSurrogates } from "./_surrogates.ts";
 * import assert from "node:assert/strict";
 * assert.equal(hasSurrogates("a😀b"), true);
 * assert.equal(hasSurrogates("aéb"), false);
 * ```
 */
export function hasSurrogates(text: string): boolean {
  return Buffer.byteLength(text, "utf8") !== text.length && SURROGATE.test(text);
}

const SURROGATE = /[\uD800-\uDFFF]/;
