/**
 * File versions: a short hash of a file's whole text, as results show it and edits take it.
 *
 * @module
 */
import { createHash } from "node:crypto";

/** Hex digits of a version: 32 bits, short enough to copy, plenty to tell a file's versions apart. */
export const VERSION_DIGITS = 8;

/**
 * The version of a text: the first hex digits of the SHA-1 of its UTF-8 bytes (for a file
 * that is valid UTF-8, of the file's bytes, BOM included).
 *
 * @param text the whole text, BOM and all
 * @returns eight hex digits
 * @example
 * ```ts
 * import { versionOf } from "./versions.ts";
 * import assert from "node:assert/strict";
 * assert.equal(versionOf("one\n"), versionOf("one\n"));
 * assert.notEqual(versionOf("one\n"), versionOf("one\r\n"));
 * assert.match(versionOf(""), /^[0-9a-f]{8}$/);
 * ```
 */
export function versionOf(text: string): string {
  return createHash("sha1").update(text, "utf8").digest("hex").slice(0, VERSION_DIGITS);
}

/**
 * The version of a file from its bytes: what {@linkcode versionOf} gives for their text when
 * they are valid UTF-8, without decoding them.
 *
 * @param bytes the whole file
 * @returns eight hex digits
 * @example
 * ```ts
 * import { versionOf, versionOfBytes } from "./versions.ts";
 * import assert from "node:assert/strict";
 * assert.equal(versionOfBytes(new TextEncoder().encode("\uFEFFé\n")), versionOf("\uFEFFé\n"));
 * ```
 */
export function versionOfBytes(bytes: Uint8Array): string {
  return versionOfDigest(createHash("sha1").update(bytes).digest("hex"));
}

/**
 * The version of a file whose bytes' SHA-1 is known: what {@linkcode versionOfBytes} gives
 * for those bytes (when they are valid UTF-8, what {@linkcode versionOf} gives for their text).
 *
 * @param sha1 the SHA-1 of the whole file, in hex
 * @returns eight hex digits
 * @example
 * ```ts
 * import { versionOfBytes, versionOfDigest } from "./versions.ts";
 * import { createHash } from "node:crypto";
 * import assert from "node:assert/strict";
 * const bytes = new TextEncoder().encode("x\n");
 * const sha1 = createHash("sha1").update(bytes).digest("hex");
 * assert.equal(versionOfDigest(sha1), versionOfBytes(bytes));
 * ```
 */
export function versionOfDigest(sha1: string): string {
  return sha1.slice(0, VERSION_DIGITS).toLowerCase();
}

/**
 * Whether a string has the form of a version (eight hex digits, either case).
 *
 * @param value what the caller passed
 * @returns true for a well-formed version
 */
export function isVersion(value: string): boolean {
  return /^[0-9a-f]{8}$/i.test(value);
}
