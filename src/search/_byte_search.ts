/**
 * Finding literals in bytes, for search's prefilters: views for `Buffer`'s fast `indexOf`,
 * the occurrences of several literals in order (each confirmed, for a case-insensitive
 * search, by the bytes around it), and newline counting.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { keepOffTopTier } from "../io/runtime.ts";

const LF = 10;
/** U+212A KELVIN SIGN and U+017F LATIN SMALL LETTER LONG S in UTF-8. */
const KELVIN_SIGN = Buffer.from("\u212A");
const LONG_S = Buffer.from("\u017F");

/** A Buffer view of bytes (for its fast indexOf). */
export function bytesOf(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
}

/**
 * The occurrences of any of the needles in order: a function of an offset that never
 * decreases from call to call, giving the first occurrence at or after it (`at` -1 when
 * there is none). Each needle's next occurrence is remembered until it is passed, so a
 * needle that occurs rarely is not searched for again after every occurrence of another.
 * With `folded` (one per needle), an occurrence counts only where the bytes around it hold
 * its needle's folded literal (see `Prefilter`).
 */
export function occurrences(
  buffer: Buffer,
  needles: readonly Uint8Array[],
  folded?: readonly Uint8Array[],
): (from: number) => { at: number; length: number } {
  const next = needles.map(() => -2); // -2: not searched yet; -1: no more
  const holds = folded === undefined ? undefined : confirmations(buffer, needles, folded);
  return (from) => {
    for (;;) {
      let at = -1;
      let which = 0;
      for (let i = 0; i < needles.length; i++) {
        if (next[i] !== -1 && next[i] < from) next[i] = buffer.indexOf(needles[i], from);
        if (next[i] !== -1 && (at === -1 || next[i] < at)) [at, which] = [next[i], i];
      }
      if (at === -1 || holds === undefined || holds[which](at)) {
        return { at, length: at === -1 ? 0 : needles[which].length };
      }
      next[which] = buffer.indexOf(needles[which], at + 1); // not this one: the next
    }
  };
}

/**
 * Per needle, whether the bytes around an occurrence of it hold its folded literal, ASCII
 * letters compared without case (where the needle's part lies in the literal more than
 * once, at any of its places). A `k` or an `s` of a literal may stand in the text as a
 * Kelvin sign or a long s, of other byte lengths: in a text that holds either, every
 * occurrence of such a literal's needles counts.
 */
function confirmations(
  buffer: Buffer,
  needles: readonly Uint8Array[],
  folded: readonly Uint8Array[],
): ((at: number) => boolean)[] {
  let odd: { k: boolean; s: boolean } | undefined; // (looked for once, when needed)
  return needles.map((needle, i) => {
    const within = bytesOf(folded[i]);
    if (within.includes("k") || within.includes("s")) {
      odd ??= { k: buffer.includes(KELVIN_SIGN), s: buffer.includes(LONG_S) };
      if ((odd.k && within.includes("k")) || (odd.s && within.includes("s"))) return () => true;
    }
    const part = needle.map(lower);
    const places: number[] = [];
    for (let at = within.indexOf(part); at !== -1; at = within.indexOf(part, at + 1)) {
      places.push(at);
    }
    return (at) =>
      places.some((place) => {
        const start = at - place;
        if (start < 0 || start + within.length > buffer.length) return false;
        for (let j = 0; j < within.length; j++) {
          if (lower(buffer[start + j]) !== within[j]) return false;
        }
        return true;
      });
  });
}

/** An ASCII capital's lower-case byte; any other byte as it is. */
function lower(byte: number): number {
  return byte >= 65 && byte <= 90 ? byte + 32 : byte;
}

/**
 * The `\n` bytes in `[from, to)`, four at a time where the bytes are aligned (faster than a
 * byte loop, which matters since the window of a large bundle can span megabytes).
 *
 * @param bytes the bytes
 * @param from the first offset
 * @param to the offset after the last
 * @returns how many `\n` bytes lie between them
 */
export function countLf(bytes: Uint8Array, from: number, to: number): number {
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

keepOffTopTier(countLf);
