/**
 * Ruling out a file for a search that ignores case in one pass over its bytes. Such a search
 * looks for every spelling of a three-byte part of its literal (`n_l`, `n_L`, `N_l` and `N_L`
 * for `spin_lock_irqsave`; eight for the `rro` of `error`), and one `indexOf` per spelling
 * went through a file without any of them once per spelling. Where the runtime has
 * WebAssembly's vector instructions, the spellings of a part are looked for together
 * (`_caseless_scan.wat`): each byte where the part has an ASCII letter is compared with it
 * after setting the 0x20 bit, which makes both cases of the letter its lower case and no
 * other byte. A file's bytes are gone through where a search read them, in the thread's read
 * region (`io/_wasm_chunks.ts`); other bytes are copied into the module's memory a chunk at a
 * time (what that costs and saves: docs/decisions.md, `bench/caseless_scan.ts`). A part of no
 * letters (masks 0) is found as it is: under Deno, whose `indexOf` is slow, the looks for a
 * needle are made that way (`firstIndexOf` in `_byte_search.ts`).
 *
 * @module
 */
import { WASM } from "./_caseless_scan_wasm.ts";
import { CHUNK_BYTES, instantiateOverChunks, inThreadMemory } from "../io/_wasm_chunks.ts";

/** The bytes of a part: each needle's first three. */
export const PART_BYTES = 3;

/**
 * Files shorter than this are looked through with `indexOf` alone: for them the copy and the
 * call cost about what the passes save.
 */
export const CASELESS_FROM_BYTES = 512;

/**
 * A part to look for in either case: its three bytes with ASCII letters in lower case, and
 * 0x20 in the bytes that are letters, each packed into an integer (the first byte lowest).
 * Plain data: it crosses threads with the examination.
 */
export interface CaselessPart {
  part: number;
  masks: number;
}

/**
 * The parts that find every occurrence of the needles: each needle's first three bytes, its
 * ASCII letters in either case. An occurrence of a needle holds its part, so bytes without
 * any part hold no needle.
 *
 * @param needles the needles (the spellings of a search that ignores case)
 * @returns the parts, or undefined when they are not fewer than the needles (a pass each
 *   would then save nothing) or a needle is shorter than a part
 */
export function caselessPartsOf(needles: readonly Uint8Array[]): CaselessPart[] | undefined {
  if (needles.some((needle) => needle.length < PART_BYTES)) return undefined;
  const parts = new Map<number, CaselessPart>();
  for (const needle of needles) {
    let part = 0;
    let masks = 0;
    for (let i = 0; i < PART_BYTES; i++) {
      const lower = needle[i] | 0x20;
      const letter = lower >= 0x61 && lower <= 0x7a;
      part |= (letter ? lower : needle[i]) << (8 * i);
      if (letter) masks |= 0x20 << (8 * i);
    }
    parts.set(part, { part, masks });
  }
  return parts.size < needles.length ? [...parts.values()] : undefined;
}

type FindCaseless = (from: number, to: number, part: number, masks: number) => number;

/** The thread's scanner (null: the runtime cannot run it; undefined: not yet). */
let scanner: { memory: Uint8Array; find: FindCaseless } | null | undefined;

function wasmScanner(): typeof scanner {
  if (scanner !== undefined) return scanner;
  const module = instantiateOverChunks<{ findCaseless: FindCaseless }>(WASM);
  return scanner = module && { memory: module.memory, find: module.exports.findCaseless };
}

/**
 * Whether this runtime scans in WebAssembly (tests check that the fast path is taken).
 *
 * @returns true when bytes of {@linkcode CASELESS_FROM_BYTES} and more are scanned there
 */
export function scansInWasm(): boolean {
  return wasmScanner() !== null;
}

/**
 * Visits the offsets where one of the parts occurs, in order, until the visit says to stop.
 *
 * @param bytes the bytes
 * @param parts the parts (see {@linkcode caselessPartsOf})
 * @param visit given each offset; true stops the walk (it runs while a chunk is in the
 *   thread's WebAssembly memory, so it must not count lines with `countLf`)
 * @returns true when a visit stopped it, false when every offset was visited, undefined when
 *   the bytes were not looked through (shorter than {@linkcode CASELESS_FROM_BYTES}, or no
 *   WebAssembly): the caller then looks for its needles itself
 */
export function eachCaselessOffset(
  bytes: Uint8Array,
  parts: readonly CaselessPart[],
  visit: (at: number) => boolean,
): boolean | undefined {
  const wasm = bytes.length >= CASELESS_FROM_BYTES ? wasmScanner() : null;
  if (!wasm) return undefined;
  const { memory, find } = wasm;
  const next: number[] = [];
  if (inThreadMemory(bytes)) {
    // (Read into the thread's read region: gone through where they are.)
    const base = bytes.byteOffset;
    return walkHits(find, parts, next, base, base + bytes.length, -base, visit);
  }
  // Chunks overlap by a part less a byte, so that a part cut by a chunk's end is whole in
  // the next (and no offset is found in both).
  for (let at = 0;; at += CHUNK_BYTES - (PART_BYTES - 1)) {
    const length = Math.min(bytes.length - at, CHUNK_BYTES);
    // (A Buffer's subarray costs a microsecond or so: most files fit one chunk.)
    memory.set(length === bytes.length ? bytes : bytes.subarray(at, at + length));
    if (walkHits(find, parts, next, 0, length, at, visit)) return true;
    if (at + length === bytes.length) return false;
  }
}

/**
 * Visits the offsets in `memory[from, to)` where one of the parts occurs, in order.
 *
 * @param next a scratch array, a slot per part
 * @param shift added to an offset in the memory to make it one in the caller's bytes
 * @returns true when a visit stopped the walk
 */
function walkHits(
  find: FindCaseless,
  parts: readonly CaselessPart[],
  next: number[],
  from: number,
  to: number,
  shift: number,
  visit: (at: number) => boolean,
): boolean {
  for (let i = 0; i < parts.length; i++) next[i] = find(from, to, parts[i].part, parts[i].masks);
  for (;;) {
    let which = -1;
    for (let i = 0; i < parts.length; i++) {
      if (next[i] !== -1 && (which === -1 || next[i] < next[which])) which = i;
    }
    if (which === -1) return false;
    const offset = next[which];
    if (visit(shift + offset)) return true;
    for (let i = 0; i < parts.length; i++) {
      if (next[i] === offset) next[i] = find(offset + 1, to, parts[i].part, parts[i].masks);
    }
  }
}
