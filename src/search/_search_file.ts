/**
 * What search does with one small file before the matcher sees it, with no matcher and no
 * collector, so that a worker thread can do it too: read it whole, skip it if binary or if
 * the required literal is not in its bytes, and decode only the window of lines that can
 * match or be context of a match.
 *
 * @module
 */
import { Buffer, isUtf8 } from "node:buffer";
import type { FileReader } from "../io/_file_reader.ts";
import {
  bytesOf,
  caselessOccurrence,
  caselessOccurrences,
  firstIndexOf,
  holdsAny,
  listedOccurrences,
  lowerAscii,
  type Occurrence,
  occurrences,
  occurrencesThroughRun,
  presentNeedles,
  spansLines,
} from "./_byte_search.ts";
import { type CaselessPart, caselessPartsOf } from "./_caseless_scan.ts";
import { countLf } from "../io/_count_lf.ts";
import { keepOffTopTier } from "../io/runtime.ts";
import {
  BINARY_PROBE_BYTES,
  decodeUtf8,
  isBinary,
  lineEndFrom,
  literalBytes,
} from "../store/_text.ts";
import { JoinedRuns, type JoinedText } from "../store/_joined_runs.ts";
import { MAX_FILTERED_BYTES, trigramFilter } from "./index/_trigram_filter.ts";
import {
  BLOCKED_FROM_BYTES,
  type BlockFilters,
  blockFilters,
  type ReadPlan,
  sameStamp,
  tooRecent,
} from "./index/_block_filters.ts";
import type { FileStat } from "../io/file_stat.ts";
import type { PassedLine } from "../store/_search_collector.ts";
import {
  foldedMatch,
  type LineAround,
  type Stretch,
  stretchedLine,
  stretchedPart,
  windowedFromBytes,
  windowedLine,
  windowedPart,
} from "./_long_rows.ts";
import { utf8BomLength } from "../core/mod.ts";
import { IDENTITY_WORDS, identityOfStat, identityText } from "../io/file_identity.ts";
import { versionOfBytes } from "./_digests.ts";

/** Files up to this size are read whole by search; larger ones are streamed in runs of lines. */
export const WHOLE_FILE_BYTES = 16 * 1024 * 1024;

/**
 * What {@linkcode examineFile} found (plain data: it crosses threads). `linked`, when files
 * with other names are told, is the stat of a file that has other names (hard links): a
 * write through one of those may go unheard by a watcher of this name, and one of those
 * may be denied.
 */
export type Examined =
  /** Binary (NUL in the first 8 KiB). */
  | { kind: "binary"; linked?: FileStat }
  /**
   * Read, and the required literal is not in it; or, with `holdsNeedle`, ruled out by
   * something else every match needs (another literal, a line that starts with its
   * `lineStart`, a match in the stretch around each occurrence), the needle found if one was
   * looked for: no file known to lack it.
   */
  | { kind: "none"; linked?: FileStat; holdsNeedle?: boolean }
  /**
   * The lines to scan, after `linesBefore` lines that cannot match or be context; `sha1` is
   * the digest of the file's bytes when its plan knew it (it was read as indexed) or the
   * examination took it (`Examination.digests`), and `identity` the identity those bytes are
   * of (`identityText`; none for a file changed just now).
   */
  | {
    kind: "text";
    text: KeptText;
    invalid: boolean;
    linesBefore: number;
    linked?: FileStat;
    sha1?: string;
    identity?: string;
  }
  /**
   * Its lines holding the needle counted in its bytes, none decoded (at most `linesAtMost`):
   * each is a matching line (`Examination.countLines`).
   */
  | { kind: "counted"; lines: number; invalid: boolean; linked?: FileStat }
  /** Not read whole (large, not a regular file, or an error): the caller searches it itself. */
  | { kind: "redo" };

/**
 * The lines of a file to scan, in order: runs of whole lines (the first may start with the
 * BOM), between them the counts of lines left out, which can neither match nor be context
 * of a match, and long matching lines windowed from their bytes (see `_long_rows.ts`); or,
 * for an examination that joins them (`Examination.joinRuns`), the runs joined.
 */
export type KeptText = KeptPieces | JoinedText;

/** {@linkcode KeptText} as pieces: a run alone, or runs, counts and windows in order. */
export type KeptPieces = string | (string | number | PassedLine)[];

/**
 * A kept text as the scan takes it (`SearchCollector.scanFile`): its pieces, or its runs
 * joined.
 *
 * @param text what the examination kept
 * @returns the chunks to scan
 */
export function scannedChunks(text: KeptText): (string | number | PassedLine)[] | JoinedRuns {
  if (typeof text === "string") return [text];
  return Array.isArray(text) ? text : JoinedRuns.from(text);
}

const BINARY: Examined = { kind: "binary" };
const NONE: Examined = { kind: "none" };
const NONE_WITH_NEEDLE: Examined = { kind: "none", holdsNeedle: true };
const REDO: Examined = { kind: "redo" };
/** The slot of the shared counters of a search's threads that counts digests given beyond the first files. */
export const DIGESTS_GIVEN = 2;
const LF = 10;
const CR = 13;

/** What the examination looks for in a file's bytes (plain data: it crosses threads). */
export interface Prefilter {
  /** The bytes of the matcher's required literal, if any. */
  needle?: Uint8Array;
  /**
   * With the needle: the bytes of the other literals every match holds (of three bytes or
   * more); a file read whole that holds the needle but not one of these is not searched.
   */
  also?: Uint8Array[];
  /**
   * Without a needle: the bytes of literals one of which every match contains (the
   * matcher's alternative literals); a file holding none of them is skipped.
   */
  anyOf?: Uint8Array[];
  /**
   * With `anyOf`: the longest run of bytes, of three or more, that every one of them holds
   * (`alloc(` of `kmalloc(` and `kzalloc(`). A file without it holds none of them: most files
   * are ruled out in one pass over their bytes, not one per alternative.
   */
  shared?: Uint8Array;
  /**
   * With `anyOf` spelling parts of them in every case (the matcher's folded literals, one
   * per literal of `anyOf`): the lower-case ASCII bytes that the bytes around an occurrence
   * must hold, compared with ASCII letters folded; an occurrence without them does not count
   * (in a text without a Kelvin sign or long s where they have a `k` or an `s`).
   */
  folded?: Uint8Array[];
  /**
   * With `anyOf` spelling parts of them in every case: the parts they spell, each looked for
   * in all its spellings at once; a file read whole without any is skipped after one pass
   * per part, not one per spelling (see `_caseless_scan.ts`).
   */
  caseless?: CaselessPart[];
  /**
   * `\n` and the bytes of the matcher's `lineStart`: a file read whole none of whose lines
   * starts with them holds no match.
   */
  lineStart?: Uint8Array;
}

/**
 * The bytes an examination looks for: the literal's, or else those of the alternatives
 * (when each has bytes), with their folded spellings to confirm them.
 *
 * @param literal the literal every match holds
 * @param alternatives literals one of which every match holds
 * @param folded the alternatives' parts to confirm, folded (see {@linkcode Prefilter})
 * @param required every literal each match holds, the literal among them (for `also`)
 * @returns the prefilter (empty: every file is decoded whole)
 */
export function prefilterOf(
  literal: string | undefined,
  alternatives: readonly string[] | undefined,
  folded: readonly string[] | undefined,
  required?: readonly string[],
): Prefilter {
  const needle = literalBytes(literal);
  if (needle !== undefined) {
    const also = required?.filter((one) => one !== literal && one.length >= 3).map(literalBytes)
      .filter((one) => one !== undefined);
    return also?.length ? { needle, also } : { needle };
  }
  if (!alternatives?.length) return {};
  const anyOf = alternatives.map(literalBytes);
  if (!anyOf.every((one) => one !== undefined)) return {};
  const confirm = folded?.map(literalBytes);
  const confirms = confirm?.length === anyOf.length && confirm.every((one) => one !== undefined);
  const caseless = caselessPartsOf(anyOf as Uint8Array[]);
  const shared = sharedRun(anyOf as Uint8Array[]);
  return {
    anyOf: anyOf as Uint8Array[],
    folded: confirms ? confirm as Uint8Array[] : undefined,
    ...caseless && { caseless },
    ...shared && { shared },
  };
}

/** The fewest bytes {@linkcode Prefilter.shared} holds: shorter runs are in most files. */
const SHARED_FROM_BYTES = 3;
/** Alternatives longer than this are not looked through for a shared run. */
const SHARED_UP_TO_BYTES = 256;

/**
 * The longest run of bytes that every needle holds (the first such of the shortest needle),
 * when it is at least {@linkcode SHARED_FROM_BYTES} long. Its length is searched by halves: a
 * run every needle holds has shorter ones inside it.
 *
 * @param needles two or more needles
 * @returns the run, or undefined
 */
export function sharedRun(needles: readonly Uint8Array[]): Uint8Array | undefined {
  if (needles.length < 2) return undefined;
  const shortest = needles.reduce((a, b) => (b.length < a.length ? b : a));
  if (shortest.length > SHARED_UP_TO_BYTES) return undefined;
  const others = needles.filter((needle) => needle !== shortest).map(bytesOf);
  /** Where the first run of `length` bytes of the shortest that every needle holds starts. */
  const firstOf = (length: number) => {
    for (let start = 0; start + length <= shortest.length; start++) {
      const run = shortest.subarray(start, start + length);
      if (others.every((other) => other.indexOf(run) !== -1)) return start;
    }
    return -1;
  };
  let low = SHARED_FROM_BYTES;
  let start = firstOf(low);
  if (start === -1) return undefined;
  for (let high = shortest.length; low < high;) {
    const middle = (low + high + 1) >> 1;
    const found = firstOf(middle);
    if (found === -1) high = middle - 1;
    else [low, start] = [middle, found];
  }
  return shortest.slice(start, start + low);
}

/**
 * The bytes of {@linkcode Prefilter.lineStart}: `\n` and the matcher's `lineStart`.
 *
 * @param lineStart the string every match starts its line with, if any
 * @returns the bytes, or undefined
 */
export function lineStartNeedle(lineStart: string | undefined): Uint8Array | undefined {
  return lineStart === undefined ? undefined : literalBytes(`\n${lineStart}`);
}

/** What a search asks of the examination of each file (plain data: it crosses threads). */
export interface Examination extends Prefilter {
  /** Context lines of the search. */
  context: number;
  /**
   * Whether to tell files with other names (`linked`): only an index that keeps what a
   * search learned needs to, and finding out costs an fstat per file.
   */
  links: boolean;
  /**
   * Set when the needle, or one of `anyOf`, is the whole of every match
   * (`Matcher.exactLiteral`, `Matcher.exactAlternatives`), or with `folded` their folded
   * literal is (`Matcher.exactFolded`), there are no context lines, and rows are shown cut to
   * this many code points: a line holding a needle that is much longer is then given as the
   * part shown, from its bytes.
   */
  rowCut?: number;
  /**
   * Set when the needle is the required literal of a regex that is more than it
   * (`Matcher.stretch`), there are no context lines, and rows are cut: a line holding the
   * needle that is much longer than the cut is then given as the part shown of its first
   * match, found in the stretches around the needle (see `stretchedLine`).
   */
  stretch?: Stretch;
  /**
   * Set when every line holding an occurrence of the needle, or of one of `anyOf` (not
   * `folded`), is a matching line (`Matcher.exactLiteral`, `Matcher.exactAlternatives`) and
   * the search takes at most this many matching lines of a file (`maxMatchesPerFile`): the
   * lines decoded end with the context after that many lines holding one. `-l` or `-m 1`
   * over a file holding its literal on most lines then decodes one line of it, not all.
   */
  linesAtMost?: number;
  /**
   * Set, where every line holding an occurrence is a matching line (as for `linesAtMost`),
   * when the search counts only (`SearchQuery.countOnly`): those lines are counted in the
   * bytes, and none is decoded.
   */
  countLines?: boolean;
  /**
   * The digests the search's caller asks for (`SearchQuery.digests`), where the examination
   * can give them: a file among the search's first `files` (by position) that has lines to
   * scan, read whole with its stat and at most `maxBytes`, gets its SHA-1 and identity, so
   * that the caller need not read it again (`_digests.ts`). So does any other file read whole
   * that has lines to scan, until `more` of those were given in all (counted across the
   * threads, see {@linkcode examineFile}): without an index, the first files with matches
   * are seldom the first files.
   */
  digests?: { files: number; maxBytes: number; more?: number };
  /**
   * Set for a search without context whose pattern is not run where it can be stopped: the
   * runs of lines kept of a file read whole are decoded as one text, their lines counted in
   * the bytes, and given joined (`JoinedText`), as the scan would join them (see
   * `_joined_runs.ts`), rather than a string each.
   */
  joinRuns?: boolean;
}

/** What {@linkcode examineBytes} takes of an examination: the bytes, and what it may do by them. */
export type ByteExamination =
  & Prefilter
  & Pick<Examination, "rowCut" | "stretch" | "linesAtMost" | "countLines" | "joinRuns">;

/**
 * Reads a file whole with `reader` and examines it; anything else than a small regular file
 * read without error is left to the caller (`redo`), who reports it as search must. With a
 * plan, only the plan's ranges are read, if the file is still as the plan expects.
 *
 * @param reader the reader (its buffer is reused)
 * @param key the real path
 * @param examination the literal, context and whether to tell linked files
 * @param plan what to read of it, from its block filters
 * @param at its position in the search (see `Examination.digests`)
 * @param given the digests given beyond the first files so far, in its slot
 *   {@linkcode DIGESTS_GIVEN} (shared by the threads of one search)
 * @returns what to do with the file
 */
export function examineFile(
  reader: FileReader,
  key: string,
  examination: Examination,
  plan?: ReadPlan,
  at = Infinity,
  given?: Int32Array,
): Examined {
  if (plan !== undefined) {
    const planned = examinePlanned(reader, key, examination, plan);
    if (planned !== undefined) return planned;
  }
  const digests = examination.digests;
  const maxBytes = digests !== undefined && at < digests.files ? digests.maxBytes : -1;
  if (examination.links || maxBytes >= 0) return examineStated(reader, key, examination, maxBytes);
  try {
    if (
      digests === undefined || given === undefined || !(given[DIGESTS_GIVEN] < (digests.more ?? 0))
    ) {
      const bytes = reader.readUnstated(key);
      if (bytes === undefined) return examineLarge(reader, key, examination);
      return examineBytes(bytes, examination, examination.context);
    }
    const examined = reader.readUnstatedThen(key, (bytes, stat, readAt) => {
      const examined = examineBytes(bytes, examination, examination.context);
      return withDigest(examined, bytes, stat, digests, given, readAt);
    });
    return examined ?? examineLarge(reader, key, examination, given);
  } catch {
    // Whatever it was (gone, unreadable, a loop), the caller reads it again and decides.
    return REDO;
  }
}

/**
 * {@linkcode examineFile} of a file larger than the reader's buffer: looked through in
 * chunks for the literal first, and read whole (the buffer growing to it) only when it
 * holds the literal. A first search would otherwise touch fresh memory for every large
 * file, and in a large tree those page faults cost as much as reading the files.
 */
function examineLarge(
  reader: FileReader,
  key: string,
  examination: Examination,
  given?: Int32Array,
): Examined {
  if (examination.needle !== undefined || examination.anyOf !== undefined) {
    const found = findInChunks(reader, key, examination);
    if (found === "redo") return REDO;
    if (found !== "found") return found === "binary" ? BINARY : NONE;
  }
  const outcome = reader.read(key);
  if (outcome.kind !== "bytes") return REDO;
  const examined = examineBytes(outcome.bytes, examination, examination.context);
  const { digests } = examination;
  if (digests === undefined || given === undefined) return examined;
  return withDigest(examined, outcome.bytes, () => outcome.stat, digests, given);
}

/**
 * An examined file with the digest and identity of its bytes, when it has lines to scan and
 * fewer than `digests.more` were given in this search (see `Examination.digests`).
 *
 * @param stat the file's stat, taken before the read, or after it (then with `readAt`)
 * @param readAt for a stat taken after the read, when the read began
 */
function withDigest(
  examined: Examined,
  bytes: Uint8Array,
  stat: () => FileStat,
  digests: NonNullable<Examination["digests"]>,
  given: Int32Array,
  readAt?: number,
): Examined {
  if (examined.kind !== "text" || examined.invalid) return examined;
  if (Atomics.add(given, DIGESTS_GIVEN, 1) >= (digests.more ?? 0)) return examined;
  const version = versionOfBytes(bytes, stat(), digests.maxBytes, readAt);
  if (version !== undefined) return { ...examined, ...version };
  Atomics.sub(given, DIGESTS_GIVEN, 1); // (none given: a later file may have it)
  return examined;
}

/**
 * Whether a file larger than the reader reads whole may hold a match: it is looked through
 * in the reader's buffer for the prefilter's needles, so that one without them is not
 * streamed line by line (each block a fresh buffer) for nothing. The look stops, as if the
 * needles were found, once the search's deadline has passed or it is called off: the
 * stream, which heeds both, takes over.
 *
 * @param size the file's size (one over {@linkcode LOOK_THROUGH_BYTES} is streamed at once)
 * @returns as {@linkcode findInChunks}; "found" when there are no needles
 */
export function lookThrough(
  reader: FileReader,
  key: string,
  prefilter: Prefilter,
  until: { deadline?: number; signal?: AbortSignal },
  size: number,
): "found" | "absent" | "binary" | "redo" {
  const looks = prefilter.needle !== undefined || prefilter.anyOf !== undefined;
  return looks && size <= LOOK_THROUGH_BYTES
    ? findInChunks(reader, key, prefilter, until)
    : "found";
}

/**
 * The largest file {@linkcode lookThrough} reads: the look is a second read of a file that
 * holds a needle, and a grep of a 2 GB line took 6.9 s instead of 4.0 (its budget is 10).
 */
export const LOOK_THROUGH_BYTES = 256 * 1024 * 1024;

/**
 * Whether a file holds the prefilter's needle or one of its `anyOf` (an occurrence across two
 * chunks too; a chunk without any of the `caseless` parts is passed after one pass each), or
 * is binary (a NUL in its first {@linkcode BINARY_PROBE_BYTES}, read alone first: of a binary
 * file nothing more is read), reading it in the reader's chunks. A file larger than the
 * reader reads whole is read only with `until`, when the look also
 * stops as "found" once its deadline has passed or its signal aborted. With `folded` (a
 * search ignoring case), an occurrence counts only where its folded literal confirms it, as
 * {@linkcode examineBytes} counts it: the spellings of `n_l` are in the Linux tree's register
 * headers of megabytes, which hold no `spin_lock_irqsave` in any case. The seam between two
 * chunks is then as long as a literal reaches on either side, so that one a chunk's edge cuts
 * is confirmed there.
 */
function findInChunks(
  reader: FileReader,
  key: string,
  { needle, anyOf, folded: foldedAny, caseless: caselessAny }: Prefilter,
  until?: { deadline?: number; signal?: AbortSignal },
): "found" | "absent" | "binary" | "redo" {
  const needles = needle === undefined ? anyOf! : [needle];
  const folded = needle === undefined ? foldedAny : undefined;
  const caseless = needle === undefined ? caselessAny : undefined;
  const longest = Math.max(...needles.map((needle) => needle.length));
  // (A Kelvin sign takes 3 bytes for a k: a folded literal reaches 3 bytes a character.)
  const overlap = folded === undefined
    ? longest - 1
    : longest + 3 * Math.max(...folded.map((one) => one.length));
  const holds = (bytes: Buffer) => {
    const first = caseless === undefined
      ? undefined
      : caselessOccurrence(bytes, needles, folded, caseless);
    return first === undefined ? holdsAny(bytes, needles, folded) : first !== -1;
  };
  let found: "found" | "absent" | "binary" = "absent";
  let probed = 0; // bytes checked for a NUL
  let tail: Uint8Array = new Uint8Array(0); // the last `overlap` bytes before this chunk
  const visit = (chunk: Uint8Array) => {
    if (probed < BINARY_PROBE_BYTES) {
      if (chunk.subarray(0, BINARY_PROBE_BYTES - probed).includes(0)) found = "binary";
      probed += chunk.length;
    }
    if (found === "absent") {
      const seam = bytesOf(Buffer.concat([tail, chunk.subarray(0, overlap)]));
      if (holds(seam) || holds(bytesOf(chunk))) found = "found";
    }
    tail = chunk.length >= overlap
      ? chunk.slice(chunk.length - overlap)
      : Buffer.concat([tail, chunk]).subarray(-overlap);
    if (found === "absent" && until !== undefined && stopped(until)) found = "found";
    // (Once found, on only to finish looking for a NUL.)
    return found === "absent" || (found === "found" && probed < BINARY_PROBE_BYTES);
  };
  const read = reader.readInChunks(key, visit, until !== undefined, BINARY_PROBE_BYTES);
  return read === "read" ? found : "redo";
}

function stopped({ deadline, signal }: { deadline?: number; signal?: AbortSignal }): boolean {
  return signal?.aborted === true || (deadline !== undefined && Date.now() >= deadline);
}

/**
 * {@linkcode examineFile} with the file's stat: when files with other names must be told,
 * or for a digest (given when `maxBytes` is not negative). A file larger than the reader's
 * buffer is looked through in chunks before the buffer grows to it, as in
 * {@linkcode examineLarge}.
 */
function examineStated(
  reader: FileReader,
  key: string,
  examination: Examination,
  maxBytes: number,
): Examined {
  const { needle, anyOf } = examination;
  let outcome;
  try {
    outcome = reader.read(key, needle === undefined && anyOf === undefined);
  } catch {
    return REDO;
  }
  if (outcome.kind === "not_file") return REDO;
  const { stat } = outcome;
  let examined: Examined;
  if (outcome.kind === "bytes") {
    examined = examineBytes(outcome.bytes, examination, examination.context);
  } else {
    try {
      examined = examineLarge(reader, key, examination);
    } catch {
      // (Gone or changed since its stat, as for examineFile: the caller reads it again.)
      return REDO;
    }
  }
  if (maxBytes >= 0 && examined.kind === "text" && outcome.kind === "bytes" && !examined.invalid) {
    examined = { ...examined, ...versionOfBytes(outcome.bytes, stat, maxBytes) };
  }
  if (!examination.links || stat.nlink === 1 || examined.kind === "redo") return examined;
  return { ...examined, linked: stat };
}

/**
 * {@linkcode examineFile} of the ranges a plan names: the lines of the blocks that may hold
 * the needle, with the `\n`s of the lines between them, so that every line keeps its number.
 * Whether the file is valid UTF-8 is the plan's (the file was read whole to index it). With
 * context lines, every range must hold them around its occurrences. A range the plan cut
 * within a long line (see `ReadPlan.cuts`) shows that line's row from its window, with the
 * code points of the rest of it from the plan.
 *
 * @returns what to scan, or undefined when the file is to be examined whole: it is not as
 *   it was indexed, the examination is one a plan cannot serve (a needle with a line break,
 *   no needle, cut ranges without an exact needle's windows), a range lacks context lines,
 *   or a window reaches past its range
 */
function examinePlanned(
  reader: FileReader,
  key: string,
  { needle, anyOf, folded, context, rowCut, stretch }: Examination,
  plan: ReadPlan,
): Examined | undefined {
  const needles = needle !== undefined ? [needle] : anyOf;
  if (needles === undefined) return undefined;
  if (spansLines(needles)) return undefined;
  const { ranges, linesBefore, linesAfter, cuts } = plan;
  // (With context lines, a range cut within a line lacks them: holdsContext sends the file
  // to be read whole.)
  const windows = rowCut !== undefined || stretch !== undefined;
  if (cuts !== undefined && (!windows || folded !== undefined)) return undefined;
  const pieces: (string | number | PassedLine)[] = [];
  let invalid = plan.invalid;
  let found = false;
  let held = false; // (an occurrence was met, though its line may hold no match)
  let line = linesBefore[0]; // the `\n`s the pieces stand for, from the file's start
  let shown = -1; // the long line whose row is in the pieces
  const advance = (to: number) => {
    if (to > line) pieces.push(to - line);
    line = Math.max(line, to);
  };
  // The row of the long line `at` (its text, or part of it, in `[start, end)`), if a match
  // is there (an exact needle's first occurrence, or a regex's first match in the stretches
  // around them); false when its window, or a stretch, reaches past the part.
  const rowOf = (buffer: Buffer, start: number, end: number, at: number, around: LineAround) => {
    if (at === shown) return true;
    const next = occurrences(buffer, needles);
    const match = next(start);
    if (match.at !== -1) held = true;
    if (match.at === -1 || match.at + match.length > end) return true;
    const row = stretch === undefined
      ? windowedPart(buffer, start, end, match.at, match.length, rowCut!, around)
      : stretchedPart(buffer, start, end, match, next, stretch, around);
    if (row === null) return true; // (no match in this part of the line)
    if (row === undefined) return false;
    advance(at);
    pieces.push(row);
    line = at + 1;
    shown = at;
    found = true;
    return true;
  };
  // (Each range is scanned as it is read: its bytes are gone once the next one is read.)
  const scan = (range: Uint8Array, r: number): boolean => {
    advance(linesBefore[r]);
    const buffer = bytesOf(range);
    const edges = { start: ranges[2 * r] === 0, end: ranges[2 * r + 1] === plan.stamp.size };
    if (context > 0 && !holdsContext(range, buffer, needles, folded, context, edges)) {
      return false;
    }
    const head = cuts?.heads[r] ?? -1;
    const tail = cuts?.tails[r] ?? -1;
    let from = 0; // the range's whole lines: [from, to)
    let to = range.length;
    if (head !== -1) {
      // The rest of the long line it starts in, and then whole lines.
      const lf = buffer.indexOf(LF);
      if (lf === -1) {
        // (Without a cut end, it ends the file.)
        const [after, terminator] = tail === -1 ? [0, ""] : [tail, cuts!.terminators[r]];
        return rowOf(buffer, 0, range.length, linesBefore[r], { before: head, after, terminator });
      }
      const end = buffer[lf - 1] === CR ? lf - 1 : lf;
      const around = { before: head, after: 0, terminator: end === lf ? "\n" : "\r\n" };
      if (!rowOf(buffer, 0, end, linesBefore[r], around)) return false;
      from = lf + 1;
    }
    if (tail !== -1) to = Math.max(from, buffer.lastIndexOf(LF) + 1);
    if (from < to) {
      advance(linesBefore[r] + (head === -1 ? 0 : 1));
      const kept = keptLines(range, buffer, needles, {
        start: from,
        end: to,
        context,
        folded,
        rowCut,
        stretch,
        fileStart: edges.start,
      });
      if (kept.invalid) invalid = true;
      if (typeof kept.text === "string") pieces.push(kept.text);
      else for (const piece of kept.text) pieces.push(piece); // (not spread: they may be many)
      found ||= typeof kept.text === "string" || kept.text.some((part) => typeof part !== "number");
      held ||= kept.held;
      line = linesAfter[r];
    }
    if (tail !== -1) {
      // The start of the long line it ends in.
      const start = textStart(range, to, edges.start);
      const around = { before: 0, after: tail, terminator: cuts!.terminators[r] };
      if (!rowOf(buffer, start, range.length, linesAfter[r], around)) return false;
    }
    advance(linesAfter[r]);
    return true;
  };
  // (A read that fails is the file's: it is then read whole, and the error told as search
  // tells it. A scan that fails is a bug, and goes on up.)
  let scanning = false;
  const visit = (range: Uint8Array, r: number): boolean => {
    scanning = true;
    const more = scan(range, r);
    scanning = false;
    return more;
  };
  let read: FileStat | undefined; // (the file's fstat, as indexed, after the ranges were read)
  const accept = (stat: FileStat) => {
    if (!sameStamp(stat, plan.stamp)) return false;
    read = stat;
    return true;
  };
  try {
    if (!reader.readRanges(key, ranges, accept, visit)) return undefined;
  } catch (error) {
    if (scanning) throw error;
    return undefined;
  }
  // (A file whose occurrences all lie in lines without a match is no file without the needle.)
  if (!found) return held ? NONE_WITH_NEEDLE : NONE;
  const { sha1 } = plan;
  const identity = sha1 === undefined ? undefined : identityText(read!);
  const version = { ...sha1 ? { sha1 } : {}, ...identity ? { identity } : {} };
  return { kind: "text", text: pieces, invalid, linesBefore: linesBefore[0], ...version };
}

/**
 * Whether a range of whole lines holds `context` lines before its first occurrence of the
 * needles and after its last one, unless it starts or ends the file.
 */
function holdsContext(
  range: Uint8Array,
  buffer: Buffer,
  needles: readonly Uint8Array[],
  folded: Uint8Array[] | undefined,
  context: number,
  edges: { start: boolean; end: boolean },
): boolean {
  const first = occurrences(buffer, needles, folded)(0).at;
  if (first === -1) return true;
  if (!edges.start && countLf(range, 0, first) < context) return false;
  let lastEnd = 0;
  for (const needle of needles) {
    const last = buffer.lastIndexOf(needle);
    if (last !== -1) lastEnd = Math.max(lastEnd, last + needle.length);
  }
  // (The first \n after it ends the occurrence's own line.)
  return edges.end || countLf(range, lastEnd, range.length) - 1 >= context;
}

/** What {@linkcode indexFile} learned of a file (plain data: it crosses threads). */
export interface IndexedFile {
  /** The real path. */
  key: string;
  /** Its trigram filter, for a text file read whole. */
  filter?: Uint8Array;
  /** Its block filters, for a large one. */
  blocks?: BlockFilters;
  /** True for a large one that changed too shortly before it was read to have them. */
  recent?: boolean;
  /** True for a binary file. */
  binary?: boolean;
  /**
   * What the file was when read, with a filter or the binary mark, unless it had changed too
   * shortly before (see `RACY_MS`): what the cache on disk checks it against later.
   */
  identity?: Uint32Array;
}

/** A file's identity from the stat taken with its read (none without a ctime). */
function identityOf(stat: FileStat): Uint32Array | undefined {
  const identity = new Uint32Array(IDENTITY_WORDS);
  return identityOfStat(stat, identity, 0) === "file" ? identity : undefined;
}

/**
 * Reads a file whole for the search index: binary (a file too large to read whole by its
 * head alone), a trigram filter (and block filters for a large file), or neither (too large
 * for a filter, not a regular file, unreadable, or with other names: a write through a hard
 * link elsewhere may go unheard by the index's watcher).
 *
 * @param reader the reader (its buffer is reused)
 * @param key the real path
 * @returns what was learned
 */
export function indexFile(reader: FileReader, key: string): IndexedFile {
  try {
    const now = BigInt(Date.now()) * 1_000_000n; // (before the read: the racy rule's moment)
    const outcome = reader.read(key, true, BINARY_PROBE_BYTES);
    if (outcome.kind === "not_file" || outcome.stat.nlink > 1) return { key };
    const { stat } = outcome;
    const bytes = outcome.kind === "bytes" ? outcome.bytes : outcome.head!;
    const recent = tooRecent(stat, now);
    const identity = recent ? undefined : identityOf(stat);
    if (isBinary(bytes)) return { key, binary: true, identity };
    if (outcome.kind === "large" || bytes.length > MAX_FILTERED_BYTES) return { key };
    const filter = trigramFilter(bytes);
    if (bytes.length <= BLOCKED_FROM_BYTES) return { key, filter, identity };
    if (recent) return { key, filter, recent: true };
    return { key, filter, identity, blocks: blockFilters(bytes, stat, !isUtf8(bytes), now) };
  } catch {
    return { key };
  }
}

/**
 * Examines a whole small file, decoding only the lines from (before) the first occurrence of
 * the required literal to (after) the last: every match contains the literal and no line
 * holds a `\n` of it, so lines outside that window can neither match nor be context of a
 * match. Line numbers start from the `\n`s counted before the window (the line rule's
 * boundary), and whether the file is valid UTF-8 is checked on all of its bytes. Without a
 * required literal, the same goes for the occurrences of any of `anyOf` (those `folded`
 * confirms); without either, the file is decoded whole.
 *
 * @param bytes the whole file
 * @param prefilter the bytes to look for (none: every file is decoded whole), and the cut of
 *   rows when long lines holding an exact needle are to be windowed from their bytes
 * @param context context lines of the search
 * @returns what to scan, or why not
 */
export function examineBytes(
  bytes: Uint8Array,
  prefilter: ByteExamination,
  context: number,
): Examined {
  // (The path most files take is kept short: a hot function is compiled with all that it
  // calls, and this one runs for every file of a big tree.)
  if (isBinary(bytes)) return BINARY;
  const buffer = bytesOf(bytes);
  const { needle, anyOf } = prefilter;
  if (needle !== undefined) {
    const first = firstIndexOf(buffer, needle);
    if (first === -1) return NONE;
    if (
      prefilter.also?.some((one) => firstIndexOf(buffer, one) === -1) ||
      startsNoLine(buffer, prefilter.lineStart)
    ) {
      return NONE_WITH_NEEDLE;
    }
    return textOf(bytes, buffer, [needle], first, context, undefined, prefilter);
  }
  if (anyOf === undefined) {
    return startsNoLine(buffer, prefilter.lineStart) ? NONE_WITH_NEEDLE : whole(bytes);
  }
  const { shared, caseless, folded } = prefilter;
  if (shared !== undefined && folded === undefined) {
    // (Where each of them is, through one look for the run they share; where the run stands
    // too often for that, a look for each of them, as below.)
    const found = occurrencesThroughRun(buffer, anyOf, shared);
    if (found?.length === 0) return NONE;
    if (found !== undefined) {
      if (startsNoLine(buffer, prefilter.lineStart)) return NONE_WITH_NEEDLE;
      return textOf(bytes, buffer, anyOf, found, context, undefined, prefilter);
    }
  } else if (shared !== undefined && firstIndexOf(buffer, shared) === -1) return NONE;
  const counted = caseless === undefined
    ? undefined
    : caselessOccurrences(buffer, anyOf, folded, caseless);
  if (counted !== undefined) {
    // (Spellings of a literal ignoring case: the matcher gives them no line start.)
    if (counted.length === 0) return NONE;
    return textOf(bytes, buffer, anyOf, counted, context, folded, prefilter);
  }
  // (Most files hold none of them: settled before anything is set up to walk occurrences.)
  const present = presentNeedles(buffer, anyOf, folded);
  if (present === undefined) return NONE;
  if (startsNoLine(buffer, prefilter.lineStart)) return NONE_WITH_NEEDLE;
  const { needles, folded: confirming } = present;
  const first = occurrences(buffer, needles, confirming)(0).at;
  return first === -1
    ? NONE
    : textOf(bytes, buffer, needles, first, context, confirming, prefilter);
}

/**
 * Whether no line of a file starts with `lineStart`'s bytes after its `\n` (the first line
 * after the BOM that starts the file, if one does).
 */
function startsNoLine(buffer: Buffer, lineStart: Uint8Array | undefined): boolean {
  if (lineStart === undefined) return false;
  const first = utf8BomLength(buffer);
  const length = lineStart.length - 1;
  // (Not `buffer.compare` with ranges: Deno's throws where the bytes are the line start alone.)
  if (buffer.subarray(first, first + length).equals(lineStart.subarray(1))) return false;
  return firstIndexOf(buffer, lineStart) === -1;
}

/**
 * What {@linkcode examineBytes} finds in a text file whose first occurrence of one of the
 * needles is at `first`, or whose occurrences (that count) are `found` already.
 */
function textOf(
  bytes: Uint8Array,
  buffer: Buffer,
  needles: readonly Uint8Array[],
  found: number | readonly Occurrence[],
  context: number,
  folded: readonly Uint8Array[] | undefined,
  { rowCut, stretch, linesAtMost, countLines, joinRuns }: ByteExamination,
): Examined {
  if (spansLines(needles)) return whole(bytes);
  const listed = typeof found === "number" ? undefined : found;
  const first = typeof found === "number" ? found : found[0].at;
  const exact = folded === undefined;
  if (countLines && exact) {
    const { lines } = occurrenceLines(buffer, needles, listed, first, linesAtMost ?? Infinity);
    return { kind: "counted", lines, invalid: !isUtf8(bytes) };
  }
  const lastEnd = linesAtMost === undefined || !exact
    ? lastOccurrenceEnd(buffer, needles, listed)
    : occurrenceLines(buffer, needles, listed, first, linesAtMost).end;
  // Back to the start of the first occurrence's line, then context + 1 lines more (the extra
  // line keeps a U+FEFF at the window's start from being read as a BOM).
  let start = buffer.lastIndexOf(LF, first) + 1;
  for (let i = 0; i <= context && start > 0; i++) {
    // (A negative offset would count from the end: a one-byte first line is handled here.)
    start = start >= 2 ? buffer.lastIndexOf(LF, start - 2) + 1 : 0;
  }
  let end = buffer.indexOf(LF, lastEnd);
  for (let i = 0; i < context && end !== -1; i++) end = buffer.indexOf(LF, end + 1);
  end = end === -1 ? bytes.length : end + 1;
  const linesBefore = countLf(bytes, 0, start);
  const { text, invalid } = keptLines(bytes, buffer, needles, {
    start,
    end,
    context,
    folded,
    rowCut,
    stretch,
    fileStart: true,
    occurring: listed && listedOccurrences(listed),
    joinAfter: joinRuns && context === 0 ? linesBefore : undefined,
  });
  return { kind: "text", text, invalid: invalid || !isUtf8(bytes), linesBefore };
}

/** Where the last occurrence of any of the needles ends (those `listed`, if given). */
function lastOccurrenceEnd(
  buffer: Buffer,
  needles: readonly Uint8Array[],
  listed: readonly Occurrence[] | undefined,
): number {
  let lastEnd = 0;
  if (listed !== undefined) {
    for (const { at, length } of listed) lastEnd = Math.max(lastEnd, at + length);
  } else {
    for (const needle of needles) {
      const last = buffer.lastIndexOf(needle);
      if (last !== -1) lastEnd = Math.max(lastEnd, last + needle.length);
    }
  }
  return lastEnd;
}

/**
 * How many lines hold an occurrence of the needles, up to `atMost`, the first being at
 * `first`; and where the occurrence that puts the last of them ends.
 */
function occurrenceLines(
  buffer: Buffer,
  needles: readonly Uint8Array[],
  listed: readonly Occurrence[] | undefined,
  first: number,
  atMost: number,
): { lines: number; end: number } {
  const next = listed === undefined ? occurrences(buffer, needles) : listedOccurrences(listed);
  let end = first;
  let lines = 0;
  for (let found = next(first); found.at !== -1;) {
    end = found.at + found.length;
    const lineEnd = lineEndFrom(buffer, end);
    if (++lines === atMost || lineEnd === -1) break;
    found = next(lineEnd + 1);
  }
  return { lines, end };
}

/**
 * How many lines of a run of whole lines hold an occurrence of the needles, up to `atMost`:
 * a search that counts only, where every line holding one is a matching line
 * (`Examination.countLines`), counts a large file's lines so, run by run, none decoded.
 *
 * @param run the run's bytes (from a line's start to after a `\n`, or to the file's end)
 * @param needles the needles (none holding a line break)
 * @param atMost the most lines to count (1 or more)
 * @returns how many lines hold one
 */
export function linesHolding(
  run: Uint8Array,
  needles: readonly Uint8Array[],
  atMost: number,
): number {
  return occurrenceLines(bytesOf(run), needles, undefined, 0, atMost).lines;
}

/**
 * A run of whole lines of a file too large to read whole, for a search without context
 * lines: the lines holding an occurrence of a needle (confirmed by `folded`, as
 * {@linkcode examineBytes} does) decoded, the others counted; only their count when none
 * does. A run that holds a needle only in other letters' case, or holds it once in a
 * megabyte, is then neither decoded nor scanned whole.
 *
 * @param run the run's bytes (from a line's start to after a `\n`, or to the file's end)
 * @param needles the needles (none holding a line break)
 * @param folded their folded literals, for a search that ignores case
 * @returns the kept text or the run's line count, and whether the run is not valid UTF-8
 */
export function keptRun(
  run: Uint8Array,
  needles: readonly Uint8Array[],
  folded: Uint8Array[] | undefined,
): { text: KeptPieces | number; invalid: boolean } {
  const buffer = bytesOf(run);
  const invalid = !isUtf8(run);
  if (!holdsAny(buffer, needles, folded)) return { text: countLf(run, 0, run.length), invalid };
  const kept = keptLines(run, buffer, needles, { start: 0, end: run.length, context: 0, folded });
  return { text: kept.text, invalid: invalid || kept.invalid };
}

/**
 * The most bytes of lines without a needle kept between two kept runs of lines: a blank
 * line or a `}` costs less decoded and scanned with them than as a piece of its own (two
 * pieces more, each decoded and scanned apart). Where a needle is in most lines (`_` of
 * `[a-z]+_[a-z]+_[a-z]+\(` in C), runs were split by almost every such line.
 */
const KEPT_GAP_BYTES = 64;

/** What {@linkcode keptLines} keeps, and how. */
interface KeptOptions {
  start: number;
  end: number;
  context: number;
  folded: readonly Uint8Array[] | undefined;
  /** See {@linkcode Examination.rowCut}. */
  rowCut?: number;
  /** See {@linkcode Examination.stretch}. */
  stretch?: Stretch;
  /** Whether `bytes` starts where the file does (a BOM there is no part of line 1). */
  fileStart?: boolean;
  /** The occurrences that count, found already (see `occurrences`). */
  occurring?: (from: number) => Occurrence;
  /**
   * Without context, the lines of the file before `start`, when the runs are to be given
   * joined (see `Examination.joinRuns`).
   */
  joinAfter?: number;
}

/**
 * The text of the window `[start, end)` with every line that holds no occurrence of a
 * needle and lies more than `context` lines from one that does left empty (its `\n`
 * alone): such a line can neither match nor be shown as context, and emptying it keeps
 * every other line's number. Only the kept lines are decoded (each run ends at a `\n`, so
 * no character is split), and the lines between two kept runs when they take at most
 * {@linkcode KEPT_GAP_BYTES}. The window's first line is never kept unless it has a needle
 * or is context, so a U+FEFF starting it is not taken for a BOM unless it starts the file.
 */
function keptLines(
  bytes: Uint8Array,
  buffer: Buffer,
  needles: readonly Uint8Array[],
  options: KeptOptions & { joinAfter?: undefined },
): { text: KeptPieces; invalid: boolean; held: boolean };
function keptLines(
  bytes: Uint8Array,
  buffer: Buffer,
  needles: readonly Uint8Array[],
  options: KeptOptions,
): { text: KeptText; invalid: boolean; held: boolean };
function keptLines(
  bytes: Uint8Array,
  buffer: Buffer,
  needles: readonly Uint8Array[],
  { start, end, context, folded, rowCut, stretch, fileStart, occurring, joinAfter }: KeptOptions,
): { text: KeptText; invalid: boolean; held: boolean } {
  const pieces: (string | number | PassedLine)[] = [];
  let invalid = false;
  let done = start; // bytes before this are in pieces
  let keepFrom = -1; // the run of lines being kept, not yet in pieces
  let keepTo = -1;
  // (To be joined, each run's bytes and its place in the pieces, decoded in the end.)
  const runs: number[] = [];
  const flush = () => {
    if (keepFrom > done) pieces.push(countLf(bytes, done, keepFrom));
    if (joinAfter !== undefined) {
      runs.push(keepFrom, keepTo, pieces.length);
      pieces.push("");
    } else {
      const decoded = decodeUtf8(bytes.subarray(keepFrom, keepTo));
      if (decoded.invalid) invalid = true;
      pieces.push(decoded.text);
    }
    done = keepTo;
    keepFrom = keepTo = -1;
  };
  // (Windowing needs the occurrence's line alone, and the needles exact or their folded
  // literal: no context. Of several, the leftmost occurrence is the match, the earlier needle
  // first; a folded one is checked in the line's bytes.)
  const longerThan = rowCut !== undefined && context === 0 ? windowedFromBytes(rowCut) : Infinity;
  const stretchedThan = stretch !== undefined && context === 0
    ? windowedFromBytes(stretch.cut)
    : Infinity;
  const place = folded === undefined || longerThan === Infinity
    ? 0
    : bytesOf(folded[0]).indexOf(needles[0].map(lowerAscii));
  const nextOccurrence = occurring ?? occurrences(buffer, needles, folded);
  let held = false;
  let lastLineEnd = -1; // the end of the last occurrence's line kept with context
  for (let found = nextOccurrence(start); found.at !== -1 && found.at < end;) {
    const at = found.at;
    held = true;
    // The occurrence's line, then `context` lines on either side, within the window. Next to
    // the run kept already, only the lines past it are walked: each line once, not once per
    // occurrence near it (with every line matching, 1,000 lines of context took seconds).
    let from = at === 0 ? 0 : buffer.lastIndexOf(LF, at) + 1;
    const joins = keepTo !== -1 && from <= keepTo + KEPT_GAP_BYTES;
    for (let i = 0; i < context && from > start && !joins && from > keepTo; i++) {
      from = from >= 2 ? buffer.lastIndexOf(LF, from - 2) + 1 : 0;
    }
    if (from < start) from = start;
    let lineEnd = buffer.indexOf(LF, at + found.length);
    lineEnd = lineEnd === -1 ? end : Math.min(lineEnd + 1, end);
    const match = lineEnd - from <= longerThan
      ? undefined
      : folded === undefined
      ? found
      : foldedMatch(buffer, from, lineEnd, found.at - place, folded[0]);
    const windowed = match === undefined
      ? lineEnd - from > stretchedThan
        ? stretchedLine(
          bytes,
          textStart(bytes, from, fileStart),
          lineEnd,
          found,
          nextOccurrence,
          stretch!,
        )
        : undefined
      : windowedOccurrence(bytes, from, lineEnd, match, rowCut!, fileStart);
    if (windowed === null) {
      // (No match in the line: it is left out, as a line without an occurrence.)
      found = lineEnd < end ? nextOccurrence(lineEnd) : { at: -1, length: 0 };
      continue;
    }
    if (windowed !== undefined) {
      if (keepTo !== -1) flush();
      if (from > done) pieces.push(countLf(bytes, done, from));
      pieces.push(windowed);
      done = lineEnd;
      found = lineEnd < end ? nextOccurrence(lineEnd) : { at: -1, length: 0 };
      continue;
    }
    // (Within the run: it reaches `context` lines past the last occurrence's line, so this
    // one's reach is as many lines further as its line is past that one.)
    const within = joins && lastLineEnd !== -1 && lineEnd <= keepTo;
    let to = within ? keepTo : lineEnd;
    const lines = within ? countLf(bytes, lastLineEnd, lineEnd) : context;
    for (let i = 0; i < lines && to < end; i++) {
      const next = buffer.indexOf(LF, to);
      to = next === -1 ? end : Math.min(next + 1, end);
    }
    lastLineEnd = lineEnd;
    if (keepTo !== -1 && from <= keepTo + KEPT_GAP_BYTES) keepTo = Math.max(keepTo, to);
    else {
      if (keepTo !== -1) flush();
      keepFrom = from;
      keepTo = to;
    }
    found = lineEnd < end ? nextOccurrence(lineEnd) : { at: -1, length: 0 };
  }
  if (keepTo !== -1) flush();
  if (done < end) pieces.push(countLf(bytes, done, end));
  if (joinAfter !== undefined) {
    const joined = joinedRuns(bytes, buffer, pieces, runs, joinAfter);
    if (joined !== undefined) return { text: joined.text, invalid: joined.invalid, held };
    // (Fewer than two runs, or a long line windowed between them: each run decoded.)
    for (let i = 0; i < runs.length; i += 3) {
      const decoded = decodeUtf8(bytes.subarray(runs[i], runs[i + 1]));
      if (decoded.invalid) invalid = true;
      pieces[runs[i + 2]] = decoded.text;
    }
  }
  const [only] = pieces;
  const text = pieces.length === 1 && typeof only === "string" ? only : pieces;
  return { text, invalid, held };
}

/**
 * The runs {@linkcode keptLines} kept, joined as `JoinedRuns.of` would join their texts: the
 * bytes copied one after another (after a `\n` when the first run is not the file's first
 * line) and decoded once, the lines of each counted in its bytes. Runs split at `\n`s, so
 * the text is the one their decoded texts would join to; undefined where that would not join
 * them (fewer than two runs, or a long line's window among them).
 *
 * @param pieces the kept pieces, an empty string standing for each run
 * @param runs per run: its start and end in `bytes`, and its place in `pieces`
 * @param linesBefore the lines of the file before the pieces
 */
function joinedRuns(
  bytes: Uint8Array,
  buffer: Buffer,
  pieces: readonly (string | number | PassedLine)[],
  runs: readonly number[],
  linesBefore: number,
): { text: JoinedText; invalid: boolean } | undefined {
  if (runs.length < 6 || pieces.some((piece) => typeof piece === "object")) return undefined;
  const starts: number[] = []; // (in bytes at first, then in lines)
  const lines: number[] = [];
  const counts: number[] = []; // the `\n`s of each run
  let line = linesBefore + 1; // the file's line at the next piece
  let size = 0;
  let run = 0;
  for (const piece of pieces) {
    if (typeof piece === "number") {
      line += piece;
      continue;
    }
    const count = countLf(bytes, runs[run], runs[run + 1]);
    lines.push(line);
    starts.push(size);
    counts.push(count);
    size += runs[run + 1] - runs[run];
    line += count; // (only the last run may end without a `\n`)
    run += 3;
  }
  // (A first run past the file's first line follows an empty line: a U+FEFF starting it is
  // then no BOM.)
  const lead = lines[0] > 1 ? 1 : 0;
  // (A scratch kept for the next files, unless the runs are too large to keep one for.)
  if (joinScratch.length < lead + size && lead + size <= JOIN_SCRATCH_MAX_BYTES) {
    joinScratch = new Uint8Array(2 ** Math.ceil(Math.log2(lead + size)));
  }
  const joined = joinScratch.length >= lead + size ? joinScratch : new Uint8Array(lead + size);
  if (lead === 1) joined[0] = LF;
  let joinedLine = 1 + lead;
  for (let r = 0; r < starts.length; r++) {
    buffer.copy(joined, lead + starts[r], runs[3 * r], runs[3 * r + 1]);
    starts[r] = joinedLine;
    joinedLine += counts[r];
  }
  const { text, invalid } = decodeUtf8(joined.subarray(0, lead + size));
  return { text: { joined: text, starts, lines }, invalid };
}

/**
 * Where {@linkcode joinedRuns} copies the runs of a file to decode them at once, kept from one
 * file to the next (a fresh one each time took a page fault a page).
 */
let joinScratch = new Uint8Array(64 * 1024);
/** The largest scratch kept: the runs of a larger file get one of their own. */
const JOIN_SCRATCH_MAX_BYTES = 16 * 1024 * 1024;

/**
 * {@linkcode windowedLine} of the line from `from` to `next` at an occurrence, its text
 * starting after the BOM that starts a file; undefined for an occurrence in that BOM (in no
 * line's text).
 */
function windowedOccurrence(
  bytes: Uint8Array,
  from: number,
  next: number,
  found: { at: number; length: number },
  cut: number,
  fileStart: boolean | undefined,
): PassedLine | undefined {
  const start = textStart(bytes, from, fileStart);
  return found.at < start
    ? undefined
    : windowedLine(bytes, start, next, found.at, found.length, cut);
}

/** Where the text of the line starting at `from` starts: after the BOM that starts a file. */
function textStart(bytes: Uint8Array, from: number, fileStart: boolean | undefined): number {
  return fileStart && from === 0 ? utf8BomLength(bytes) : from;
}

function whole(bytes: Uint8Array): Examined {
  const { text, invalid } = decodeUtf8(bytes);
  return { kind: "text", text, invalid, linesBefore: 0 };
}

keepOffTopTier(examineFile, examineBytes);
