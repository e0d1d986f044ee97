/**
 * The linewise tools over one store, usable from any agent framework.
 *
 * @module
 */
import type { FileStore } from "../store/file_store.ts";
import { errorResult, isRefusal } from "./_results.ts";
import { insertLinesTool, replaceLinesTool, replaceTool } from "./edit/edit_tools.ts";
import { deleteTool, moveTool, writeTool } from "./edit/file_tools.ts";
import { globTool } from "./read/glob_tool.ts";
import { grepTool } from "./read/grep_tool.ts";
import { listTool } from "./read/list_tool.ts";
import { settings, type ToolOptions } from "./options.ts";
import { readTool } from "./read/read_tool.ts";
import { Session } from "./_session.ts";
import { undoTool } from "./edit/undo_tool.ts";
import { patchTool } from "./edit/patch_tool.ts";
import type { CallContext, ToolDefinition, ToolResult } from "./tool.ts";

/**
 * Builds the tools over a store: read, grep, glob, list, and unless `readOnly` write,
 * replace, replace_lines, insert_lines, patch, undo, move and delete. A tool's `call` never
 * throws for bad input or a failed operation; it returns a result with `isError: true`.
 * The tools share one session: what they showed (the versions numbered edits are checked
 * against) and what they can undo, so make one set of tools per agent conversation.
 *
 * @param store where the files are
 * @param options budgets, caps and read-only mode
 * @returns the tool definitions, read-only tools first
 * @example
 * ```ts
 * import { createTools, MemoryStore } from "../../mod.ts";
 * import assert from "node:assert/strict";
 * const tools = createTools(new MemoryStore({ "a.txt": "one\ntwo\n" }));
 * const read = tools.find((tool) => tool.name === "read")!;
 * const result = await read.call({ path: "a.txt", start_line: 2 });
 * assert.equal(result.content[0].text, `[version ${result.structuredContent!.version}]\n2\ttwo\n`);
 * ```
 */
export function createTools(store: FileStore, options: ToolOptions = {}): ToolDefinition[] {
  const s = settings(options);
  const session = new Session(s.sessionBytes);
  const tools = [
    readTool(store, s, session),
    grepTool(store, s, session),
    globTool(store, s),
    listTool(store, s),
  ];
  if (!s.readOnly) {
    const editing = { store, settings: s, session };
    tools.push(
      writeTool(editing),
      replaceTool(editing),
      replaceLinesTool(editing),
      insertLinesTool(editing),
      patchTool(editing),
      undoTool(editing),
      moveTool(editing),
      deleteTool(store),
    );
  }
  return tools.map((tool) => ({ ...guarded(tool, s.log), maxResultChars: s.maxChars }));
}

/**
 * Wraps `call` so that every failure becomes an isError result (a bug as an internal error,
 * its stack to `log`); an abort propagates.
 */
function guarded(tool: ToolDefinition, log: (message: string) => void): ToolDefinition {
  return {
    ...tool,
    async call(args: unknown, context?: CallContext): Promise<ToolResult> {
      try {
        return await tool.call(args, context);
      } catch (error) {
        if (context?.signal?.aborted) throw error;
        if (!isRefusal(error)) {
          const detail = error instanceof Error ? error.stack ?? error.message : String(error);
          log(`the ${tool.name} tool failed: ${detail}`);
        }
        const path = (args as { path?: unknown } | null)?.path;
        return errorResult(error, typeof path === "string" ? path : undefined);
      }
    },
  };
}
