/**
 * Lines too long to hold (a minified bundle, a log with no newline): their bytes pass block
 * by block, and only what is shown is kept. A read keeps the code points it shows from the
 * column asked for and counts the rest; a search looks for a match in windows of the line
 * ({@linkcode SEARCH_WINDOW}, each overlapping the one before by {@linkcode SEARCH_OVERLAP},
 * so a match must fit in the overlap to be found across two), and keeps an excerpt around
 * the first match. Memory is a few windows, whatever the line's length.
 *
 * @module
 */
import { isAscii } from "node:buffer";
import { type Matcher, offsetOfColumn, PatternStoppedError } from "../core/mod.ts";

/** What passing over a long line found. */
export interface MeasuredLine {
  /** The code points kept (from `from`), without the terminator. */
  piece: string;
  /** The column (1-based, in code points) the piece starts at. */
  from: number;
  /** The line's length in code points, without the terminator. */
  codePoints: number;
  /** The line's terminator: "\r\n", "\n", or "" for a last line without one. */
  terminator: string;
  /** True when its bytes were not valid UTF-8 (shown with U+FFFD). */
  invalid: boolean;
  /** For a search: where the first match lies in `piece`; undefined when none was found. */
  match?: { start: number; end: number };
  /** True when the deadline stopped the search before the end of the line. */
  timedOut?: boolean;
  /** True when it stopped a stoppable pattern still matching (see `stoppable_scan.ts`). */
  patternStopped?: boolean;
}

/** Options of {@linkcode passLongLine}. */
export interface PassOptions {
  /** Keep the code points from this column (1-based). */
  from: number;
  /** How many code points to keep. */
  keep: number;
  /** For a search: the matcher, and when to stop looking. */
  search?: { matcher: Matcher; deadline?: number; signal?: AbortSignal };
}

/** Text of a long line a search matches at once; a match must lie within it. */
export const SEARCH_WINDOW = 1024 * 1024;
/** How much of the window before is searched again with the next one. */
export const SEARCH_OVERLAP = 64 * 1024;

const REPLACEMENT = "\uFFFD";
const HIGH_SURROGATE = /[\uD800-\uDBFF]/g;

/**
 * Passes over a long line, keeping what is shown.
 *
 * @param blocks the line's bytes, terminator included, in order
 * @param options the piece to keep, and for a search the matcher
 * @returns the piece, the line's length, its terminator, and for a search the first match
 */
export async function passLongLine(
  blocks: AsyncIterable<Uint8Array>,
  options: PassOptions,
): Promise<MeasuredLine> {
  const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  const line: MeasuredLine = {
    piece: "",
    from: options.from,
    codePoints: 0,
    terminator: "",
    invalid: false,
  };
  let keepFrom = options.from;
  let held = new Uint8Array(0); // the last bytes, held until it is known whether they end the line
  const window = new SearchWindow(options, line);
  let clean = true; // the decoder holds no bytes of a character begun in a block before
  const take = async (bytes: Uint8Array, last: boolean) => {
    // Past its piece, or past a search's match, an ASCII block is only counted: no text is
    // made of it.
    const wanted = options.keep - codePointsOf(line.piece);
    const keeping = options.search === undefined && wanted > 0 &&
      line.codePoints + bytes.length >= keepFrom;
    const searching = options.search !== undefined && !window.done;
    if (clean && !keeping && !searching && isAscii(bytes)) {
      line.codePoints += bytes.length;
      return;
    }
    const text = decoder.decode(bytes, { stream: !last });
    clean = !endsInside(bytes);
    if (text.includes(REPLACEMENT) && !holdsReplacement(bytes)) line.invalid = true;
    const seen = line.codePoints;
    const count = isAscii(bytes) ? text.length : text.length - countMatches(text, HIGH_SURROGATE);
    line.codePoints += count;
    // The piece kept for a read: the code points from `from`, `keep` of them.
    if (options.search === undefined && wanted > 0 && line.codePoints >= keepFrom) {
      const start = offsetOfColumn(text, Math.max(1, keepFrom - seen));
      const end = offsetOfColumn(text, wanted + 1, start);
      line.piece += text.slice(start, end);
      keepFrom = seen + 1 + codePointsOf(text.slice(0, end));
    }
    await window.add(text, seen);
  };
  for await (const block of blocks) {
    // The terminator lies in the line's last two bytes, and "\r\n" may be split across
    // blocks: a block's trailing \r or \n waits until more bytes follow. A block is copied
    // only to join what waited (rare): a copy of each one was a gigabyte of garbage for a
    // 1 GB line, and kept the resident memory of a read of it 40 MiB higher.
    if (block.length < 2) {
      const all = joined(held, block);
      await take(all.subarray(0, Math.max(0, all.length - 2)), false);
      held = all.slice(Math.max(0, all.length - 2));
      continue;
    }
    const end = block.length - trailingBreaks(block);
    const body = block.subarray(0, end);
    await take(held.length === 0 ? body : joined(held, body), false);
    held = block.slice(end);
  }
  const LF = 10;
  const CR = 13;
  let content = held.length;
  if (held[held.length - 1] === LF) {
    const crlf = held.length >= 2 && held[held.length - 2] === CR;
    line.terminator = crlf ? "\r\n" : "\n";
    content -= crlf ? 2 : 1;
  }
  await take(held.subarray(0, content), true);
  if (options.search) await window.finish();
  return line;
}

/** The search of a long line in overlapping windows, with the excerpt of its first match. */
class SearchWindow {
  readonly #options: PassOptions;
  readonly #line: MeasuredLine;
  #text = "";
  /** Code points of the line before `#text`. */
  #before = 0;
  done = false;

  constructor(options: PassOptions, line: MeasuredLine) {
    this.#options = options;
    this.#line = line;
  }

  async add(text: string, seen: number): Promise<void> {
    if (this.#options.search === undefined || this.done) return;
    if (this.#text === "") this.#before = seen;
    this.#text += text;
    if (this.#text.length >= SEARCH_WINDOW) await this.#search(false);
  }

  async finish(): Promise<void> {
    if (!this.done) await this.#search(true);
  }

  /** Searches the window; keeps its last part for the next one when nothing matched. */
  async #search(last: boolean): Promise<void> {
    const { matcher, deadline, signal } = this.#options.search!;
    signal?.throwIfAborted();
    if (deadline !== undefined && Date.now() >= deadline) {
      this.#line.timedOut = true;
      this.done = true;
      return;
    }
    // A window after the first is not the line's start, nor one before the last its end: a
    // NUL stands in front and behind, so that ^ and $ do not match there.
    const lead = this.#before > 0 ? "\0" : "";
    const windowText = lead + this.#text + (last ? "" : "\0");
    let found: { start: number; end: number } | null;
    try {
      found = matcher.stoppable
        ? (await matcher.stoppable.scan(windowText, { context: 0, maxMatches: 1 }, {
          deadline,
          signal,
        }))[0]?.match ?? null
        : matcher.matchLine(windowText);
    } catch (error) {
      if (!(error instanceof PatternStoppedError)) throw error;
      this.#line.timedOut = true;
      this.#line.patternStopped = true;
      this.done = true;
      return;
    }
    if (found !== null) {
      const start = Math.max(0, found.start - lead.length);
      const end = Math.min(this.#text.length, Math.max(start, found.end - lead.length));
      this.#excerpt({ start, end });
      this.done = true;
      return;
    }
    if (last) return;
    const keep = this.#text.length - SEARCH_OVERLAP;
    this.#before += codePointsOf(this.#text.slice(0, keep));
    this.#text = this.#text.slice(keep);
  }

  /** Keeps `keep` code points around the match, a little before it. */
  #excerpt(found: { start: number; end: number }): void {
    const keep = this.#options.keep;
    const text = this.#text;
    const lead = Math.min(Math.floor(keep / 10), 200);
    const matchColumn = codePointsOf(text.slice(0, found.start)) + 1;
    const firstColumn = Math.max(1, matchColumn - lead);
    const start = offsetOfColumn(text, firstColumn);
    const end = offsetOfColumn(text, keep + 1, start);
    this.#line.piece = text.slice(start, end);
    this.#line.from = this.#before + firstColumn;
    this.#line.match = {
      start: found.start - start,
      end: Math.min(found.end, end) - start,
    };
  }
}

/** How many of the last two bytes are \r or \n, counting back from the end. */
function trailingBreaks(bytes: Uint8Array): number {
  let count = 0;
  while (count < 2 && count < bytes.length) {
    const byte = bytes[bytes.length - 1 - count];
    if (byte !== 10 && byte !== 13) break;
    count++;
  }
  return count;
}

/** Whether bytes end inside a UTF-8 character (a lead byte without all of its continuation). */
function endsInside(bytes: Uint8Array): boolean {
  for (let back = 1; back <= 4 && back <= bytes.length; back++) {
    const byte = bytes[bytes.length - back];
    if (byte < 0x80) return false;
    if (byte >= 0xc0) {
      const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2;
      return back < length;
    }
  }
  return false;
}

function codePointsOf(text: string): number {
  return text.length - countMatches(text, HIGH_SURROGATE);
}

function countMatches(text: string, pattern: RegExp): number {
  let count = 0;
  for (const _ of text.matchAll(pattern)) count++;
  return count;
}

function joined(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** Whether bytes hold a U+FFFD of their own (EF BF BD), not only one for invalid bytes. */
function holdsReplacement(bytes: Uint8Array): boolean {
  for (let at = bytes.indexOf(0xef); at !== -1; at = bytes.indexOf(0xef, at + 1)) {
    if (bytes[at + 1] === 0xbf && bytes[at + 2] === 0xbd) return true;
  }
  return false;
}
