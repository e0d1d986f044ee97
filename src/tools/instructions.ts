/**
 * What the server tells a model at `initialize`: the loop that avoids wrong-line edits.
 *
 * @module
 */
import { LINE_RULE } from "./options.ts";

/**
 * The server's instructions.
 *
 * @param readOnly whether the write tools are left out
 * @returns the instructions text
 * @example
 * ```ts
 * import { instructions } from "./instructions.ts";
 * import assert from "node:assert/strict";
 * assert.match(instructions(false), /replace_lines/);
 * ```
 */
export function instructions(readOnly: boolean): string {
  const lines = [
    "linewise: file tools that agree on what a line is.",
    LINE_RULE,
    "Rows look like `<n>\\t<line>`: after the tab is the line verbatim. Context rows in grep are `<n>-\\t<line>`. Lines in [square brackets] are notes (truncation, how to continue), not file content.",
    "The loop: 1) grep to find line numbers; 2) read that range; 3) edit with replace_lines. Results name the file's version ([version 1a2b3c4d]; in grep, path @1a2b3c4d), and edits are checked against the latest one shown: if the file changed since, an edit follows its lines or is refused with the current rows.",
    "Edit results give the new numbers and how later lines moved: edit on without re-reading (several ranges in one replace_lines call all use the numbering from before the call). undo takes an edit back.",
    "Results are bounded: when a result ends with a note like [lines 1-2000 of 5230; continue with start_line=2001], ask for the next range.",
  ];
  if (readOnly) lines.splice(3, 2, "This server is read-only: grep, read, glob and list.");
  return lines.join("\n");
}
