// The line-editing tools: replace, replace_lines and insert_lines. All go through
// FileStore.update, so they share its refusals (binary, invalid UTF-8, size cap, changed on
// disk) and its atomic, serialised write; the numbered ones are checked against the version
// the agent saw (_numbered.ts).
import {
  ExpectedTextMismatchError,
  InputError,
  type LineEdit,
  quotePath,
  type TextEdit,
} from "../../core/mod.ts";
import type { FileStore } from "../../store/file_store.ts";
import { checkArgs } from "../_args.ts";
import { editReport, SHOWN_REGIONS, withVersion } from "./_edit_report.ts";
import type { ComputedEdit } from "./_edit_jobs.ts";
import { computeEdit } from "./_edit_thread.ts";
import { mismatch, type NumberedCall, place } from "./_numbered.ts";
import type { Session } from "../_session.ts";
import { LINE_RULE, type Settings } from "../options.ts";
import type { JsonSchema, ToolDefinition, ToolResult } from "../tool.ts";

/** What every edit tool works with. */
export interface EditContext {
  store: FileStore;
  settings: Settings;
  session: Session;
}

// (The rules every edit keeps, line endings and all, are in the instructions: EDIT_RULES.)

const VERSIONS =
  "Numbers refer to the latest version shown (or version): a changed file is followed or refused with its rows; a file never shown needs expected_text.";

/** {@linkcode VERSIONS} where each request stands alone (MCP 2026-07-28). */
const VERSIONS_ALONE =
  "Numbers refer to version (or expected_text; requests stand alone): a changed file is followed or refused with its rows.";

const AFTER = "Results show the changed lines with their new numbers.";

const path = { type: "string" };
const exact = { type: "boolean", default: false, description: "No line-ending upkeep." };
const dryRun = { type: "boolean", default: false };

const editOutput: JsonSchema = {
  type: "object",
  properties: {
    path: { type: "string" },
    written: { type: "boolean" },
    dry_run: { type: "boolean" },
    regions: {
      type: "array",
      description: "The first 20 changed regions.",
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
    regions_total: { type: "integer", description: "All changed regions, when over 20." },
    line_delta: { type: "integer", description: "How far lines after the last region moved." },
    occurrences: { type: "integer", description: "Occurrences replaced (replace)." },
    version: { type: "string", description: "The file's version after the edit." },
    total_lines: { type: "integer" },
  },
  required: ["path", "written", "regions", "line_delta", "total_lines"],
};

/** The annotations of a tool that changes files and is not idempotent. */
export const EDITING = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: false,
} as const;

/** What an edit computed from the file's current text. */
interface Computed {
  result: ComputedEdit;
  /** Said before the changed regions (an edit carried over to where its lines moved). */
  note?: string;
}

/**
 * Runs an edit through the store and reports it; a written edit becomes the latest version
 * the session showed of the file, and a step undo can take back.
 */
async function edit(
  { store, settings, session }: EditContext,
  file: string,
  dry: boolean,
  compute: (text: string, display: string, bytes: Uint8Array) => Promise<Computed>,
  signal: AbortSignal | undefined,
): Promise<ToolResult> {
  const done = await store.update(file, async (text, display, bytes) => {
    const { result, note } = await compute(text, display, bytes);
    if (result.text === text) {
      throw new InputError(
        "the new text is what the file already holds there, so nothing would change; nothing was written",
      );
    }
    return { text: dry ? undefined : result.text, value: { text, display, result, note } };
  }, { maxBytes: settings.maxEditBytes, signal });
  // Results name files as the store shows them (relative to the first root).
  const report = editReport(
    quotePath(done.display),
    done.text,
    done.result,
    dry,
    settings,
    done.note,
  );
  if (dry) return report;
  const { text: after, version } = done.result;
  return withVersion(report, session.edited(done.display, done.text, after, version));
}

/** The numbered-edit call for one file's current text (`asOf`: the session's mark at its start). */
function numbered(
  context: EditContext,
  text: string,
  display: string,
  { version, guarded, asOf, standalone }: {
    version?: string;
    guarded: boolean;
    asOf: number;
    standalone?: boolean;
  },
): NumberedCall {
  const { session, settings } = context;
  return { session, settings, display, text, version, guarded, asOf, standalone };
}

const version = { type: "string", description: "As results show it; default: the latest." };

/** A numbered edit's arguments where each request stands alone: `version` has no default. */
function standaloneSchema(schema: JsonSchema): JsonSchema {
  const description = "As results show it.";
  const properties = schema.properties as Record<string, unknown>;
  return { ...schema, properties: { ...properties, version: { ...version, description } } };
}

const textEdit = {
  type: "object",
  properties: {
    old_text: { type: "string" },
    new_text: { type: "string" },
    replace_all: { type: "boolean", default: false },
  },
  required: ["old_text", "new_text"],
};

const replaceSchema: JsonSchema = {
  type: "object",
  properties: {
    path,
    old_text: { type: "string" },
    new_text: { type: "string" },
    replace_all: { type: "boolean", default: false },
    edits: { type: "array", items: textEdit, description: "Several at once, instead." },
    dry_run: dryRun,
    exact,
  },
  required: ["path"],
};

interface ReplaceArgs {
  path: string;
  old_text?: string;
  new_text?: string;
  replace_all: boolean;
  edits?: TextEdit[];
  dry_run: boolean;
  exact: boolean;
}

/** The replace tool. */
export function replaceTool(context: EditContext): ToolDefinition {
  return {
    name: "replace",
    title: "Replace text",
    description: [
      "Replaces old_text, which must occur once unless replace_all, with new_text; a line break in it matches \\n or \\r\\n.",
      AFTER,
      LINE_RULE,
    ].join(" "),
    inputSchema: replaceSchema,
    outputSchema: editOutput,
    annotations: EDITING,
    call(args, call) {
      const a = checkArgs<ReplaceArgs>(replaceSchema, args);
      const edits = textEdits(a);
      return edit(
        context,
        a.path,
        a.dry_run,
        async (text, _display, bytes) => ({
          result: await computeEdit(
            { kind: "replace", text, edits, exact: a.exact, keep: SHOWN_REGIONS },
            bytes,
            call?.signal,
          ),
        }),
        call?.signal,
      );
    },
  };
}

/** The replacements of a replace call: its `edits`, or the one its three texts make. */
function textEdits(a: ReplaceArgs): TextEdit[] {
  const single = a.old_text !== undefined || a.new_text !== undefined;
  if (a.edits !== undefined && single) {
    throw new InputError("give either old_text and new_text, or edits, not both");
  }
  if (a.old_text === undefined || a.new_text === undefined) {
    if (a.edits !== undefined) return refuseNoOps(a.edits);
    throw new InputError(
      `missing ${
        a.old_text === undefined ? "old_text" : "new_text"
      }: give old_text and new_text, or edits`,
    );
  }
  return refuseNoOps([{ old_text: a.old_text, new_text: a.new_text, replace_all: a.replace_all }]);
}

function refuseNoOps(edits: TextEdit[]): TextEdit[] {
  edits.forEach((edit, index) => {
    if (edit.old_text === edit.new_text) {
      throw new InputError(
        `${
          edits.length > 1 ? `edits[${index}]: ` : ""
        }new_text is the same as old_text, so nothing would change; nothing was written`,
      );
    }
  });
  return edits;
}

const lineEditSchema: JsonSchema = {
  type: "object",
  properties: {
    start_line: { type: "integer", minimum: 1 },
    end_line: { type: "integer", minimum: 1, description: "Inclusive." },
    new_text: { type: "string", description: '"" deletes.' },
    expected_text: { type: "string", description: "The lines as you saw them." },
  },
  required: ["start_line", "new_text"],
};

const replaceLinesSchema: JsonSchema = {
  type: "object",
  properties: {
    path,
    edits: { type: "array", items: lineEditSchema, description: "Numbered as before the call." },
    version,
    dry_run: dryRun,
    exact,
  },
  required: ["path", "edits"],
};

/** The replace_lines tool. */
export function replaceLinesTool(context: EditContext): ToolDefinition {
  return {
    name: "replace_lines",
    title: "Replace lines",
    description: [
      "Replaces or deletes ranges of lines by number.",
      LINE_RULE,
      VERSIONS,
      AFTER,
    ].join(" "),
    inputSchema: replaceLinesSchema,
    outputSchema: editOutput,
    annotations: EDITING,
    standalone: {
      description: [
        "Replaces or deletes ranges of lines by number.",
        LINE_RULE,
        VERSIONS_ALONE,
        AFTER,
      ].join(" "),
      inputSchema: standaloneSchema(replaceLinesSchema),
    },
    arrived: () => context.session.hold(),
    call(args, call) {
      const a = checkArgs<
        { path: string; edits: LineEdit[]; version?: string; dry_run: boolean; exact: boolean }
      >(replaceLinesSchema, args);
      const targets = a.edits.map((e) => ({
        start: e.start_line,
        end: e.end_line ?? e.start_line,
      }));
      const guarded = a.edits.length > 0 && a.edits.every((e) => e.expected_text !== undefined);
      // (Taken as the request arrived where the server did, else now, before the store's lock
      // is awaited; held until the call ends.)
      const held = call?.arrival ?? context.session.hold();
      return edit(context, a.path, a.dry_run, async (text, display, bytes) => {
        const numberedCall = numbered(context, text, display, {
          version: a.version,
          guarded,
          asOf: held.mark,
          standalone: call?.standalone,
        });
        const placed = place(numberedCall, targets);
        const edits = a.edits.map((e, i) => ({
          ...e,
          start_line: placed.numbers[i],
          end_line: placed.numbers[i] + targets[i].end - targets[i].start,
        }));
        try {
          const job = { kind: "lines", text, edits, exact: a.exact, keep: SHOWN_REGIONS } as const;
          return { result: await computeEdit(job, bytes, call?.signal), note: placed.note };
        } catch (error) {
          if (!(error instanceof ExpectedTextMismatchError)) throw error;
          throw mismatch(
            numberedCall,
            placed.unchanged,
            error.ranges.map((r) => ({
              ...r,
              expected: edits.find((e) => e.start_line === r.start)!.expected_text!,
            })),
          );
        }
      }, call?.signal).finally(held.release);
    },
  };
}

const insertSchema: JsonSchema = {
  type: "object",
  properties: {
    path,
    after_line: { type: "integer", minimum: 0, description: "0: at the top." },
    text: { type: "string" },
    expected_text: { type: "string", description: "Line after_line as you saw it." },
    version,
    dry_run: dryRun,
    exact,
  },
  required: ["path", "after_line", "text"],
};

/** The insert_lines tool. */
export function insertLinesTool(context: EditContext): ToolDefinition {
  return {
    name: "insert_lines",
    title: "Insert lines",
    description: [
      "Inserts text as whole lines after after_line.",
      LINE_RULE,
      "Numbers are checked against the version shown, as in replace_lines.",
      AFTER,
    ].join(" "),
    inputSchema: insertSchema,
    outputSchema: editOutput,
    annotations: { ...EDITING, destructiveHint: false },
    standalone: {
      description: [
        "Inserts text as whole lines after after_line.",
        LINE_RULE,
        "Numbers are checked against version (or expected_text), as in replace_lines.",
        AFTER,
      ].join(" "),
      inputSchema: standaloneSchema(insertSchema),
    },
    arrived: () => context.session.hold(),
    call(args, call) {
      const a = checkArgs<
        {
          path: string;
          after_line: number;
          text: string;
          expected_text?: string;
          version?: string;
          dry_run: boolean;
          exact: boolean;
        }
      >(insertSchema, args);
      const guarded = a.expected_text !== undefined;
      // (Taken as the request arrived where the server did, else now, before the store's lock
      // is awaited; held until the call ends.)
      const held = call?.arrival ?? context.session.hold();
      return edit(context, a.path, a.dry_run, async (text, display, bytes) => {
        const numberedCall = numbered(context, text, display, {
          version: a.version,
          guarded,
          asOf: held.mark,
          standalone: call?.standalone,
        });
        const placed = place(numberedCall, [{ after: a.after_line }]);
        const after = placed.numbers[0];
        try {
          const result = await computeEdit(
            {
              kind: "insert",
              text,
              after,
              insert: a.text,
              exact: a.exact,
              expected: a.expected_text,
              keep: SHOWN_REGIONS,
            },
            bytes,
            call?.signal,
          );
          return { result, note: placed.note };
        } catch (error) {
          if (!(error instanceof ExpectedTextMismatchError)) throw error;
          throw mismatch(numberedCall, placed.unchanged, [
            { start: after, end: after, expected: a.expected_text! },
          ]);
        }
      }, call?.signal).finally(held.release);
    },
  };
}
