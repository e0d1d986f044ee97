// Applying the hunks of a unified diff to one file's text with linewise's edit rules: each
// hunk located by its line numbers and verified by its context and removed lines, moved only
// to a unique exact match elsewhere (and then said so), never fuzzily.
import type { StructuredPatchHunk } from "diff";
import {
  InputError,
  insertLines,
  lineText,
  replaceLines,
  splitBom,
  splitLines,
} from "../../core/mod.ts";
import { holdsAt, runsOf } from "./_line_runs.ts";

/** A file's text after its hunks, and what to say about where they went. */
export interface Patched {
  text: string;
  /** Notes on hunks applied away from the line the patch gave. */
  notes: string[];
  /** Lines added minus lines removed. */
  delta: number;
}

/**
 * Applies hunks (numbered as the file was before them) to `text`.
 *
 * @throws {InputError} naming the first hunk whose lines the file does not hold
 */
export function applyHunks(
  text: string,
  hunks: readonly StructuredPatchHunk[],
  path: string,
): Patched {
  const lines = splitLines(splitBom(text).body).map(lineText);
  const notes: string[] = [];
  const placed = hunks.map((hunk, index) => {
    const which = `hunk ${index + 1} of ${path} (@@ -${hunk.oldStart},${hunk.oldLines})`;
    // The hunk's lines as they are, or as a diff of a CRLF file writes them (each with the `\r`
    // of its terminator): the reading that holds at the hunk's line; else the lines as they
    // are, looked for elsewhere, unless they stand nowhere (then the other reading is).
    const [exact, crlf] = [sidesOf(hunk, false), sidesOf(hunk, true)];
    const { old, changes } = [exact, crlf].find((r) => holdsAt(lines, r.old, hunk.oldStart)) ??
      (runsOf(lines, exact.old).length > 0 ? exact : crlf);
    if (old.length === 0) {
      // A pure insertion: it goes before line oldStart (after oldStart - 1).
      const after = hunk.oldStart - 1;
      if (after < 0 || after > lines.length) {
        throw new InputError(
          `${which} inserts after line ${after}, outside the file's ${lines.length} lines; nothing was written`,
        );
      }
      return { start: after + 1, count: 0, changes };
    }
    let start = hunk.oldStart;
    if (!holdsAt(lines, old, start)) {
      const runs = runsOf(lines, old);
      const found = runs.length === 1 ? runs[0] : undefined;
      if (found === undefined) {
        throw new InputError(
          `${which} does not match the file: its context and removed lines are not at line ${start}${
            runs.length > 1 ? ", and they stand at several other places" : " or anywhere else"
          }; nothing was written. Read the file and make the patch against it`,
        );
      }
      notes.push(`${which} applied at line ${found}, ${signed(found - start)} from where it said`);
      start = found;
    }
    return { start, count: old.length, changes };
  });
  // (Hunks that only add lines go before one that replaces from the same line.)
  const sorted = [...placed].sort((a, b) => a.start - b.start || a.count - b.count);
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i].start < sorted[i - 1].start + sorted[i - 1].count) {
      throw new InputError(`two hunks of ${path} overlap; nothing was written`);
    }
  }
  // Each run of removed and added lines on its own (a context line keeps its bytes, and a
  // line replaced takes its own terminator), all in one pass (a run at a time made a patch
  // of 20,000 runs take 16.7 s).
  // Runs that touch (hunks without context, back to back) are one.
  const runs: Change[] = [];
  for (const hunk of sorted) {
    for (const change of hunk.changes) {
      const run = { ...change, at: hunk.start + change.at };
      const last = runs.at(-1);
      if (last !== undefined && last.at + last.removed === run.at) {
        last.removed += run.removed;
        last.added.push(...run.added);
      } else runs.push(run);
    }
  }
  const delta = runs.reduce((sum, run) => sum + run.added.length - run.removed, 0);
  const out = lines.length === 0
    ? insertLines(text, 0, runs.flatMap((run) => run.added).map((l) => l + "\n").join("")).text
    : replaceLines(text, runs.map((run) => editOf(run, lines))).text;
  // (A diff that changes only what edits keep, the line endings, the BOM or the last line
  // feed, changes nothing: said so.)
  if (out === text) {
    notes.push(
      `${path}: the patch changes only what edits keep as it is (line endings, a BOM, the last line feed); nothing changed`,
    );
  }
  return { text: out, notes, delta };
}

/**
 * A run as one replacement of the file's lines. A run that only adds lines replaces the line
 * before it (at the top, the one after) with itself and them, so that the added lines take
 * that neighbour's terminator, as an insert does. (No other run replaces that neighbour: runs
 * that touch are one.)
 */
function editOf(run: Change, lines: readonly string[]) {
  const text = (all: string[]) => all.map((l) => l + "\n").join("");
  if (run.removed > 0) {
    return { start_line: run.at, end_line: run.at + run.removed - 1, new_text: text(run.added) };
  }
  if (run.at > 1) {
    return { start_line: run.at - 1, new_text: text([lines[run.at - 2], ...run.added]) };
  }
  return { start_line: 1, new_text: text([...run.added, lines[0]]) };
}

/**
 * A hunk's lines as the file has them before and after it, as linewise reads lines: without
 * the BOM `git diff` puts in line 1 (the BOM is no part of line 1's text, and stays), and with
 * `crlf`, without the last `\r` of each (the terminator `\r\n`, which a diff of a CRLF file
 * keeps in each line; a lone `\r` is text, and stays).
 */
function sidesOf(hunk: StructuredPatchHunk, crlf: boolean): HunkSides {
  const old: string[] = [];
  const changes: Change[] = [];
  let open: Change | undefined;
  let newCount = 0;
  for (const line of hunk.lines) {
    const mark = line[0];
    if (mark !== " " && mark !== "-" && mark !== "+") continue; // ("\ No newline …")
    let text = crlf && line.endsWith("\r") ? line.slice(1, -1) : line.slice(1);
    const first = mark === "+"
      ? newCount === 0 && hunk.newStart === 1
      : old.length === 0 && hunk.oldStart === 1;
    if (first && text.startsWith("\uFEFF")) text = text.slice(1);
    if (mark === " ") open = undefined;
    else {
      if (open === undefined) changes.push(open = { at: old.length, removed: 0, added: [] });
      if (mark === "-") open.removed++;
      else open.added.push(text);
    }
    if (mark !== "+") old.push(text);
    if (mark !== "-") newCount++;
  }
  return { old, changes };
}

/** A hunk's lines as the file has them before it, and its runs of changed lines. */
interface HunkSides {
  old: string[];
  changes: Change[];
}

/**
 * A run of removed and added lines: where (in the hunk's old lines from 0, or in the file's
 * from 1), how many go, what comes.
 */
interface Change {
  at: number;
  removed: number;
  added: string[];
}

/** The text of a new file the patch creates: its added lines, each with a terminator. */
export function createdText(hunks: readonly StructuredPatchHunk[]): string {
  const lines = hunks.flatMap((h) => h.lines);
  const added = lines.filter((l) => l[0] === "+").map((l) => l.slice(1) + "\n").join("");
  return lines.at(-1)?.startsWith("\\") ? added.slice(0, -1) : added;
}

/** Whether a file's lines are exactly the lines a deletion removes. */
export function deletes(text: string, hunks: readonly StructuredPatchHunk[]): boolean {
  const lines = splitLines(splitBom(text).body).map(lineText);
  return [false, true].some((crlf) => {
    const removed = hunks.flatMap((hunk) => sidesOf(hunk, crlf).old);
    return lines.length === removed.length && lines.every((line, i) => line === removed[i]);
  });
}

function signed(n: number): string {
  return n >= 0 ? `+${n}` : `${n}`;
}
