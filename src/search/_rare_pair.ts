/**
 * Looking for a literal through its two rarest bytes. Bun's `Buffer.indexOf` tests every
 * offset of the bytes for the needle's first and last bytes at once (SIMD) and compares
 * the needle where both are there. A needle whose ends are common in code
 * (`EXPORT_SYMBOL_GPL(`: `E` and `(`) stops it at many offsets: over the Linux kernel's
 * 1.3 GB, 74 ms, where bytes that hold nothing like the needle take 22. Looking instead for
 * the part of the needle between two rarer bytes (`XPORT_SY`) and comparing the whole
 * needle around each occurrence of the part took 42.
 *
 * @module
 */
import { BYTE_RARITY } from "./_byte_rarity.ts";

/** The part of a needle to look for in its place: `part` starts `offset` bytes into it. */
export interface RarePart {
  offset: number;
  part: Uint8Array;
}

/**
 * Fewest bytes from the first of the pair to the second: bytes side by side are far from
 * independent (`OD` of `TODO` is in every `MODULE_`), and each place the part is found
 * but the needle is not costs a call back into JavaScript.
 */
const MIN_SPAN = 3;

/**
 * How much rarer (eighths of a bit: `_byte_rarity.ts`) the pair must be than the needle's
 * ends for the part to be looked for instead: 4 times.
 */
const MIN_GAIN = 16;

/**
 * The part of a needle between the rarest pair of its bytes at least {@linkcode MIN_SPAN}
 * apart, by the rarity of bytes in source code, when that pair is rarer than its ends.
 *
 * @param needle the needle
 * @returns the part, or undefined: the needle is looked for as it is
 * @example
 * ```ts
 * import { rarePart } from "./_rare_pair.ts";
 * import assert from "node:assert/strict";
 * const found = rarePart(new TextEncoder().encode("EXPORT_SYMBOL_GPL("))!;
 * assert.equal(new TextDecoder().decode(found.part), "XPORT_SY");
 * assert.equal(found.offset, 1);
 * ```
 */
export function rarePart(needle: Uint8Array): RarePart | undefined {
  const last = needle.length - 1;
  if (last < MIN_SPAN) return undefined;
  let best = { from: 0, to: last, rarity: BYTE_RARITY[needle[0]] + BYTE_RARITY[needle[last]] };
  const ends = best.rarity;
  // (Scanned once: the rarest first byte for each second one is the rarest so far.)
  let rarestFirst = 0;
  for (let to = MIN_SPAN; to <= last; to++) {
    const from = to - MIN_SPAN;
    if (BYTE_RARITY[needle[from]] > BYTE_RARITY[needle[rarestFirst]]) rarestFirst = from;
    const rarity = BYTE_RARITY[needle[rarestFirst]] + BYTE_RARITY[needle[to]];
    if (rarity > best.rarity) best = { from: rarestFirst, to, rarity };
  }
  if (best.rarity < ends + MIN_GAIN) return undefined;
  return { offset: best.from, part: needle.subarray(best.from, best.to + 1) };
}
