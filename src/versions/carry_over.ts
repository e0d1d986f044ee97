/**
 * Carrying line numbers over from the version of a file an agent saw to the file as it is
 * now: a line diff of the two texts, and for each edited range either its new position (when
 * none of its lines changed) or the region that conflicts.
 *
 * @module
 */
import { diffArrays } from "diff";
import { splitBom } from "../core/bom.ts";
import { splitLines } from "../core/split_lines.ts";
import { DIFF_LIMITS } from "./regions.ts";

/** Where the lines of one version of a text went in a later one. */
export interface LineMapping {
  /** Line count of the earlier version. */
  readonly before: number;
  /** Line count of the later version. */
  readonly after: number;
  /** Lines (of the earlier version) that changed or went, counted once each. */
  readonly changed: number;
  /** Lines of the later version that are new. */
  readonly added: number;
  /** For each earlier line (index 1 up), its number in the later version; 0 when it changed. */
  readonly newLine: Int32Array;
}

/** Where an edit lands in the later version, or the later region it conflicts with. */
export type Carried =
  | { ok: true; start: number }
  | { ok: false; from: number; to: number };

/**
 * Maps the lines of `before` to those of `after` (BOM aside, lines compared with their
 * terminators), or gives undefined when more changed than a diff takes
 * ({@linkcode DIFF_LIMITS}).
 *
 * @param before the version the agent saw
 * @param after the text now
 * @param limits how much diffing it is worth
 * @returns the mapping, or undefined when too much changed
 * @example
 * ```ts
 * import { mapLines } from "./carry_over.ts";
 * import assert from "node:assert/strict";
 * const m = mapLines("a\nb\nc\n", "new\na\nb\nc\n")!;
 * assert.deepEqual([...m.newLine], [0, 2, 3, 4]);
 * ```
 */
export function mapLines(
  before: string,
  after: string,
  limits: typeof DIFF_LIMITS = DIFF_LIMITS,
): LineMapping | undefined {
  const old = splitLines(splitBom(before).body);
  const now = splitLines(splitBom(after).body);
  const newLine = new Int32Array(old.length + 1);
  let head = 0;
  while (head < old.length && head < now.length && old[head] === now[head]) {
    head++;
    newLine[head] = head;
  }
  let tail = 0;
  while (
    tail < old.length - head && tail < now.length - head &&
    old[old.length - 1 - tail] === now[now.length - 1 - tail]
  ) {
    newLine[old.length - tail] = now.length - tail;
    tail++;
  }
  const middleOld = old.slice(head, old.length - tail);
  const middleNow = now.slice(head, now.length - tail);
  let changed = 0;
  let added = 0;
  if (middleOld.length > 0 || middleNow.length > 0) {
    const changes = middleOld.length === 0 || middleNow.length === 0
      ? [
        { count: middleOld.length, removed: true, added: false },
        { count: middleNow.length, removed: false, added: true },
      ]
      : diffArrays(middleOld, middleNow, limits);
    if (changes === undefined) return undefined;
    let o = head;
    let n = head;
    for (const change of changes) {
      const count = change.count ?? 0;
      if (change.removed) {
        o += count;
        changed += count;
      } else if (change.added) {
        n += count;
        added += count;
      } else {
        for (let i = 1; i <= count; i++) newLine[o + i] = n + i;
        o += count;
        n += count;
      }
    }
  }
  return { before: old.length, after: now.length, changed, added, newLine };
}

/**
 * Where lines `start`-`end` of the earlier version are now: their new start when every one
 * of them is unchanged and they are still together, else the later region they became.
 *
 * @param m the mapping
 * @param start first line, earlier numbering
 * @param end last line, inclusive
 * @returns the new start, or the conflicting region (which may be empty: `to < from`)
 */
export function carryRange(m: LineMapping, start: number, end: number): Carried {
  const first = m.newLine[start];
  let together = first > 0;
  for (let line = start + 1; together && line <= end; line++) {
    together = m.newLine[line] === first + (line - start);
  }
  return together ? { ok: true, start: first } : conflict(m, start, end);
}

/**
 * Where the point after line `after` of the earlier version is now: carried when the lines
 * on both sides of it are unchanged and still next to each other (line 1 still first for
 * `after` 0, the last line still last for `after` = line count).
 *
 * @param m the mapping
 * @param after the line the insert goes after, earlier numbering (0: before line 1)
 * @returns the new after-line as `start`, or the conflicting region
 */
export function carryInsertPoint(m: LineMapping, after: number): Carried {
  const above = after === 0 ? 0 : m.newLine[after];
  const below = after === m.before ? m.after + 1 : m.newLine[after + 1];
  const kept = (after === 0 || above > 0) && (after === m.before || below > 0);
  if (kept && below === above + 1) return { ok: true, start: above };
  return conflict(m, after, after + 1);
}

/** The later region between the nearest unchanged lines around `start`-`end`. */
function conflict(m: LineMapping, start: number, end: number): Carried {
  let below = start - 1;
  while (below >= 1 && m.newLine[below] === 0) below--;
  let above = end + 1;
  while (above <= m.before && m.newLine[above] === 0) above++;
  const from = below >= 1 ? m.newLine[below] + 1 : 1;
  const to = above <= m.before ? m.newLine[above] - 1 : m.after;
  return { ok: false, from, to };
}
