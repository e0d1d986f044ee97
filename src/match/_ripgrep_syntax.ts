/**
 * Regex spellings that ripgrep (Rust's regex crate) reads and JavaScript's `u` mode refuses,
 * rewritten to JavaScript's for the same meaning: a lone `]` or `}` (`^}`, `arr\[0]`), a `]`
 * first in a class (`[]a]`), POSIX classes (`[[:alpha:]]`, ASCII as in ripgrep), the escaped
 * punctuation ripgrep 13 takes (`\#`, `\&`, `\~`, `\-`), `\x{…}`, `(?P<name>…)`, a one-letter
 * Unicode class (`\pL`), a script by its name alone (`\p{Greek}`), `\A` and `\z` (the line's
 * start and end: lines are matched one at a time), and a class that is one negated POSIX class
 * (`[[:^digit:]]`). Only a
 * pattern JavaScript refuses is rewritten, so none that it reads changes meaning; and one that
 * ripgrep refuses (`a{,2}`, `\<`) or means another way than JavaScript could be told (a nested
 * class, a class's `&&`, `--` or `~~`, an unknown POSIX class) is left refused.
 *
 * @module
 */

/** The POSIX classes, as ripgrep reads them (ASCII), for use inside a class. */
const POSIX: Record<string, string> = {
  alnum: "0-9A-Za-z",
  alpha: "A-Za-z",
  ascii: "\\x00-\\x7F",
  blank: "\\t ",
  cntrl: "\\x00-\\x1F\\x7F",
  digit: "0-9",
  graph: "!-~",
  lower: "a-z",
  print: " -~",
  punct: "!-\\/:-@\\[-`{-~",
  space: "\\t\\n\\v\\f\\r ",
  upper: "A-Z",
  word: "0-9A-Za-z_",
  xdigit: "0-9A-Fa-f",
};

/**
 * Punctuation ripgrep 13 lets a backslash escape and JavaScript's `u` mode does not: the
 * character itself (ripgrep refuses any other escaped punctuation, and so does this).
 */
const ESCAPED_AS_ITSELF = new Set("#&~-");
/** A repetition: `{n}`, `{n,}` or `{n,m}`. */
const REPETITION = /^\{\d+(?:,\d*)?\}/;

/**
 * The pattern in JavaScript's spelling, or undefined when there is nothing to rewrite.
 *
 * @param pattern a regex as ripgrep reads it
 * @returns the rewritten source, or undefined
 * @example
 * ```ts
 * import { ripgrepSpelled } from "./_ripgrep_syntax.ts";
 * import assert from "node:assert/strict";
 * assert.equal(ripgrepSpelled("^}"), "^\\}");
 * assert.equal(ripgrepSpelled("[[:digit:]]+"), "[0-9]+");
 * ```
 */
export function ripgrepSpelled(pattern: string): string | undefined {
  let out = "";
  let inClass = false;
  let classStart = false; // at a class's first character (after `[` or `[^`)
  for (let at = 0; at < pattern.length; at++) {
    const char = pattern[at];
    const first = classStart;
    classStart = false;
    if (char === "\\") {
      const next = pattern[at + 1] ?? "";
      const hex = /^x\{([0-9A-Fa-f]{1,6})\}/.exec(pattern.slice(at + 1));
      const property = /^[pP](?:\{([^}]*)\}|([A-Za-z]))/.exec(pattern.slice(at + 1));
      if (hex !== null) {
        out += `\\u{${hex[1]}}`;
        at += hex[0].length;
      } else if (property !== null) {
        out += `\\${next}{${propertyName(property[1] ?? property[2])}}`;
        at += property[0].length;
      } else if ((next === "A" || next === "z") && !inClass) {
        out += next === "A" ? "^" : "$";
        at++;
      } else if (ESCAPED_AS_ITSELF.has(next) && !(inClass && next === "-")) {
        out += next; // (escaped punctuation: the character itself)
        at++;
      } else {
        out += char + next;
        at++;
      }
    } else if (inClass) {
      // (`&&`, `--` and `~~` are set operations in ripgrep's classes: no spelling here.)
      if (/^(?:&&|--|~~)/.test(pattern.slice(at, at + 2))) return undefined;
      const posix = /^\[:(\^?)([a-z]+):\]/.exec(pattern.slice(at));
      if (char === "]" && first) out += "\\]";
      else if (char === "]") {
        out += char;
        inClass = false;
      } else if (char === "[") {
        // (A POSIX class; any other `[` in a class is a nested class to ripgrep, whose
        // meaning JavaScript has no spelling for here: the pattern is left refused.)
        const spelled = posix === null || !Object.hasOwn(POSIX, posix[2])
          ? undefined
          : POSIX[posix[2]];
        if (spelled === undefined) return undefined;
        if (posix![1] === "^") {
          // (Negated, it has a spelling where it is the whole class: the class negated.)
          if (!first || pattern[at + posix![0].length] !== "]") return undefined;
          out = out.endsWith("[^") ? out.slice(0, -1) : out + "^";
        }
        out += spelled;
        at += posix![0].length - 1;
      } else out += char;
    } else if (char === "[") {
      inClass = true;
      classStart = true;
      out += char;
      if (pattern[at + 1] === "^") {
        out += "^";
        at++;
        classStart = true;
      }
    } else if (char === "]" || char === "}") {
      out += "\\" + char;
    } else if (char === "{") {
      // (A repetition, copied whole; any other `{` ripgrep refuses, and so does this.)
      const repetition = REPETITION.exec(pattern.slice(at))?.[0];
      if (repetition === undefined) return undefined;
      out += repetition;
      at += repetition.length - 1;
    } else if (pattern.startsWith("(?P<", at)) {
      out += "(?<";
      at += 3;
    } else out += char;
  }
  return out === pattern ? undefined : out;
}

/**
 * A Unicode property's name as JavaScript reads it: a script by its name alone (`Greek`) is
 * `Script=Greek` there; any other name is left as it is (refused where JavaScript has none).
 */
function propertyName(name: string): string {
  const reads = (spelled: string) => {
    try {
      new RegExp(`\\p{${spelled}}`, "u");
      return true;
    } catch (error) {
      if (error instanceof SyntaxError) return false;
      throw error;
    }
  };
  return reads(name) || !reads(`Script=${name}`) ? name : `Script=${name}`;
}

/**
 * Whether a class of the pattern holds `&&`, `--` or `~~`: ripgrep's set operations
 * (intersection, difference, symmetric difference), which JavaScript's `u` mode reads as
 * characters (`[\\w&&\\d]` would match `&`), and has no spelling for here.
 *
 * @param pattern a regex as ripgrep reads it
 * @returns true when one does
 * @example
 * ```ts
 * import { holdsClassSetOperation } from "./_ripgrep_syntax.ts";
 * import assert from "node:assert/strict";
 * assert.equal(holdsClassSetOperation("[a-z&&[^aeiou]]"), true);
 * assert.equal(holdsClassSetOperation("a&&b|[a-c]"), false);
 * ```
 */
export function holdsClassSetOperation(pattern: string): boolean {
  let inClass = false;
  for (let at = 0; at < pattern.length; at++) {
    const char = pattern[at];
    if (char === "\\") at++;
    else if (!inClass && char === "[") {
      inClass = true;
      if (pattern[at + 1] === "^") at++;
      if (pattern[at + 1] === "]") at++; // (a `]` first is a member)
    } else if (inClass && char === "[" && /^\[:\^?[a-z]+:\]/.test(pattern.slice(at))) {
      at = pattern.indexOf(":]", at) + 1;
    } else if (inClass && char === "]") inClass = false;
    else if (inClass && /^(?:&&|--|~~)/.test(pattern.slice(at, at + 2))) return true;
  }
  return false;
}
