/**
 * The scanner: finds matching lines in a whole text and numbers them by the line rule,
 * without splitting the text into an array of lines. Candidates come from the matcher's
 * whole-text fast path when it has one; line numbers are counted only up to each
 * candidate.
 *
 * @module
 */
import { BOM } from "./bom.ts";
import type { LinePiece } from "./format_rows.ts";
import type { Matcher, MatchSpan } from "./matcher.ts";
import { countLineBreaks, lineSpanAt } from "./split_lines.ts";

/** A line the scanner reports: a match, or context around one. */
export interface ScanRow {
  /** Line number, 1-based. */
  line: number;
  /** The line verbatim, terminator included (never the BOM). */
  text: string;
  /** Where the line's text matched, in UTF-16 offsets; absent for context rows. */
  match?: MatchSpan;
  /** Set when `text` holds only part of a line too long to hold (see `Row.piece`). */
  piece?: LinePiece;
}

/** Options of {@linkcode scanText}. */
export interface ScanOptions {
  /**
   * Context lines before and after each matching line.
   * @default 0
   */
  context?: number;
  /**
   * Report at most this many matching lines; the scan then only looks for whether one
   * more exists (`more`), still reporting the last match's after-context.
   * @default Infinity
   */
  maxMatches?: number;
  /**
   * Stop (with `timedOut`) once `Date.now()` passes this, checked every few lines looked
   * at: a slow pattern on a large text must not outlive a search's time budget.
   * @default Infinity
   */
  deadline?: number;
  /**
   * Whether a U+FEFF starting the text is the file's BOM, no part of line 1 (false for a text
   * that starts later in its file: a line of it may start with U+FEFF).
   * @default true
   */
  bom?: boolean;
}

/** How a scan ended. */
export interface ScanSummary {
  /** Matching lines reported. */
  matchedLines: number;
  /** True when another matching line exists after `maxMatches` were reported. */
  more: boolean;
  /** True when the scan stopped at the deadline, before the end of the text. */
  timedOut?: boolean;
  /** True when the sink returned false. */
  stopped: boolean;
}

/**
 * Scans a text for matching lines, reporting rows in line order to `sink`. Context rows
 * are reported once even where groups overlap. A leading BOM is not part of line 1.
 *
 * @param text the whole text
 * @param matcher what to look for
 * @param sink receives each row; return false to stop the scan at once
 * @param options context and match cap
 * @returns counts, and whether the scan was cut short
 * @example
 * ```ts
 * import { scanText } from "./scan_text.ts";
 * import { literalMatcher } from "./matcher.ts";
 * import assert from "node:assert/strict";
 * const rows: number[] = [];
 * scanText("a\nb\r\nab\n", literalMatcher("b"), (row) => { rows.push(row.line); });
 * assert.deepEqual(rows, [2, 3]);
 * ```
 */
export function scanText(
  text: string,
  matcher: Matcher,
  sink: (row: ScanRow) => boolean | void,
  options: ScanOptions = {},
): ScanSummary {
  const context = options.context ?? 0;
  const maxMatches = options.maxMatches ?? Infinity;
  const deadline = options.deadline ?? Infinity;
  const base = options.bom !== false && text.startsWith(BOM) ? 1 : 0;
  let looked = 0;
  let line = 1;
  let start = base;
  let matchedLines = 0;
  let emittedUpTo = 0;
  let contextUntil = 0;
  const emit = (row: ScanRow): boolean => {
    emittedUpTo = row.line;
    return sink(row) !== false;
  };
  const summary = (more: boolean, stopped: boolean) => ({ matchedLines, more, stopped });

  while (start < text.length) {
    // (The clock is read every 8 lines looked at: a cost only where lines cost little.)
    if ((++looked & 7) === 0 && Date.now() >= deadline) {
      return { matchedLines, more: false, stopped: false, timedOut: true };
    }
    // After a BOM, line 1 starts at offset 1, where a whole-text `^` (flag m) does not match;
    // so line 1 of such a text is checked directly, not through the fast path.
    let candidate = matcher.findCandidate && !(start === base && base > 0)
      ? matcher.findCandidate(text, start)
      : start;
    if (candidate === -1) candidate = text.length;
    // A zero-length match at the very end (`$`) lies in an unterminated last line; after a
    // final "\n" it would be a line that does not exist.
    else if (candidate === text.length && text.charCodeAt(text.length - 1) !== LF) candidate--;
    // After-context of the last match may lie between here and the next candidate.
    while (line <= contextUntil && start < text.length) {
      const span = lineSpanAt(text, start);
      if (candidate < span.next) break;
      if (!emit({ line, text: text.slice(start, span.next) })) return summary(false, true);
      line++;
      start = span.next;
    }
    if (candidate >= text.length) break;
    if (candidate > start) {
      line += countLineBreaks(text, start, candidate);
      start = Math.max(start, text.lastIndexOf("\n", candidate - 1) + 1);
    }
    const span = lineSpanAt(text, start);
    const match = matcher.matchLine(text.slice(start, span.end));
    if (match) {
      if (matchedLines >= maxMatches) return summary(true, false);
      for (
        const row of linesBefore(text, base, start, line, Math.min(context, line - 1 - emittedUpTo))
      ) {
        if (!emit(row)) return summary(false, true);
      }
      matchedLines++;
      if (!emit({ line, text: text.slice(start, span.next), match })) return summary(false, true);
      contextUntil = line + context;
    } else if (line <= contextUntil) {
      if (!emit({ line, text: text.slice(start, span.next) })) return summary(false, true);
    }
    line++;
    start = span.next;
  }
  return summary(false, false);
}

const LF = 10;

/** The `count` lines before the line that starts at `start` (numbered `line`), in order. */
function linesBefore(
  text: string,
  base: number,
  start: number,
  line: number,
  count: number,
): ScanRow[] {
  const rows: ScanRow[] = [];
  let end = start;
  for (let n = 1; n <= count; n++) {
    // lastIndexOf reads a negative position as 0, which would find a "\n" at offset 0 that
    // ends the line rather than precedes it.
    const from = end < 2 ? base : Math.max(base, text.lastIndexOf("\n", end - 2) + 1);
    rows.push({ line: line - n, text: text.slice(from, end) });
    end = from;
  }
  return rows.reverse();
}
