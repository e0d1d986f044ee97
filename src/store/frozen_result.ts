/**
 * Results shared by identical searches are frozen, so that no caller can change what the
 * next one gets.
 *
 * @module
 */
import type { SearchResult } from "./file_store.ts";
import { hasFlatRows } from "./flat_rows.ts";

/**
 * Freezes a result and everything it holds, object by object as the types have them (a
 * generic walk over `Object.values` took twice as long, for results of thousands of rows).
 *
 * @param result the result, frozen in place
 * @returns the same result
 * @example
 * ```ts
 * import { freezeResult } from "./frozen_result.ts";
 * import assert from "node:assert/strict";
 * const result = freezeResult({
 *   files: [{
 *     path: "a.txt",
 *     rows: [{ line: 1, text: "x", match: { start: 0, end: 1 } }],
 *     invalidUtf8: false,
 *   }],
 *   matchedLines: 1,
 *   filesSearched: 1,
 *   binaryFilesSkipped: 0,
 *   filesNotSearched: 0,
 * });
 * assert.ok(Object.isFrozen(result.files[0].rows[0].match));
 * ```
 */
export function freezeResult(result: SearchResult): SearchResult {
  for (const file of result.files) {
    // (Rows still flat are frozen as they are made, if ever.)
    if (hasFlatRows(file)) {
      Object.freeze(file);
      continue;
    }
    for (const row of file.rows) {
      if (row.match !== undefined) Object.freeze(row.match);
      if (row.piece !== undefined) Object.freeze(row.piece);
      Object.freeze(row);
    }
    Object.freeze(file.rows);
    Object.freeze(file);
  }
  Object.freeze(result.files);
  if (result.skipped !== undefined) Object.freeze(result.skipped);
  return Object.freeze(result);
}
