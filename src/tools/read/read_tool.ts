// The read tool: numbered, bounded rows of one file.
import {
  appendNote,
  checkLineRange,
  codePointCount,
  formatRows,
  LineRangeError,
  lineText,
  quotePath,
  takeLines,
} from "../../core/mod.ts";
import type { FileStore, LineRange, LineRangeOptions } from "../../store/file_store.ts";
import { checkArgs } from "../_args.ts";
import { ok, rowChars } from "../_results.ts";
import type { Session } from "../_session.ts";
import { recordShown, type Snapshot, snapshot } from "./_shown.ts";
import { ArgumentError } from "../_args.ts";
import { LINE_RULE, NOTE_ROOM, type Settings } from "../options.ts";
import type { ToolDefinition, ToolResult } from "../tool.ts";

interface ReadArgs {
  path: string;
  start_line: number;
  end_line?: number;
  column?: number;
  ranges?: Array<{ start_line: number; end_line?: number }>;
}

const inputSchema = {
  type: "object" as const,
  properties: {
    path: { type: "string" },
    start_line: { type: "integer", minimum: 1, default: 1 },
    end_line: { type: "integer", minimum: 1, description: "Inclusive." },
    column: { type: "integer", minimum: 1, description: "Code-point column of one long line." },
    ranges: {
      type: "array",
      items: {
        type: "object",
        properties: { start_line: { type: "integer" }, end_line: { type: "integer" } },
        required: ["start_line"],
      },
    },
  },
  required: ["path"],
};

const outputSchema = {
  type: "object" as const,
  properties: {
    path: { type: "string" },
    start_line: { type: "integer" },
    end_line: { type: "integer", description: "Last line shown." },
    total_lines: { type: "integer", description: "Line count, when known." },
    truncated: { type: "boolean" },
    next_start_line: { type: "integer", description: "Where to continue when truncated." },
    cut_lines: { type: "array", items: { type: "integer" } },
    invalid_utf8: { type: "boolean" },
    version: { type: "string", description: "The file's version (edits may refer to it)." },
    ranges: {
      type: "array",
      description: "With ranges: each range shown (the fields above are the first's).",
      items: {
        type: "object",
        properties: {
          start_line: { type: "integer" },
          end_line: { type: "integer" },
          truncated: { type: "boolean" },
          next_start_line: { type: "integer" },
        },
      },
    },
  },
  required: ["path", "start_line", "end_line", "truncated"],
};

// Arguments are checked without the minimum of 1 on the line numbers: read answers a line
// number below 1 itself, with the file's line count, as it answers one past the end.
const argsSchema = {
  ...inputSchema,
  properties: {
    ...inputSchema.properties,
    start_line: { type: "integer", default: 1 },
    end_line: { type: "integer" },
  },
};

/** The read tool. */
export function readTool(store: FileStore, settings: Settings, session: Session): ToolDefinition {
  return {
    name: "read",
    title: "Read lines",
    description: [
      "Reads a text file as rows `<n>\\t<line>`, the line verbatim after the tab.",
      LINE_RULE,
      `Stops at ${settings.maxLines} rows or ${settings.maxChars} characters, saying how to go on; lines over ${settings.cut} code points are cut (column shows the rest).`,
    ].join(" "),
    inputSchema,
    outputSchema,
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    call(args) {
      const checked = checkArgs<ReadArgs>(argsSchema, args);
      return checked.ranges === undefined
        ? read(store, settings, session, checked)
        : readRanges(store, settings, session, checked, args as Record<string, unknown>);
    },
  };
}

/**
 * Several ranges of one file in one result, all from one version of it: each rendered as a
 * read of it alone, the ones after the first headed by a note, within one output budget.
 */
async function readRanges(
  store: FileStore,
  settings: Settings,
  session: Session,
  args: ReadArgs,
  given: Record<string, unknown>,
): Promise<ToolResult> {
  const alone = ["start_line", "end_line", "column"].filter((name) => given[name] !== undefined);
  if (alone.length > 0) {
    throw new ArgumentError(`give either ranges or ${alone.join(" and ")}, not both`);
  }
  const shot = (await snapshot(store, session, settings, args.path)) ?? null;
  const ranges = args.ranges!;
  let text = "";
  let rowsLeft = settings.maxLines;
  let charsLeft = settings.maxChars;
  const parts: Record<string, unknown>[] = [];
  let stopped = false; // (before a range: the budget left none)
  for (const [i, range] of ranges.entries()) {
    const left = { ...settings, maxLines: rowsLeft, maxChars: charsLeft };
    if (rowsLeft < 1 || rowChars(left) < 1 || charsLeft <= NOTE_ROOM) {
      stopped = true;
      text = appendNote(
        text,
        `output budget reached: ranges from lines ${range.start_line}-${
          range.end_line ?? "end"
        } on are not shown; read them next`,
      );
      break;
    }
    const one = { path: args.path, start_line: range.start_line, end_line: range.end_line };
    const result = await read(store, left, session, one, shot);
    const part = result.structuredContent!;
    const body = result.content[0].text.replace(/^\[version [0-9a-f]{8}\]\n/, "");
    const shown = `lines ${part.start_line}-${part.end_line}`;
    const piece = i === 0 ? body : appendNote("", shown) + body;
    text += i > 0 && !text.endsWith("\n") ? "\n" + piece : piece;
    rowsLeft -= Math.max(0, (part.end_line as number) - (part.start_line as number) + 1);
    charsLeft -= piece.length;
    parts.push(part);
  }
  const first = parts[0];
  const version = first.version as string | undefined;
  return ok(version === undefined ? text : `[version ${version}]\n${text}`, {
    ...first,
    // (Cut anywhere, the whole is: a range cut short, or ranges not shown.)
    truncated: stopped || parts.some((p) => p.truncated === true),
    ranges: parts.map((p) => ({
      start_line: p.start_line,
      end_line: p.end_line,
      truncated: p.truncated,
      ...(p.next_start_line === undefined ? {} : { next_start_line: p.next_start_line }),
    })),
  });
}

async function read(
  store: FileStore,
  settings: Settings,
  session: Session,
  args: ReadArgs,
  shot?: Snapshot | null,
): Promise<ToolResult> {
  const { path, start_line: start, column } = args;
  if (column !== undefined && args.end_line !== undefined && args.end_line !== start) {
    throw new LineRangeError(
      `column reads one line: give end_line=${start} (equal to start_line) or leave it out`,
    );
  }
  const end = column !== undefined ? start : args.end_line;
  if (start < 1 || (end !== undefined && end < start)) {
    const { total } = await store.readLines(path, { ...budget(settings), start: 1, maxLines: 1 });
    if (total !== undefined) checkLineRange(start, end, total);
    // The count of a large file is left out rather than read to the end for an error.
    throw new LineRangeError(
      start < 1
        ? `start_line must be a whole number of 1 or more, got ${start}`
        : `end_line ${end} is before start_line ${start}; ask for end_line >= start_line`,
    );
  }
  const { range, version } = await versionedLines(store, session, settings, path, {
    ...budget(settings),
    start,
    end,
    column,
  }, shot);
  const structured: Record<string, unknown> = {
    path: quotePath(range.path),
    start_line: start,
    invalid_utf8: range.invalidUtf8,
  };
  if (range.total !== undefined) structured.total_lines = range.total;
  if (version !== undefined) structured.version = version;
  // The version heads the rows, so that a last row without a terminator stays verbatim.
  const versionNote = (text: string) =>
    version === undefined ? text : `[version ${version}]\n${text}`;
  if (range.lines.length === 0) {
    checkLineRange(start, end, range.total ?? 0);
    return ok(versionNote(appendNote("", "empty file: 0 lines")), {
      ...structured,
      end_line: 0,
      truncated: false,
    });
  }
  const pieces = new Map(range.pieces?.map((piece) => [piece.index, piece]));
  if (column !== undefined) checkColumn(range.lines[0], pieces.get(0), start, column);
  const lines = range.lines.map((text, i) => ({ line: start + i, text, piece: pieces.get(i) }));
  const rows = formatRows(lines, {
    maxRows: settings.maxLines,
    maxChars: rowChars(settings),
    cut: settings.cut,
    column,
  });
  const last = start + rows.rows - 1;
  const truncated = rows.rows < range.lines.length || range.more;
  let text = rows.text;
  if (truncated) {
    const of = range.total !== undefined ? ` of ${range.total}` : "";
    // (With the end asked for, so that the read continued stops where this one would have.)
    const to = args.end_line === undefined ? "" : `, end_line=${args.end_line}`;
    text = appendNote(
      text,
      `lines ${start}-${last}${of}; continue with start_line=${last + 1}${to}`,
    );
    structured.next_start_line = last + 1;
  }
  if (range.invalidUtf8) {
    text = appendNote(
      text,
      "not valid UTF-8: invalid bytes are shown as U+FFFD; edit tools refuse this file",
    );
  }
  return ok(versionNote(text), {
    ...structured,
    end_line: last,
    truncated,
    cut_lines: rows.cutLines,
  });
}

/**
 * The lines of a read, taken from the whole text when the file can have a version (which the
 * session then records with it), else read as far as needed (an unknown version is recorded).
 */
async function versionedLines(
  store: FileStore,
  session: Session,
  settings: Settings,
  path: string,
  options: LineRangeOptions,
  taken?: Snapshot | null,
): Promise<{ range: LineRange; version?: string }> {
  // (A snapshot taken already, or null: the file has none.)
  const shot = taken === undefined ? await snapshot(store, session, settings, path) : taken;
  if (!shot) {
    const range = await store.readLines(path, options);
    session.showed(range.path, undefined);
    return { range };
  }
  const { lines, more } = takeLines(shot.lines, options.start, options);
  const range = {
    path: shot.path,
    lines,
    start: options.start,
    total: shot.lines.length,
    more,
    invalidUtf8: false,
  };
  return { range, version: recordShown(session, shot) };
}

function checkColumn(
  line: string,
  piece: { codePoints: number } | undefined,
  number: number,
  column: number,
): void {
  const length = piece?.codePoints ?? codePointCount(lineText(line));
  if (column > Math.max(length, 1)) {
    throw new LineRangeError(
      `column ${column} is past the end of line ${number}, which has ${length} code points`,
    );
  }
}

function budget(settings: Settings) {
  return {
    maxLines: settings.maxLines,
    maxChars: rowChars(settings),
    cut: settings.cut,
  };
}
