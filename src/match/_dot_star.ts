// Patterns made of heads and a tail joined by top-level `.*` or `.+` (`\bnull\b.*\bundefined\b`,
// `class .*extends .*Component`), matched in time linear in a line's length. The runtime's
// engine tries each `.*` to the end of the line and back from every place what precedes it
// matches: on minified lines, where a head is found hundreds of times, that is the length
// times the occurrences, for each `.*`. Where each head always matches the same number of
// characters, its first match ends first: a line matches exactly when each head matches
// after the first match of the one before, and the tail after the last. With greedy `.*` and
// a tail of fixed form, the match is then known without the engine: it starts at the first
// head's first match and ends where the tail matches at its last place.
import { type Matcher, type MatchSpan, regexMatcher } from "../core/mod.ts";
import { escapeLength, skipClass, skipGroup } from "../core/_pattern_parts.ts";
import { unboundedQuantifiers } from "./_pattern_risk.ts";
import { multipliedQuantifiers } from "./_quantifier_chains.ts";

/** A pattern read as `head.*head.*…tail`. */
export interface DotStarParts {
  /** What comes before each `.*`, in order: each always matches the same number of characters. */
  heads: string[];
  /** What comes after the last (maybe nothing). */
  tail: string;
  /** Whether every `.*` is greedy (none is `.*?` or `.+?`). */
  greedy: boolean;
}

/**
 * The heads and tail around a pattern's top-level `.*` (and `.*?`, `.+`, `.+?`), when the
 * pattern has no top-level alternatives and no backreference (which would tie one part to
 * another), and its first head is not empty. The heads end at the first part that may match
 * a varying number of characters (a quantifier, alternatives), which starts the tail.
 *
 * @param pattern a valid JavaScript pattern
 * @returns its parts, or undefined
 */
export function dotStarParts(pattern: string): DotStarParts | undefined {
  if (/\\(?:[1-9]|k<)/.test(pattern)) return undefined;
  const heads: string[] = [];
  let from = 0;
  let greedy = true;
  for (let at = 0; at < pattern.length; at++) {
    const char = pattern[at];
    if (char === "\\") at++;
    else if (char === "[" || char === "(") {
      at = (char === "[" ? skipClass : skipGroup)(pattern, at + 1) - 1;
      if (at < 0) return undefined;
    } else if (char === "|") return undefined;
    else if (
      char === "." && "*+".includes(pattern[at + 1]) && fixedLength(pattern.slice(from, at))
    ) {
      // (`.+` is `.` and `.*`: the head takes the `.`.)
      heads.push(pattern.slice(from, pattern[at + 1] === "+" ? at + 1 : at));
      const lazy = pattern[at + 2] === "?";
      greedy &&= !lazy;
      from = at + (lazy ? 3 : 2);
      at = from - 1;
    }
  }
  return heads.length > 0 && heads[0] !== ""
    ? { heads, tail: pattern.slice(from), greedy }
    : undefined;
}

/**
 * How many unbounded quantifiers that multiply one another's work (see
 * `multipliedQuantifiers`) the engine still meets on a line once {@linkcode headFirst} checked
 * it (see `nativeLineLimit`): none when the match is known without it; the tail's after one
 * `.*` (which then costs one pass); the whole pattern's otherwise.
 *
 * @param pattern the pattern
 * @param parts its parts, if it has them
 * @param ignoreCase whether the pattern ignores case
 * @returns the count
 */
export function quantifiersLeft(
  pattern: string,
  parts: DotStarParts | undefined,
  ignoreCase: boolean,
): number {
  if (parts === undefined) return multipliedQuantifiers(pattern, ignoreCase);
  if (knownSpan(parts)) return 0;
  return multipliedQuantifiers(parts.heads.length === 1 ? parts.tail : pattern, ignoreCase);
}

/**
 * `native` (the whole pattern's matcher), with each line checked first by the heads' first
 * matches in turn and the tail after them, and candidates found by the first head alone. The
 * engine then runs only on lines that match, for the span, unless the span is known (greedy
 * `.*` and a tail without an unbounded quantifier).
 *
 * @param native the pattern's own matcher
 * @param parts the pattern's parts (see {@linkcode dotStarParts})
 * @param ignoreCase whether the pattern ignores case
 * @returns a matcher that matches the same lines with the same spans
 */
export function headFirst(native: Matcher, parts: DotStarParts, ignoreCase: boolean): Matcher {
  const flags = ignoreCase ? "gisu" : "gsu";
  const heads = parts.heads.map((head) => new RegExp(head, flags));
  const tail = new RegExp(parts.tail, flags);
  // (Sticky: from where the heads end, its `[\s\S]*` goes to the end of the line and back to
  // the tail's last place, as the pattern's own greedy `.*` would.)
  const last = knownSpan(parts)
    ? new RegExp(`[\\s\\S]*(?:${parts.tail})`, ignoreCase ? "isuy" : "suy")
    : undefined;
  const first = regexMatcher(parts.heads[0], { ignoreCase });
  const { findCandidate: _, ...rest } = native;
  return {
    ...rest,
    matchLine(text) {
      let start = -1;
      let at = 0;
      for (const head of heads) {
        head.lastIndex = at;
        const found = head.exec(text);
        if (found === null) return null;
        // (V8 finds `\B` between the halves of a surrogate pair, where the whole pattern is
        // not tried: the engine settles such a line.)
        if (insidePair(text, found.index)) return native.matchLine(text);
        if (start === -1) start = found.index;
        at = found.index + found[0].length;
      }
      if (last === undefined) {
        tail.lastIndex = at;
        return tail.exec(text) === null ? null : native.matchLine(text);
      }
      last.lastIndex = at;
      const found = last.exec(text);
      return found === null ? null : { start, end: at + found[0].length } satisfies MatchSpan;
    },
    ...(first.findCandidate === undefined ? {} : { findCandidate: first.findCandidate }),
  };
}

/** Whether `at` falls between the two halves of a surrogate pair. */
function insidePair(text: string, at: number): boolean {
  const code = text.charCodeAt(at);
  const before = text.charCodeAt(at - 1);
  return code >= 0xdc00 && code <= 0xdfff && before >= 0xd800 && before <= 0xdbff;
}

/** Whether {@linkcode headFirst} knows a match without the engine. */
function knownSpan(parts: DotStarParts): boolean {
  return parts.greedy && unboundedQuantifiers(parts.tail) === 0;
}

/**
 * Whether a pattern has no quantifier (`*`, `+`, `?`, `{…}`) and no `|` outside its classes
 * and escapes: then every match is the same number of characters (a class or an escape
 * matches one, an assertion none), and a match that starts later ends later.
 */
function fixedLength(pattern: string): boolean {
  for (let at = 0; at < pattern.length; at++) {
    const char = pattern[at];
    // (The whole escape: the braces of `\p{…}` and `\u{…}` are not a quantifier.)
    if (char === "\\") at += escapeLength(pattern, at + 1) ?? 1;
    else if (char === "[") {
      at = skipClass(pattern, at + 1) - 1;
      if (at < 0) return false;
    } else if (char === "(" && pattern[at + 1] === "?") at++; // (a group's `?:`, `?<name>`…)
    else if ("*+?{|".includes(char)) return false;
  }
  return true;
}
