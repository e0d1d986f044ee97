// The line-editing tools: replace, replace_lines and insert_lines. All go through
// FileStore.update, so they share its refusals (binary, invalid UTF-8, size cap, changed on
// disk) and its atomic, serialised write.
import {
  type EditResult,
  insertLines,
  type LineEdit,
  quotePath,
  replaceLines,
  replaceText,
} from "../core/mod.ts";
import type { FileStore } from "../store/file_store.ts";
import { checkArgs } from "./_args.ts";
import { editReport } from "./_edit_report.ts";
import { LINE_RULE, type Settings } from "./options.ts";
import type { JsonSchema, ToolDefinition, ToolResult } from "./tool.ts";

const EDIT_RULES =
  "Line breaks in new text take the file's line-ending style (CRLF stays CRLF), new text never joins the line after it, the final newline (or its absence) and a BOM are kept, and the write is atomic. exact=true writes the text byte for byte (it still never joins two lines).";

const AFTER =
  "The result shows the changed lines with their new numbers and how later line numbers moved, so you can keep editing without re-reading.";

const path = { type: "string", description: "File to edit." };
const exact = {
  type: "boolean",
  default: false,
  description: "Write new text byte for byte: no line-ending conversion or final-newline upkeep.",
};
const dryRun = {
  type: "boolean",
  default: false,
  description: "Show a unified diff of the change and write nothing.",
};

const editOutput: JsonSchema = {
  type: "object",
  properties: {
    path: { type: "string" },
    written: { type: "boolean" },
    dry_run: { type: "boolean" },
    regions: {
      type: "array",
      items: {
        type: "object",
        properties: {
          old_start: { type: "integer" },
          old_end: { type: "integer" },
          new_start: { type: "integer" },
          new_end: { type: "integer" },
        },
        required: ["old_start", "old_end", "new_start", "new_end"],
      },
    },
    line_delta: { type: "integer", description: "How far lines after the last region moved." },
    total_lines: { type: "integer" },
  },
  required: ["path", "written", "regions", "line_delta", "total_lines"],
};

const annotations = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: false,
} as const;

/** Runs an edit through the store and reports it. */
async function edit(
  store: FileStore,
  settings: Settings,
  file: string,
  dry: boolean,
  compute: (text: string) => EditResult,
  signal: AbortSignal | undefined,
): Promise<ToolResult> {
  // Results name files as the store shows them (relative to the first root).
  return await store.update(file, (text, display) => {
    const result = compute(text);
    const report = editReport(quotePath(display), text, result, dry, settings);
    return { text: dry ? undefined : result.text, value: report };
  }, { maxBytes: settings.maxEditBytes, signal });
}

const replaceSchema: JsonSchema = {
  type: "object",
  properties: {
    path,
    old_text: {
      type: "string",
      description: "Text to find; must occur exactly once unless replace_all.",
    },
    new_text: { type: "string", description: 'Replacement; "" deletes old_text.' },
    replace_all: { type: "boolean", default: false, description: "Replace every occurrence." },
    exact,
  },
  required: ["path", "old_text", "new_text"],
  additionalProperties: false,
};

/** The replace tool. */
export function replaceTool(store: FileStore, settings: Settings): ToolDefinition {
  return {
    name: "replace",
    title: "Replace text",
    description: [
      "Replaces old_text with new_text in a file. old_text must occur exactly once unless replace_all; when it occurs several times the error names the line of each occurrence, and when it is missing the error says so (re-read the file, or use replace_lines).",
      "A line break in old_text matches either \\n or \\r\\n.",
      EDIT_RULES,
      AFTER,
      LINE_RULE,
    ].join(" "),
    inputSchema: replaceSchema,
    outputSchema: editOutput,
    annotations,
    call(args, context) {
      const a = checkArgs<
        { path: string; old_text: string; new_text: string; replace_all: boolean; exact: boolean }
      >(replaceSchema, args);
      return edit(
        store,
        settings,
        a.path,
        false,
        (text) =>
          replaceText(text, a.old_text, a.new_text, { replaceAll: a.replace_all, exact: a.exact }),
        context?.signal,
      );
    },
  };
}

const lineEditSchema: JsonSchema = {
  type: "object",
  properties: {
    start_line: { type: "integer", minimum: 1, description: "First line to replace." },
    end_line: {
      type: "integer",
      minimum: 1,
      description: "Last line, inclusive; default start_line.",
    },
    new_text: { type: "string", description: 'The new lines; "" deletes the range.' },
    expected_text: {
      type: "string",
      description:
        "The range's current text as you read it (compared line by line, terminators ignored); the whole call is refused if any range no longer says that.",
    },
  },
  required: ["start_line", "new_text"],
  additionalProperties: false,
};

const replaceLinesSchema: JsonSchema = {
  type: "object",
  properties: {
    path,
    edits: {
      type: "array",
      items: lineEditSchema,
      description: "Ranges to replace, numbered as the file is now.",
    },
    dry_run: dryRun,
    exact,
  },
  required: ["path", "edits"],
  additionalProperties: false,
};

/** The replace_lines tool. */
export function replaceLinesTool(store: FileStore, settings: Settings): ToolDefinition {
  return {
    name: "replace_lines",
    title: "Replace lines",
    description: [
      'Replaces or deletes ranges of lines by number: edits is a list of {start_line, end_line, new_text, expected_text}. All numbers refer to the file as it is before this call; ranges must not overlap or fall outside the file. new_text "" deletes the lines.',
      LINE_RULE,
      "Always pass expected_text (the lines as read shows them, without the numbers): if the file changed, the whole call is refused and nothing is written, so you never overwrite a line you did not see.",
      EDIT_RULES,
      AFTER,
    ].join(" "),
    inputSchema: replaceLinesSchema,
    outputSchema: editOutput,
    annotations,
    call(args, context) {
      const a = checkArgs<{ path: string; edits: LineEdit[]; dry_run: boolean; exact: boolean }>(
        replaceLinesSchema,
        args,
      );
      return edit(
        store,
        settings,
        a.path,
        a.dry_run,
        (text) => replaceLines(text, a.edits, { exact: a.exact }),
        context?.signal,
      );
    },
  };
}

const insertSchema: JsonSchema = {
  type: "object",
  properties: {
    path,
    after_line: {
      type: "integer",
      minimum: 0,
      description: "Insert after this line: 0 inserts before line 1, the line count appends.",
    },
    text: { type: "string", description: "The lines to insert." },
    dry_run: dryRun,
    exact,
  },
  required: ["path", "after_line", "text"],
  additionalProperties: false,
};

/** The insert_lines tool. */
export function insertLinesTool(store: FileStore, settings: Settings): ToolDefinition {
  return {
    name: "insert_lines",
    title: "Insert lines",
    description: [
      "Inserts text as whole lines after after_line (0: before line 1; the line count: at the end). Existing lines are never changed, only moved down.",
      LINE_RULE,
      EDIT_RULES,
      AFTER,
    ].join(" "),
    inputSchema: insertSchema,
    outputSchema: editOutput,
    annotations: { ...annotations, destructiveHint: false },
    call(args, context) {
      const a = checkArgs<
        { path: string; after_line: number; text: string; dry_run: boolean; exact: boolean }
      >(
        insertSchema,
        args,
      );
      return edit(
        store,
        settings,
        a.path,
        a.dry_run,
        (text) => insertLines(text, a.after_line, a.text, { exact: a.exact }),
        context?.signal,
      );
    },
  };
}
