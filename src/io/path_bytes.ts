/**
 * File names are bytes; JavaScript strings are UTF-16. A name that is valid UTF-8 is its
 * decoded text. Each byte of a name that is not valid UTF-8 becomes a lone surrogate
 * U+DC80-U+DCFF (Python's "surrogateescape"), which valid UTF-8 can never produce, so every
 * name survives the round trip to a string and back and can be opened again.
 *
 * @module
 */
import { Buffer, isUtf8 } from "node:buffer";

const encoder = new TextEncoder();

/**
 * The string for a name's bytes.
 *
 * @param bytes the name as the system gave it
 * @returns its text, with invalid bytes as U+DC80-U+DCFF
 * @example
 * ```ts
 * import { decodeName, encodeName } from "./path_bytes.ts";
 * import assert from "node:assert/strict";
 * const name = decodeName(new Uint8Array([0x62, 0xff]));
 * assert.equal(name, "b\udcff");
 * assert.deepEqual([...encodeName(name)], [0x62, 0xff]);
 * ```
 */
export function decodeName(bytes: Uint8Array): string {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  let ascii = true;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] >= 0x80) {
      ascii = false;
      break;
    }
  }
  if (ascii) return view.toString("latin1");
  if (isUtf8(bytes)) return view.toString("utf8");
  return escapeInvalid(bytes);
}

/**
 * A name's bytes, for a system call.
 *
 * @param name a name or path as {@linkcode decodeName} makes them
 * @returns its bytes
 * @throws {TypeError} when it holds a lone surrogate that stands for no byte
 */
export function encodeName(name: string): Uint8Array {
  if (name.isWellFormed()) return encoder.encode(name);
  const out: number[] = [];
  for (let i = 0; i < name.length; i++) {
    const unit = name.charCodeAt(i);
    if (unit >= 0xdc80 && unit <= 0xdcff) {
      out.push(unit - 0xdc00);
      continue;
    }
    const point = name.codePointAt(i)!;
    if (point >= 0xd800 && point <= 0xdfff) {
      throw new TypeError(`the path holds a lone surrogate (U+${point.toString(16)})`);
    }
    const char = String.fromCodePoint(point);
    out.push(...encoder.encode(char));
    i += char.length - 1;
  }
  return new Uint8Array(out);
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
    const { read, written } = encoder.encodeInto(path, scratch.subarray(0, scratch.length - 1));
    if (read === path.length) {
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
 * A path as `node:fs` takes it: the string, or its bytes when it holds invalid UTF-8.
 *
 * @param path the path
 * @returns what to hand to `node:fs`
 */
export function nodePathOf(path: string): string | Buffer {
  return path.isWellFormed() ? path : Buffer.from(encodeName(path));
}

const strict = new TextDecoder("utf-8", { fatal: true });

/** Decodes valid sequences and escapes every byte that is not part of one. */
function escapeInvalid(bytes: Uint8Array): string {
  let out = "";
  let i = 0;
  while (i < bytes.length) {
    const length = sequenceAt(bytes, i);
    if (length === 0) {
      out += String.fromCharCode(0xdc00 + bytes[i]);
      i++;
    } else {
      out += strict.decode(bytes.subarray(i, i + length));
      i += length;
    }
  }
  return out;
}

/** The length of the valid UTF-8 sequence starting at `i`, or 0. */
function sequenceAt(bytes: Uint8Array, i: number): number {
  const b0 = bytes[i];
  if (b0 < 0x80) return 1;
  const continuation = (k: number, low = 0x80, high = 0xbf) =>
    i + k < bytes.length && bytes[i + k] >= low && bytes[i + k] <= high;
  if (b0 >= 0xc2 && b0 <= 0xdf) return continuation(1) ? 2 : 0;
  if (b0 >= 0xe0 && b0 <= 0xef) {
    // (No overlong forms, no surrogates.)
    const low = b0 === 0xe0 ? 0xa0 : 0x80;
    const high = b0 === 0xed ? 0x9f : 0xbf;
    return continuation(1, low, high) && continuation(2) ? 3 : 0;
  }
  if (b0 >= 0xf0 && b0 <= 0xf4) {
    const low = b0 === 0xf0 ? 0x90 : 0x80;
    const high = b0 === 0xf4 ? 0x8f : 0xbf;
    return continuation(1, low, high) && continuation(2) && continuation(3) ? 4 : 0;
  }
  return 0;
}
