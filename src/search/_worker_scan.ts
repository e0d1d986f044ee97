/**
 * The scan of the files a search worker reads (see `_search_worker.ts`), where they were
 * read: the search thread then takes the rows found instead of scanning the text itself, and
 * the scans of a big search are shared by its threads (before, the search thread scanned
 * every file alone, and the workers waited on it). The rows are those the search's own
 * collector would find, with no cap but the file's own: the search thread takes them as its
 * scan would have (`SearchCollector.takeScanned`), with the match cap, `maxChars` and the
 * order of the files.
 *
 * @module
 */
import type { MatcherRecipe } from "../core/mod.ts";
import { compilePattern } from "../match/safe_matcher.ts";
import type { FileMatches, SearchQuery } from "../store/file_store.ts";
import { SearchCollector } from "../store/_search_collector.ts";
import type { Examined } from "./_search_file.ts";

/** What a worker needs to scan a search's files (plain data: it crosses threads). */
export interface WorkerScan {
  /** The matcher's recipe, compiled again by the worker. */
  recipe: MatcherRecipe;
  context: number;
  /**
   * The matching lines a file may give: its own limit, and at most one more than the
   * search's cap (the search stops at that one, which tells it that more exist).
   */
  maxMatchesPerFile: number | undefined;
  countOnly: boolean;
  deadline: number | undefined;
}

/**
 * The scan a search's workers may do: for a matcher with a recipe that is not stopped by a
 * helper (a stoppable pattern's scan is left where it can be stopped).
 *
 * @param query the search
 * @returns the scan, or undefined
 */
export function workerScanOf(query: SearchQuery): WorkerScan | undefined {
  const { matcher, maxMatches = 200, maxMatchesPerFile = Infinity } = query;
  if (matcher.recipe === undefined || matcher.stoppable !== undefined) return undefined;
  const most = Math.min(maxMatchesPerFile, maxMatches + 1);
  return {
    recipe: matcher.recipe,
    context: query.context ?? 0,
    maxMatchesPerFile: most === Infinity ? undefined : most,
    countOnly: query.countOnly === true,
    deadline: query.deadline,
  };
}

/**
 * A worker's scanner of one search's files.
 *
 * @param scan what to scan with
 * @returns a function that turns a file's text into the rows found in it (`scanned`), its
 *   count (`counted`, counting only) or `none` (held the needle but matched nowhere); other
 *   outcomes, and a text the deadline cut, are given back as they were
 */
export function workerScanner(scan: WorkerScan): (examined: Examined) => Promise<Examined> {
  const { matcher } = compilePattern(scan.recipe.pattern, scan.recipe);
  return async (examined) => {
    if (examined.kind !== "text") return examined;
    const { text, invalid, linesBefore, linked, sha1, identity } = examined;
    // (Counting only, a file with a digest keeps it: the search thread scans that one.)
    if (scan.countOnly && (sha1 !== undefined || identity !== undefined)) return examined;
    let found: FileMatches | undefined;
    const collector = new SearchCollector({
      matcher,
      context: scan.context,
      maxMatches: Infinity,
      maxMatchesPerFile: scan.maxMatchesPerFile,
      countOnly: scan.countOnly,
      deadline: scan.deadline,
      onFile: (file) => void (found = file),
    });
    const chunks = typeof text === "string" ? [text] : text;
    await collector.scanFile("", chunks, () => invalid, linesBefore);
    // (Only the deadline stops it: the search thread finds it passed, and says so.)
    if (collector.done) return examined;
    const other = linked === undefined ? {} : { linked };
    if (found === undefined) return { kind: "none", holdsNeedle: true, ...other };
    if (found.matchedLines !== undefined) {
      return { kind: "counted", lines: found.matchedLines, invalid, ...other };
    }
    const version = { ...sha1 === undefined ? {} : { sha1 }, ...identity ? { identity } : {} };
    return { kind: "scanned", rows: found.rows, invalid, ...other, ...version };
  };
}
