/**
 * linewise: file tools for AI agents that agree on what a line is. Numbered, bounded reads;
 * grep that reports the same numbers; edits that refuse to touch a line that is not what
 * the agent saw.
 *
 * @example
 * ```ts
 * import { replaceLines, sliceLines } from "@linewise/linewise";
 * import assert from "node:assert/strict";
 * const text = "one\r\ntwo\r\nthree\r\n";
 * assert.deepEqual(sliceLines(text, 2, 2).lines, ["two\r\n"]);
 * const edited = replaceLines(text, [{ start_line: 2, new_text: "2", expected_text: "two" }]);
 * assert.equal(edited.text, "one\r\n2\r\nthree\r\n");
 * ```
 *
 * @module
 */
export * from "./src/core/mod.ts";
export * from "./src/store/mod.ts";
export * from "./src/disk/mod.ts";
export type * from "./src/io/mod.ts";
export * from "./src/tools/mod.ts";
export * from "./src/mcp/mod.ts";
