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
 * The changed regions from `before` to `after` (lines compared with their terminators).
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
  const changes = diffArrays(splitLines(splitBom(before).body), splitLines(splitBom(after).body));
  const regions: ChangedRegion[] = [];
  let oldLine = 1;
  let newLine = 1;
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
