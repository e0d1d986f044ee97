/**
 * A search of one stream of text as a file (the command line's standard input): its runs of
 * whole lines are decoded and scanned as they come, with the rules of a file's search (the
 * line rule across the runs' seams, context, the caps, the deadline, the signal), and the rows
 * found handed on run by run (`onRows`), so that a stream that does not end soon shows them.
 *
 * @module
 */
import { Buffer, isUtf8 } from "node:buffer";
import { checkQuery, SearchCollector } from "./_search_collector.ts";
import { decodeUtf8, lineEndFrom, literalBytes } from "./_text.ts";
import { utf8BomLength } from "../core/mod.ts";
import type { SearchQuery, SearchResult } from "./file_store.ts";

/** The stream {@linkcode searchStream} searches. */
export interface TextStream {
  /** The name its rows are shown under. */
  path: string;
  /** Its bytes as runs of whole lines (each but the last ends with `\n`; the first may start with the BOM). */
  runs: AsyncIterable<Uint8Array>;
}

/**
 * Searches a stream as one file. With the query's `onRows` (and `onFile`), the rows each run
 * brings are given to it as soon as the run is scanned. The stream is read no further once
 * the search stops (the caps, `-q`'s first match).
 *
 * @param query the search (its `path` and `glob` are not used: the stream is the file)
 * @param stream the stream
 * @returns the matches and counts, as a search of one file gives them
 * @example
 * ```ts
 * import { searchStream } from "./search_stream.ts";
 * import { literalMatcher } from "../core/mod.ts";
 * import assert from "node:assert/strict";
 * async function* runs() {
 *   yield new TextEncoder().encode("one\ntwo\n");
 *   yield new TextEncoder().encode("three two\n");
 * }
 * const seen: number[][] = [];
 * const result = await searchStream({
 *   matcher: literalMatcher("two"),
 *   onFile: () => {},
 *   onRows: (_path, rows) => seen.push(rows.map((row) => row.line)),
 * }, { path: "<stdin>", runs: runs() });
 * assert.deepEqual(seen, [[2], [3]]);
 * assert.equal(result.matchedLines, 2);
 * ```
 */
export async function searchStream(query: SearchQuery, stream: TextStream): Promise<SearchResult> {
  checkQuery(query);
  query.signal?.throwIfAborted();
  const collector = new SearchCollector(query, 1);
  let invalid = false;
  // (Counting the lines that hold a literal that is the whole of every match: in the bytes.)
  const literal = countedLiteral(query);
  if (literal !== undefined) {
    const atMost = query.maxMatchesPerFile ?? Infinity;
    let lines = 0;
    for await (const run of stream.runs) {
      if (!collector.proceed()) break;
      if (!isUtf8(run)) invalid = true;
      lines += linesHolding(run, literal, atMost - lines);
      if (lines >= atMost) break;
    }
    collector.countedFile(stream.path, lines, invalid);
    return collector.result();
  }

  async function* texts(): AsyncGenerator<string> {
    for await (const run of stream.runs) {
      const decoded = decodeUtf8(run);
      if (decoded.invalid) invalid = true;
      yield decoded.text;
    }
  }
  await collector.scanFile(stream.path, texts(), () => invalid);
  return collector.result();
}

/**
 * The bytes of the literal whose lines a search that counts only may count without decoding
 * them: one that is the whole of every match (`Matcher.exactLiteral`), unless it stands for
 * invalid bytes (U+FFFD) or starts as the BOM does (which is no part of line 1).
 */
function countedLiteral({ countOnly, matcher }: SearchQuery): Uint8Array | undefined {
  if (countOnly !== true || matcher.stoppable !== undefined) return undefined;
  const bytes = literalBytes(matcher.exactLiteral);
  return bytes !== undefined && utf8BomLength(bytes) === 0 ? bytes : undefined;
}

/** How many lines of a run of whole lines hold the literal (none holds a line break), up to `atMost`. */
function linesHolding(run: Uint8Array, literal: Uint8Array, atMost: number): number {
  const bytes = Buffer.from(run.buffer, run.byteOffset, run.length);
  let lines = 0;
  for (let at = bytes.indexOf(literal); at !== -1 && lines < atMost;) {
    lines++;
    const end = lineEndFrom(bytes, at + literal.length);
    if (end === -1) break;
    at = bytes.indexOf(literal, end + 1);
  }
  return lines;
}
