/**
 * Digests, checksums and random names for the threads that search, without `node:crypto` or
 * `node:zlib` among their imports (see `builtin` in `runtime.ts`): Bun hashes natively, and
 * the other runtimes load the module the first time it is needed.
 *
 * @module
 */
import { builtin, NATIVE_HASHER } from "./runtime.ts";

/**
 * The digest of bytes, or of a string's UTF-8 bytes, in hex.
 *
 * @param algorithm which digest
 * @param input what to hash
 * @returns lower-case hex
 * @example
 * ```ts
 * import { hexDigest } from "./hashes.ts";
 * import assert from "node:assert/strict";
 * assert.equal(hexDigest("sha1", "abc"), "a9993e364706816aba3e25717850c26c9cd0d89d");
 * assert.equal(hexDigest("sha1", new TextEncoder().encode("abc")), hexDigest("sha1", "abc"));
 * ```
 */
export function hexDigest(algorithm: "sha1" | "sha256", input: Uint8Array | string): string {
  if (NATIVE_HASHER !== undefined) return NATIVE_HASHER.hash(algorithm, input, "hex");
  return builtin<typeof import("node:crypto")>("node:crypto").createHash(algorithm).update(input)
    .digest("hex");
}

/**
 * The CRC-32 of bytes (as `zlib.crc32`).
 *
 * @param bytes what to check
 * @returns an unsigned 32-bit number
 * @example
 * ```ts
 * import { crc32 } from "./hashes.ts";
 * import assert from "node:assert/strict";
 * assert.equal(crc32(new TextEncoder().encode("123456789")), 0xcbf43926);
 * ```
 */
export function crc32(bytes: Uint8Array): number {
  return builtin<typeof import("node:zlib")>("node:zlib").crc32(bytes);
}

/**
 * Random bytes in hex, for names no one else picks.
 *
 * @param bytes how many bytes (twice as many digits)
 * @returns lower-case hex
 * @example
 * ```ts
 * import { randomHex } from "./hashes.ts";
 * import assert from "node:assert/strict";
 * assert.match(randomHex(6), /^[0-9a-f]{12}$/);
 * ```
 */
export function randomHex(bytes: number): string {
  const random = crypto.getRandomValues(new Uint8Array(bytes));
  return Array.from(random, (byte) => byte.toString(16).padStart(2, "0")).join("");
}
