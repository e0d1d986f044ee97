// Keeps a backtracking matcher off lines long enough to take it polynomial time. `a*b`
// already takes V8 seconds on one line of 100,000 a's (every start position scans to the
// end), and each further unbounded quantifier multiplies that by the line's length. Such
// lines go to the linear-time matcher; the whole-text fast path searches only between them.
import type { Matcher } from "../core/mod.ts";

/** Backtracking steps one line may cost the native engine, at worst. */
const STEP_BUDGET = 1e8;

/**
 * The longest line a pattern with `quantifiers` unbounded quantifiers may run on natively:
 * about length^(quantifiers + 1) steps must stay within the budget.
 */
export function nativeLineLimit(quantifiers: number): number {
  return Math.floor(Math.pow(STEP_BUDGET, 1 / (quantifiers + 1)));
}

/**
 * A matcher that uses `native` on lines of at most `limit` UTF-16 units and `linear` on
 * longer ones. Its fast path runs `native` only over stretches of short lines and offers
 * each long line as a candidate, which `matchLine` then settles on the linear engine.
 */
export function guardLongLines(native: Matcher, linear: Matcher, limit: number): Matcher {
  const matchLine = (text: string) =>
    text.length > limit ? linear.matchLine(text) : native.matchLine(text);
  const findCandidate = native.findCandidate;
  const { requiredLiteral, requiredLiterals, alternativeLiterals, foldedLiterals, lineStart } =
    native;
  // (A stretch of a long line is matched natively only as long as a line may be.)
  const stretched = native.stretch && { stretch: { ...native.stretch, most: limit } };
  const literals = {
    requiredLiteral,
    requiredLiterals,
    alternativeLiterals,
    foldedLiterals,
    ...(lineStart === undefined ? {} : { lineStart }),
    ...stretched,
  };
  const key = native.key && linear.key && `${native.key}|${linear.key}|${limit}`;
  if (findCandidate === undefined) return { key, matchLine, ...literals };
  let seen: string | undefined;
  let long: number[] = [];
  let stretch = { start: 0, end: 0, text: "" };
  return {
    matchLine,
    key,
    ...literals,
    findCandidate(text, from) {
      if (text !== seen) {
        seen = text;
        long = longLines(text, limit);
        stretch = { start: 0, end: 0, text: "" };
      }
      const i = firstEndingAfter(long, from);
      if (i === long.length) return findCandidate(text, from);
      const longStart = long[i];
      if (from >= longStart) return from;
      // Search the short lines before the next long one, sliced once per stretch.
      if (stretch.end !== longStart || from < stretch.start) {
        stretch = { start: from, end: longStart, text: text.slice(from, longStart) };
      }
      const found = findCandidate(stretch.text, from - stretch.start);
      return found === -1 ? longStart : stretch.start + found;
    },
  };
}

/**
 * Start and next-line offsets of every line longer than `limit`, as a flat list of pairs.
 * The text is crossed `limit` units at a time: a `\n` within the next `limit` ends every line
 * before it short, so lines are not looked at one by one (a register header of the kernel has
 * three million short lines).
 */
export function longLines(text: string, limit: number): number[] {
  const spans: number[] = [];
  for (let at = 0; text.length - at > limit;) {
    const lf = text.lastIndexOf("\n", at + limit - 1);
    if (lf >= at) {
      at = lf + 1;
      continue;
    }
    const end = text.indexOf("\n", at + limit);
    const next = end === -1 ? text.length : end + 1;
    spans.push(at, next);
    at = next;
  }
  return spans;
}

/** Index (even) of the first long line that ends after `offset`, or the list's length. */
function firstEndingAfter(spans: number[], offset: number): number {
  let low = 0;
  let high = spans.length / 2;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (spans[mid * 2 + 1] > offset) high = mid;
    else low = mid + 1;
  }
  return low * 2;
}
