/**
 * What every store's search shares: numbering matches with the core scanner over a file
 * given as chunks of whole lines, the match cap, the deadline, the abort signal, progress,
 * and the counts of the result. A store that streams big files and one that reads whole
 * files report the same rows.
 *
 * @module
 */
import { PatternStoppedError, type ScanRow, scanText, splitLines } from "../core/mod.ts";
import { JoinedRuns, wholeLines } from "./_joined_runs.ts";
import { RowTable, withFlatRows } from "./flat_rows.ts";
import type { FileMatches, SearchQuery, SearchResult, SkippedEntries } from "./file_store.ts";

/** How often progress is reported at most. */
const PROGRESS_INTERVAL_MS = 250;

/** Checks a query's numbers and matcher. */
export function checkQuery(query: SearchQuery): void {
  if (typeof query !== "object" || query === null) throw new TypeError("query must be an object");
  if (typeof query.matcher?.matchLine !== "function") {
    throw new TypeError("query.matcher must be a Matcher with a matchLine function");
  }
  const { context = 0, maxMatches = 200 } = query;
  if (!Number.isInteger(context) || context < 0) {
    throw new TypeError(`context must be an integer of at least 0, got ${context}`);
  }
  if (!(Number.isInteger(maxMatches) && maxMatches >= 1) && maxMatches !== Infinity) {
    throw new TypeError(`maxMatches must be a positive integer, got ${maxMatches}`);
  }
  const { rowCut, maxChars, maxMatchesPerFile } = query;
  if (
    maxMatchesPerFile !== undefined &&
    !(Number.isInteger(maxMatchesPerFile) && maxMatchesPerFile >= 1)
  ) {
    throw new TypeError(`maxMatchesPerFile must be a positive integer, got ${maxMatchesPerFile}`);
  }
  if (rowCut !== undefined && !(Number.isInteger(rowCut) && rowCut >= 1)) {
    throw new TypeError(`rowCut must be a positive integer, got ${rowCut}`);
  }
  if (maxChars !== undefined && !(Number.isInteger(maxChars) && maxChars >= 1)) {
    throw new TypeError(`maxChars must be a positive integer, got ${maxChars}`);
  }
}

/** Collects the rows of a search across files and decides when it stops. */
export class SearchCollector {
  readonly #query: SearchQuery;
  readonly #context: number;
  /** The matching lines to take: `maxMatches`, or fewer once `maxChars` is filled. */
  #maxMatches: number;
  readonly #files: FileMatches[] = [];
  /** The rows of the files taken, flat (see `flat_rows.ts`). */
  #table: RowTable | undefined;
  #matchedLines = 0;
  /** Characters of the matching rows taken, each counted as at most the cut. */
  #chars = 0;
  #filesSearched = 0;
  #binaryFilesSkipped = 0;
  #filesNotSearched = 0;
  #unreadable = 0;
  #skipped: SkippedEntries | undefined;
  #stopped: "max_matches" | "time" | undefined;
  #patternStopped = false;
  #lastProgress = 0;
  #filesTotal: number | undefined;

  /**
   * @param query the search
   * @param filesTotal how many files will be offered, when known (for progress)
   */
  constructor(query: SearchQuery, filesTotal?: number) {
    this.#query = query;
    this.#context = query.context ?? 0;
    this.#maxMatches = query.maxMatches ?? 200;
    this.#filesTotal = filesTotal;
  }

  /** The search. */
  get query(): SearchQuery {
    return this.#query;
  }

  /**
   * Whether the paths of files without a match are wanted: most files of a search are ruled
   * out without reading, and a loop over them need not load their nodes otherwise.
   */
  get namesFilesWithoutMatch(): boolean {
    return this.#query.onNoMatch !== undefined;
  }

  /** True once the search must not look at further files. */
  get done(): boolean {
    return this.#stopped !== undefined;
  }

  /**
   * Checks the signal (rejecting with its reason) and the deadline before more work; returns
   * false when the deadline has passed (the search then stops with "time").
   */
  proceed(): boolean {
    this.#query.signal?.throwIfAborted();
    if (this.#stopped !== undefined) return false;
    if (this.#query.deadline !== undefined && Date.now() >= this.#query.deadline) {
      this.#stopped = "time";
      return false;
    }
    return true;
  }

  /** Counts a file the search will not look at because it stopped. */
  notSearched(count = 1): void {
    this.#filesNotSearched += count;
  }

  /** Counts a binary file skipped. */
  /** Counts a file (or directory) that could not be read, and tells the query's listener. */
  unreadable(display: string): void {
    this.#unreadable++;
    this.#query.onUnreadable?.(display);
  }

  /** Counts directories the walk could not read (their listener was told already). */
  countUnreadable(count: number): void {
    this.#unreadable += count;
  }

  /** Counts what the walk left out as hidden or .gitignore'd. */
  countSkipped(skipped: SkippedEntries | undefined): void {
    this.#skipped = skipped;
  }

  binary(): void {
    this.#binaryFilesSkipped++;
    this.#progress();
  }

  /**
   * Counts a file searched without scanning it (a prefilter ruled it out), and tells the
   * query's `onNoMatch`.
   *
   * @param path display path of the file; needed only when the query has an `onNoMatch`
   *   ({@linkcode namesFilesWithoutMatch})
   */
  searchedWithoutMatch(path?: string): void {
    this.#filesSearched++;
    this.#query.onNoMatch?.(path!);
    this.#progress();
  }

  /**
   * Scans one file given as chunks of whole lines (every chunk but the last ends with `\n`;
   * the first may start with the BOM), or counts of lines a prefilter found can neither
   * match nor be context of a match (counted, not scanned). Each chunk is scanned with the
   * last lines of the previous one in front, so that context and the line rule see across
   * the seam; rows already reported are not reported again. Without context, the chunks of a
   * file given whole (an array) are joined and scanned at once (see `_joined_runs.ts`).
   *
   * @param path display path of the file
   * @param chunks the decoded text, in order
   * @param isInvalid asked after the last chunk: whether the bytes were invalid UTF-8
   * @param linesBefore lines of the file before the first chunk that can neither match nor
   *   be context of a match
   * @param sha1 the digest of the file's bytes, when the caller knows it (see `FileMatches`)
   * @param identity with `sha1`, the identity of the file whose bytes those were
   */
  async scanFile(
    path: string,
    chunks:
      | AsyncIterable<string | number | PassedLine>
      | Iterable<string | number | PassedLine>
      | JoinedRuns,
    isInvalid: () => boolean,
    linesBefore = 0,
    sha1?: string,
    identity?: string,
  ): Promise<void> {
    const version = { ...sha1 ? { sha1 } : {}, ...identity ? { identity } : {} };
    // (Counting only, the rows are left out, and with them the lines' text.)
    const countOnly = this.#query.countOnly === true;
    // The rows go in the search's table, flat, unless each file is handed on as it is done.
    const table = countOnly || this.#query.onFile !== undefined
      ? undefined
      : this.#table ??= new RowTable();
    const from = table?.count ?? 0;
    let rows: ScanRow[] = [];
    /** Rows given to the query's `onRows` already (and left out of `rows`). */
    let handed = 0;
    const onRows = this.#query.onRows;
    const handOn = (linesScanned: number) => {
      if (onRows === undefined || table !== undefined || countOnly) return;
      handed += rows.length;
      onRows(path, rows, linesScanned);
      rows = [];
    };
    const add = (row: ScanRow) =>
      table ? table.push(row.line, row.text, row.match, row.piece) : rows.push(row);
    const added = () => table ? table.count - from : handed + rows.length;
    const found = (): FileMatches => {
      const file: FileMatches = {
        path,
        rows,
        invalidUtf8: isInvalid(),
        ...countOnly ? { matchedLines: fileMatches } : {},
        ...version,
      };
      return table ? withFlatRows(file, { table, from, count: added(), at: 0 }) : file;
    };
    const shows = () => (countOnly ? fileMatches : added()) > 0;
    const context = this.#context;
    // Without context, a file read whole is scanned at once, its runs joined (where it was
    // read, or here).
    const joinable = context === 0 && !this.#query.matcher.stoppable;
    if (chunks instanceof JoinedRuns && !joinable) {
      throw new Error("runs joined for a search with context or a pattern run apart");
    }
    const joined = chunks instanceof JoinedRuns
      ? chunks
      : joinable && Array.isArray(chunks)
      ? JoinedRuns.of(chunks, linesBefore)
      : undefined;
    // (Joined, the text's own line numbers are mapped back: there is nothing before it.)
    let before = joined === undefined ? linesBefore : 0; // lines of the file before the chunk
    // The last lines of the previous chunk, the context of the next one's first lines: none
    // after lines passed over (a prefilter passes over no line a match's context needs).
    let tail = "";
    let tailLines = 0;
    // The text last scanned: its last lines are the tail of the next chunk, if that is text
    // (worked out only then: most chunks are followed by lines passed over, or by nothing).
    let scanned: string | undefined;
    let lastReported = 0;
    let lastMatch = -Infinity;
    let stop = false;
    // (The file's own limit: once its last matching line's context is taken, the file is done.)
    const perFile = this.#query.maxMatchesPerFile ?? Infinity;
    let fileMatches = 0;
    let fileDone = false;
    // A stoppable scan goes in pieces, so that a stop keeps what the pieces before found.
    const pieces = chunks instanceof JoinedRuns || joined !== undefined
      ? [joined!.text]
      : this.#query.matcher.stoppable
      ? piecesOf(chunks, STOPPABLE_PIECE)
      : chunks;
    for await (const chunk of pieces) {
      const timedOut = typeof chunk === "object" && chunk.timedOut === true;
      if (timedOut || (!this.proceed() && this.#stopped === "time")) {
        // Stopped in the middle of this file (a long line the deadline cut, or the deadline
        // before this chunk): what it found stands, but it was not searched to the end.
        this.#stopped = "time";
        if (timedOut && chunk.patternStopped) this.#patternStopped = true;
        if (shows()) this.#take(found());
        this.#filesNotSearched++;
        return;
      }
      if (typeof chunk === "number") {
        before += chunk;
        scanned = undefined;
        tail = "";
        tailLines = 0;
        continue;
      }
      if (typeof chunk !== "string") {
        // A line too long to hold, searched as it passed: one line, with no context, and none
        // for the next chunk (as after lines passed over).
        const line = ++before;
        scanned = undefined;
        tail = "";
        tailLines = 0;
        lastReported = line;
        // (Past the file's limit, a match within the context of its last counted one is
        // given, not counted, as in the sink below; beyond that context the file is done.)
        const capped = fileMatches >= perFile;
        if (capped && line > lastMatch + context) break;
        if (chunk.match === undefined) continue;
        if (!capped && this.#matchedLines >= this.#maxMatches) {
          this.#stopped = "max_matches";
          break;
        }
        const { from, codePoints, terminator } = chunk;
        const piece = { from, codePoints, terminator };
        const text = chunk.piece + chunk.terminator;
        if (!capped) {
          this.#matchedLines++;
          fileMatches++;
          lastMatch = line;
          this.#shown(text);
        }
        if (!countOnly) add({ line, text, match: chunk.match, piece });
        continue;
      }
      if (scanned !== undefined) {
        const kept = lastLines(scanned, context);
        tail = kept.text;
        tailLines = kept.count;
      }
      const offset = before - tailLines;
      const sink = (row: ScanRow): boolean => {
        const line = joined === undefined ? row.line + offset : joined.lineOf(row.line);
        if (line <= lastReported) return true;
        if (fileMatches >= perFile) {
          // (Past the file's limit: the context after its last matching line, and no more.)
          if (line > lastMatch + context) {
            fileDone = true;
            return false;
          }
        } else if (row.match) {
          if (this.#matchedLines >= this.#maxMatches) {
            stop = true;
            return false;
          }
          this.#matchedLines++;
          fileMatches++;
          lastMatch = line;
          this.#shown(row.text);
        } else if (this.#matchedLines >= this.#maxMatches && line > lastMatch + context) {
          // Before-context of a match that will not be shown: skip, look for the match.
          return true;
        }
        // (Each row is the scanner's own, made for this call: renumbered, not copied.)
        row.line = line;
        if (!countOnly) add(row);
        lastReported = line;
        return true;
      };
      const text = tail + chunk;
      // (Only a text from the file's line 1 on starts with its BOM: a line after it may start
      // with U+FEFF.)
      const bom = offset === 0;
      if (!(await this.#scan(text, sink, perFile - fileMatches, bom))) {
        // Stopped in the middle of this file: what it found stands, but it was not searched
        // to the end.
        if (shows()) this.#take(found());
        this.#filesNotSearched++;
        return;
      }
      if (stop) {
        this.#stopped = "max_matches";
        break;
      }
      if (fileDone) break;
      // (Joined, the text is scanned at once: no chunk comes after it.)
      if (joined === undefined) before += wholeLines(chunk);
      scanned = text;
      handOn(before);
      // (Past the file's limit, once the context after its last match is scanned, the file is
      // done: a stream need not send another line to end it. Rows handed on may have spent the
      // caller's budget.)
      if (fileMatches >= perFile && before >= lastMatch + context) break;
      if (onRows !== undefined) this.#query.signal?.throwIfAborted();
    }
    this.#filesSearched++;
    if (shows()) this.#take(found());
    // (A file the cap stopped in holds a match, one past the cap.)
    else if (!stop && fileMatches === 0) this.#query.onNoMatch?.(path);
    this.#progress();
  }

  /**
   * Takes a file whose matching lines were counted without decoding them (a search counting
   * only, `SearchQuery.countOnly`, of a literal every occurrence of which is a match), as
   * {@linkcode scanFile} would have counted them: at most the file's own limit, and past the
   * search's cap, none (the search then stops, as one matching line more tells it).
   *
   * @param path display path of the file
   * @param lines how many of its lines hold the literal (at most its limit)
   * @param invalid whether its bytes were invalid UTF-8
   */
  countedFile(path: string, lines: number, invalid: boolean): void {
    const left = this.#maxMatches - this.#matchedLines;
    const taken = Math.min(lines, left);
    if (lines > left) this.#stopped = "max_matches";
    this.#matchedLines += taken;
    this.#filesSearched++;
    if (taken > 0) this.#take({ path, rows: [], invalidUtf8: invalid, matchedLines: taken });
    this.#progress();
  }

  /**
   * Scans one chunk into the sink, here or, for a pattern that may run without end, where
   * it can be stopped; false when the deadline stopped it (the search has then stopped with
   * "time").
   */
  async #scan(
    text: string,
    sink: (row: ScanRow) => boolean,
    perFileLeft = Infinity,
    bom = true,
  ): Promise<boolean> {
    const { matcher, deadline, signal } = this.#query;
    if (matcher.stoppable === undefined) {
      const summary = scanText(text, matcher, sink, { context: this.#context, deadline, bom });
      if (!summary.timedOut) return true;
      this.#stopped = "time";
      return false;
    }
    let rows;
    try {
      // (One matching line more than the cap: whether another exists is part of the answer.)
      // (With a file's own limit: those left, and as many as its last one's context may hold,
      // for the sink to give them; one more ends the context.)
      const left = Math.min(this.#maxMatches - this.#matchedLines, perFileLeft + this.#context);
      const maxMatches = Math.max(left, 0) + 1;
      rows = await matcher.stoppable.scan(text, { context: this.#context, maxMatches, bom }, {
        deadline,
        signal,
      });
    } catch (error) {
      if (!(error instanceof PatternStoppedError)) throw error;
      this.#stopped = "time";
      this.#patternStopped = true;
      return false;
    }
    for (const row of rows) if (!sink(row)) break;
    return true;
  }

  /** A file with matches: to the query's `onFile`, or kept for the result. */
  #take(file: FileMatches): void {
    const onFile = this.#query.onFile;
    if (onFile === undefined) this.#files.push(file);
    else onFile(file);
  }

  /**
   * Counts a matching row's characters as an answer would show at least; once they fill
   * `maxChars`, one matching line more is taken (no answer within the budget shows it, so it
   * tells the answer that more exist) and then the search stops.
   */
  #shown(text: string): void {
    const { maxChars, rowCut = Infinity, countOnly } = this.#query;
    if (maxChars === undefined || countOnly || this.#chars > maxChars) return;
    this.#chars += Math.min(text.length, rowCut);
    if (this.#chars > maxChars) {
      this.#maxMatches = Math.min(this.#maxMatches, this.#matchedLines + 1);
    }
  }

  /** The result so far. */
  result(): SearchResult {
    this.#table?.trim(); // (a result may be kept long)
    const result: SearchResult = {
      files: this.#files,
      matchedLines: this.#matchedLines,
      filesSearched: this.#filesSearched,
      binaryFilesSkipped: this.#binaryFilesSkipped,
      filesNotSearched: this.#filesNotSearched,
      ...(this.#unreadable > 0 ? { unreadable: this.#unreadable } : {}),
      ...(this.#skipped ? { skipped: { ...this.#skipped } } : {}),
    };
    if (this.#stopped !== undefined) result.stopped = this.#stopped;
    if (this.#patternStopped) result.patternStopped = true;
    this.#query.onProgress?.(this.#filesSearched + this.#binaryFilesSkipped, this.#filesTotal);
    return result;
  }

  #progress(): void {
    const onProgress = this.#query.onProgress;
    if (onProgress === undefined) return;
    const now = Date.now();
    if (now - this.#lastProgress < PROGRESS_INTERVAL_MS) return;
    this.#lastProgress = now;
    onProgress(this.#filesSearched + this.#binaryFilesSkipped, this.#filesTotal);
  }
}

/**
 * A line too long to hold, as a search passed over it (see `_long_line.ts`): an excerpt of
 * it (`piece` from column `from`), its length, and where the excerpt matched, if it did.
 */
export interface PassedLine {
  piece: string;
  from: number;
  codePoints: number;
  terminator: string;
  match?: { start: number; end: number };
  timedOut?: boolean;
  /** The deadline stopped a stoppable pattern while it matched. */
  patternStopped?: boolean;
}

/** UTF-16 units of text handed to a stoppable scan at once (a longer line goes whole). */
const STOPPABLE_PIECE = 256 * 1024;

/**
 * Chunks of whole lines cut into, or joined into, pieces of whole lines of about `size` at
 * most: each piece is one call to the stoppable scan (for some engines a round trip to
 * another thread or process), so the runs of a file's kept lines go together, with the
 * lines passed over between them as empty lines, unless those are many.
 */
async function* piecesOf(
  chunks:
    | AsyncIterable<string | number | PassedLine>
    | Iterable<string | number | PassedLine>,
  size: number,
): AsyncGenerator<string | number | PassedLine> {
  let pending: string[] = [];
  let length = 0;
  const flush = function* (): Generator<string> {
    if (length === 0) return;
    const text = pending.join("");
    pending = [];
    length = 0;
    let at = 0;
    while (text.length - at > size) {
      let end = text.lastIndexOf("\n", at + size - 1) + 1;
      if (end <= at) end = text.indexOf("\n", at + size) + 1 || text.length;
      yield text.slice(at, end);
      at = end;
    }
    if (at < text.length) yield text.slice(at);
  };
  for await (const chunk of chunks) {
    const text = typeof chunk === "number" && chunk < JOINED_LINES_PASSED
      ? "\n".repeat(chunk)
      : chunk;
    if (typeof text !== "string") {
      yield* flush();
      yield text;
      continue;
    }
    pending.push(text);
    length += text.length;
    if (length >= size) yield* flush();
  }
  yield* flush();
}

/** Lines passed over that {@linkcode piecesOf} writes as empty lines, fewer than this. */
const JOINED_LINES_PASSED = 4096;

/** The last `count` lines of a text of whole lines, and how many there are. */
function lastLines(text: string, count: number): { text: string; count: number } {
  const lines = splitLines(text.slice(lineStartBefore(text, count)));
  return { text: lines.join(""), count: lines.length };
}

/** Offset where the `count`-th line from the end starts (by `\n`, the line rule's boundary). */
function lineStartBefore(text: string, count: number): number {
  let start = text.length;
  for (let i = 0; i < count && start > 0; i++) {
    // (From before 0, lastIndexOf would look at 0 still: an empty first line would be lost.)
    start = start < 2 ? 0 : text.lastIndexOf("\n", start - 2) + 1;
  }
  return start;
}
