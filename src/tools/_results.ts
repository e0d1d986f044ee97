// Building tool results, and turning expected errors into results a model can act on.
import { ExpectedTextMismatchError, OldTextMatchError } from "../core/mod.ts";
import { StoreError } from "../store/errors.ts";
import { ArgumentError } from "./_args.ts";
import { NOTE_ROOM, type Settings } from "./options.ts";
import type { ToolResult } from "./tool.ts";

/**
 * Characters of the output budget that rows may use: all but the room kept for the notes
 * after them. A small budget (the CLI allows 200) keeps half for rows, so that rows still
 * show instead of the whole budget going to notes.
 */
export function rowChars(settings: Settings): number {
  return settings.maxChars - Math.min(NOTE_ROOM, Math.floor(settings.maxChars / 2));
}

/** A successful result: the text for the model and the structured data for programs. */
export function ok(text: string, structured: Record<string, unknown>): ToolResult {
  return { content: [{ type: "text", text }], structuredContent: structured };
}

/** A failed result carrying a plain sentence. */
export function failure(message: string): ToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}

/**
 * Turns an error into an isError result. Expected errors keep their message (prefixed
 * with the path where the core does not know it); anything else is a bug, reported
 * without a stack trace.
 */
export function errorResult(error: unknown, path?: string): ToolResult {
  if (error instanceof StoreError || error instanceof ArgumentError) return failure(error.message);
  if (
    error instanceof RangeError || error instanceof TypeError ||
    error instanceof ExpectedTextMismatchError || error instanceof OldTextMatchError
  ) {
    return failure(path === undefined ? error.message : `${path}: ${error.message}`);
  }
  if (error instanceof SyntaxError) return failure(error.message);
  const message = error instanceof Error ? error.message : String(error);
  return failure(`internal error: ${message}; please report it`);
}

/** Lines of text up to the row and character budget. */
export function capped(lines: string[], settings: Settings): { text: string; count: number } {
  const maxChars = rowChars(settings);
  let text = "";
  let count = 0;
  for (const line of lines) {
    if (count >= settings.maxLines || text.length + line.length + 1 > maxChars) break;
    text += line + "\n";
    count++;
  }
  return { text, count };
}

/** The note for what a walk could not read, or undefined when it read everything. */
export function unreadableNote(count: number): string | undefined {
  if (count === 0) return undefined;
  return `${count} ${
    count === 1 ? "directory or file" : "directories or files"
  } could not be read (no permission, or a path too long) and ${
    count === 1 ? "was" : "were"
  } skipped`;
}
