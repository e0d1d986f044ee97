/**
 * Finding literals in bytes, for search's prefilters: views for `Buffer`'s fast `indexOf`,
 * the occurrences of several literals in order (each confirmed, for a case-insensitive
 * search, by the bytes around it).
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { RUNTIME } from "../io/runtime.ts";
import { type CaselessPart, eachCaselessOffset, PART_BYTES } from "./_caseless_scan.ts";
import { type RarePart, rarePart } from "./_rare_pair.ts";

const LF = 10;
const CR = 13;

/** A Buffer view of bytes (for its fast indexOf). */
export function bytesOf(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
}

/**
 * Whether this runtime's `Buffer.indexOf` is a loop in JavaScript (Deno's: about 300 MB/s,
 * where Bun's and Node's run at 10-20 GB/s): the looks for a needle are then made in
 * WebAssembly (see {@linkcode firstIndexOf}).
 */
const SLOW_INDEX_OF = RUNTIME === "deno";

/**
 * The first offset of a needle in the bytes at or after `from`, or -1, as `Buffer.indexOf`
 * finds it; where that is slow, through {@linkcode firstIndexOfInWasm}.
 *
 * @param buffer the bytes
 * @param needle the needle
 * @param from where to start
 * @returns its first offset, or -1
 */
export function firstIndexOf(buffer: Buffer, needle: Uint8Array, from = 0): number {
  if (SLOW_INDEX_OF) return firstIndexOfInWasm(buffer, needle, from);
  if (!PAIR_INDEX_OF) return buffer.indexOf(needle, from);
  let rare = rareParts.get(needle);
  if (rare === undefined) rareParts.set(needle, rare = rarePart(needle) ?? null);
  return rare === null
    ? buffer.indexOf(needle, from)
    : firstIndexOfPart(buffer, needle, rare, from);
}

/**
 * Whether this runtime's `Buffer.indexOf` looks for a needle's first and last bytes (Bun's):
 * a needle is then looked for through the part between two rarer bytes (`_rare_pair.ts`).
 */
const PAIR_INDEX_OF = RUNTIME === "bun";

/** Each needle's rare part, or null for none (see {@linkcode rarePart}). */
const rareParts = new WeakMap<Uint8Array, RarePart | null>();

/**
 * {@linkcode firstIndexOf} through a part of the needle: each occurrence of the part, in
 * order, that the whole needle holds, until one does.
 */
function firstIndexOfPart(
  buffer: Buffer,
  needle: Uint8Array,
  { offset, part }: RarePart,
  from: number,
): number {
  const last = buffer.length - needle.length;
  for (let at = buffer.indexOf(part, from + offset); at !== -1; at = buffer.indexOf(part, at + 1)) {
    const start = at - offset;
    if (start > last) return -1;
    if (startsAt(buffer, needle, start)) return start;
  }
  return -1;
}

/**
 * The bytes {@linkcode firstIndexOfInWasm} looks through first after an offset; each next
 * window is twice as long.
 */
export const FIRST_WINDOW_BYTES = 4096;

/**
 * {@linkcode firstIndexOf} through the needle's first three bytes, scanned for in WebAssembly
 * as a part of no letters (`_caseless_scan.ts`: each place is then compared whole); with
 * `indexOf` for a needle shorter than that, bytes too short to scan, or no WebAssembly.
 *
 * A look from the start goes through all of the bytes at once (most files hold no needle).
 * A look after an occurrence goes through windows, the first of `window` bytes and each next
 * twice as long, so that the walk over a file's occurrences copies into the scanner about
 * as many bytes as lie between them, not the rest of the file each time. Each window reaches
 * a needle less a byte into the next: an occurrence across the two is found in the first.
 *
 * @param buffer the bytes
 * @param needle the needle
 * @param from where to start
 * @param window the first window after an offset (see above)
 * @returns its first offset, or -1
 */
export function firstIndexOfInWasm(
  buffer: Buffer,
  needle: Uint8Array,
  from = 0,
  window = FIRST_WINDOW_BYTES,
): number {
  if (needle.length < PART_BYTES) return buffer.indexOf(needle, from);
  const part = { part: needle[0] | needle[1] << 8 | needle[2] << 16, masks: 0 };
  for (let at = from, size = from === 0 ? buffer.length : window; at < buffer.length;) {
    const end = Math.min(buffer.length, at + size + needle.length - 1);
    const bytes = at === 0 && end === buffer.length ? buffer : buffer.subarray(at, end);
    let first = -1;
    const walked = eachCaselessOffset(bytes, [part], (offset) => {
      if (!startsAt(bytes, needle, offset)) return false;
      first = offset;
      return true;
    });
    if (walked === undefined) first = bytes.indexOf(needle);
    if (first !== -1) return at + first;
    at += size;
    size *= 2;
  }
  return -1;
}

/** Where a needle stands in the bytes (-1: nowhere), and its length. */
export interface Occurrence {
  at: number;
  length: number;
}

/** No occurrence. */
const NOWHERE: Occurrence = { at: -1, length: 0 };

/**
 * {@linkcode occurrences} of occurrences found already, in order.
 *
 * @param found the occurrences, by offset (of two at one offset, the one to give first)
 * @returns the first at or after an offset that never decreases from call to call
 */
export function listedOccurrences(found: readonly Occurrence[]): (from: number) => Occurrence {
  let next = 0;
  return (from) => {
    while (next < found.length && found[next].at < from) next++;
    return next < found.length ? found[next] : NOWHERE;
  };
}

/**
 * Every occurrence of the needles, in order (of several at one offset, the earlier needle's),
 * through a run of bytes every needle holds (`Prefilter.shared`): one look through the bytes
 * for the run, the needles compared around each place it stands, where a look for each
 * needle went through all of the bytes, twice (whether it is there, and where).
 *
 * @param buffer the bytes
 * @param needles the needles
 * @param run bytes that every needle holds
 * @returns the occurrences (none when the bytes hold no needle); undefined when the run
 *   stands in the bytes so often that a look for each needle costs less (see
 *   {@linkcode BYTES_PER_RUN_PLACE})
 */
export function occurrencesThroughRun(
  buffer: Buffer,
  needles: readonly Uint8Array[],
  run: Uint8Array,
): Occurrence[] | undefined {
  const places = runPlaces(needles, run);
  const found: Array<[at: number, needle: number]> = [];
  let count = 0;
  for (let at = firstIndexOf(buffer, run); at !== -1; at = firstIndexOf(buffer, run, at + 1)) {
    // (Checked as it goes, so that bytes full of the run are left soon.)
    if (++count > RUN_PLACES_AT_LEAST + needles.length * at / BYTES_PER_RUN_PLACE) return undefined;
    for (let i = 0; i < needles.length; i++) {
      for (const place of places[i]) {
        const start = at - place;
        if (start >= 0 && startsAt(buffer, needles[i], start)) found.push([start, i]);
      }
    }
  }
  // In order of the runs, a needle holding it further in may start before one found earlier
  // (`xaaa` before `aaa` in `xaaaa`). Needles at one offset are found at the same run, in
  // order, and the sort keeps them so.
  found.sort((a, b) => a[0] - b[0]);
  return found.map(([at, i]) => ({ at, length: needles[i].length }));
}

/**
 * Bytes that a look for a needle goes through in the time it takes to compare the needles
 * around a place of their run: where the run stands more often than once in so many bytes
 * per needle (`use` of `useState(` and `useEffect(` in JavaScript), looking for each needle
 * costs less (over the bench tree, `use(State|Effect)\(` took 2-3% longer through the run).
 */
const BYTES_PER_RUN_PLACE = 1024;
/** Places of the run compared at the start of the bytes before their density counts. */
const RUN_PLACES_AT_LEAST = 16;

/** Where the run stands in each needle, worked out once per search. */
const runPlacesKept = new WeakMap<readonly Uint8Array[], { run: Uint8Array; places: number[][] }>();

function runPlaces(needles: readonly Uint8Array[], run: Uint8Array): number[][] {
  const kept = runPlacesKept.get(needles);
  if (kept?.run === run) return kept.places;
  const places = needles.map((needle) => {
    const within = bytesOf(needle);
    const at: number[] = [];
    for (let i = within.indexOf(run); i !== -1; i = within.indexOf(run, i + 1)) at.push(i);
    return at;
  });
  runPlacesKept.set(needles, { run, places });
  return places;
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
): (from: number) => Occurrence {
  const next = needles.map(() => -2); // -2: not searched yet; -1: no more
  const holds = folded === undefined ? undefined : confirmations(buffer, needles, folded);
  return (from) => {
    for (;;) {
      let at = -1;
      let which = 0;
      for (let i = 0; i < needles.length; i++) {
        if (next[i] !== -1 && next[i] < from) next[i] = firstIndexOf(buffer, needles[i], from);
        if (next[i] !== -1 && (at === -1 || next[i] < at)) [at, which] = [next[i], i];
      }
      if (at === -1 || holds === undefined || holds[which](at)) {
        return { at, length: at === -1 ? 0 : needles[which].length };
      }
      next[which] = firstIndexOf(buffer, needles[which], at + 1); // not this one: the next
    }
  };
}

/**
 * Whether the bytes hold an occurrence of one of the needles that counts (with `folded`,
 * one its folded literal confirms, as {@linkcode occurrences} counts them). Most texts hold
 * none: that is settled by one search per needle, before anything is set up to walk
 * occurrences.
 */
export function holdsAny(
  buffer: Buffer,
  needles: readonly Uint8Array[],
  folded?: readonly Uint8Array[],
): boolean {
  if (!needles.some((needle) => firstIndexOf(buffer, needle) !== -1)) return false;
  return folded === undefined || occurrences(buffer, needles, folded)(0).at !== -1;
}

/**
 * The needles that occur in the bytes, with their folded literals when given; undefined when
 * none does. The walks and backward searches that follow can then leave out those the bytes
 * lack, each of which would go through all of the bytes again for nothing (for a
 * case-insensitive literal, three of its four spellings are usually absent). The same
 * arrays come back for the same needles present, so what is worked out per search for them
 * is kept (see `plansOf`).
 */
export function presentNeedles(
  buffer: Buffer,
  needles: readonly Uint8Array[],
  folded?: readonly Uint8Array[],
): { needles: readonly Uint8Array[]; folded?: readonly Uint8Array[] } | undefined {
  let key = "";
  for (const needle of needles) key += firstIndexOf(buffer, needle) === -1 ? "0" : "1";
  if (!key.includes("1")) return undefined;
  let subsets = presentSets.get(needles);
  if (subsets === undefined || subsets.folded !== folded) {
    subsets = { folded, sets: new Map() };
    presentSets.set(needles, subsets);
  }
  let set = subsets.sets.get(key);
  if (set === undefined) {
    const kept = (_: unknown, i: number) => key[i] === "1";
    set = key.includes("0")
      ? { needles: needles.filter(kept), folded: folded?.filter(kept) }
      : { needles, folded };
    subsets.sets.set(key, set);
  }
  return set;
}

/**
 * {@linkcode occurrences}' first counting occurrence, found through the needles' caseless
 * parts (see `_caseless_scan.ts`): one pass per part, where `occurrences` and
 * {@linkcode presentNeedles} make one per needle.
 *
 * @param buffer the bytes
 * @param needles the needles
 * @param folded their folded literals, if occurrences are to be confirmed
 * @param parts the needles' caseless parts
 * @returns the offset of the first occurrence that counts (-1: none); undefined when the bytes
 *   were not looked through (look for the needles then)
 */
export function caselessOccurrence(
  buffer: Buffer,
  needles: readonly Uint8Array[],
  folded: readonly Uint8Array[] | undefined,
  parts: readonly CaselessPart[],
): number | undefined {
  const found = caselessWalk(buffer, needles, folded, parts, false);
  return found === undefined ? undefined : found.length === 0 ? -1 : found[0].at;
}

/**
 * Every occurrence that counts of the needles, in order, found as
 * {@linkcode caselessOccurrence} finds the first: the look goes on through the bytes where a
 * look for each needle present, and another for where it is, would go through them again.
 *
 * @returns the occurrences; undefined when the bytes were not looked through
 */
export function caselessOccurrences(
  buffer: Buffer,
  needles: readonly Uint8Array[],
  folded: readonly Uint8Array[] | undefined,
  parts: readonly CaselessPart[],
): Occurrence[] | undefined {
  return caselessWalk(buffer, needles, folded, parts, true);
}

function caselessWalk(
  buffer: Buffer,
  needles: readonly Uint8Array[],
  folded: readonly Uint8Array[] | undefined,
  parts: readonly CaselessPart[],
  all: boolean,
): Occurrence[] | undefined {
  let holds: ((at: number) => boolean)[] | undefined; // (made at the first needle)
  const found: Occurrence[] = [];
  const walked = eachCaselessOffset(buffer, parts, (at) => {
    for (let i = 0; i < needles.length; i++) {
      if (!startsAt(buffer, needles[i], at)) continue;
      if (folded === undefined || (holds ??= confirmations(buffer, needles, folded))[i](at)) {
        found.push({ at, length: needles[i].length });
        return !all;
      }
    }
    return false;
  });
  return walked === undefined ? undefined : found;
}

/** Whether the needle's bytes are the buffer's at `at`. */
function startsAt(buffer: Uint8Array, needle: Uint8Array, at: number): boolean {
  if (at + needle.length > buffer.length) return false;
  for (let i = 0; i < needle.length; i++) if (buffer[at + i] !== needle[i]) return false;
  return true;
}

/** {@linkcode presentNeedles}' answers by the needles, for the folded literals they were for. */
const presentSets = new WeakMap<
  readonly Uint8Array[],
  {
    folded: readonly Uint8Array[] | undefined;
    sets: Map<string, { needles: readonly Uint8Array[]; folded?: readonly Uint8Array[] }>;
  }
>();

/**
 * Per needle, whether the bytes around an occurrence of it hold its folded literal, ASCII
 * letters compared without case (where the needle's part lies in the literal more than
 * once, at any of its places), compared outward from the occurrence. A `k` or an `s` of a
 * literal may stand in the text as a Kelvin sign or a long s, of other byte lengths: where
 * such a literal's bytes differ from the text at a byte beyond ASCII, the occurrence counts
 * (the matcher decides). Outward, the bytes before and after such a character still line up
 * with the literal's.
 */
function confirmations(
  buffer: Buffer,
  needles: readonly Uint8Array[],
  folded: readonly Uint8Array[],
): ((at: number) => boolean)[] {
  return plansOf(needles, folded).map(({ within, odd, places }, i) => {
    const needle = needles[i];
    // Whether the text byte at `b` stands for the literal's byte `j`: equal, or maybe.
    const fits = (b: number, j: number): boolean | "maybe" => {
      const byte = buffer[b];
      if (lowerAscii(byte) === within[j]) return true;
      return odd && byte >= 0x80 ? "maybe" : false;
    };
    return (at) =>
      places.some((place) => {
        for (let j = place - 1, b = at - 1; j >= 0; j--, b--) {
          const fit = b >= 0 && fits(b, j);
          if (fit !== true) return fit === "maybe";
        }
        for (let j = place + needle.length, b = at + needle.length; j < within.length; j++, b++) {
          const fit = b < buffer.length && fits(b, j);
          if (fit !== true) return fit === "maybe";
        }
        return true;
      });
  });
}

/** What confirming a needle's occurrences takes, worked out once per search. */
interface Plan {
  /** The folded literal. */
  within: Buffer;
  /** Whether it has a `k` or an `s`. */
  odd: boolean;
  /** Where the needle lies in it. */
  places: number[];
}

/**
 * Plans by the search's folded literals, with the needles they were made for (the same
 * arrays for every file of a search).
 */
const plans = new WeakMap<
  readonly Uint8Array[],
  { needles: readonly Uint8Array[]; plans: Plan[] }
>();

function plansOf(needles: readonly Uint8Array[], folded: readonly Uint8Array[]): Plan[] {
  const known = plans.get(folded);
  if (known !== undefined && known.needles === needles) return known.plans;
  const made = needles.map((needle, i) => {
    const within = bytesOf(folded[i]);
    const part = needle.map(lowerAscii);
    const places: number[] = [];
    for (let at = within.indexOf(part); at !== -1; at = within.indexOf(part, at + 1)) {
      places.push(at);
    }
    return { within, odd: within.includes("k") || within.includes("s"), places };
  });
  plans.set(folded, { needles, plans: made });
  return made;
}

/**
 * An ASCII capital's lower-case byte; any other byte as it is.
 *
 * @param byte the byte
 * @returns the byte, lowered
 */
export function lowerAscii(byte: number): number {
  return byte >= 65 && byte <= 90 ? byte + 32 : byte;
}

/** Whether one of the needles holds a line break (`\n` or `\r`): it may span lines. */
export function spansLines(needles: readonly Uint8Array[]): boolean {
  return needles.some((needle) => needle.includes(LF) || needle.includes(CR));
}
