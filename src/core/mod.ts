/**
 * The linewise core: pure functions over strings, with no dependencies and no runtime APIs.
 * One line rule ({@linkcode splitLines}), numbered and bounded rows, a scanner, and edits.
 *
 * @example
 * ```ts
 * import { formatRows, sliceLines } from "@linewise/linewise/core";
 * import assert from "node:assert/strict";
 * const { lines, start } = sliceLines("a\r\nb\r\nc", 2, 3);
 * const rows = lines.map((text, i) => ({ line: start + i, text }));
 * assert.equal(formatRows(rows).text, "2\tb\r\n3\tc");
 * ```
 *
 * @module
 */
export * from "./split_lines.ts";
export * from "./bom.ts";
export * from "./columns.ts";
export * from "./slice_lines.ts";
export * from "./line_budget.ts";
export * from "./line_index.ts";
export * from "./format_rows.ts";
export * from "./matcher.ts";
export * from "./scan_text.ts";
export * from "./edit_result.ts";
export * from "./replace_lines.ts";
export * from "./insert_lines.ts";
export * from "./replace_text.ts";
export * from "./file_names.ts";
export * from "./input_errors.ts";
