// What an edit tool shows: the changed regions with their new numbers and how later lines
// moved, or for a dry run a unified diff.
import { createPatch } from "diff";
import { appendNote, type EditResult, formatRows, LineIndex, splitBom } from "../../core/mod.ts";
import { DIFF_LIMITS } from "../../versions/mod.ts";
import { ok, rowChars } from "../_results.ts";
import type { Settings } from "../options.ts";
import type { ToolResult } from "../tool.ts";

/**
 * Regions shown in full, and listed in the structured content; more are summed up in a note
 * (and counted in `regions_total`), so that an edit of 200,000 places stays within the output
 * budget in both.
 */
export const SHOWN_REGIONS = 20;
/** Lines of context around a changed region. */
const AROUND = 2;

/** The result of an edit tool. */
export function editReport(
  path: string,
  before: string,
  edit: EditResult & { regionsTotal?: number },
  dryRun: boolean,
  settings: Settings,
  note?: string,
): ToolResult {
  const regionsTotal = edit.regionsTotal ?? edit.regions.length;
  const regions = edit.regions.slice(0, SHOWN_REGIONS).map((r) => ({
    old_start: r.oldStart,
    old_end: r.oldEnd,
    new_start: r.newStart,
    new_end: r.newEnd,
  }));
  // (One index of the new text's lines for the count and every window's rows: counting the lines
  // for each window went through 48 MB 20 times, 0.8 s.)
  const newLines = new LineIndex(splitBom(edit.text).body);
  const totalLines = newLines.length;
  const structured = {
    path,
    written: !dryRun,
    dry_run: dryRun,
    regions,
    ...(regionsTotal > SHOWN_REGIONS ? { regions_total: regionsTotal } : {}),
    line_delta: edit.lineDelta,
    total_lines: totalLines,
    ...(edit.occurrences === undefined ? {} : { occurrences: edit.occurrences }),
  };
  if (dryRun) {
    const patch = createPatch(path, before, edit.text, "before", "after", {
      context: 3,
      ...DIFF_LIMITS,
    });
    let text = note === undefined ? "" : appendNote("", note);
    if (patch === undefined) {
      text = appendNote(
        text,
        `diff not shown: more changed than a diff of lines takes (${DIFF_LIMITS.maxEditLength} lines removed and added); dry-run a smaller part of the change to see it`,
      );
    } else text += cappedDiff(patch.split("\n").slice(2).join("\n"), settings); // (no "Index:", "===")
    text = appendNote(
      text,
      `dry run: nothing was written; the file would have ${totalLines} lines (${
        signed(edit.lineDelta)
      })`,
    );
    return ok(text, structured);
  }
  let text = note === undefined ? "" : appendNote("", note);
  if ((edit.occurrences ?? 1) > 1) {
    text = appendNote(text, `replaced ${edit.occurrences} occurrences`);
  }
  // Regions whose rows would overlap are shown as one (their notes, then the rows), so that no
  // row is shown twice.
  let delta = 0;
  let notes: string[] = [];
  let window: { from: number; to: number } | undefined;
  const showRows = () => {
    for (const note of notes) text = appendNote(text, note);
    notes = [];
    if (window === undefined) return;
    const { from, to } = window;
    window = undefined;
    const rows = formatRows(rowsOf(newLines, from, to), {
      maxRows: settings.maxLines,
      maxChars: Math.max(1, rowChars(settings) - text.length),
      cut: settings.cut,
    });
    text += rows.text;
  };
  for (const region of edit.regions.slice(0, SHOWN_REGIONS)) {
    delta += region.newEnd - region.newStart - (region.oldEnd - region.oldStart);
    const from = Math.max(1, region.newStart - AROUND);
    const to = Math.min(totalLines, Math.max(region.newEnd, region.newStart - 1) + AROUND);
    if (window !== undefined && from > window.to) showRows();
    notes.push(describe(region, delta));
    if (to >= from) window = { from: window?.from ?? from, to: Math.max(to, window?.to ?? to) };
  }
  showRows();

  if (regionsTotal > SHOWN_REGIONS) {
    text = appendNote(
      text,
      `${
        regionsTotal - SHOWN_REGIONS
      } more changed regions not shown; lines after the last one moved by ${
        signed(edit.lineDelta)
      }`,
    );
  }
  if (totalLines === 0) text = appendNote(text, "the file is now empty: 0 lines");
  return ok(text, structured);
}

/** Rows `from` to `to` of the lines, made as they are taken (a window may hold a million). */
function* rowsOf(lines: LineIndex, from: number, to: number) {
  for (let line = from; line <= to; line++) yield { line, text: lines.at(line - 1)! };
}

/** An edit's result with the file's new version in its text and its structured content. */
export function withVersion(result: ToolResult, version: string): ToolResult {
  const [first] = result.content;
  return {
    ...result,
    content: [{ type: "text", text: `[version ${version}]\n${first.text}` }],
    structuredContent: { ...result.structuredContent, version },
  };
}

/** The diff within the output budget (at least its first line), with a note when cut. */
function cappedDiff(diff: string, settings: Settings): string {
  const lines = diff.split(/(?<=\n)/);
  const maxChars = rowChars(settings);
  let text = "";
  let count = 0;
  for (const line of lines) {
    if (count >= settings.maxLines || (count > 0 && text.length + line.length > maxChars)) break;
    text += line;
    count++;
  }
  if (count === lines.length) return text;
  return appendNote(
    text,
    `diff cut: showing ${count} of ${lines.length} lines; dry-run a smaller part of the change to see the rest`,
  );
}

function describe(
  region: { oldStart: number; oldEnd: number; newStart: number; newEnd: number },
  delta: number,
): string {
  const moved = delta === 0
    ? "later line numbers are unchanged"
    : `lines after ${Math.max(region.oldEnd, region.oldStart - 1)} moved by ${signed(delta)}`;
  const old = span(region.oldStart, region.oldEnd);
  const now = span(region.newStart, region.newEnd);
  if (region.oldEnd < region.oldStart) return `inserted ${now}; ${moved}`;
  if (region.newEnd < region.newStart) return `deleted ${old}; ${moved}`;
  return `${old} replaced, now ${now}; ${moved}`;
}

function span(start: number, end: number): string {
  return start === end ? `line ${start}` : `lines ${start}-${end}`;
}

function signed(n: number): string {
  return n >= 0 ? `+${n}` : `${n}`;
}
