// The list tool: directory entries with type and size.
import { quotePath, quotePathInRow } from "../../core/mod.ts";
import { type FileStore, type ListEntry, skippedCounter } from "../../store/file_store.ts";
import { checkArgs } from "../_args.ts";
import { listingPage, PAGE_FIELDS } from "../_results.ts";
import type { Settings } from "../options.ts";
import type { ToolDefinition, ToolResult } from "../tool.ts";

interface ListArgs {
  path: string;
  depth: number;
  include_ignored: boolean;
  offset: number;
}

const inputSchema = {
  type: "object" as const,
  properties: {
    path: { type: "string", default: "." },
    depth: { type: "integer", minimum: 1, default: 1 },
    include_ignored: { type: "boolean", default: false },
    offset: { type: "integer", minimum: 0, default: 0 },
  },
};

const outputSchema = {
  type: "object" as const,
  properties: {
    entries: {
      type: "array",
      items: {
        type: "object",
        properties: {
          path: { type: "string" },
          type: { type: "string", enum: ["file", "directory", "other"] },
          size: { type: "integer" },
        },
        required: ["path", "type", "size"],
      },
    },
    total: { type: "integer" },
    ...PAGE_FIELDS,
  },
  required: ["entries", "total", "truncated"],
};

/** The list tool. */
export function listTool(store: FileStore, settings: Settings): ToolDefinition {
  return {
    name: "list",
    title: "List directory",
    description:
      "Lists a directory as rows `<type>\\t<size>\\t<path>`, directories first; hidden and .gitignore'd entries only with include_ignored.",
    inputSchema,
    outputSchema,
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    call: (args) => list(store, settings, checkArgs<ListArgs>(inputSchema, args)),
  };
}

async function list(store: FileStore, settings: Settings, args: ListArgs): Promise<ToolResult> {
  let unreadable = 0;
  const skipped = skippedCounter();
  const entries = await store.list(args.path, {
    depth: args.depth,
    includeIgnored: args.include_ignored,
    onUnreadable: () => unreadable++,
    onSkipped: skipped.count,
  });
  const { hidden, ignored, links = 0 } = skipped.counts;
  // (What it holds that the notes below count.)
  const left = [
    hidden + ignored > 0 ? "hidden or .gitignore'd entries" : "",
    links > 0 ? "symlinks left out" : "",
  ].filter(Boolean).join(" and ");
  return listingPage(
    {
      items: entries,
      line: entryLine,
      shown: (e) => ({ path: quotePathInRow(e.path), type: e.kind, size: e.size }),
      field: "entries",
      what: "entries",
      empty: `${quotePath(args.path)} ${left === "" ? "is empty" : `holds only ${left}`}`,
      skipped: skipped.counts,
      unreadable,
    },
    args.offset,
    settings,
  );
}

function entryLine(entry: ListEntry): string {
  const path = quotePathInRow(entry.path);
  if (entry.kind === "directory") return `dir\t-\t${path}/`;
  return `${entry.kind}\t${entry.size}\t${path}`;
}
