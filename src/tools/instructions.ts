/**
 * What the server tells a model at `initialize`: the loop that avoids wrong-line edits.
 *
 * @module
 */
import { EDIT_RULES, LINE_RULE } from "./options.ts";

/**
 * The server's instructions.
 *
 * @param readOnly whether the write tools are left out
 * @param standalone whether each request stands alone (MCP 2026-07-28): edits then name the
 *   version they refer to, as no earlier call's is implied
 * @returns the instructions text
 * @example
 * ```ts
 * import { instructions } from "./instructions.ts";
 * import assert from "node:assert/strict";
 * assert.match(instructions(false), /replace_lines/);
 * ```
 */
export function instructions(readOnly: boolean, standalone = false): string {
  const checked = standalone
    ? "pass it to numbered edits (each request stands alone)"
    : "edits are checked against the latest one shown";
  const lines = [
    `linewise file tools. ${LINE_RULE}`,
    "Rows are `<n>\\t<line>` (grep context `<n>-\\t<line>`), the line verbatim after the tab; [bracketed] lines are notes.",
    `Loop: grep for line numbers, read the range, edit with replace_lines. Results name the file's version ([version 1a2b3c4d]; grep: path @1a2b3c4d); ${checked}: a changed file is followed or refused with its rows. Edit results give the new numbers${
      standalone ? " and version" : ""
    }: edit on without re-reading.`,
    EDIT_RULES,
  ];
  if (readOnly) lines.splice(2, 2, "This server is read-only: grep, read, glob and list.");
  return lines.join("\n");
}
