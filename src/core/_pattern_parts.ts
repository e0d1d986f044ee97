/**
 * Reading a pattern's source (flags `u`, `s`) without compiling it: its top-level
 * alternatives, and the string a part of it spells. The matchers' literals and the
 * word-list matcher are built on these.
 *
 * @module
 */

/** The characters an escape makes plain (`\(` spells `(`). */
export const SYNTAX_CHARACTERS = "\\^$.*+?()[]{}|/-";

/**
 * The string a pattern spells when it is nothing but plain characters and escaped syntax
 * characters (`createElement\(`), so that its matches are exactly that string; otherwise
 * (or when it spells nothing) undefined.
 *
 * @param source the pattern
 * @returns the string, or undefined
 */
export function spelledLiteralOf(source: string): string | undefined {
  let spelled = "";
  for (let at = 0; at < source.length; at++) {
    const char = source[at];
    if (char === "\\") {
      const next = source[++at];
      if (next === "t") spelled += "\t";
      else if (next !== undefined && SYNTAX_CHARACTERS.includes(next)) spelled += next;
      else return undefined;
    } else if ("^$.*+?()[]{}|".includes(char)) return undefined;
    else spelled += char;
  }
  return exactIn(spelled) ? spelled : undefined;
}

/**
 * The strings a pattern's top-level alternatives spell, in order, when each spells one.
 *
 * @param source the pattern
 * @param most the most alternatives wanted (see {@linkcode topLevelBranches})
 * @returns one string per alternative, or undefined
 */
export function spelledBranchesOf(source: string, most = Infinity): string[] | undefined {
  const spelled = topLevelBranches(source, most)?.map(spelledLiteralOf);
  return spelled?.every((one) => one !== undefined) ? spelled as string[] : undefined;
}

/**
 * Whether a string's occurrences in a text's bytes are the matches of it: not empty, no line
 * break (a `\r` before a `\n` is no part of a line's text), no lone surrogate (UTF-8 has
 * none).
 *
 * @param literal the string
 * @returns true when its occurrences are its matches
 */
export function exactIn(literal: string): boolean {
  return literal !== "" && !/[\r\n]|\p{Cs}/u.test(literal);
}

/**
 * The top-level alternatives of a pattern, when it has two or more and at most `most`.
 *
 * @param source the pattern
 * @param most the most alternatives wanted (past it, the rest is not split)
 * @returns the alternatives' sources in order, or undefined
 */
export function topLevelBranches(source: string, most = Infinity): string[] | undefined {
  const branches: string[] = [];
  let from = 0;
  for (let at = 0; at < source.length; at++) {
    const char = source[at];
    if (char === "\\") at++;
    else if (char === "[" || char === "(") {
      at = (char === "[" ? skipClass : skipGroup)(source, at + 1) - 1;
      if (at < 0) return undefined;
    } else if (char === "|") {
      if (branches.length === most - 1) return undefined;
      branches.push(source.slice(from, at));
      from = at + 1;
    }
  }
  if (branches.length === 0) return undefined;
  branches.push(source.slice(from));
  return branches;
}

/**
 * The offset after the `]` closing a class whose `[` is just before `at`, or -1.
 *
 * @param source the pattern
 * @param at the offset just after the `[`
 * @returns the offset after the `]`, or -1
 */
export function skipClass(source: string, at: number): number {
  for (; at < source.length; at++) {
    if (source[at] === "\\") at++;
    else if (source[at] === "]") return at + 1;
  }
  return -1;
}

/**
 * The offset after the `)` closing a group whose `(` is just before `at`, or -1.
 *
 * @param source the pattern
 * @param at the offset just after the `(`
 * @returns the offset after the `)`, or -1
 */
export function skipGroup(source: string, at: number): number {
  let depth = 1;
  for (; at < source.length; at++) {
    const char = source[at];
    if (char === "\\") at++;
    else if (char === "[") {
      at = skipClass(source, at + 1) - 1;
      if (at < 0) return -1;
    } else if (char === "(") depth++;
    else if (char === ")" && --depth === 0) return at + 1;
  }
  return -1;
}
