/**
 * The scan a stoppable helper (a process or a worker) runs for the main thread: the core
 * scanner with the runtime's own engine, which may take forever on a pattern with
 * lookarounds or backreferences. The helper is killed when the time is up.
 *
 * @module
 */
import { type Matcher, regexMatcher, scanText } from "../core/mod.ts";

/** What the main thread asks of a helper. */
export interface ScanRequest {
  /** Tells the answer to this request from others. */
  id: number;
  /** The pattern's source. */
  source: string;
  /** Match regardless of case. */
  ignoreCase: boolean;
  /** Whole lines to scan. */
  text: string;
  /** Context lines around matches. */
  context: number;
  /** The most matching lines to report. */
  maxMatches: number;
  /** Whether a U+FEFF starting the text is the BOM (see `ScanOptions.bom`). */
  bom?: boolean;
}

/** What a helper answers. */
export interface ScanReply {
  id: number;
  rows?: Array<{ line: number; text: string; match?: { start: number; end: number } }>;
  error?: string;
}

const matchers = new Map<string, Matcher>();

/**
 * Answers one request.
 *
 * @param request the scan asked for
 * @returns the rows, or the error
 */
export function answerScan(request: ScanRequest): ScanReply {
  try {
    const key = `${request.ignoreCase ? "i" : ""}:${request.source}`;
    let matcher = matchers.get(key);
    if (matcher === undefined) {
      matcher = regexMatcher(request.source, { ignoreCase: request.ignoreCase });
      if (matchers.size > 16) matchers.clear();
      matchers.set(key, matcher);
    }
    const rows: NonNullable<ScanReply["rows"]> = [];
    scanText(request.text, matcher, (row) => void rows.push(row), {
      context: request.context,
      maxMatches: request.maxMatches,
      bom: request.bom,
    });
    return { id: request.id, rows };
  } catch (error) {
    return { id: request.id, error: (error as Error).message };
  }
}
