// Where a run of lines stands among a text's lines: for a hunk whose context moved, and for
// an expected_text that stands elsewhere. Lines are compared without their terminators.

/** Whether `lines` holds `wanted` from line `start` (1-based). */
export function holdsAt(
  lines: readonly string[],
  wanted: readonly string[],
  start: number,
): boolean {
  return start >= 1 && start + wanted.length - 1 <= lines.length &&
    wanted.every((line, i) => lines[start - 1 + i] === line);
}

/** The lines (1-based) where `wanted` starts, the first `most` of them. */
export function runsOf(lines: readonly string[], wanted: readonly string[], most = 2): number[] {
  const found: number[] = [];
  for (let at = 1; at + wanted.length - 1 <= lines.length && found.length < most; at++) {
    if (lines[at - 1] === wanted[0] && holdsAt(lines, wanted, at)) found.push(at);
  }
  return found;
}
