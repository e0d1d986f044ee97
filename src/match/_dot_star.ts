// Patterns made of a head, a top-level `.*` and a tail (`\bnull\b.*\bundefined\b`), matched in
// time linear in a line's length. The runtime's engine tries `.*` to the end of the line and
// back from every place the head matches: on minified lines, where the head is found hundreds
// of times and the tail only before it, that is the length times the occurrences. Where the
// head always matches the same number of characters, its first match ends first, so a line
// matches exactly when the tail matches somewhere after that end; the engine then runs once,
// on a line known to match, for the match's span.
import { type Matcher, regexMatcher } from "../core/mod.ts";

/** A pattern read as `head.*tail` (or `head.*?tail`). */
export interface DotStarParts {
  /** What comes before the `.*`: it always matches the same number of characters. */
  head: string;
  /** What comes after it (maybe nothing). */
  tail: string;
}

/**
 * The head and tail around a pattern's first top-level `.*`, when the pattern has no
 * top-level alternatives and no backreference (which would tie the tail to the head), and
 * the head is not empty and has no quantifier and no alternatives (so it always matches the
 * same number of characters); or undefined.
 *
 * @param pattern a valid JavaScript pattern
 * @returns its parts, or undefined
 */
export function dotStarParts(pattern: string): DotStarParts | undefined {
  if (/\\(?:[1-9]|k<)/.test(pattern)) return undefined;
  let split: DotStarParts | undefined;
  for (let at = 0; at < pattern.length; at++) {
    const char = pattern[at];
    if (char === "\\") at++;
    else if (char === "[" || char === "(") {
      at = closingOf(pattern, at) - 1;
      if (at < 0) return undefined;
    } else if (char === "|") return undefined;
    else if (char === "." && pattern[at + 1] === "*" && split === undefined) {
      const lazy = pattern[at + 2] === "?";
      split = { head: pattern.slice(0, at), tail: pattern.slice(at + (lazy ? 3 : 2)) };
      at += lazy ? 2 : 1;
    }
  }
  return split !== undefined && split.head !== "" && fixedLength(split.head) ? split : undefined;
}

/**
 * `native` (the whole pattern's matcher), with lines checked first by the head's first
 * match and the tail after it, and candidates found by the head alone.
 *
 * @param native the pattern's own matcher, which gives the span of a line that matches
 * @param parts the pattern's parts (see {@linkcode dotStarParts})
 * @param ignoreCase whether the pattern ignores case
 * @returns a matcher that matches the same lines with the same spans
 */
export function headFirst(native: Matcher, parts: DotStarParts, ignoreCase: boolean): Matcher {
  const head = regexMatcher(parts.head, { ignoreCase });
  const tail = new RegExp(parts.tail, ignoreCase ? "gisu" : "gsu");
  const { findCandidate: _, ...rest } = native;
  return {
    ...rest,
    matchLine(text) {
      const first = head.matchLine(text);
      if (first === null) return null;
      tail.lastIndex = first.end;
      return tail.exec(text) === null ? null : native.matchLine(text);
    },
    ...(head.findCandidate === undefined ? {} : { findCandidate: head.findCandidate }),
  };
}

/** The offset after the class or group that opens at `at`, or -1 when it is not closed. */
function closingOf(pattern: string, at: number): number {
  const close = pattern[at] === "[" ? "]" : ")";
  let depth = 0;
  for (let i = at; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === "\\") i++;
    else if (char === "[" && close === ")") i = closingOf(pattern, i) - 1;
    else if (char === pattern[at] && close === ")") depth++;
    else if (char === close && (close === "]" || --depth === 0)) return i + 1;
    if (i < 0) return -1;
  }
  return -1;
}

/**
 * Whether a pattern has no quantifier (`*`, `+`, `?`, `{…}`) and no `|` outside its classes
 * and escapes: then every match is the same number of characters (a class or an escape
 * matches one, an assertion none), and a match that starts later ends later.
 */
function fixedLength(pattern: string): boolean {
  for (let at = 0; at < pattern.length; at++) {
    const char = pattern[at];
    if (char === "\\") {
      // (`\p{…}`, `\u{…}`: their braces are not a quantifier.)
      if ("pPu".includes(pattern[at + 1]) && pattern[at + 2] === "{") {
        at = pattern.indexOf("}", at);
        if (at < 0) return false;
      } else at++;
    } else if (char === "[") {
      at = closingOf(pattern, at) - 1;
      if (at < 0) return false;
    } else if (char === "(" && pattern[at + 1] === "?") at++; // (a group's `?:`, `?<name>`…)
    else if ("*+?{|".includes(char)) return false;
  }
  return true;
}
