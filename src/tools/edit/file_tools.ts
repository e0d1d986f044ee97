// The whole-file tools: write, move and delete.
import { countLines, quotePath } from "../../core/mod.ts";
import { BinaryFileError, NotFoundError, StoreError } from "../../store/errors.ts";
import type { FileStore } from "../../store/file_store.ts";
import { changedRegions } from "../../versions/mod.ts";
import { checkArgs } from "../_args.ts";
import { editReport } from "./_edit_report.ts";
import { ok, Refusal } from "../_results.ts";
import { type EditContext, EDITING } from "./edit_tools.ts";
import type { JsonSchema, ToolDefinition, ToolResult } from "../tool.ts";

const writeSchema: JsonSchema = {
  type: "object",
  properties: {
    path: { type: "string" },
    content: { type: "string" },
    overwrite: { type: "boolean", default: false },
    dry_run: { type: "boolean", default: false },
  },
  required: ["path", "content"],
};

/** The write tool. */
export function writeTool(context: EditContext): ToolDefinition {
  const { store, session } = context;
  return {
    name: "write",
    title: "Write file",
    description:
      "Creates a file (and its parent directories) with exactly content; an existing one only with overwrite. To change part of a file, use replace_lines or replace.",
    inputSchema: writeSchema,
    outputSchema: {
      type: "object",
      properties: {
        path: { type: "string" },
        created: { type: "boolean" },
        lines: { type: "integer" },
        bytes: { type: "integer" },
        dry_run: { type: "boolean" },
      },
      required: ["path", "created", "lines", "bytes"],
    },
    annotations: {
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: false,
    },
    async call(args, call) {
      const a = checkArgs<{ path: string; content: string; overwrite: boolean; dry_run: boolean }>(
        writeSchema,
        args,
      );
      const before = a.overwrite ? await current(store, a.path) : undefined;
      if (before === NOT_TEXT) {
        throw new Refusal(
          `${
            quotePath(a.path)
          } is binary or not UTF-8: write does not replace it, since undo could not bring its bytes back; delete it first if that is meant`,
        );
      }
      if (a.dry_run) return await dryWrite(context, a.path, a.content, a.overwrite, before);
      const written = await store.write(a.path, a.content, {
        overwrite: a.overwrite,
        signal: call?.signal,
      });
      // The agent knows what it wrote: it counts as shown, and an overwrite can be undone.
      if (before?.text !== undefined) session.edited(written.path, before.text, a.content);
      else session.showed(written.path, a.content);
      const lines = countLines(a.content);
      const bytes = new TextEncoder().encode(a.content).length;
      const { created } = written;
      const path = quotePath(written.path);
      const verb = created ? "created" : "overwrote";
      const size = `${lines} ${lines === 1 ? "line" : "lines"}, ${bytes} ${
        bytes === 1 ? "byte" : "bytes"
      }`;
      return ok(`${verb} ${path}: ${size}\n`, {
        path,
        created,
        lines,
        bytes,
      });
    },
  };
}

/** A file that exists but holds no text: binary, or not UTF-8. */
const NOT_TEXT = Symbol("not text");

/**
 * A file's text now, if it exists and is text within the edit cap; {@linkcode NOT_TEXT} if it
 * is binary or not UTF-8; else undefined (the write itself then says what is wrong, if
 * anything is).
 */
async function current(
  store: FileStore,
  path: string,
): Promise<{ path: string; text: string } | typeof NOT_TEXT | undefined> {
  try {
    const file = await store.readText(path);
    return file.invalidUtf8 ? NOT_TEXT : { path: file.path, text: file.text };
  } catch (error) {
    if (error instanceof BinaryFileError) return NOT_TEXT;
    if (error instanceof StoreError) return undefined;
    throw error;
  }
}

/** What a write would do: the file it would create, or the diff of the one it would replace. */
async function dryWrite(
  { store, settings }: EditContext,
  path: string,
  content: string,
  overwrite: boolean,
  before: { path: string; text: string } | undefined,
): Promise<ToolResult> {
  const lines = countLines(content);
  const bytes = new TextEncoder().encode(content).length;
  if (before !== undefined) {
    const result = {
      text: content,
      regions: changedRegions(before.text, content),
      lineDelta: lines - countLines(before.text),
    };
    const path = quotePath(before.path);
    const diff = editReport(path, before.text, result, true, settings);
    return { ...diff, structuredContent: { path, created: false, lines, bytes, dry_run: true } };
  }
  try {
    const info = await store.stat(path);
    if (!overwrite) {
      return ok(
        `[dry run: ${quotePath(info.path)} exists; write would refuse it without overwrite=true]\n`,
        {
          path: quotePath(info.path),
          created: false,
          lines,
          bytes,
          dry_run: true,
        },
      );
    }
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
  }
  return ok(
    `[dry run: would create ${
      quotePath(path)
    }: ${lines} lines, ${bytes} bytes; nothing was written]\n`,
    {
      path: quotePath(path),
      created: true,
      lines,
      bytes,
      dry_run: true,
    },
  );
}

const moveSchema: JsonSchema = {
  type: "object",
  properties: {
    from: { type: "string" },
    to: { type: "string" },
    overwrite: { type: "boolean", default: false },
  },
  required: ["from", "to"],
};

/** The move tool. */
export function moveTool({ store, session }: EditContext): ToolDefinition {
  return {
    name: "move",
    title: "Move or rename",
    description: "Renames a file or directory; overwrite replaces a file at to, never a directory.",
    inputSchema: moveSchema,
    outputSchema: {
      type: "object",
      properties: {
        from: { type: "string" },
        to: { type: "string" },
        kind: { type: "string", enum: ["file", "directory"] },
      },
      required: ["from", "to", "kind"],
    },
    annotations: EDITING,
    async call(args, call) {
      const a = checkArgs<{ from: string; to: string; overwrite: boolean }>(moveSchema, args);
      const moved = await store.move(a.from, a.to, {
        overwrite: a.overwrite,
        signal: call?.signal,
      });
      session.moved(moved.from, moved.to);
      const [from, to] = [quotePath(moved.from), quotePath(moved.to)];
      return ok(`moved ${moved.kind === "directory" ? "directory " : ""}${from} to ${to}\n`, {
        from,
        to,
        kind: moved.kind,
      });
    },
  };
}

const deleteSchema: JsonSchema = {
  type: "object",
  properties: { path: { type: "string" } },
  required: ["path"],
};

/** The delete tool. */
export function deleteTool(store: FileStore): ToolDefinition {
  return {
    name: "delete",
    title: "Delete file",
    description: "Deletes a file (not a directory).",
    inputSchema: deleteSchema,
    outputSchema: {
      type: "object",
      properties: { path: { type: "string" }, deleted: { type: "boolean" } },
      required: ["path", "deleted"],
    },
    annotations: {
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: false,
    },
    async call(args, context) {
      const a = checkArgs<{ path: string }>(deleteSchema, args);
      const path = quotePath(await store.delete(a.path, { signal: context?.signal }));
      return ok(`deleted ${path}\n`, { path, deleted: true });
    },
  };
}
