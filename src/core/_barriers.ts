/**
 * The ASCII characters no match of a pattern can hold, read from its source (flags `u`, `s`,
 * and `i` when case is ignored) without compiling it. Where a long line holds the pattern's required literal,
 * every match lies in the stretch around an occurrence that holds none of them, so only that
 * stretch need be decoded and matched (`Matcher.stretch`).
 *
 * @module
 */

const ASCII = 128;
/** What `\s` matches in ASCII. */
const SPACES = "\t\n\v\f\r ";
/** What `\w` matches (ASCII only, as with the `u` flag and case kept). */
const WORD = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_";
/** The escapes of one character outside a class: the character itself. */
const PLAIN_ESCAPES: Record<string, string> = { t: "\t", n: "\n", r: "\r", v: "\v", f: "\f" };
/** The characters an escape makes plain. */
const SYNTAX = "\\^$.*+?()[]{}|/-";

/**
 * The ASCII characters no match of the pattern can hold, when that can be told from its
 * source: the pattern is made of characters, escapes of one character, `\d`, `\w`, `\s`, classes
 * of these (not negated), groups, alternatives, quantifiers and `\b`/`\B`. Anything that may
 * match any character (`.`, `\S`, a negated class), look at characters outside its match (`^`,
 * `$`, lookarounds) or that is not read here (backreferences, `\p{…}`, `\x41`) gives undefined.
 * `\b` and `\B` look one character outside the match: the stretch keeps one either side.
 * Ignoring case, a letter stands for both of its cases, and a pattern with a character beyond
 * ASCII gives undefined (Unicode case folding matches `k` with the Kelvin sign, `s` with the
 * long s, and so on).
 *
 * @param source the pattern (compiled with flags `us`, and `i` when `ignoreCase`)
 * @param ignoreCase whether case is ignored
 * @returns the characters, or undefined when unknown or none
 * @example
 * ```ts
 * import { barriersOf } from "./_barriers.ts";
 * import assert from "node:assert/strict";
 * assert.ok(barriersOf("new Promise\\(\\s*")!.includes(";"));
 * assert.equal(barriersOf("import .* from"), undefined);
 * ```
 */
export function barriersOf(source: string, ignoreCase = false): string | undefined {
  if (ignoreCase && /[^\0-\x7f]/.test(source)) return undefined;
  const held = new Uint8Array(ASCII);
  const hold = (chars: string) => {
    for (const char of ignoreCase ? chars.toLowerCase() + chars.toUpperCase() : chars) {
      const code = char.charCodeAt(0);
      if (code < ASCII) held[code] = 1;
    }
  };
  for (let at = 0; at < source.length; at++) {
    const char = source[at];
    if (char === "\\") {
      const chars = escaped(source[++at]);
      if (chars === undefined) return undefined;
      hold(chars);
    } else if (char === "[") {
      const end = classEnd(source, at, hold);
      if (end === undefined) return undefined;
      at = end;
    } else if (char === "(") {
      if (source[at + 1] !== "?") continue;
      if (source[at + 2] === ":") at += 2;
      else if (source[at + 2] === "<" && /^[\p{L}_$]/u.test(source[at + 3] ?? "")) {
        at = source.indexOf(">", at); // a named group: its name is no part of a match
        if (at === -1) return undefined;
      } else return undefined; // a lookaround, or what is not read here
    } else if (char === "{") {
      const quantifier = /^\{\d+(,\d*)?\}/.exec(source.slice(at));
      if (quantifier === null) return undefined;
      at += quantifier[0].length - 1;
    } else if (char === "." || char === "^" || char === "$") return undefined;
    else if (!")|*+?".includes(char)) hold(char);
  }
  let barriers = "";
  for (let code = 0; code < ASCII; code++) {
    if (held[code] === 0 && code !== 10) barriers += String.fromCharCode(code);
  }
  return barriers === "" ? undefined : barriers;
}

/**
 * What an escape outside a class may match: its characters ("" for `\b`, `\B`), or
 * undefined when it is not read here.
 */
function escaped(next: string | undefined): string | undefined {
  if (next === undefined) return undefined;
  if (next === "b" || next === "B") return "";
  return classEscape(next);
}

/** What an escape may match inside a class or outside it (`\b` aside): undefined if unknown. */
function classEscape(next: string | undefined): string | undefined {
  if (next === undefined) return undefined;
  if (next === "d") return "0123456789";
  if (next === "w") return WORD;
  if (next === "s") return SPACES;
  if (next in PLAIN_ESCAPES) return PLAIN_ESCAPES[next];
  return SYNTAX.includes(next) ? next : undefined;
}

/**
 * Reads the class starting at `at` (not negated), passing what it may match to `hold`.
 *
 * @returns where its `]` is, or undefined when it cannot be read here
 */
function classEnd(source: string, at: number, hold: (chars: string) => void): number | undefined {
  if (source[at + 1] === "^") return undefined;
  // Each member: one character, or a range of two, or an escape of a set.
  let previous: string | undefined; // the last single character, which a `-` may follow
  for (let i = at + 1; i < source.length; i++) {
    const char = source[i];
    if (char === "]") return i;
    let single: string | undefined;
    if (char === "\\") {
      const chars = classEscape(source[++i]);
      if (chars === undefined) return undefined;
      if (chars.length !== 1) {
        hold(chars);
        previous = undefined;
        continue;
      }
      single = chars;
    } else if (char === "-" && previous !== undefined && source[i + 1] !== "]") {
      let last = source[++i];
      if (last === "\\") {
        last = classEscape(source[++i]) ?? "";
        if (last.length !== 1) return undefined;
      }
      // (Of a range past ASCII, only its ASCII part is held: the rest are no barriers.)
      const to = Math.min(last.charCodeAt(0), ASCII - 1);
      for (let code = previous.charCodeAt(0); code <= to; code++) hold(String.fromCharCode(code));
      previous = undefined;
      continue;
    } else single = char;
    hold(single);
    previous = single;
  }
  return undefined;
}
