/**
 * Names to bytes and back for system calls, by the convention of `core/file_names.ts`
 * (bytes that are not UTF-8 as U+DC80-U+DCFF), with a fast way for the ASCII names that
 * make up most of a tree.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { decodeName as decodeAny, encodeName } from "../core/file_names.ts";

const encoder = new TextEncoder();

/**
 * The string for a name's bytes.
 *
 * @param bytes the name as the system gave it
 * @returns its text, with bytes that are not UTF-8 as U+DC80-U+DCFF
 */
export function decodeName(bytes: Uint8Array): string {
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] >= 0x80) return decodeAny(bytes);
  }
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("latin1");
}

/**
 * Writes a path's bytes and a terminating NUL into `scratch` when they fit.
 *
 * @param path the path
 * @param scratch a buffer to reuse
 * @returns the NUL-terminated bytes (`scratch` itself when they fit, else a new buffer)
 */
export function cString(path: string, scratch: Uint8Array): Uint8Array {
  if (path.isWellFormed()) {
    const { read, written } = encoder.encodeInto(path, scratch);
    // (The whole path, and room left for the NUL.)
    if (read === path.length && written < scratch.length) {
      scratch[written] = 0;
      return scratch;
    }
  }
  const bytes = encodeName(path);
  const out = new Uint8Array(bytes.length + 1);
  out.set(bytes);
  return out;
}

/**
 * A path as `node:fs` takes it: the string, or its bytes when it holds bytes that are not
 * UTF-8.
 *
 * @param path the path
 * @returns what to hand to `node:fs`
 */
export function nodePathOf(path: string): string | Buffer {
  return path.isWellFormed() ? path : Buffer.from(encodeName(path));
}
