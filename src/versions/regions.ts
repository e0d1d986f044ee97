/**
 * The regions in which two versions of a text differ, as an edit reports them.
 *
 * @module
 */
import { diffArrays } from "diff";
import { splitBom } from "../core/bom.ts";
import type { ChangedRegion } from "../core/edit_result.ts";
import { splitLines } from "../core/split_lines.ts";

/**
 * How much line diffing the edit tools do, at most: a diff runs on the thread that answers
 * every request, and its cost grows with the lines times the changes (200,000 lines of which
 * every other one changed took 125 s with no bound). Past either bound a diff gives up.
 */
export const DIFF_LIMITS: { maxEditLength: number; timeout: number } = {
  /** Lines removed plus lines added. */
  maxEditLength: 20_000,
  /** Milliseconds. */
  timeout: 250,
};

/**
 * The changed regions from `before` to `after` (lines compared with their terminators). Where
 * more changed than a diff takes ({@linkcode DIFF_LIMITS}), one region from the first changed
 * line to the last.
 *
 * @param before the earlier text
 * @param after the later text
 * @returns the regions in line order, old and new numbering
 * @example
 * ```ts
 * import { changedRegions } from "./regions.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(changedRegions("a\nb\nc\n", "a\nB\nB2\nc\n"), [
 *   { oldStart: 2, oldEnd: 2, newStart: 2, newEnd: 3 },
 * ]);
 * ```
 */
export function changedRegions(before: string, after: string): ChangedRegion[] {
  const old = splitLines(splitBom(before).body);
  const now = splitLines(splitBom(after).body);
  let head = 0;
  while (head < old.length && head < now.length && old[head] === now[head]) head++;
  let tail = 0;
  while (
    tail < old.length - head && tail < now.length - head &&
    old[old.length - 1 - tail] === now[now.length - 1 - tail]
  ) tail++;
  if (head === old.length && head === now.length) return [];
  const whole = {
    oldStart: head + 1,
    oldEnd: old.length - tail,
    newStart: head + 1,
    newEnd: now.length - tail,
  };
  const changes = diffArrays(
    old.slice(head, old.length - tail),
    now.slice(head, now.length - tail),
    DIFF_LIMITS,
  );
  if (changes === undefined) return [whole];
  const regions: ChangedRegion[] = [];
  let oldLine = head + 1;
  let newLine = head + 1;
  let open: ChangedRegion | undefined;
  for (const change of changes) {
    const count = change.count ?? 0;
    if (!change.added && !change.removed) {
      if (open) regions.push(open);
      open = undefined;
      oldLine += count;
      newLine += count;
      continue;
    }
    open ??= { oldStart: oldLine, oldEnd: oldLine - 1, newStart: newLine, newEnd: newLine - 1 };
    if (change.removed) {
      oldLine += count;
      open.oldEnd = oldLine - 1;
    } else {
      newLine += count;
      open.newEnd = newLine - 1;
    }
  }
  if (open) regions.push(open);
  return regions;
}
