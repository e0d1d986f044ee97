/**
 * The directory store's range reads: lines of a file of any size, reading only up to the
 * last line returned (plus the rest of a file no larger than `countLinesUpTo`, to count
 * it). Lines are found by counting `\n` bytes and only the lines returned are decoded.
 * Where lines start is remembered in a sparse index per file version (device, inode, size,
 * mtime), so a second read deep in the same unchanged file starts from the nearest
 * checkpoint; a changed file is counted anew.
 *
 * @module
 */
import { splitLines, utf8BomLength } from "../core/mod.ts";
import type { FileStat } from "../io/file_stat.ts";
import type { FileSystem } from "../io/file_system.ts";
import { LineBudget } from "../store/_line_budget.ts";
import type { LineIndexCache } from "./_line_index.ts";
import { LineReader } from "./_line_reader.ts";
import { passLongLine } from "./_long_line.ts";
import { openForRead, readHead } from "./_open_file.ts";
import { BINARY_PROBE_BYTES, decodeUtf8, isBinary } from "../store/_text.ts";
import { BinaryFileError } from "../store/errors.ts";
import type { LineRange, LineRangeOptions } from "../store/file_store.ts";
import type { WalkNode } from "../store/walk.ts";

/**
 * Lines longer than this (in bytes) are never held whole: a read keeps the part it shows.
 * Shorter ones are returned verbatim, and cut only when shown.
 */
export const LONG_LINE_BYTES = 4 * 1024 * 1024;

/** What a range read needs besides the file and the range. */
export interface ReadLinesContext {
  /** Where the file is. */
  files: FileSystem;
  /** Refuses the file as opened, when it must not be read (another name of a denied file). */
  check?: (stat: FileStat) => Promise<void>;
  /** The caller's path, for errors. */
  path: string;
  /** The store's line-start index. */
  lineIndex: LineIndexCache;
  /** Files up to this size are counted to the end when the range stops before it. */
  countLinesUpTo: number;
}

/**
 * Reads a range of lines (the options checked by the caller).
 *
 * @param node the resolved file
 * @param options the range and budget
 * @param context the caller's path, the line index and the counting limit
 * @returns the lines
 */
export async function readLineRange(
  node: WalkNode,
  options: LineRangeOptions,
  { files, check, path, lineIndex, countLinesUpTo }: ReadLinesContext,
): Promise<LineRange> {
  const { handle, stat } = await openForRead(files, node);
  try {
    await check?.(stat);
    const size = stat.size;
    const head = await readHead(handle, Math.min(size, BINARY_PROBE_BYTES));
    if (isBinary(head)) throw new BinaryFileError(path, size);
    const bom = utf8BomLength(head);
    const result: LineRange = {
      path: node.display,
      lines: [],
      start: options.start,
      more: false,
      invalidUtf8: false,
    };
    const seek = await lineIndex.seekLine(handle, node.key, stat, bom, options.start);
    if (!seek.found) {
      result.total = seek.lines;
      return result;
    }
    const reader = new LineReader(handle, seek.offset);
    const budget = new LineBudget(options);
    const wantedLines = Math.min(
      options.maxLines,
      options.end === undefined ? Infinity : options.end - options.start + 1,
    );
    let number = options.start - 1;
    let moreExist = false;
    for (;;) {
      const next = await reader.next(LONG_LINE_BYTES);
      if (next === null) break;
      if ("long" in next) {
        // A line too long to hold: only the part shown is kept, the rest is counted.
        const line = await passLongLine(next.long, {
          from: options.column ?? 1,
          keep: options.cut + 1,
        });
        if (line.invalid) result.invalidUtf8 = true;
        (result.pieces ??= []).push({
          index: result.lines.length,
          from: line.from,
          codePoints: line.codePoints,
          terminator: line.terminator,
        });
        result.lines.push(line.piece + line.terminator);
        if (budget.take(line.piece, ++number)) {
          moreExist = !(await reader.atEnd());
          break;
        }
        continue;
      }
      const run = next.run;
      // Only the lines that can be returned are decoded, never the whole run.
      const cut = afterNthLine(run, wantedLines - result.lines.length);
      const { text, invalid } = decodeUtf8(run.subarray(0, cut));
      if (invalid) result.invalidUtf8 = true;
      const lines = splitLines(text);
      let stopped = false;
      for (let i = 0; i < lines.length; i++) {
        result.lines.push(lines[i]);
        if (budget.take(lines[i], ++number)) {
          moreExist = i < lines.length - 1 || cut < run.length || !(await reader.atEnd());
          stopped = true;
          break;
        }
      }
      if (stopped) break;
    }
    result.more = moreExist && (options.end === undefined || number < options.end);
    if (!moreExist) result.total = number;
    else {
      result.total = lineIndex.knownLineCount(node.key, stat) ??
        (size <= countLinesUpTo
          ? await lineIndex.lineCount(handle, node.key, stat, bom)
          : undefined);
    }
    if (result.total === undefined) delete result.total;
    return result;
  } finally {
    await handle.close();
  }
}

/** The offset just past the `count`-th `\n` of a run of whole lines (the run's length if fewer). */
function afterNthLine(run: Uint8Array, count: number): number {
  if (count >= run.length) return run.length;
  let at = -1;
  for (let i = 0; i < count; i++) {
    at = run.indexOf(10, at + 1);
    if (at === -1) return run.length;
  }
  return at + 1;
}
