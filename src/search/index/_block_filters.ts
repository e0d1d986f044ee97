/**
 * Filters of a large file at a finer grain than the file: a trigram filter per 64 KiB block
 * and where the block's `\n`s are, so that a search reads only the lines of the blocks that
 * may hold its literal. A 9 MB bundle that holds `new Promise(` in a dozen places is then
 * read in a dozen pieces, not whole, and one whose every trigram is somewhere in it (its
 * file filter passes) but never the literal is not read at all.
 *
 * A block's filter holds the trigrams that start in it (the last two take bytes of the
 * next block), so an occurrence that starts and ends in block `b` has each of its trigrams
 * in the filter of `b`. One that crosses into `b + 1` is looked for exactly in the bytes
 * kept on either side of the seam between them ({@linkcode SEAM_BYTES}); a needle longer
 * than those can only be known to have each of its trigrams in the filter of `b` or of
 * `b + 1`, which the block before each block holding it passes too.
 *
 * @module
 */
import type { FileStat } from "../../io/file_stat.ts";
import { countLf } from "../../io/_count_lf.ts";
import { hexDigest } from "../../io/hashes.ts";
import { windowedFromBytes } from "../_long_rows.ts";
import { codePointBytes, type CodePoints, codePointsBefore, codePointsOf } from "./_code_points.ts";
import {
  foldedTrigrams,
  mayContain,
  mayHold,
  needleTrigrams,
  ODD_LETTER,
  trigramFilter,
} from "./_trigram_filter.ts";

/** The bytes of a block. */
export const BLOCK_BYTES = 64 * 1024;
/** Files larger than this get block filters (below it, a block left unread saves little). */
export const BLOCKED_FROM_BYTES = 4 * BLOCK_BYTES;
/**
 * A file whose status changed less than this before it was indexed gets no block filters: a
 * write in the same tick of the file system's clock would leave its stamp as it was (the
 * "racy git" rule). The index learns it again once it is older.
 */
export const RACY_MS = 2_000;
const RACY_NS = BigInt(RACY_MS) * 1_000_000n;
/**
 * The bytes kept on either side of each seam between two blocks: a needle of up to one
 * more byte that crosses the seam is found there exactly.
 */
export const SEAM_BYTES = 63;
/** A plan that would read more than this share of the file reads it whole (one range) instead. */
const MOST_OF_A_FILE = 0.75;
const LF = 10;

/** What a file was when indexed: one not so any more is read whole. */
export interface FileStamp {
  size: number;
  dev: bigint;
  ino: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
}

/** The block filters of one file (plain data: it crosses threads). */
export interface BlockFilters {
  /** The bytes of a block ({@linkcode BLOCK_BYTES}, unless a test asked for others). */
  block: number;
  /** Per block, the filter of the trigrams that start in it. */
  filters: Uint8Array[];
  /** Per block, the `\n`s before it; one more entry: the file's. */
  lfBefore: Uint32Array;
  /** Per block, the offsets of its first and of its last `\n` (-1: it has none). */
  firstLf: Int32Array;
  lastLf: Int32Array;
  /**
   * Per seam (the end of each block but the last), the {@linkcode SEAM_BYTES} before it and
   * those after it, one seam after another (bytes before the file's start or past its end
   * are 0).
   */
  seams: Uint8Array;
  /** Whether the file is not valid UTF-8. */
  invalid: boolean;
  /** The SHA-1 (hex) of its bytes, for a file that is valid UTF-8. */
  sha1?: string;
  /** Where its code points are, for a file that is valid UTF-8. */
  points?: CodePoints;
  stamp: FileStamp;
}

/** What a search reads of a file that has block filters (plain data: it crosses threads). */
export interface ReadPlan {
  /** `[start, end)` byte ranges of whole lines, in order and apart, flat. */
  ranges: number[];
  /** Per range, the `\n`s before its start, and before its end. */
  linesBefore: number[];
  linesAfter: number[];
  /**
   * For a plan with ranges that start or end within a long line (see `PlanShape.cut`): per
   * range, the code points of that line's text before its start (-1: it starts a line), and
   * after its end (-1: it ends a line), with the line's terminator.
   */
  cuts?: { heads: number[]; tails: number[]; terminators: string[] };
  /** Whether the file is not valid UTF-8. */
  invalid: boolean;
  /** The SHA-1 (hex) of its bytes, for a file that is valid UTF-8. */
  sha1?: string;
  stamp: FileStamp;
}

/** A needle as block filters test it. */
export interface PlannedNeedle {
  /** Its bytes' length. */
  length: number;
  /** Its bytes, for a needle looked for exactly (not without case). */
  bytes?: Uint8Array;
  /** Its hashed trigrams ({@linkcode needleTrigrams}). */
  trigrams: Uint32Array;
  /**
   * For a literal compared without case, whose `trigrams` are then its folded ones
   * (`foldedTrigrams`): those without a `k` or an `s`, which are all a block where a Kelvin
   * sign or a long s stands for one of them holds.
   */
  plain?: Uint32Array;
}

/**
 * Whether a file changed too shortly before it was read for block filters to be trusted.
 *
 * @param stat its fstat when it was read
 * @param now the time it was read, in nanoseconds since the epoch
 * @returns true when its mtime or ctime is less than {@linkcode RACY_MS} old
 */
export function tooRecent(stat: FileStat, now: bigint): boolean {
  return now - stat.ctimeNs < RACY_NS || now - stat.mtimeNs < RACY_NS;
}

/**
 * The block filters of a file read whole, unless it changed just before it was read.
 *
 * @param bytes the whole file
 * @param stat its fstat when it was read
 * @param invalid whether it is not valid UTF-8
 * @param now the time it was read, in nanoseconds since the epoch
 * @param block the bytes of a block
 * @returns its block filters, or undefined
 */
export function blockFilters(
  bytes: Uint8Array,
  stat: FileStat,
  invalid: boolean,
  now: bigint,
  block: number = BLOCK_BYTES,
): BlockFilters | undefined {
  if (bytes.length !== stat.size || tooRecent(stat, now)) return undefined;
  const count = Math.ceil(bytes.length / block);
  const filters: Uint8Array[] = [];
  const lfBefore = new Uint32Array(count + 1);
  const firstLf = new Int32Array(count);
  const lastLf = new Int32Array(count);
  for (let b = 0; b < count; b++) {
    const start = b * block;
    const end = Math.min(bytes.length, start + block);
    filters.push(trigramFilter(bytes, start, end));
    const those = bytes.subarray(start, end);
    const first = those.indexOf(LF);
    firstLf[b] = first === -1 ? -1 : start + first;
    lastLf[b] = first === -1 ? -1 : start + those.lastIndexOf(LF);
    lfBefore[b + 1] = lfBefore[b] + (first === -1 ? 0 : countLf(bytes, start, end));
  }
  const seams = seamsOf(bytes, block, count);
  const { size, dev, ino, mtimeNs, ctimeNs } = stat;
  const sha1 = invalid ? undefined : hexDigest("sha1", bytes);
  const points = invalid ? undefined : codePointsOf(bytes, block, firstLf, lastLf);
  return {
    block,
    filters,
    lfBefore,
    firstLf,
    lastLf,
    seams,
    invalid,
    ...sha1 ? { sha1 } : {},
    ...points ? { points } : {},
    stamp: { size, dev, ino, mtimeNs, ctimeNs },
  };
}

/**
 * The length of `BlockFilters.seams` for a file of `count` blocks.
 *
 * @param count the file's blocks
 * @returns the bytes its seams keep
 */
export function seamsLength(count: number): number {
  return Math.max(0, count - 1) * 2 * SEAM_BYTES;
}

/** Where the byte at file offset 0 would be in `seams`, for the seam after block `b`. */
function seamShift(b: number, block: number): number {
  return b * 2 * SEAM_BYTES - ((b + 1) * block - SEAM_BYTES);
}

/** The bytes around each seam of a file's blocks (see `BlockFilters.seams`). */
function seamsOf(bytes: Uint8Array, block: number, count: number): Uint8Array {
  const seams = new Uint8Array(seamsLength(count));
  for (let b = 0; b + 1 < count; b++) {
    const seam = (b + 1) * block;
    const from = Math.max(0, seam - SEAM_BYTES);
    seams.set(
      bytes.subarray(from, Math.min(bytes.length, seam + SEAM_BYTES)),
      seamShift(b, block) + from,
    );
  }
  return seams;
}

/**
 * The bytes block filters take.
 *
 * @param blocks a file's block filters
 * @returns their size
 */
export function blockBytes(blocks: BlockFilters): number {
  let bytes = blocks.lfBefore.byteLength + blocks.firstLf.byteLength +
    blocks.lastLf.byteLength + blocks.seams.byteLength;
  for (const filter of blocks.filters) bytes += filter.length;
  return bytes + (blocks.points === undefined ? 0 : codePointBytes(blocks.points));
}

/**
 * A needle's trigrams for {@linkcode readPlan}.
 *
 * @param needle its bytes
 * @returns them with its length
 */
export function plannedNeedle(needle: Uint8Array): PlannedNeedle {
  return { length: needle.length, bytes: needle, trigrams: needleTrigrams(needle) };
}

/**
 * The needles a search's plans are made for: its prefilter's needle, or the alternatives,
 * or for spellings of part of literals compared without case, those literals.
 *
 * @param prefilter the bytes the examination looks for (see `prefilterOf`)
 * @param folded the matcher's folded literals, for a search that ignores case
 * @returns the needles, or undefined when there are none to plan for
 */
export function plannedNeedles(
  { needle, anyOf }: { needle?: Uint8Array; anyOf?: Uint8Array[] },
  folded: readonly string[] | undefined,
): PlannedNeedle[] | undefined {
  if (needle !== undefined) return [plannedNeedle(needle)];
  if (anyOf === undefined) return undefined;
  return folded === undefined ? anyOf.map(plannedNeedle) : [...new Set(folded)].map(plannedFolded);
}

/**
 * The trigrams of a literal compared without case for {@linkcode readPlan}: the blocks then
 * read are those where it may start in any case, not those where a short spelling of part
 * of it does (for `-i createElement\(`, `nt(` is in most blocks of a bundle).
 *
 * @param literal the literal, folded (lower case, ASCII)
 * @returns its folded trigrams, with the most bytes a match of it takes
 */
function plannedFolded(literal: string): PlannedNeedle {
  const { all, plain } = foldedTrigrams(literal);
  // (A Kelvin sign takes three bytes where its k took one.)
  return { length: 3 * literal.length, trigrams: all, plain };
}

/** How {@linkcode readPlan} plans. */
export interface PlanShape {
  /**
   * Whether to read a block more on either side, for context lines (the search then checks
   * that they were enough).
   */
  wide?: boolean;
  /**
   * For a search that shows a long line holding an exact needle as a window of `cut` code
   * points around its first occurrence (see `windowedLine`), in a file whose code points
   * the filters hold: a line long enough to be windowed is read only around the blocks where
   * a needle may start, and its other code points are counted from the filters.
   */
  cut?: number;
  /**
   * The share of the file beyond which it is read whole, still as indexed (one range): what
   * the index knows of it (its digest, that it is text) is then used too.
   */
  most?: number;
}

/**
 * What to read of a file for a search whose every match holds one of `needles`: the lines
 * of every block where one may start (with `cut`, of a long line only the bytes around
 * the block).
 *
 * @param blocks the file's block filters
 * @param needles the needles (each of three bytes or more, none longer than a block)
 * @param shape how to plan
 * @returns the plan; "none" when no block may hold a needle; undefined when a needle cannot
 *   be planned for
 */
export function readPlan(
  blocks: BlockFilters,
  needles: readonly PlannedNeedle[],
  { wide = false, cut, most = MOST_OF_A_FILE }: PlanShape = {},
): ReadPlan | "none" | undefined {
  if (needles.length === 0) return undefined;
  for (const { length, trigrams } of needles) {
    if (trigrams.length === 0 || length > blocks.block) return undefined;
  }
  const { filters, lfBefore, firstLf, lastLf, stamp, block } = blocks;
  const count = filters.length;
  const ranges: number[] = [];
  const linesBefore: number[] = [];
  const linesAfter: number[] = [];
  const cuts = { heads: [] as number[], tails: [] as number[], terminators: [] as string[] };
  const points = wide || cut === undefined ? undefined : blocks.points;
  // (A window of `cut` code points takes at most 4 bytes each, on either side of a match.)
  const margin = 4 * (cut ?? 0) + Math.max(...needles.map(({ length }) => length));
  const long = cut === undefined ? Infinity : windowedFromBytes(cut);
  const extra = wide ? 1 : 0;
  let planned = 0;
  for (let b = 0; b < count; b++) {
    if (!needles.some((needle) => mayStartIn(blocks, b, needle))) continue;
    // From the start of the line the block (or the one before) begins in to the end of the
    // line its successor (or the one after) begins in.
    const before = lastWithLf(lastLf, b - 1 - extra);
    let start = lineStart(blocks, before);
    const after = firstWithLf(firstLf, b + 1 + extra);
    let end = lineEnd(blocks, after);
    let lines = after >= count ? lfBefore[count] : lfBefore[after] + 1;
    let head = -1;
    let tail = -1;
    let terminator = "";
    if (points !== undefined) {
      const { granule } = points;
      // Of a long line around the block, only the bytes a window may show, from a granule.
      const from = Math.floor(Math.max(0, b * block - margin) / granule) * granule;
      const headEnd = lineEnd(blocks, firstWithLf(firstLf, b));
      if (start < from && headEnd - start > long) {
        const text = before < 0 ? points.bom : points.lineStarts[before];
        head = codePointsBefore(points, from) - text;
        start = from;
      }
      const to = Math.min(stamp.size, Math.ceil(((b + 1) * block + margin) / granule) * granule);
      const tailStart = lineStart(blocks, lastWithLf(lastLf, b));
      if (end > to && end - tailStart > long) {
        const text = after >= count ? codePointsBefore(points, stamp.size) : points.lineEnds[after];
        tail = text - codePointsBefore(points, to);
        terminator = after >= count ? "" : points.crlf[after] === 1 ? "\r\n" : "\n";
        end = to;
        lines = after >= count ? lfBefore[count] : lfBefore[after];
      }
    }
    const last = ranges.length / 2 - 1;
    if (last >= 0 && start <= ranges[2 * last + 1]) {
      planned += end - ranges[2 * last + 1];
      ranges[2 * last + 1] = end;
      linesAfter[last] = lines;
      cuts.tails[last] = tail;
      cuts.terminators[last] = terminator;
    } else {
      ranges.push(start, end);
      linesBefore.push(before < 0 ? 0 : lfBefore[before + 1]);
      linesAfter.push(lines);
      cuts.heads.push(head);
      cuts.tails.push(tail);
      cuts.terminators.push(terminator);
      planned += end - start;
    }
  }
  if (ranges.length === 0) return "none";
  const { invalid, sha1 } = blocks;
  const known = { invalid, ...sha1 ? { sha1 } : {}, stamp };
  if (planned > stamp.size * most) {
    return { ranges: [0, stamp.size], linesBefore: [0], linesAfter: [lfBefore[count]], ...known };
  }
  const within = [...cuts.heads, ...cuts.tails].some((count) => count !== -1);
  return { ranges, linesBefore, linesAfter, ...within ? { cuts } : {}, ...known };
}

/** The last block from `b` back that holds a `\n` (-1: none). */
function lastWithLf(lastLf: Int32Array, b: number): number {
  while (b >= 0 && lastLf[b] === -1) b--;
  return b;
}

/** The first block from `b` on that holds a `\n` (the block count: none). */
function firstWithLf(firstLf: Int32Array, b: number): number {
  while (b < firstLf.length && firstLf[b] === -1) b++;
  return b;
}

/** Where the line after the last `\n` of block `b` starts (`b` -1: the file's start). */
function lineStart({ lastLf }: BlockFilters, b: number): number {
  return b < 0 ? 0 : lastLf[b] + 1;
}

/** Where the line ended by block `b`'s first `\n` ends (`b` past the last: the file's end). */
function lineEnd({ firstLf, stamp }: BlockFilters, b: number): number {
  return b >= firstLf.length ? stamp.size : firstLf[b] + 1;
}

/**
 * Whether a needle may start in block `b`: one looked for exactly and no longer than a
 * seam's bytes may lie within the block (its trigrams are in the block's filter) or is
 * across the seam after it; for another, its trigrams may be those of an occurrence that
 * starts there (for one compared without case, or those without `k` and `s`, with a Kelvin
 * sign or a long s).
 */
function mayStartIn(blocks: BlockFilters, b: number, needle: PlannedNeedle): boolean {
  const { filters } = blocks;
  const { bytes, trigrams, plain } = needle;
  if (bytes !== undefined && bytes.length <= SEAM_BYTES + 1) {
    return mayContain(filters[b], trigrams) || acrossSeam(blocks, b, bytes);
  }
  if (holdsEach(filters, b, trigrams)) return true;
  return plain !== undefined && holdsEach(filters, b, ODD_ONLY) && holdsEach(filters, b, plain);
}

/**
 * Whether the needle (of at most {@linkcode SEAM_BYTES} + 1 bytes) occurs across the seam
 * after block `b`: starting in `b` and ending in the next.
 */
function acrossSeam({ seams, block, stamp }: BlockFilters, b: number, needle: Uint8Array): boolean {
  const seam = (b + 1) * block;
  // (After the last block, no start fits between first and last.)
  const base = seamShift(b, block);
  const first = Math.max(0, seam - needle.length + 1);
  const last = Math.min(seam - 1, stamp.size - needle.length);
  for (let at = first; at <= last; at++) {
    let i = 0;
    while (i < needle.length && seams[base + at + i] === needle[i]) i++;
    if (i === needle.length) return true;
  }
  return false;
}

const ODD_ONLY = Uint32Array.of(ODD_LETTER);

/**
 * Whether the trigrams, in the order they start in a needle, may be those of an occurrence
 * that starts in block `b`: a block's filter holds the trigrams that start in it, and a
 * needle is no longer than a block, so the first of them start in `b` and the others in the
 * next block. The longest run of them from the first that `b` may hold is taken, and the
 * rest must be in the next block (any shorter run leaves the next block more to hold).
 */
function holdsEach(filters: Uint8Array[], b: number, trigrams: Uint32Array): boolean {
  const here = filters[b];
  let inHere = 0;
  while (inHere < trigrams.length && mayHold(here, trigrams[inHere])) inHere++;
  if (inHere === trigrams.length) return true;
  const next = filters[b + 1];
  if (next === undefined) return false;
  for (let i = inHere; i < trigrams.length; i++) if (!mayHold(next, trigrams[i])) return false;
  return true;
}

/**
 * Whether a file's fstat is still the one its plan was made for.
 *
 * @param stat the fstat of the open file
 * @param stamp the plan's
 * @returns true when the file is as it was indexed, with one name
 */
export function sameStamp(stat: FileStat, stamp: FileStamp): boolean {
  return stat.kind === "file" && stat.nlink === 1 && stat.size === stamp.size &&
    stat.ino === stamp.ino && stat.dev === stamp.dev && stat.mtimeNs === stamp.mtimeNs &&
    stat.ctimeNs === stamp.ctimeNs;
}
