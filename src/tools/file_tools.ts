// The whole-file tools: write and delete.
import { countLines, quotePath } from "../core/mod.ts";
import type { FileStore } from "../store/file_store.ts";
import { checkArgs } from "./_args.ts";
import { ok } from "./_results.ts";
import type { JsonSchema, ToolDefinition } from "./tool.ts";

const writeSchema: JsonSchema = {
  type: "object",
  properties: {
    path: {
      type: "string",
      description: "File to create (missing parent directories are created).",
    },
    content: { type: "string", description: "The whole content, written exactly." },
    overwrite: {
      type: "boolean",
      default: false,
      description: "Replace an existing file (its mode is kept).",
    },
  },
  required: ["path", "content"],
  additionalProperties: false,
};

/** The write tool. */
export function writeTool(store: FileStore): ToolDefinition {
  return {
    name: "write",
    title: "Write file",
    description:
      "Creates a file with exactly content (and any missing parent directories), atomically. An existing file is replaced only with overwrite=true; to change part of a file use replace_lines or replace instead.",
    inputSchema: writeSchema,
    outputSchema: {
      type: "object",
      properties: {
        path: { type: "string" },
        created: { type: "boolean" },
        lines: { type: "integer" },
        bytes: { type: "integer" },
      },
      required: ["path", "created", "lines", "bytes"],
    },
    annotations: {
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: false,
    },
    async call(args, context) {
      const a = checkArgs<{ path: string; content: string; overwrite: boolean }>(writeSchema, args);
      const written = await store.write(a.path, a.content, {
        overwrite: a.overwrite,
        signal: context?.signal,
      });
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

const deleteSchema: JsonSchema = {
  type: "object",
  properties: { path: { type: "string", description: "File to delete (not a directory)." } },
  required: ["path"],
  additionalProperties: false,
};

/** The delete tool. */
export function deleteTool(store: FileStore): ToolDefinition {
  return {
    name: "delete",
    title: "Delete file",
    description: "Deletes one file. Directories are refused.",
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
