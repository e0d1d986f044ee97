/**
 * A Bloom filter of a file's byte trigrams, and of the same with ASCII letters in lower
 * case, two bits per trigram: it says for certain that a literal is not in a file (one of
 * the literal's three-byte runs is missing), or that it may be; and of a literal compared
 * without case, the same of its trigrams in lower case ({@linkcode foldedTrigrams}).
 * Sized by the file's distinct trigrams, not its bytes: the bit count is the power of two at
 * or above {@linkcode BITS_PER_TRIGRAM} per distinct trigram, so at most about 49% of the
 * bits are set (1 - e^(-2/3)) and a trigram the file lacks passes with odds below 0.24
 * (0.49²), where one bit per trigram let it pass with odds up to 0.28 (and about 0.08
 * against 0.15 in a filter twice as large as needed). A literal's common trigrams are
 * usually in the file: a rarer one or two decide, so those odds are what a search reads
 * for nothing. Source code repeats itself: its distinct trigrams are a small fraction of its
 * bytes, so the filters of a tree take a few percent of its size.
 *
 * @module
 */

/** Files larger than this get no filter (they are read instead). */
export const MAX_FILTERED_BYTES = 16 * 1024 * 1024;
/** Bits per distinct trigram, at least (the count is rounded up to a power of two). */
export const BITS_PER_TRIGRAM = 3;
const MIN_BITS = 64;
/** One bit per possible trigram: which ones the file being filtered holds. */
let seen: Uint8Array | undefined;
/** The distinct trigrams of the file being filtered, in the order met. */
let distinct = new Uint32Array(1024);

/** Each byte with an ASCII capital in lower case. */
const FOLD = Uint8Array.from(
  { length: 256 },
  (_, byte) => byte >= 0x41 && byte <= 0x5a ? byte | 0x20 : byte,
);

/** Spreads a trigram (24 bits) over 32 (MurmurHash3's finaliser): the top bits index the filter. */
function hash(trigram: number): number {
  let h = Math.imul(trigram, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** A hashed trigram's second bit: the hash mixed once more (the "lowbias32" finaliser). */
function rehash(h: number): number {
  let x = Math.imul(h ^ (h >>> 16), 0x7feb352d);
  x = Math.imul(x ^ (x >>> 15), 0x846ca68b);
  return (x ^ (x >>> 16)) >>> 0;
}

/** Sets a hashed trigram's two bits in a filter whose bit index takes the top `32 - shift`. */
function setBits(filter: Uint8Array, h: number, shift: number): void {
  const one = h >>> shift;
  const two = rehash(h) >>> shift;
  filter[one >>> 3] |= 1 << (one & 7);
  filter[two >>> 3] |= 1 << (two & 7);
}

/** Whether a hashed trigram's two bits are set. */
function hasBits(filter: Uint8Array, h: number, shift: number): boolean {
  const one = h >>> shift;
  if ((filter[one >>> 3] & (1 << (one & 7))) === 0) return false;
  const two = rehash(h) >>> shift;
  return (filter[two >>> 3] & (1 << (two & 7))) !== 0;
}

/**
 * The trigram filter of some bytes, or of the trigrams that start in a range of them (a
 * trigram starting near the range's end takes its last bytes from beyond it).
 *
 * @param bytes a file's content, at most {@linkcode MAX_FILTERED_BYTES}
 * @param from where the trigrams start, at the earliest
 * @param to where they start, before this
 * @returns the filter (its length is a power of two)
 * @example
 * ```ts
 * import { trigramFilter } from "./_trigram_filter.ts";
 * import assert from "node:assert/strict";
 * assert.equal(trigramFilter(new TextEncoder().encode("const x = 1;")).length, 8);
 * ```
 */
export function trigramFilter(bytes: Uint8Array, from = 0, to = bytes.length): Uint8Array {
  // One pass collects the distinct trigrams (a 2 MiB bitmap of all 2^24, cleared after).
  seen ??= new Uint8Array(1 << 21);
  let count = 0;
  let run = from + 1 < bytes.length ? (bytes[from] << 8) | bytes[from + 1] : 0;
  let folded = from + 1 < bytes.length ? (FOLD[bytes[from]] << 8) | FOLD[bytes[from + 1]] : 0;
  let odd = run === LONG_S; // (a Kelvin sign or a long s: see ODD_LETTER)
  const end = Math.min(to + 2, bytes.length);
  for (let i = from + 2; i < end; i++) {
    run = ((run << 8) | bytes[i]) & 0xffffff;
    folded = ((folded << 8) | FOLD[bytes[i]]) & 0xffffff;
    if ((bytes[i] === 0xaa && run === KELVIN) || (bytes[i] === 0xbf && (run & 0xffff) === LONG_S)) {
      odd = true;
    }
    for (let trigram = run;; trigram = folded) {
      const mask = 1 << (trigram & 7);
      if ((seen[trigram >>> 3] & mask) === 0) {
        seen[trigram >>> 3] |= mask;
        if (count === distinct.length) {
          const grown = new Uint32Array(distinct.length * 2);
          grown.set(distinct);
          distinct = grown;
        }
        distinct[count++] = trigram;
      }
      if (trigram === folded) break;
    }
  }
  let bits = MIN_BITS;
  while (bits < (odd ? count + 1 : count) * BITS_PER_TRIGRAM) bits *= 2;
  const filter = new Uint8Array(bits >>> 3);
  const shift = 32 - Math.log2(bits);
  for (let i = 0; i < count; i++) {
    const trigram = distinct[i];
    seen[trigram >>> 3] = 0;
    setBits(filter, hash(trigram), shift);
  }
  if (odd) setBits(filter, ODD_LETTER, shift);
  return filter;
}

/**
 * The hashed trigrams of a needle, to test against many filters with {@linkcode mayContain}.
 *
 * @param needle the bytes looked for
 * @returns one hash per trigram (none for a needle shorter than three bytes)
 */
export function needleTrigrams(needle: Uint8Array): Uint32Array {
  const hashes = new Uint32Array(Math.max(0, needle.length - 2));
  for (let i = 2; i < needle.length; i++) {
    hashes[i - 2] = hash((needle[i - 2] << 16) | (needle[i - 1] << 8) | needle[i]);
  }
  return hashes;
}

/**
 * Whether the bytes the filter was made of may contain the needle whose trigrams are given;
 * false is certain. A needle shorter than three bytes always may.
 *
 * @param filter a filter from {@linkcode trigramFilter}
 * @param trigrams the needle's {@linkcode needleTrigrams}
 * @returns false when the needle is certainly absent
 * @example
 * ```ts
 * import { mayContain, needleTrigrams, trigramFilter } from "./_trigram_filter.ts";
 * import assert from "node:assert/strict";
 * const filter = trigramFilter(new TextEncoder().encode("hello world"));
 * assert.equal(mayContain(filter, needleTrigrams(new TextEncoder().encode("lo wo"))), true);
 * assert.equal(mayContain(filter, needleTrigrams(new TextEncoder().encode("xyz"))), false);
 * ```
 */
export function mayContain(filter: Uint8Array, trigrams: Uint32Array): boolean {
  const shift = Math.clz32(filter.length) - 2; // 32 - log2(bits), bits = 8 × length
  for (let i = 0; i < trigrams.length; i++) if (!hasBits(filter, trigrams[i], shift)) return false;
  return true;
}

/**
 * Whether the bytes the filter was made of may hold one trigram; false is certain.
 *
 * @param filter a filter from {@linkcode trigramFilter}
 * @param trigram one of a needle's {@linkcode needleTrigrams}
 * @returns false when the trigram is certainly absent
 */
export function mayHold(filter: Uint8Array, trigram: number): boolean {
  return hasBits(filter, trigram, Math.clz32(filter.length) - 2);
}

/** ASCII `k` and `s`: a Kelvin sign and a long s match them too when case is ignored. */
const K = 0x6b;
const S = 0x73;
/** The UTF-8 of a Kelvin sign (U+212A), and of a long s (U+017F). */
const KELVIN = 0xe284aa;
const LONG_S = 0xc5bf;
/**
 * The hashed trigram a filter holds when its bytes have a Kelvin sign or a long s (the one
 * letters beyond ASCII that Unicode case folding matches with ASCII ones: `k` and `s`):
 * three 0xff bytes, which valid UTF-8 never has (a text that has them too only makes the
 * test weaker).
 */
export const ODD_LETTER = hash(0xffffff);

/** The trigrams of a literal compared without case, as {@linkcode mayContainFolded} tests them. */
export interface FoldedTrigrams {
  /** Its hashed trigrams ({@linkcode needleTrigrams}) of ASCII bytes. */
  all: Uint32Array;
  /** Those of them without a `k` or an `s`. */
  plain: Uint32Array;
}

/**
 * The trigrams of a literal compared without case (lower case, ASCII) that a match of it
 * holds in the file's bytes, folded: those of ASCII bytes only (another case of a letter
 * beyond ASCII is other bytes), and of them those without a `k` or an `s`, which a Kelvin
 * sign or a long s also matches.
 *
 * @param literal the folded literal
 * @returns its trigrams
 */
export function foldedTrigrams(literal: string): FoldedTrigrams {
  const bytes = new TextEncoder().encode(literal);
  const all: number[] = [];
  const plain: number[] = [];
  const trigrams = needleTrigrams(bytes);
  for (let at = 0; at < trigrams.length; at++) {
    const three = bytes.subarray(at, at + 3);
    if (three.some((byte) => byte >= 0x80)) continue;
    all.push(trigrams[at]);
    if (!three.some((byte) => byte === K || byte === S)) plain.push(trigrams[at]);
  }
  return { all: Uint32Array.from(all), plain: Uint32Array.from(plain) };
}

/**
 * Whether the bytes the filter was made of may hold a match of a literal compared without
 * case: its folded trigrams, or when they may have a Kelvin sign or a long s, those without
 * `k` and `s`. False is certain.
 *
 * @param filter a filter from {@linkcode trigramFilter}
 * @param folded the literal's {@linkcode foldedTrigrams}
 * @returns false when no spelling of the literal is there
 */
export function mayContainFolded(filter: Uint8Array, folded: FoldedTrigrams): boolean {
  return mayContain(filter, folded.all) ||
    (mayHold(filter, ODD_LETTER) && mayContain(filter, folded.plain));
}
