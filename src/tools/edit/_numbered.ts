// Numbered edits checked against the version the agent saw: which version the numbers refer
// to, carrying them over to the file as it is now, and refusals that show the current rows
// (the rows shown then count as shown, so the retry needs no re-read).
import {
  countLines,
  formatRows,
  InputError,
  LineRangeError,
  lineText,
  quotePath,
  sliceLines,
  splitBom,
  splitLines,
} from "../../core/mod.ts";
import {
  type Carried,
  carryInsertPoint,
  carryRange,
  isVersion,
  mapLines,
} from "../../versions/mod.ts";
import { runsOf } from "./_line_runs.ts";
import { Refusal, rowChars } from "../_results.ts";
import type { Session } from "../_session.ts";
import type { Settings } from "../options.ts";

/** What a numbered edit addresses: a range of lines, or the point after a line. */
export type Target = { start: number; end: number } | { after: number };

/** One numbered edit call on one file, as `FileStore.update` hands it over. */
export interface NumberedCall {
  session: Session;
  settings: Settings;
  /** The file's display path. */
  display: string;
  /** Its text now. */
  text: string;
  /** The `version` argument, if given. */
  version?: string;
  /** Every target carries an `expected_text`, which then vouches for the numbers. */
  guarded: boolean;
  /**
   * The session's mark when the call started ({@linkcode Session.mark}): without `version`,
   * the numbers refer to the latest version shown by then, not to one shown since by a call
   * sent beside it (the agent wrote both before it saw either result).
   */
  asOf?: number;
  /**
   * The call stands alone (`CallContext.standalone`): without `version`, its numbers refer to
   * no version shown before it, and only `expected_text` (or --force) vouches for them.
   */
  standalone?: boolean;
}

/** Where the targets are in the text now, and what to tell the agent about it. */
export interface Placed {
  /** For each target, its first line (a range) or its after-line (a point), numbered now. */
  numbers: number[];
  /** Set when the file had changed and the targets were carried over. */
  note?: string;
  /** True when the session had shown the text the numbers referred to as it is now. */
  unchanged: boolean | undefined;
}

/** Rows shown in a refusal, at most. */
const ROWS_SHOWN = 20;

/**
 * Settles what the numbers of `targets` refer to (the given version, else the latest this
 * session showed before the call started) and where they are now.
 *
 * @throws {Refusal} when the numbers cannot be checked, or a target's lines changed
 */
export function place(call: NumberedCall, targets: readonly Target[]): Placed {
  const asIs = { numbers: targets.map(first), note: undefined };
  const base = baseText(call, targets);
  if (base === undefined) return { ...asIs, unchanged: undefined };
  if (base === call.text) return { ...asIs, unchanged: true };
  const mapping = mapLines(base, call.text);
  if (mapping === undefined) {
    throw refusal(
      call,
      "the file changed more since this session showed it than the server compares to carry your line numbers over",
      targets.map((t) => around(t)),
    );
  }
  for (const target of targets) {
    const last = "after" in target ? target.after : target.end;
    if (last > mapping.before) {
      const verb = "after" in target || target.start === target.end ? "is" : "reach";
      throw new LineRangeError(
        `${describe(target)} ${verb} beyond the ${mapping.before} ${
          mapping.before === 1 ? "line" : "lines"
        } the file had when this session showed it (it has ${mapping.after} now): read the lines again`,
      );
    }
  }
  const carried: Carried[] = targets.map((t) =>
    "after" in t ? carryInsertPoint(mapping, t.after) : carryRange(mapping, t.start, t.end)
  );
  const conflicts = carried.flatMap((c, i) => c.ok ? [] : [{ target: targets[i], region: c }]);
  if (conflicts.length > 0) {
    const which = conflicts.map((c) =>
      "after" in c.target
        ? `the lines next to your insert point after line ${c.target.after}`
        : describe(c.target)
    ).join(", ");
    throw refusal(
      call,
      `the file changed since this session showed it, and so did ${which} (numbered as you saw ${
        conflicts.length > 1 ? "them" : "it"
      })`,
      conflicts.map((c) => {
        const { from, to } = c.region as { from: number; to: number };
        return { start: from - 1, end: to + 1 };
      }),
    );
  }
  const numbers = carried.map((c) => (c as { start: number }).start);
  const moves = targets.flatMap((t, i) => {
    const was = first(t);
    return numbers[i] === was ? [] : [`${describe(t)} ${moved(t, numbers[i])}`];
  });
  const note = moves.length === 0
    ? "the file had changed since you saw it, but not at the lines you edit; the edit went to the same line numbers"
    : `the file had changed since you saw it, but not at the lines you edit; the edit went where they are now: ${
      moves.slice(0, 5).join("; ")
    }${moves.length > 5 ? `; and ${moves.length - 5} more` : ""}`;
  return { numbers, note, unchanged: false };
}

/**
 * The refusal of an `expected_text` that does not match the file: whether the file changed
 * since the session showed it, whether the text carries row prefixes, where it stands if
 * elsewhere, and the current rows.
 */
export function mismatch(
  call: NumberedCall,
  unchanged: boolean | undefined,
  ranges: ReadonlyArray<
    { start: number; end: number; firstDifferentLine?: number; expected: string }
  >,
): Refusal {
  const notes: string[] = [];
  if (unchanged === false) notes.push("The file changed since this session showed it.");
  if (unchanged === true) {
    notes.push(
      "The file is as this session showed it, so the difference is in expected_text.",
    );
  }
  const lines = splitLines(splitBom(call.text).body).map(lineText);
  for (const range of ranges) {
    let wanted = range.expected === "" ? [""] : splitLines(range.expected).map(lineText);
    if (wanted.every((line) => ROW_PREFIX.test(line))) {
      notes.push("expected_text carries the `<n>\\t` row prefixes; pass the lines without them.");
      wanted = wanted.map((line) => line.replace(ROW_PREFIX, ""));
    }
    const runs = runsOf(lines, wanted);
    const found = runs.length === 1 ? runs[0] : undefined;
    if (found !== undefined && found !== range.start) {
      const by = found - range.start;
      notes.push(
        `That text stands at ${lineSpan(found, found + wanted.length - 1)}: your numbers are ${
          Math.abs(by)
        } ${by > 0 ? "lower" : "higher"}.`,
      );
    }
  }
  const where = ranges.map((r) =>
    lineSpan(r.start, r.end) +
    (r.firstDifferentLine === undefined
      ? ""
      : ` (first difference at line ${r.firstDifferentLine})`)
  ).join(", ");
  return refusal(call, `expected_text does not match ${where}`, ranges, { notes });
}

/** A row prefix as read and grep write it: the number, `-` for context, and the tab. */
const ROW_PREFIX = /^\s*\d+-?\t/;

/** The text the numbers refer to, or undefined when `expected_text` (or --force) stands for it. */
function baseText(call: NumberedCall, targets: readonly Target[]): string | undefined {
  const { session, display, text, version } = call;
  if (version !== undefined) {
    if (!isVersion(version)) {
      throw new InputError(
        `version must be the 8 hex digits results show (e.g. [version 1a2b3c4d]), got ${
          JSON.stringify(version)
        }`,
      );
    }
    const held = session.find(display, version)?.text;
    if (held !== undefined) return held;
    if (session.showed(display, text) === version.toLowerCase()) return text;
    throw refusal(
      call,
      `version ${version} is not the file's version now, and this session does not hold it to carry your line numbers over`,
      targets.map((t) => around(t)),
      { recorded: true },
    );
  }
  if (call.standalone) {
    if (call.guarded || call.settings.force) return undefined;
    throw new Refusal(
      `${
        quotePath(display)
      }: a request of MCP 2026-07-28 stands alone, so your line numbers refer to no version shown before it and cannot be checked; nothing was written. Pass version (as read or grep showed it) or expected_text (the lines as you saw them)`,
    );
  }
  const latest = session.latest(display, call.asOf);
  if (latest?.text !== undefined) return latest.text;
  if (latest !== undefined && latest.version === undefined) {
    throw refusal(
      call,
      "this session last showed rows of this file without a version (a file over the edit cap, one changing while it was read, or one of the files after grep's first 50), so your line numbers cannot be checked",
      targets.map((t) => around(t)),
      { recorded: false },
    );
  }
  if (latest !== undefined) {
    if (latest.version !== undefined && session.showed(display, text) === latest.version) {
      return text;
    }
    throw refusal(
      call,
      "the file changed since this session showed it, and the session kept only the version it showed (grep's, or one too large to keep), not its text, so your line numbers cannot be carried over",
      targets.map((t) => around(t)),
      { recorded: true },
    );
  }
  if (call.guarded || call.settings.force) return undefined;
  const since = session.latest(display) === undefined
    ? "this session has not shown this file"
    : "this session showed this file only after this edit was sent (by a call sent with it)";
  throw new Refusal(
    `${
      quotePath(display)
    }: ${since}, so your line numbers cannot be checked; nothing was written. Read the lines first (read or grep), or pass expected_text (the lines as you saw them) or version`,
  );
}

/**
 * A refusal showing the rows of `regions` (numbered now, clamped to the file, bounded); the
 * text shown becomes the latest version the session showed.
 */
function refusal(
  call: NumberedCall,
  why: string,
  regions: ReadonlyArray<{ start: number; end: number }>,
  { recorded = false, notes = [] }: { recorded?: boolean; notes?: string[] } = {},
): Refusal {
  const { text, settings } = call;
  const total = countLines(splitBom(text).body);
  const version = recorded ? call.session.latest(call.display)?.version : call.session.showed(
    call.display,
    text,
  );
  let out = [`${quotePath(call.display)}: ${why}; nothing was written.`, ...notes].join(" ");
  if (total === 0) return new Refusal(`${out} The file is now empty (version ${version}).\n`);
  out += ` The lines there now (version ${version}):\n`;
  let shown = 0;
  let last = 0;
  for (const region of [...regions].sort((a, b) => a.start - b.start)) {
    const from = Math.max(1, region.start, last + 1);
    const to = Math.min(total, Math.max(region.end, from), from + ROWS_SHOWN - shown - 1);
    if (from > to) continue;
    if (last > 0 && from > last + 1) out += "--\n";
    const { lines } = sliceLines(text, from, to);
    out += formatRows(lines.map((line, i) => ({ line: from + i, text: line })), {
      maxChars: Math.max(1, rowChars(settings) - out.length),
      cut: settings.cut,
    }).text;
    shown += to - from + 1;
    last = to;
    if (shown >= ROWS_SHOWN) break;
  }
  return new Refusal(out);
}

function first(target: Target): number {
  return "after" in target ? target.after : target.start;
}

/**
 * The lines to show for a target whose lines cannot be followed: those at its numbers now,
 * and two on each side, so that the agent can see where its lines went.
 */
function around(target: Target): { start: number; end: number } {
  const { start, end } = "after" in target
    ? { start: target.after, end: target.after + 1 }
    : target;
  return { start: start - 2, end: end + 2 };
}

function describe(target: Target): string {
  return "after" in target
    ? `the insert point after line ${target.after}`
    : lineSpan(target.start, target.end);
}

function moved(target: Target, now: number): string {
  if ("after" in target) return `is now after line ${now}`;
  return `${target.end === target.start ? "is" : "are"} now ${
    lineSpan(now, now + target.end - target.start).replace(/^lines? /, "")
  }`;
}

function lineSpan(start: number, end: number): string {
  return start === end ? `line ${start}` : `lines ${start}-${end}`;
}
