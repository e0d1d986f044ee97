// Building tool results, and turning expected errors into results a model can act on.
import {
  appendNote,
  ExpectedTextMismatchError,
  InputError,
  LineRangeError,
  OldTextMatchError,
} from "../core/mod.ts";
import { StoreError } from "../store/errors.ts";
import type { SkippedEntries } from "../store/file_store.ts";
import { ArgumentError } from "./_args.ts";
import { PatternError } from "../match/safe_matcher.ts";
import { rowRoom, type Settings } from "./options.ts";
import type { ToolResult } from "./tool.ts";

/** Characters of the output budget that rows may use (see {@linkcode rowRoom}). */
export function rowChars(settings: Settings): number {
  return rowRoom(settings.maxChars);
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
 * A refusal whose message is complete: it names the file and may show rows (a numbered edit
 * that cannot be checked or carried over, an expected text that does not match).
 */
export class Refusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = "Refusal";
  }
}

/**
 * Whether an error is a refusal of the caller's input (said as it is) rather than a bug: the
 * store's errors, bad arguments, line numbers out of range, unusable input, a bad pattern.
 * A plain TypeError or RangeError is a bug.
 */
export function isRefusal(error: unknown): boolean {
  return error instanceof StoreError || error instanceof ArgumentError ||
    error instanceof LineRangeError || error instanceof InputError ||
    error instanceof ExpectedTextMismatchError || error instanceof OldTextMatchError ||
    error instanceof PatternError || error instanceof Refusal;
}

/**
 * Turns an error into an isError result. A refusal keeps its message (prefixed with the
 * path where the core does not know it); anything else is a bug, reported as an internal
 * error without a stack trace (the caller logs the stack).
 */
export function errorResult(error: unknown, path?: string): ToolResult {
  if (error instanceof StoreError || error instanceof ArgumentError) return failure(error.message);
  if (error instanceof PatternError || error instanceof Refusal) return failure(error.message);
  if (isRefusal(error)) {
    const message = (error as Error).message;
    return failure(path === undefined ? message : `${path}: ${message}`);
  }
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

/**
 * The note of a listing shown from `offset`: which of them, and the offset that continues it.
 *
 * @param what what is listed ("files", "entries")
 */
export function pageNote(what: string, offset: number, next: number, total: number): string {
  if (offset >= total) return `offset ${offset} is past the ${total} ${what} there are`;
  const shown = `showing ${what} ${offset + 1}-${next} of ${total}`;
  return next < total ? `${shown}; continue with offset=${next}` : shown;
}

/** The output schema of what a walk left out ({@linkcode skippedField}). */
export const SKIPPED_FIELD = {
  type: "object",
  description:
    "Entries left out: hidden and .gitignore'd ones (a directory counts once), symlinks that cannot be followed, and FIFOs, sockets and devices.",
  properties: {
    hidden: { type: "integer" },
    ignored: { type: "integer" },
    links: {
      type: "integer",
      description: "Symlinks that lead outside the roots, nowhere, or to a denied path.",
    },
    special: { type: "integer", description: "FIFOs, sockets and devices." },
  },
};

/** The output schema's fields of a page of a walk's listing (glob, list), after its total. */
export const PAGE_FIELDS = {
  truncated: { type: "boolean" },
  next_offset: { type: "integer", description: "Where to continue when truncated." },
  skipped: SKIPPED_FIELD,
  unreadable: { type: "integer", description: "Directories that could not be read." },
};

/** What a walk found, for {@linkcode listingPage}. */
export interface Listing<T> {
  /** Everything it found, in order. */
  items: readonly T[];
  /** A row per item. */
  line: (item: T) => string;
  /** An item as the structured result shows it. */
  shown: (item: T) => unknown;
  /** The structured result's name for the items, and the notes' ("files", "entries"). */
  field: string;
  what: string;
  /** The note when it found nothing. */
  empty: string;
  /** What the walk left out, and the directories it could not read. */
  skipped: SkippedEntries;
  unreadable: number;
}

/**
 * The page of a listing from `offset` that the output budget holds, with the notes that
 * say where to continue and what the walk left out.
 *
 * @param listing what the walk found
 * @param offset the first item shown
 * @param settings the output budget
 * @returns the tool's result
 */
export function listingPage<T>(
  listing: Listing<T>,
  offset: number,
  settings: Settings,
): ToolResult {
  const { items, skipped, unreadable } = listing;
  const from = items.slice(offset);
  const { text, count } = capped(from.map(listing.line), settings);
  const next = offset + count;
  let out = text;
  if (items.length === 0) out = appendNote(out, listing.empty);
  else if (next < items.length || offset > 0) {
    out = appendNote(out, pageNote(listing.what, offset, next, items.length));
  }
  const notes = [
    skippedNote(skipped, "shows them"),
    ...leftOutNotes(skipped),
    unreadableNote(unreadable),
  ];
  for (const note of notes) {
    if (note) out = appendNote(out, note);
  }
  return ok(out, {
    ...skippedField(skipped),
    [listing.field]: from.slice(0, count).map(listing.shown),
    total: items.length,
    truncated: next < items.length,
    ...(next < items.length ? { next_offset: next } : {}),
    ...(unreadable > 0 ? { unreadable } : {}),
  });
}

/** What a walk left out, for the structured result: nothing when nothing was. */
export function skippedField(skipped: SkippedEntries | undefined): Record<string, unknown> {
  const { hidden, ignored, links = 0, special = 0 } = skipped ?? { hidden: 0, ignored: 0 };
  return hidden + ignored + links + special === 0 ? {} : { skipped: { ...skipped } };
}

/**
 * The notes saying how many symlinks a walk left out as ones it cannot follow, and how many
 * FIFOs, sockets and devices it passed over; none for what it did not meet. Which symlink
 * leads where is not said: one that leads to a denied path must not read differently from one
 * that leads nowhere.
 */
export function leftOutNotes(skipped: SkippedEntries | undefined): string[] {
  const { links = 0, special = 0 } = skipped ?? { hidden: 0, ignored: 0 };
  const notes: string[] = [];
  if (links > 0) {
    notes.push(
      `${links} ${
        links === 1 ? "symlink" : "symlinks"
      } left out: each leads outside the roots, nowhere, or to a denied path`,
    );
  }
  if (special > 0) {
    notes.push(
      `${special} ${
        special === 1 ? "FIFO, socket or device" : "FIFOs, sockets or devices"
      } left out: no text to read (list shows them)`,
    );
  }
  return notes;
}

/**
 * The note saying what a walk left out as hidden or .gitignore'd, or undefined when it left
 * out nothing.
 *
 * @param shows what include_ignored=true then does ("shows them", "searches them")
 */
export function skippedNote(
  skipped: SkippedEntries | undefined,
  shows: string,
): string | undefined {
  if (!skipped) return undefined;
  const entries = (n: number, what: string) => `${n} ${what} ${n === 1 ? "entry" : "entries"}`;
  const parts = [
    skipped.hidden > 0 ? entries(skipped.hidden, "hidden") : "",
    skipped.ignored > 0 ? entries(skipped.ignored, ".gitignore'd") : "",
  ].filter(Boolean);
  if (parts.length === 0) return undefined;
  return `${parts.join(" and ")} left out; include_ignored=true ${shows}`;
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
