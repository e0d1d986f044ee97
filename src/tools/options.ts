/**
 * Options shared by the tools: the output budget, the edit cap, the search time budget.
 *
 * @module
 */

/** How long one grep may run by default, in milliseconds. */
export const DEFAULT_TIME_BUDGET_MS = 10_000;

/** Options of {@linkcode createTools}. */
export interface ToolOptions {
  /**
   * Leave out the write tools.
   * @default false
   */
  readOnly?: boolean;
  /**
   * Most rows in one result.
   * @default 2000
   */
  maxLines?: number;
  /**
   * Most characters of result text.
   * @default 60000
   */
  maxChars?: number;
  /**
   * Lines longer than this many code points are cut in output.
   * @default 2000, or less (down to 100) when a row of that many would not fit in `maxChars`
   */
  cut?: number;
  /**
   * Largest file the edit tools load, in bytes.
   * @default 67108864
   */
  maxEditBytes?: number;
  /**
   * How long one grep may run, in milliseconds.
   * @default 10000
   */
  timeBudgetMs?: number;
  /**
   * Memory for the versions of files this tools instance showed (their text, to carry a
   * numbered edit over to a file that changed since) and for undo, in bytes (two per UTF-16
   * code unit); least recently used files go first.
   * @default 33554432
   */
  sessionBytes?: number;
  /**
   * Apply numbered edits of files this instance never showed, unchecked, when they carry
   * neither `expected_text` nor `version` (the CLI's `--force`; it has no session).
   * @default false
   */
  force?: boolean;
  /**
   * Receives the stack of a tool's internal error (a bug: the model is told only that an
   * internal error happened).
   * @default writes it to stderr
   */
  log?: (message: string) => void;
}

/** {@linkcode ToolOptions} with every default filled in. */
export type Settings = Required<ToolOptions>;

/**
 * Fills in the defaults.
 *
 * @param options what the caller set
 * @returns every option with a value
 * @example
 * ```ts
 * import { settings } from "./options.ts";
 * import assert from "node:assert/strict";
 * assert.equal(settings({}).maxLines, 2000);
 * ```
 */
export function settings(options: ToolOptions): Settings {
  const maxChars = options.maxChars ?? 60000;
  return {
    readOnly: options.readOnly ?? false,
    maxLines: options.maxLines ?? 2000,
    maxChars,
    // (A cut row fits in the rows' room: two UTF-16 units a code point at most, and room for
    // its number, the cut note and the terminator.)
    cut: options.cut ??
      Math.max(100, Math.min(2000, Math.floor((rowRoom(maxChars) - CUT_ROW_EXTRA) / 2))),
    maxEditBytes: options.maxEditBytes ?? 64 * 1024 * 1024,
    timeBudgetMs: options.timeBudgetMs ?? DEFAULT_TIME_BUDGET_MS,
    sessionBytes: options.sessionBytes ?? 32 * 1024 * 1024,
    force: options.force ?? false,
    log: options.log ?? ((message) => console.error(message)),
  };
}

/** The line rule in one sentence, for every description that takes or returns a line number. */
export const LINE_RULE =
  "Lines count from 1 and end at \\n (\\r\\n is one terminator; a lone \\r is text), as in grep -n.";

/** What every edit keeps, said once in the instructions. */
export const EDIT_RULES =
  "Edits keep a file's line endings, BOM, final newline and mode, never join two lines, and write atomically.";

/** Room kept in the character budget for notes after the rows. */
export const NOTE_ROOM = 400;

/** What a cut row holds besides its text, at most: number, tab, cut note, terminator. */
const CUT_ROW_EXTRA = 80;

/**
 * Characters of an output budget that rows may use: all but the room kept for the notes
 * after them. A small budget keeps half for rows, so that rows still show instead of the
 * whole budget going to notes.
 *
 * @param maxChars the output budget
 * @returns the characters rows may use
 * @example
 * ```ts
 * import { rowRoom } from "./options.ts";
 * import assert from "node:assert/strict";
 * assert.equal(rowRoom(60000), 59600);
 * assert.equal(rowRoom(200), 100);
 * ```
 */
export function rowRoom(maxChars: number): number {
  return maxChars - Math.min(NOTE_ROOM, Math.floor(maxChars / 2));
}
