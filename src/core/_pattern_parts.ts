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
  for (let at = 0; at < source.length;) {
    const one = plainAt(source, at);
    if (one === undefined) return undefined;
    spelled += one.char;
    at = one.next;
  }
  return exactIn(spelled) ? spelled : undefined;
}

/**
 * The string every match of a pattern starts with, at the start of its line: the plain
 * characters just after a leading `^` (`from ` of `^from \w+ import`), up to the first that
 * may be left out, and through the first that may repeat. Undefined when the pattern does
 * not start with `^`, has top-level alternatives, or spells nothing there.
 *
 * @param source the pattern
 * @returns the string, or undefined
 */
export function lineStartOf(source: string): string | undefined {
  if (!startsLines(source)) return undefined;
  let spelled = "";
  for (let at = 1; at < source.length;) {
    const one = plainAt(source, at);
    if (one === undefined) break;
    const after = source[one.next];
    if (after === "?" || after === "*" || after === "{") break;
    spelled += one.char;
    if (after === "+") break;
    at = one.next;
  }
  return exactIn(spelled) ? spelled : undefined;
}

/**
 * Whether every match of a pattern starts at the start of a line: it starts with `^`, and no
 * top-level alternative (which might not) follows.
 *
 * @param source the pattern
 * @returns true when it is anchored so
 */
export function startsLines(source: string): boolean {
  return source[0] === "^" && topLevelBranches(source) === undefined;
}

/**
 * The plain character at `at` (an escaped syntax character, or `\t`, stands for itself) and
 * the offset after it; undefined for anything else.
 */
function plainAt(source: string, at: number): { char: string; next: number } | undefined {
  const char = source[at];
  if (char === "\\") {
    const next = source[at + 1];
    if (next === "t") return { char: "\t", next: at + 2 };
    return next !== undefined && SYNTAX_CHARACTERS.includes(next)
      ? { char: next, next: at + 2 }
      : undefined;
  }
  if ("^$.*+?()[]{}|".includes(char)) return undefined;
  const whole = String.fromCodePoint(source.codePointAt(at)!); // (an astral one's two halves)
  return { char: whole, next: at + whole.length };
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
 * The pattern inside the groups that wrap the whole of it (`(TODO|FIXME)`, `(?:a|b)`, a
 * named one; up to {@linkcode MAX_GROUP_DEPTH} of them), which matches exactly what the
 * pattern matches; the pattern itself when no group wraps it.
 *
 * @param source the pattern
 * @returns what the groups hold
 */
export function unwrappedGroups(source: string): string {
  for (let depth = 0; depth < MAX_GROUP_DEPTH; depth++) {
    const open = groupOpening(source, 0);
    if (open === 0 || skipGroup(source, open) !== source.length) return source;
    source = source.slice(open, -1);
  }
  return source;
}

/**
 * How deep in groups a pattern is read for its literals: each level reads what it holds
 * again, and 20,000 nested groups took a second.
 */
export const MAX_GROUP_DEPTH = 4;

/**
 * The length of the opening of a plain group at `at` (`(`, `(?:`, `(?<name>`), whose content
 * is part of the match under the pattern's own flags; 0 for anything else there (a
 * lookaround, a group with modifiers, no group).
 *
 * @param source the pattern
 * @param at where a `(` may stand
 * @returns the opening's length, or 0
 */
export function groupOpening(source: string, at: number): number {
  if (source[at] !== "(") return 0;
  if (source[at + 1] !== "?") return 1;
  if (source[at + 2] === ":") return 3;
  const named = /^\(\?<[\p{ID_Start}$_][\p{ID_Continue}$\u200C\u200D]*>/u.exec(
    source.slice(at, at + 256),
  );
  return named === null ? 0 : named[0].length;
}

/**
 * Whether what stands at `at` (just after an atom) makes the atom optional: `?`, `*`, or
 * `{0…}`.
 *
 * @param source the pattern
 * @param at the offset after the atom
 * @returns true when the atom may be matched zero times
 */
export function optionalAt(source: string, at: number): boolean {
  const next = source[at];
  return next === "?" || next === "*" ||
    (next === "{" && /^\{0+(?:,\d*)?\}/.test(source.slice(at, at + 32)));
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

/**
 * The most characters of a class that {@linkcode classesAsGroups} writes as alternatives:
 * the ten digits (`v[0-9]+` looks for `v0` … `v9`, where `v` alone is in most lines).
 */
const MOST_CLASS_CHARACTERS = 10;

/**
 * The pattern with each small class of plain characters or ranges written as a group of
 * alternatives, which matches the same (`[Uu]se` as `(?:U|u)se`; `[.]` as `\.`; `[0-9]` and
 * `\d` as `(?:0|1|…|9)`), for reading its literals: the characters around the class then join
 * each of its own (`Use`, `use`, where `se` alone is in most files). A class with an escape or
 * a negation is left as it is.
 *
 * @param source the pattern
 * @returns the pattern to read literals from (not to compile)
 */
export function classesAsGroups(source: string): string {
  let written = "";
  for (let at = 0; at < source.length; at++) {
    const char = source[at];
    if (char === "\\") {
      written += source[at + 1] === "d" ? alternativesOf(DIGITS) : source.slice(at, at + 2);
      at++;
    } else if (char !== "[") written += char;
    else {
      const end = skipClass(source, at + 1);
      if (end === -1) return source;
      const chars = classCharacters(source.slice(at + 1, end - 1));
      written += chars === undefined ? source.slice(at, end) : alternativesOf(chars);
      at = end - 1;
    }
  }
  return written;
}

const DIGITS = [..."0123456789"];

/**
 * The characters a class's content stands for, when it is plain characters and ranges of at
 * most {@linkcode MOST_CLASS_CHARACTERS} in all; otherwise undefined.
 */
function classCharacters(inner: string): string[] | undefined {
  if (inner === "" || /[\\\]\[^]/.test(inner)) return undefined;
  const chars = new Set<string>();
  const units = [...inner];
  for (let i = 0; i < units.length; i++) {
    if (units[i + 1] === "-" && i + 2 < units.length) {
      const [from, to] = [units[i].codePointAt(0)!, units[i + 2].codePointAt(0)!];
      if (to - from >= MOST_CLASS_CHARACTERS) return undefined;
      for (let code = from; code <= to; code++) chars.add(String.fromCodePoint(code));
      i += 2;
    } else chars.add(units[i]);
    if (chars.size > MOST_CLASS_CHARACTERS) return undefined;
  }
  return [...chars];
}

/** A group of alternatives, one per character (a single one as it is), escaped. */
function alternativesOf(chars: string[]): string {
  const escaped = chars.map((one) => SYNTAX_CHARACTERS.includes(one) ? `\\${one}` : one);
  return escaped.length === 1 ? escaped[0] : `(?:${escaped.join("|")})`;
}

/**
 * How many characters after a `\` an escape that stands for one atom takes (`x41`: 3,
 * `u{1F600}`: 8, `p{Lu}`: 5, `cJ`: 2, `k<name>`: 7, a backreference `12`: 2, `n`: 1), or
 * undefined for one not read here.
 *
 * @param source the pattern
 * @param at the offset just after the `\`
 */
export function escapeLength(source: string, at: number): number | undefined {
  const found = ESCAPES.exec(source.slice(at, at + MOST_ESCAPE));
  return found === null ? undefined : found[0].length;
}

/** The escapes {@linkcode escapeLength} reads, each whole (with the `u` flag). */
const ESCAPES =
  /^(?:x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|u\{[0-9a-fA-F]{1,6}\}|[pP]\{[\w=]+\}|c[a-zA-Z]|k<[^>]+>|[1-9]\d*|0(?!\d)|[nrfv])/;
/** The longest escape {@linkcode ESCAPES} reads, about (`p{Script_Extensions=…}`). */
const MOST_ESCAPE = 64;
