/**
 * Counting `\n` bytes, which numbers every line search gives (the bytes between the lines it
 * keeps of a file are counted, not decoded) and every line a deep read passes. Where the
 * runtime has WebAssembly's vector instructions, a range is copied into a WebAssembly memory
 * and counted there sixteen bytes at a time (`_count_lf.wat`), several times faster than
 * JavaScript can count them, copy included (`deno bench bench/count_lf_bench.ts`); a deep
 * read reads its blocks straight into that memory ({@linkcode countingMemory}), a search its
 * files (the read region of `_wasm_chunks.ts`).
 *
 * @module
 */
import { keepOffTopTier } from "./runtime.ts";
import { WASM } from "./_count_lf_wasm.ts";
import { CHUNK_BYTES, instantiateOverChunks, inThreadMemory } from "./_wasm_chunks.ts";

const LF = 10;

/** Ranges shorter than this are counted in JavaScript: the copy and the call cost more. */
export const WASM_FROM_BYTES = 256;

interface Counter {
  memory: Uint8Array;
  count: (from: number, to: number) => number;
}

/** The thread's WebAssembly counter (null: the runtime cannot run it; undefined: not yet). */
let counter: Counter | null | undefined;

function wasmCounter(): Counter | null {
  if (counter !== undefined) return counter;
  const module = instantiateOverChunks<{ countLf: Counter["count"] }>(WASM);
  return counter = module && { memory: module.memory, count: module.exports.countLf };
}

/**
 * Whether this runtime counts in WebAssembly (tests check that the fast path is taken).
 *
 * @returns true when ranges of {@linkcode WASM_FROM_BYTES} and more are counted there
 */
export function countsInWasm(): boolean {
  return wasmCounter() !== null;
}

/**
 * The `\n` bytes in `[from, to)`.
 *
 * @param bytes the bytes
 * @param from the first offset
 * @param to the offset after the last
 * @returns how many `\n` bytes lie between them
 */
export function countLf(bytes: Uint8Array, from: number, to: number): number {
  const wasm = to - from >= WASM_FROM_BYTES ? wasmCounter() : null;
  if (wasm === null) return countLfInJs(bytes, from, to);
  const { memory, count } = wasm;
  if (inThreadMemory(bytes)) {
    // (Read into the thread's read region: counted where they are.)
    return count(bytes.byteOffset + from, bytes.byteOffset + to);
  }
  let total = 0;
  for (let at = from; at < to; at += CHUNK_BYTES) {
    const end = Math.min(to, at + CHUNK_BYTES);
    memory.set(bytes.subarray(at, end));
    total += count(0, end - at);
  }
  return total;
}

/**
 * Where bytes can be counted without a copy: the WebAssembly memory {@linkcode countLf}
 * counts in ({@linkcode CHUNK_BYTES}), for bytes read straight into it; null where the
 * runtime cannot count there. Its bytes are overwritten by the thread's next count.
 *
 * @returns the memory, and the count of `\n` bytes in its first `length` bytes
 */
export function countingMemory(): { bytes: Uint8Array; count: (length: number) => number } | null {
  const wasm = wasmCounter();
  return wasm && { bytes: wasm.memory, count: (length) => wasm.count(0, length) };
}

/**
 * {@linkcode countLf} in JavaScript: four bytes at a time where they are aligned (faster
 * than a byte loop).
 *
 * @param bytes the bytes
 * @param from the first offset
 * @param to the offset after the last
 * @returns how many `\n` bytes lie between them
 */
export function countLfInJs(bytes: Uint8Array, from: number, to: number): number {
  let count = 0;
  let i = from;
  const aligned = ((bytes.byteOffset + from + 3) & ~3) - bytes.byteOffset;
  for (; i < aligned && i < to; i++) if (bytes[i] === LF) count++;
  if (i === to) return count;
  const words = new Uint32Array(bytes.buffer, bytes.byteOffset + i, (to - i) >>> 2);
  for (let w = 0; w < words.length;) {
    // Each byte of `lanes` counts the \n bytes in its lane, up to 255 words, then is summed.
    const stop = Math.min(words.length, w + 255);
    let lanes = 0;
    for (; w < stop; w++) {
      // 0x80 in each byte that was \n, nothing elsewhere.
      const x = words[w] ^ 0x0a0a0a0a;
      lanes += (~(((x & 0x7f7f7f7f) + 0x7f7f7f7f) | x | 0x7f7f7f7f) >>> 7) & 0x01010101;
    }
    count += (lanes & 0xff) + ((lanes >>> 8) & 0xff) + ((lanes >>> 16) & 0xff) + (lanes >>> 24);
  }
  for (i += words.length * 4; i < to; i++) if (bytes[i] === LF) count++;
  return count;
}

keepOffTopTier(countLfInJs);
