/**
 * A matcher for a pattern that is a long list of fixed strings (`alpha|beta|…`: a word list
 * pasted into a pattern). The runtime's engines handle thousands of alternatives badly: V8
 * takes milliseconds a line, JavaScriptCore a second to compile the pattern. Here each place
 * in a line is looked up in a map of the strings, once per length they come in, so the time
 * a character takes grows with the number of lengths, not of strings.
 *
 * @module
 */
import type { Matcher, MatchSpan } from "../core/mod.ts";
import { exactIn, spelledBranchesOf } from "../core/_pattern_parts.ts";

/** Lengths of strings past which the list is left to the runtime's engine. */
export const MOST_LENGTHS = 16;

/**
 * A matcher for a pattern of alternatives that each spell a string, matching as the pattern
 * does: the leftmost occurrence of any of them, the earlier alternative where two start at
 * the same place.
 *
 * @param source the pattern (case-sensitive, flags `u` and `s`)
 * @param native the runtime's matcher of it, whose literals and key are kept
 * @returns the matcher, or undefined when an alternative is no fixed string or the strings
 *   come in more than {@linkcode MOST_LENGTHS} lengths
 */
export function wordListMatcher(source: string, native: Matcher): Matcher | undefined {
  const words = wordsOf(source);
  if (words === undefined) return undefined;
  const lengths = [...new Set(words.map((word) => word.length))];
  if (lengths.length > MOST_LENGTHS) return undefined;
  lengths.sort((a, b) => a - b);
  // Each string: its first alternative's place. (Made at the first match, not here: the
  // thread that answers compiles a pattern to check it, and 60,000 strings take 20-40 ms.)
  let rank: Map<string, number> | undefined;
  /** The first match starting at or after `from`. */
  const first = (text: string, from: number): MatchSpan | null => {
    rank ??= rankOf(words);
    for (let at = from; at < text.length; at++) {
      let best: number | undefined;
      let end = at;
      for (const length of lengths) {
        if (at + length > text.length) break;
        const found = rank.get(text.slice(at, at + length));
        if (found !== undefined && (best === undefined || found < best)) {
          best = found;
          end = at + length;
        }
      }
      if (best !== undefined) return { start: at, end };
    }
    return null;
  };
  return {
    ...native,
    matchLine: (text) => first(text, 0),
    // (No string holds a line break, so none is found across two lines.)
    findCandidate: (text, from) => first(text, from)?.start ?? -1,
  };
}

/** The strings a pattern's alternatives spell, in order, when each spells one. */
function wordsOf(source: string): string[] | undefined {
  // (A list without escapes is split at once: read a character at a time, a list of 60,000
  // words took 50 ms, which the thread that answers would spend.)
  if (!/[\\^$.*+?()[\]{}]/.test(source)) {
    const words = source.split("|");
    return words.length > 1 && exactIn(source) && !words.includes("") ? words : undefined;
  }
  return spelledBranchesOf(source);
}

/** Each string of a list, with the place of its first occurrence. */
function rankOf(words: readonly string[]): Map<string, number> {
  const rank = new Map<string, number>();
  for (const word of words) if (!rank.has(word)) rank.set(word, rank.size);
  return rank;
}
