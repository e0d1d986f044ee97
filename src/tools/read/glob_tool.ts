// The glob tool: file paths matching a pattern, sorted, capped.
import { appendNote, quotePath } from "../../core/mod.ts";
import { type FileStore, skippedCounter } from "../../store/file_store.ts";
import { checkArgs } from "../_args.ts";
import { capped, ok, pageNote, skippedField, skippedNote, unreadableNote } from "../_results.ts";
import type { Settings } from "../options.ts";
import type { ToolDefinition, ToolResult } from "../tool.ts";

interface GlobArgs {
  pattern: string | string[];
  path: string;
  include_ignored: boolean;
  offset: number;
}

const inputSchema = {
  type: "object" as const,
  properties: {
    pattern: {
      type: ["string", "array"],
      items: { type: "string" },
      description: "*.ts: names at any depth; src/**/*.ts: paths; a list: any, !x excludes.",
    },
    path: { type: "string", default: "." },
    include_ignored: { type: "boolean", default: false },
    offset: { type: "integer", minimum: 0, default: 0 },
  },
  required: ["pattern"],
};

const outputSchema = {
  type: "object" as const,
  properties: {
    paths: { type: "array", items: { type: "string" } },
    total: { type: "integer", description: "How many files matched (shown or not)." },
    truncated: { type: "boolean" },
    next_offset: { type: "integer", description: "Where to continue when truncated." },
    skipped: {
      type: "object",
      description: "Hidden and .gitignore'd entries left out (a directory counts once).",
      properties: { hidden: { type: "integer" }, ignored: { type: "integer" } },
    },
    unreadable: { type: "integer", description: "Directories that could not be read." },
  },
  required: ["paths", "total", "truncated"],
};

/** The glob tool. */
export function globTool(store: FileStore, settings: Settings): ToolDefinition {
  return {
    name: "glob",
    title: "Find files",
    description:
      "Lists files matching a glob, sorted; hidden and .gitignore'd files only with include_ignored.",
    inputSchema,
    outputSchema,
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    call: (args) => glob(store, settings, checkArgs<GlobArgs>(inputSchema, args)),
  };
}

async function glob(store: FileStore, settings: Settings, args: GlobArgs): Promise<ToolResult> {
  let unreadable = 0;
  const skipped = skippedCounter();
  const paths = await store.glob({
    path: args.path,
    glob: args.pattern,
    includeIgnored: args.include_ignored,
    onUnreadable: () => unreadable++,
    onSkipped: skipped.count,
  });
  const shown = paths.slice(args.offset).map(quotePath);
  const { text, count } = capped(shown, settings);
  const next = args.offset + count;
  let out = text;
  if (paths.length === 0) {
    out = appendNote(
      out,
      `no files match ${JSON.stringify(args.pattern).replace(/^\[|\]$/g, "")} under ${
        quotePath(args.path)
      }`,
    );
  } else if (next < paths.length || args.offset > 0) {
    out = appendNote(out, pageNote("files", args.offset, next, paths.length));
  }
  for (const note of [skippedNote(skipped.counts, "shows them"), unreadableNote(unreadable)]) {
    if (note) out = appendNote(out, note);
  }
  return ok(out, {
    ...skippedField(skipped.counts),
    paths: shown.slice(0, count),
    total: paths.length,
    truncated: next < paths.length,
    ...(next < paths.length ? { next_offset: next } : {}),
    ...(unreadable > 0 ? { unreadable } : {}),
  });
}
