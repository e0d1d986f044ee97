/**
 * The directory store's search: the same files, rows and counts as the inherited
 * `BaseFileStore.search`, but each file is read in the cheapest way that is still exact.
 * Files up to 16 MiB are read whole and skipped without decoding when they cannot contain
 * the matcher's `requiredLiteral` (or any of its `alternativeLiterals`); larger ones are
 * streamed in runs of whole lines, so files of any size can be searched. On a tree of `parallelFrom` files or more, a worker thread reads
 * and prefilters files too (`_search_pool.ts`); the scan and the results stay on this
 * thread, in path order. With a {@linkcode SearchIndex}, a walk of an unchanged tree is
 * not made again, and files the index rules out are not read at all.
 *
 * @module
 */
import { isUtf8 } from "node:buffer";
import { setImmediate } from "node:timers";
import { FileReader, type ReadOutcome } from "../io/_file_reader.ts";
import { BLOCK_BYTES, LineReader } from "../files/_line_reader.ts";
import { passLongLine } from "../files/_long_line.ts";
import { LONG_LINE_BYTES } from "../files/_line_range.ts";
import { keepOffTopTier } from "../io/runtime.ts";
import { describeKind, type FileStat } from "../io/file_stat.ts";
import type { FileSystem } from "../io/file_system.ts";
import { openForRead, readHead } from "../files/_open_file.ts";
import { mapOsError } from "../files/_os_errors.ts";
import { type PassedLine, SearchCollector } from "../store/_search_collector.ts";
import {
  type ByteExamination,
  type Examination,
  examineBytes,
  type Examined,
  type KeptPieces,
  keptRun,
  linesHolding,
  lineStartNeedle,
  lookThrough,
  prefilterOf,
  scannedChunks,
  WHOLE_FILE_BYTES,
} from "./_search_file.ts";
import type { Stretch } from "./_long_rows.ts";
import { resultKey, type SearchIndex, type WalkToMake } from "./index/_search_index.ts";
import { type DirectoryRecorder, directoryRecorder, type KeptWalk } from "./index/_kept_walks.ts";
import type { PlanShape, ReadPlan } from "./index/_block_filters.ts";
import { spansLines } from "./_byte_search.ts";
import { digestFiles } from "./_digests.ts";
import {
  BATCH_SIZE,
  ExaminedBatches,
  startSearchWorkers,
  type WarmWorkers,
  type WorkerLease,
} from "./_search_pool.ts";
import { BINARY_PROBE_BYTES, decodeUtf8, isBinary } from "../store/_text.ts";
import { DeniedPathError, NotAFileError, StoreError } from "../store/errors.ts";
import { DEFAULT_CUT, utf8BomLength } from "../core/mod.ts";
import {
  type EntryKind,
  noneSkipped,
  type SearchQuery,
  type SearchResult,
  type SkippedEntries,
  WHOLE_LINE_BYTES,
} from "../store/file_store.ts";
import { rowCount } from "../store/flat_rows.ts";
import {
  compileGlob,
  walkFileRuns,
  type WalkNode,
  walkRulesOf,
  type WalkSource,
} from "../store/walk.ts";

/** Where and how a search runs. */
export interface SearchPlace {
  /** The resolved start (a directory, or a file asked for by name). */
  start: WalkNode;
  /** What the start is. */
  kind: EntryKind;
  /** The store's walk. */
  walkSource: WalkSource;
  /** Where the files are read. */
  files: FileSystem;
  /**
   * Whether a file with other names is another name of a denied file (then it is not
   * searched); undefined when there are no deny rules.
   */
  denies: ((stat: FileStat) => Promise<boolean>) | undefined;
  /** Threads that read files, this one included (1: this one alone). */
  threads: number;
  /** Files from which the worker is started. */
  parallelFrom: number;
  /** What is known between searches, refreshed just before; only for a directory. */
  index: SearchIndex | undefined;
  /** Whether the index may be used; otherwise it is only taught which files to index. */
  indexTrusted: boolean;
  /** Threads kept between searches, lent when there is no index (the index lends its own). */
  workers?: WarmWorkers;
}

/**
 * Digests the examination gives beyond those the caller asks for, when it finds the files with
 * matches as it goes (see `Examination.digests`): the threads take batches in path order, but
 * one may be ahead of another (mostly within a batch; a file among the first with matches that
 * was passed over is read again after the search, as before).
 */
const DIGESTS_OUT_OF_ORDER = BATCH_SIZE / 2;
/** Longest run of blocking reads before the event loop gets a turn. */
const YIELD_EVERY_MS = 8;
/**
 * How long after a search of many files the index is taught what it read. Learning blocks
 * the thread for a while (it queues every file, and the first lesson starts the watcher on
 * every directory), then reads the files again on every core, and the answer must reach its
 * reader first: a large answer leaves through a pipe in 64 KB writes, and learning right away
 * delayed the end of it.
 */
export const LEARN_AFTER_MS = 100;
/**
 * How much longer learning waits for each row found: the answering thread lays the rows out,
 * serializes and writes them, 650-730 ms for 84,000 rows on 2 cores with learning under way
 * beside it (see {@linkcode learningDelay}).
 */
export const LEARN_AFTER_MS_PER_ROW = 0.008;
/** The longest learning waits after a search. */
export const LEARN_AFTER_MS_AT_MOST = 2000;
/** Searches that read fewer files than this (whose learning is brief) teach at once. */
export const LEARN_AT_ONCE_BELOW = 2000;

/**
 * How long after a search the index starts to learn what it read: at once after a search of
 * few files; after a search of many, once the answer has likely left, longer for more rows.
 *
 * @param files the files the search read
 * @param rows the rows of its result
 * @returns the delay in milliseconds
 */
export function learningDelay(files: number, rows: number): number {
  if (files < LEARN_AT_ONCE_BELOW) return 0;
  return Math.min(LEARN_AFTER_MS + rows * LEARN_AFTER_MS_PER_ROW, LEARN_AFTER_MS_AT_MOST);
}

/** Store errors that make a walked file be skipped by search. */
const SKIP_IN_WALK = new Set(["not_found", "not_a_file", "permission", "invalid_path", "raced"]);

/**
 * Searches the files under `place.start` (or that one file).
 *
 * @param query the search (checked by the caller)
 * @param place where and how
 * @returns the matches and counts
 */
export async function searchDirectory(
  query: SearchQuery,
  place: SearchPlace,
): Promise<SearchResult> {
  const ended = place.index?.searching();
  try {
    return await search(query, place);
  } finally {
    ended?.();
  }
}

async function search(query: SearchQuery, place: SearchPlace): Promise<SearchResult> {
  const { start, kind } = place;
  // (An index keeps its reader, whose buffer has grown to the largest file, across searches.)
  const reader = place.index?.reader ?? new FileReader(place.files, WHOLE_FILE_BYTES);
  const index = place.indexTrusted ? place.index : undefined;
  const changesAtStart = index?.changes;
  const keyOfResult = index && resultKey(start, query);
  const kept = keyOfResult === undefined ? undefined : index?.result(keyOfResult);
  if (kept !== undefined) return kept;
  const reading = new ReadingQueue(place, query, reader);
  let listing: Listing;
  try {
    listing = await listFiles(query, place, index, reading);
  } catch (error) {
    reading.close();
    throw error;
  }
  const literal = reading.literal;
  const batches = reading.end();
  const collector = new SearchCollector(query, listing.files.length);
  collector.countUnreadable(listing.unreadable ?? 0);
  collector.countSkipped(listing.skipped);
  let read: ReadOutcomes;
  try {
    if (listing.cut) collector.proceed(); // (stops it: the deadline has passed)
    read = await collectInOrder(listing, batches, collector, {
      reader,
      ...reading.prefilter(),
      explicit: kind === "file",
      context: query.context ?? 0,
      denies: place.denies,
    });
  } finally {
    batches.close();
  }
  if (changesAtStart !== undefined) {
    index?.recordAbsent(literal, query.matcher, read.without, changesAtStart);
  }
  const result = collector.result();
  // (The index learns what was read also when it was not trusted to answer this search.)
  const learning = place.index;
  if (learning !== undefined) {
    const rows = result.files.reduce((sum, file) => sum + rowCount(file), 0);
    const delay = learningDelay(reading.keys.length, rows);
    setTimeout(() => learning.learn(reading.keys, listing.walkAgain), delay);
  }
  if (listing.cut) result.walkUnfinished = true;
  if (query.digests !== undefined) digestFiles(result.files, listing.files, reader, query.digests);
  // (Through a directory, only with its walk: one the index does not keep, as one that read
  // an ignore file with other names, may change unheard.)
  const keepable = read.keepable && (kind === "file" || listing.walk !== undefined);
  if (keyOfResult !== undefined && changesAtStart !== undefined && keepable) {
    index?.rememberResult(keyOfResult, result, changesAtStart, listing.walk);
  }
  return result;
}

/** The files a search goes through, in path order. */
interface Listing {
  files: WalkNode[];
  /** Directories the walk could not open. */
  unreadable?: number;
  /** What the walk left out as hidden or .gitignore'd (nothing, for the one file asked for). */
  skipped?: SkippedEntries;
  /** Per file: what the index knows without reading it. */
  known: (Examined | undefined)[];
  /** The first search's walk, made before the watcher ran, for the index to make again. */
  walkAgain?: WalkToMake;
  /** The walk the index keeps that the files came from, by its key. */
  walk?: { key: string; kept: KeptWalk };
  /** True when the deadline stopped the walk before its end. */
  cut?: boolean;
}

/**
 * How the index plans what to read of large files for a search: a block more around each
 * for context lines; of a long line only the bytes around the blocks when its row is a
 * window around an exact needle (not one compared without case), or around a regex's match
 * found in the stretches around its literal (`Matcher.stretch`).
 */
function planShape({ matcher, rowCut, context = 0 }: SearchQuery): PlanShape {
  if (context > 0) return { wide: true };
  const exact = matcher.exactLiteral ?? matcher.exactAlternatives ?? matcher.stretch;
  const windows = exact !== undefined && rowCut !== undefined && matcher.stoppable === undefined;
  return windows ? { cut: rowCut } : {};
}

/**
 * Lists the files of the search (the index's walk, a new walk, or the one file asked for)
 * and queues those the index does not rule out for reading. Each part of the search is a
 * function of its own: the JIT compiles a hot loop with the function around it, and one
 * function holding them all made a first search measurably slower.
 */
async function listFiles(
  query: SearchQuery,
  place: SearchPlace,
  index: SearchIndex | undefined,
  reading: ReadingQueue,
): Promise<Listing> {
  const { start, kind } = place;
  if (kind === "file") {
    const name = start.display.slice(start.display.lastIndexOf("/") + 1);
    // (No walk: nothing was left out as hidden or ignored, and no hint says otherwise.)
    const skipped = noneSkipped();
    if (query.glob !== undefined && !compileGlob(query.glob)(name)) {
      return { files: [], known: [], skipped };
    }
    reading.add(start.key);
    return { files: [start], known: [undefined], skipped };
  }
  if (kind !== "directory") throw new NotAFileError(query.path ?? ".", "a device, FIFO or socket");
  const rules = walkRulesOf(query);
  // (The start's real path, and the path it is shown by: the files of a directory reached
  // through a symlink are shown under the symlink's name. The index reads the rules at [1].)
  const walkKey = JSON.stringify([start.key, rules, start.display]);
  // (A walk by size is not kept: a file grows past it with no change to its directory.)
  const keeps = query.maxFileSize === undefined;
  const walked = keeps ? index?.walk(walkKey) : undefined;
  if (index !== undefined && walked !== undefined) {
    const { files } = walked;
    // (The files to read are queued as they are judged: the first are read meanwhile.)
    const answer = index.knownFiles(walkKey, files, query.matcher, planShape(query), {
      rarest: (literal) => {
        if (literal !== undefined) reading.literal = literal;
      },
      read: (i, plan) => reading.add(files[i].key, plan),
    });
    return {
      files,
      known: answer.known,
      skipped: walked.skipped,
      unreadable: walked.dirs.unreadable || undefined,
      walk: { key: walkKey, kept: walked },
    };
  }
  const walkEpoch = index?.walkEpoch;
  const madeAt = Date.now();
  const listing: Listing = { files: [], known: [], skipped: noneSkipped() };
  const dirs = directoryRecorder(listing.skipped!);
  await walkAndQueue(query, place, index?.knowing(query.matcher), reading, listing, dirs);
  if (listing.cut) return listing; // (not the whole walk: nothing to keep)
  if (index !== undefined) {
    const kept = { files: listing.files, skipped: listing.skipped!, dirs: dirs.listed, madeAt };
    if (keeps) index.rememberWalk(walkKey, kept, walkEpoch!);
    if (index.walk(walkKey) === kept) listing.walk = { key: walkKey, kept };
  } else if (keeps) {
    const again = () => {
      const skipped = noneSkipped();
      const dirs = directoryRecorder(skipped);
      const runs = walkFileRuns(place.walkSource, start, { ...rules, ...dirs.callbacks });
      return { runs, skipped, dirs: dirs.listed };
    };
    listing.walkAgain = { key: walkKey, files: again };
  }
  return listing;
}

/** Walks the start directory into `listing`, queueing the files the index does not rule out. */
async function walkAndQueue(
  query: SearchQuery,
  place: SearchPlace,
  knowing: ((key: string) => Examined | undefined) | undefined,
  reading: ReadingQueue,
  listing: Listing,
  dirs: DirectoryRecorder,
): Promise<void> {
  const { files, known } = listing;
  const walk = {
    ...query,
    ...dirs.callbacks,
    // (A directory it could not open may open for another server: such a walk is not saved.)
    onUnreadable: (display: string) => {
      dirs.callbacks.onUnreadable(display);
      listing.unreadable = dirs.listed.unreadable;
      query.onUnreadable?.(display);
    },
  };
  for await (const run of walkFileRuns(place.walkSource, place.start, walk)) {
    for (const file of run) {
      const outcome = knowing?.(file.key);
      files.push(file);
      known.push(outcome);
      if (outcome === undefined) reading.add(file.key);
    }
    query.signal?.throwIfAborted();
    // The budget holds in the walk too: the files found so far are then not searched.
    if (query.deadline !== undefined && Date.now() >= query.deadline) {
      listing.cut = true;
      return;
    }
  }
}

/** What the files read taught {@linkcode collectInOrder}. */
interface ReadOutcomes {
  /**
   * Whether the result may be kept: every file read has one name (a write through another
   * may go unheard) and was read whole by the examination.
   */
  keepable: boolean;
  /** The files read and found without the literal. */
  without: string[];
}

/**
 * Hands the collector every file's outcome in path order, until it is done, and counts the
 * files it never got to.
 */
async function collectInOrder(
  { files, known }: Listing,
  batches: ExaminedBatches,
  collector: SearchCollector,
  search: OneFileSearch,
): Promise<ReadOutcomes> {
  const read: ReadOutcomes = { keepable: true, without: [] };
  const named = collector.namesFilesWithoutMatch;
  let slice = performance.now();
  let outcomes: Examined[] = [];
  let taken = 0;
  let batch = 0;
  let i = 0;
  for (; i < files.length; i++) {
    let outcome = known[i];
    // (Checked once a batch of files: a clock read per file costs more than it tells.)
    if (i % BATCH_SIZE === 0) {
      if (!collector.proceed()) break;
      // Files are read with blocking calls (one promise per file costs more than the
      // read); the event loop gets a turn every few milliseconds, so cancellation is heard.
      if (performance.now() - slice > YIELD_EVERY_MS) {
        await yieldToEventLoop();
        slice = performance.now();
        if (!collector.proceed()) break;
      }
    }
    if (outcome === undefined) {
      if (taken === outcomes.length) {
        outcomes = await batches.get(batch++);
        taken = 0;
      }
      outcome = outcomes[taken++];
      if ("linked" in outcome && outcome.linked) read.keepable = false;
      else if (outcome.kind === "none" && !outcome.holdsNeedle) read.without.push(files[i].key);
      // Another name of a denied file is passed over as if it were not there.
      if ("linked" in outcome && outcome.linked && (await search.denies?.(outcome.linked))) {
        continue;
      }
    }
    // (Most files are ruled out; they are counted without a promise each.)
    if (outcome.kind === "none") {
      collector.searchedWithoutMatch(named ? files[i].display : undefined);
    } else if (outcome.kind === "binary") collector.binary();
    else if (outcome.kind === "counted") {
      collector.countedFile(files[i].display, outcome.lines, outcome.invalid);
    } else {
      if (!(await recordExamined(collector, files[i].display, outcome))) {
        if (!(await searchOne(files[i], search.reader, collector, search))) read.keepable = false;
      }
      // A file scanned may take long (a slow pattern: a batch of them took seconds), so the
      // event loop gets its turn after one too, and a cancellation is heard at once.
      if (performance.now() - slice > YIELD_EVERY_MS) {
        await yieldToEventLoop();
        slice = performance.now();
        collector.proceed(); // (throws when cancelled; a deadline passed makes it done)
      }
    }
    if (collector.done) {
      i++;
      break;
    }
  }
  if (i < files.length) collector.notSearched(files.length - i);
  return read;
}

/** How a file the examination left over is searched on this thread. */
interface OneFileSearch extends ByteExamination {
  /** Context lines of the search. */
  context: number;
  /** The reader (its buffer is reused). */
  reader: FileReader;
  /** Whether the file was asked for by name (errors are then reported, not skipped). */
  explicit: boolean;
  /** See {@linkcode SearchPlace.denies}. */
  denies: SearchPlace["denies"];
}

/**
 * The files a search must read, handed to the examination in batches as they are found:
 * with a warm worker (lent by the index) from the first file, with a new one only from
 * `parallelFrom` files (starting a worker costs), on the main thread alone otherwise.
 */
class ReadingQueue {
  /** Every file added, in order. */
  readonly keys: string[] = [];
  /**
   * The literal looked for in the bytes: the matcher's pick, or the rarest the index knows
   * (set before the first file is added).
   */
  literal: string | undefined;
  readonly #alternatives: readonly string[] | undefined;
  readonly #folded: readonly string[] | undefined;
  readonly #required: readonly string[] | undefined;
  readonly #lineStart: Uint8Array | undefined;
  /**
   * The literal that is the whole of every match (undefined: one of the alternatives is, or
   * their folded literal), and whether each alternative's every occurrence is a match.
   */
  readonly #exactly: { literal: string | undefined; alternatives: boolean };
  /**
   * The cut rows are shown with, where the literal, an alternative or their folded literal is
   * the whole of every match (for long lines windowed from their bytes); else undefined.
   */
  readonly #exactCut: number | undefined;
  /** A regex more than its required literal, with the cut rows are shown with (or undefined). */
  readonly #stretch: Stretch | undefined;
  /** The matching lines the search takes of a file (`maxMatchesPerFile`), if it says. */
  readonly #linesAtMost: number | undefined;
  /** Whether the search counts only (`SearchQuery.countOnly`). */
  readonly #countOnly: boolean;
  readonly #place: SearchPlace;
  readonly #options: { context: number; reader: FileReader };
  /** The digests the examination gives (the first files, when no matches are skipped). */
  readonly #digests: Examination["digests"];
  readonly #lease: WorkerLease | undefined;
  /** Whether the examination gives a file's kept runs joined (`Examination.joinRuns`). */
  readonly #joinRuns: boolean;
  readonly #plans = new Map<number, ReadPlan>(); // by position in keys
  #batches: ExaminedBatches | undefined;

  constructor(place: SearchPlace, query: SearchQuery, reader: FileReader) {
    const { matcher, rowCut } = query;
    const context = query.context ?? 0;
    this.#place = place;
    this.literal = matcher.requiredLiteral;
    this.#alternatives = matcher.alternativeLiterals;
    this.#folded = matcher.foldedLiterals;
    this.#required = matcher.requiredLiterals;
    this.#lineStart = lineStartNeedle(matcher.lineStart);
    // (A stoppable pattern's scan is where it can be stopped; it is left to that.)
    const exact = matcher.exactLiteral ?? matcher.exactAlternatives ?? matcher.exactFolded;
    this.#exactCut = exact !== undefined && context === 0 && matcher.stoppable === undefined
      ? rowCut
      : undefined;
    this.#stretch = matcher.stretch !== undefined && rowCut !== undefined && context === 0
      ? { ...matcher.stretch, cut: rowCut }
      : undefined;
    this.#exactly = {
      literal: matcher.exactLiteral,
      alternatives: matcher.exactAlternatives !== undefined,
    };
    this.#linesAtMost = matcher.stoppable === undefined ? query.maxMatchesPerFile : undefined;
    // (As the scan joins them: see SearchCollector.scanFile.)
    this.#joinRuns = context === 0 && matcher.stoppable === undefined;
    this.#countOnly = query.countOnly === true && matcher.stoppable === undefined;
    this.#options = { context, reader };
    const { digests } = query;
    if (digests?.afterMatches === 0) {
      // (Read with a trusted index, most files hold a match. Without, the first files with
      // matches are found in the examination, here and on the workers, batches in order, when
      // a file that holds the literal holds a match: the literal is the whole of it.)
      const known = place.indexTrusted && place.index !== undefined;
      const more = known || exact === undefined ? 0 : digests.files + DIGESTS_OUT_OF_ORDER;
      this.#digests = { files: digests.files, maxBytes: digests.maxBytes, more };
    }
    this.#lease = place.threads > 1 ? place.index?.borrowWorkers() : undefined;
  }

  /**
   * The bytes the examination looks for: the literal's, or else one of the alternatives';
   * with the cut of rows when the literal, or one of the alternatives, is the whole of every
   * match, and the matching lines taken of a file when every line holding one matches; and
   * the start every matching line has, if the matcher knows one.
   */
  prefilter(): ByteExamination {
    const found = prefilterOf(this.literal, this.#alternatives, this.#folded, this.#required);
    const lineStart = this.#lineStart;
    let prefilter: ByteExamination = lineStart === undefined ? found : { ...found, lineStart };
    // (A line holding an occurrence matches: the lines decoded may end after the last taken,
    // and a count may be taken without decoding them.)
    // (Not for a needle that starts as the BOM does: the BOM starting a file is no part of
    // its first line, and an occurrence there no match.)
    const needles = found.needle !== undefined ? [found.needle] : found.anyOf ?? [];
    const exactly = !needles.some((needle) => utf8BomLength(needle) > 0) &&
      (found.needle !== undefined
        ? this.#exactly.literal === this.literal
        : found.anyOf !== undefined && found.folded === undefined && this.#exactly.alternatives);
    if (exactly && this.#linesAtMost !== undefined) {
      prefilter = { ...prefilter, linesAtMost: this.#linesAtMost };
    }
    if (exactly && this.#countOnly) prefilter = { ...prefilter, countLines: true };
    if (this.#exactCut !== undefined && this.#exactly.literal === this.literal) {
      return { ...prefilter, rowCut: this.#exactCut };
    }
    // (Each required literal is in every match: the needle may be any of them.)
    const stretch = this.#stretch;
    return stretch !== undefined && (prefilter.needle ?? prefilter.anyOf) !== undefined
      ? { ...prefilter, stretch }
      : prefilter;
  }

  /**
   * Adds a file to read.
   *
   * @param key its real path
   * @param plan what to read of it, when the index has its block filters
   */
  add(key: string, plan?: ReadPlan): void {
    if (plan !== undefined) this.#plans.set(this.keys.length, plan);
    this.keys.push(key);
    if (this.#batches !== undefined) return this.#batches.add(key, plan);
    let workers: Worker[] | WorkerLease | undefined = this.#lease;
    // A big tree: the workers start reading while the walk goes on, the store's kept ones if
    // they are free. (With an index, only its warm workers help: a search beside another
    // that has them goes on alone, rather than start threads and heaps of its own.)
    if (
      workers === undefined && this.keys.length === this.#place.parallelFrom &&
      this.#place.index === undefined
    ) {
      workers = this.#place.workers?.borrow();
      if (workers === undefined) {
        const started = startSearchWorkers(this.#place.threads - 1);
        if (started.length > 0) workers = started;
      }
    }
    if (workers === undefined) return;
    this.#batches = this.#examine(workers);
    this.#addAll(this.#batches);
  }

  /** No more files: the batches to take the outcomes from, in order. */
  end(): ExaminedBatches {
    if (this.#batches === undefined) {
      this.#lease?.release(false); // (nothing to read beside the main thread)
      this.#batches = this.#examine(undefined);
      this.#addAll(this.#batches);
    }
    this.#batches.end();
    return this.#batches;
  }

  /** Gives up (the walk failed). */
  close(): void {
    if (this.#batches === undefined) this.#lease?.release(false);
    this.#batches?.close();
  }

  #addAll(batches: ExaminedBatches): void {
    this.keys.forEach((key, i) => batches.add(key, this.#plans.get(i)));
  }

  #examine(workers: Worker[] | WorkerLease | undefined): ExaminedBatches {
    return new ExaminedBatches({
      ...this.prefilter(),
      context: this.#options.context,
      joinRuns: this.#joinRuns,
      digests: this.#digests,
      // (Only a trusted index keeps what a search learned; deny rules hold for other names.)
      links: (this.#place.indexTrusted && this.#place.index !== undefined) ||
        this.#place.denies !== undefined,
      reader: this.#options.reader,
      workers,
    });
  }
}

/**
 * Searches one file the examination left to the caller (large, not a file, unreadable).
 *
 * @returns whether a result that holds it may be kept: it was read, and has one name (a
 *   write through another name may go unheard)
 */
async function searchOne(
  node: WalkNode,
  reader: FileReader,
  collector: SearchCollector,
  search: OneFileSearch,
): Promise<boolean> {
  const { explicit } = search;
  let outcome: ReadOutcome;
  try {
    outcome = reader.read(node.key);
  } catch (error) {
    const mapped = mapOsError(error, node.display, "read");
    // A file of a walk that vanished or cannot be read is skipped (and counted), as ripgrep
    // does; a file asked for by name reports why.
    if (!explicit && mapped instanceof StoreError && SKIP_IN_WALK.has(mapped.code)) {
      skipped(collector, mapped, node);
      return false;
    }
    throw mapped;
  }
  if (outcome.kind === "not_file") {
    if (!explicit) return false;
    throw new NotAFileError(node.display, describeKind(outcome.stat.kind));
  }
  // (Examined before the deny check awaits: the bytes are the reader's until the next read.)
  const examined = outcome.kind === "bytes"
    ? examineBytes(outcome.bytes, search, search.context)
    : undefined;
  if (await search.denies?.(outcome.stat)) {
    if (explicit) throw new DeniedPathError(node.display);
    return false;
  }
  if (examined !== undefined) await recordExamined(collector, node.display, examined);
  else {
    const found = lookThrough(reader, node.key, search, collector.query, outcome.stat.size);
    if (found === "absent") collector.searchedWithoutMatch(node.display);
    else if (found === "binary") collector.binary();
    else return await streamFile(reader.files, node, collector, search);
  }
  return outcome.stat.nlink === 1;
}

/**
 * Searches a large file in runs of whole lines.
 *
 * @returns whether it was searched and has one name (see {@linkcode searchOne})
 */
async function streamFile(
  files: FileSystem,
  node: WalkNode,
  collector: SearchCollector,
  { explicit, denies, needle, anyOf, folded, context, countLines, linesAtMost }: OneFileSearch,
): Promise<boolean> {
  let opened;
  try {
    opened = await openForRead(files, node);
  } catch (error) {
    // A file of a walk that vanished, turned into something else, or cannot be read is
    // skipped (and counted), as ripgrep does; a file asked for by name reports why.
    if (!explicit && error instanceof StoreError && SKIP_IN_WALK.has(error.code)) {
      skipped(collector, error, node);
      return false;
    }
    throw error;
  }
  const { handle } = opened;
  const oneName = opened.stat.nlink === 1;
  try {
    if (await denies?.(opened.stat)) {
      if (explicit) throw new DeniedPathError(node.display);
      return false;
    }
    const head = await readHead(handle, BINARY_PROBE_BYTES);
    if (head.length === 0) {
      collector.searchedWithoutMatch(node.display);
      return oneName;
    }
    if (isBinary(head)) {
      collector.binary();
      return oneName;
    }
    let invalid = false;
    const needles = needle !== undefined ? [needle] : anyOf;
    // (From after the BOM, which is no part of line 1's text; each run taken before the next.)
    const reader = new LineReader(handle, utf8BomLength(head), BLOCK_BYTES, true);
    // (Counting only, where every line holding one matches: counted in the bytes.)
    if (countLines && needles !== undefined && !spansLines(needles)) {
      const lines = await countedLines(reader, needles, {
        atMost: linesAtMost ?? Infinity,
        collector,
        onInvalid: () => invalid = true,
      });
      collector.countedFile(node.display, lines, invalid);
      return oneName;
    }
    // (Without context lines, a line holding none of the needles can have no row: only the
    // lines that hold one are decoded. A needle with a line break may span two runs.)
    const passable = context === 0 && needles !== undefined && !spansLines(needles)
      ? needles
      : undefined;
    const decode = (run: Uint8Array): KeptPieces | number => {
      if (passable !== undefined) {
        const kept = keptRun(run, passable, folded);
        if (kept.invalid) invalid = true;
        return kept.text;
      }
      const decoded = decodeUtf8(run);
      if (decoded.invalid) invalid = true;
      return decoded.text;
    };
    const lines = linesOf(reader, decode, collector.query, () => invalid = true);
    await collector.scanFile(node.display, lines, () => invalid);
    return oneName;
  } finally {
    await handle.close();
  }
}

/**
 * A large file's lines for the collector: runs of whole lines, decoded (or counted, when
 * `decode` finds they can have no row); a line too long to hold is searched as it passes
 * (see `_long_line.ts`) and handed over as what was found. A search that shows whole rows
 * holds lines up to {@linkcode WHOLE_LINE_BYTES}, one with a row cut up to
 * {@linkcode LONG_LINE_BYTES}.
 */
async function* linesOf(
  reader: LineReader,
  decode: (run: Uint8Array) => KeptPieces | number,
  query: SearchQuery,
  onInvalid: () => void,
): AsyncGenerator<string | number | PassedLine> {
  const longBytes = query.rowCut === undefined ? WHOLE_LINE_BYTES : LONG_LINE_BYTES;
  for (let next = await reader.next(longBytes); next !== null;) {
    if ("run" in next) {
      const text = decode(next.run);
      if (typeof text === "object") yield* text;
      else yield text;
    } else {
      const passed = await passLongLine(next.long, {
        from: 1,
        keep: DEFAULT_CUT + 1,
        search: { matcher: query.matcher, deadline: query.deadline, signal: query.signal },
      });
      if (passed.invalid) onInvalid();
      yield passed;
    }
    next = await reader.next(longBytes);
  }
}

/**
 * The lines of a large file that hold one of the needles, for a search that counts only
 * where every such line matches: counted run by run in the bytes (see `linesHolding`), a
 * line too long to hold searched as it passes. Stops at `atMost`, or where the collector
 * says the search stops (its deadline: the lines counted until then are the count).
 */
async function countedLines(
  reader: LineReader,
  needles: readonly Uint8Array[],
  { atMost, collector, onInvalid }: {
    atMost: number;
    collector: SearchCollector;
    onInvalid: () => void;
  },
): Promise<number> {
  const { matcher, deadline, signal } = collector.query;
  let lines = 0;
  for (let next = await reader.next(LONG_LINE_BYTES); next !== null && lines < atMost;) {
    if (!collector.proceed()) break;
    if ("run" in next) {
      if (!isUtf8(next.run)) onInvalid();
      lines += linesHolding(next.run, needles, atMost - lines);
    } else {
      const passed = await passLongLine(next.long, {
        from: 1,
        keep: 0,
        search: { matcher, deadline, signal },
      });
      if (passed.invalid) onInvalid();
      if (passed.match !== undefined) lines++;
    }
    next = await reader.next(LONG_LINE_BYTES);
  }
  return lines;
}

/** Counts a walked file that could not be read (one that is gone is simply not there). */
function skipped(collector: SearchCollector, error: StoreError, node: WalkNode): void {
  if (error.code !== "not_found" && error.code !== "not_a_file") collector.unreadable(node.display);
}

/** Records a file that was examined whole; false when it must be searched another way. */
async function recordExamined(
  collector: SearchCollector,
  display: string,
  examined: Examined,
): Promise<boolean> {
  switch (examined.kind) {
    case "binary":
      collector.binary();
      return true;
    case "none":
      collector.searchedWithoutMatch(display);
      return true;
    case "text":
      await collector.scanFile(
        display,
        scannedChunks(examined.text),
        () => examined.invalid,
        examined.linesBefore,
        examined.sha1,
        examined.identity,
      );
      return true;
    case "counted":
      collector.countedFile(display, examined.lines, examined.invalid);
      return true;
    case "redo":
      return false;
  }
}

/** Lets pending events (a cancellation, a progress write) run. */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

keepOffTopTier(ReadingQueue.prototype.add);
