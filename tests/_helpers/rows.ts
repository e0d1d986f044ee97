// What grep shows of a search's rows, for tests that compare a search that windows long lines
// from their bytes with one that decodes them whole.
import { formatRow } from "../../src/core/mod.ts";
import { windowRow } from "../../src/core/format_rows.ts";
import type { SearchResult } from "../../src/store/file_store.ts";

/** What grep shows of a result's rows with `cut`: each row formatted, and its match. */
export function shownRows(result: SearchResult, cut: number) {
  return result.files.map((file) => ({
    path: file.path,
    invalid: file.invalidUtf8,
    rows: file.rows.map((row) => {
      const windowed = windowRow(row, cut);
      return { line: row.line, text: formatRow(row, { cut }).text, match: windowed.match };
    }),
  }));
}
