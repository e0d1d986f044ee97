// The glob tool: file paths matching a pattern, sorted, capped.
import { quotePath } from "../../core/mod.ts";
import { type FileStore, skippedCounter } from "../../store/file_store.ts";
import { checkArgs } from "../_args.ts";
import { isAnchored, rebasedGlobs } from "./_absolute_globs.ts";
import { listingPage, PAGE_FIELDS } from "../_results.ts";
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
    ...PAGE_FIELDS,
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
    glob: await rebasedGlobs(store, args.pattern, args.path),
    includeIgnored: args.include_ignored,
    onUnreadable: () => unreadable++,
    onSkipped: skipped.count,
  });
  const anchored = [args.pattern].flat().some(isAnchored);
  const empty = `no files match ${JSON.stringify(args.pattern).replace(/^\[|\]$/g, "")} under ${
    quotePath(args.path)
  }${
    anchored
      ? " (a leading / anchors a pattern at path, unless it names a folder in the roots)"
      : ""
  }`;
  return listingPage(
    {
      items: paths,
      line: quotePath,
      shown: quotePath,
      field: "paths",
      what: "files",
      empty,
      skipped: skipped.counts,
      unreadable,
    },
    args.offset,
    settings,
  );
}
