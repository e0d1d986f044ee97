// How many of a pattern's unbounded quantifiers multiply a backtracking engine's work on one
// line. `\s+\w+\s*=\s*require\(` holds four, but each gives way only to characters the next
// one cannot take: when `\w+` gives back a letter, `\s*=` fails on it at once. Such
// quantifiers add their costs, and the pattern backtracks as `\w+=` does, not as `.*.*.*.*=`.
import {
  escapeLength,
  groupOpening,
  skipClass,
  skipGroup,
  startsLines,
} from "../core/_pattern_parts.ts";
import { unboundedQuantifiers } from "./_pattern_risk.ts";

/**
 * How many unbounded quantifiers of `pattern` multiply one another's backtracking: the
 * longest chain of them in which each one's characters may also start what follows it. A
 * quantifier gives back its characters one at a time, and what follows fails at once on
 * each unless it may start with that character; only then does it run again each time.
 * None at all when no required atom follows any of them, and no anchor or word boundary
 * (`new Promise\(\s*`): such a match is never given back; nor when the pattern starts with
 * a fixed character that none of them takes and they chain no further (`import\s*\{`): a
 * character is then run through from a bounded number of starts. One less when every match
 * starts at a line's start (`^\s*function\s+\w+`): the engine tries one start a line.
 * Patterns that are not a plain sequence (a repeated group, a backreference, a lookaround),
 * and those over 512 characters, count every unbounded quantifier, as
 * {@linkcode unboundedQuantifiers} does.
 *
 * @param pattern the pattern (flags `u` and `s`)
 * @param ignoreCase whether the pattern ignores case
 * @returns the count: length^(count + 1) steps bound one line's cost
 * @example
 * ```ts
 * import { multipliedQuantifiers } from "./_quantifier_chains.ts";
 * import assert from "node:assert/strict";
 * assert.equal(multipliedQuantifiers("\\s+\\w+\\s*=\\s*require\\(", false), 1);
 * assert.equal(multipliedQuantifiers("\\w+\\s*\\w+;", false), 2);
 * assert.equal(multipliedQuantifiers("(\\w+;)+", false), 2);
 * assert.equal(multipliedQuantifiers("new Promise\\(\\s*", false), 0);
 * ```
 */
export function multipliedQuantifiers(pattern: string, ignoreCase: boolean): number {
  const all = unboundedQuantifiers(pattern);
  // (A long pattern is not read, as its atoms are each tried on every character: an
  // 8,000-character literal took 240 ms.)
  if (all === 0 || pattern.length > MOST_READ) return all;
  const flags = ignoreCase ? "isu" : "su";
  const sequences = sequencesOf(pattern, flags);
  if (sequences === undefined) return all;
  if (!ASSERTION.test(pattern) && sequences.every(nothingRequiredAfter)) return 0;
  if (!ASSERTION.test(pattern.replace(LEADING_ASSERTIONS, "")) && sequences.every(startsApart)) {
    return 0;
  }
  const chain = all === 1 ? 1 : Math.max(...sequences.map(chained));
  // (Tried at a line's start alone, the pattern costs a line one start's work: a power less.)
  return startsLines(pattern) ? chain - 1 : chain;
}

/**
 * Whether no required atom follows an unbounded one: the engine then fails at a start only
 * within the bounded atoms before the first unbounded one, and once there it matches, its
 * runs taken whole and nothing after them to fail (`new Promise\(\s*`, `Symbol\.async\w*`):
 * a line costs it what its length does, whatever the quantifiers.
 */
function nothingRequiredAfter(atoms: Atom[]): boolean {
  let unbounded = false;
  for (const atom of atoms) {
    if (unbounded && atom.required) return false;
    unbounded ||= atom.unbounded;
  }
  return true;
}

/**
 * Whether a start costs the engine no more than the characters no other start reaches: the
 * pattern starts with a required atom of bounded repeats, whose characters no unbounded atom
 * takes, and no two of its unbounded atoms multiply (`Object\.defineProperty\(\s*exports`,
 * `\bkmalloc_array\s*\(`). A start where the atoms before the first unbounded one do not
 * match fails within them; from one where they do, the engine runs through runs that hold
 * no other such start, each given back at once, so that a character is run through from a
 * bounded number of starts, and a line costs what its length does.
 */
function startsApart(atoms: Atom[]): boolean {
  const first = atoms[0];
  if (first === undefined || !first.required || first.unbounded || chained(atoms) > 1) {
    return false;
  }
  return atoms.every((atom) => !atom.unbounded || !overlaps(atom.chars, first.chars));
}

/** Anchors and word boundaries that start a pattern: they only tell which starts are tried. */
const LEADING_ASSERTIONS = /^(?:\^|\\[bB])+/;

/**
 * An anchor or a word boundary, which {@linkcode sequencesOf} leaves out: after a run, one
 * may fail and send the engine back through it (`a\s*$`). (Read loosely: `[$]` or `\\b`
 * counts too, and such a pattern is only counted as before.)
 */
const ASSERTION = /[$^]|\\[bB]/;

/** The longest pattern {@linkcode multipliedQuantifiers} reads (agents write far shorter). */
const MOST_READ = 512;

/** One character-wide piece of a pattern, with how often it repeats. */
interface Atom {
  /** The characters it matches. */
  chars: CharSet;
  /** Whether it must match at least once. */
  required: boolean;
  /** Whether it repeats without a small bound (`*`, `+`, `{n,}`, `{n,m}` with m > 16). */
  unbounded: boolean;
}

/**
 * Which of the {@linkcode TRIED} characters a piece matches, and whether it may match any
 * other.
 */
interface CharSet {
  tried: boolean[];
  others: boolean;
}

/**
 * The characters tried one by one: ASCII, the other characters `\s` matches, and the two
 * that case folding matches with ASCII letters (the long s and the Kelvin sign).
 */
const TRIED = [
  ...Array.from({ length: 128 }, (_, code) => String.fromCharCode(code)),
  ..."\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a",
  ..."\u2028\u2029\u202f\u205f\u3000\ufeff\u017f\u212a",
];

/**
 * The longest chain, reading from the end: an unbounded atom joins the chain that follows it
 * when what follows may start with one of its characters.
 */
function chained(atoms: Atom[]): number {
  let longest = 0; // starting at the atom looked at, or after it
  for (let i = atoms.length - 1; i >= 0; i--) {
    if (!atoms[i].unbounded) continue;
    longest = overlaps(atoms[i].chars, startsOf(atoms, i + 1)) ? longest + 1 : Math.max(longest, 1);
  }
  return longest;
}

/** The characters what starts at atom `from` may start with: up to its first required atom. */
function startsOf(atoms: Atom[], from: number): CharSet {
  const after = atoms.slice(from);
  const end = after.findIndex((atom) => atom.required);
  return unionOf(after.slice(0, end === -1 ? after.length : end + 1).map((atom) => atom.chars));
}

function overlaps(a: CharSet, b: CharSet): boolean {
  return (a.others && b.others) || a.tried.some((has, i) => has && b.tried[i]);
}

/**
 * Each sequence of atoms the pattern may take (anchors and `\b` left out: they take no
 * character): its top-level alternatives, each group's alternatives spliced in, with an empty
 * one for an optional group. The engine tries them all, so it costs as their worst. Undefined
 * when a group repeats (its atoms may trade characters), or past {@linkcode MOST_SEQUENCES}.
 */
function sequencesOf(pattern: string, flags: string): Atom[][] | undefined {
  const sequences: Atom[][] = [];
  let branch: Atom[][] = [[]]; // the sequences of the alternative being read
  for (let at = 0; at < pattern.length;) {
    const char = pattern[at];
    if (char === "|") {
      sequences.push(...branch);
      branch = [[]];
      at++;
      continue;
    }
    if (char === "^" || char === "$" || (char === "\\" && /[bB]/.test(pattern[at + 1] ?? ""))) {
      at += char === "\\" ? 2 : 1;
      continue;
    }
    const end = atomEnd(pattern, at);
    if (end === undefined) return undefined;
    const repeat = repeatAt(pattern, end);
    let options: Atom[][];
    if (char === "(") {
      const inner = sequencesOf(pattern.slice(at + groupOpening(pattern, at), end - 1), flags);
      if (inner === undefined || repeat.most > 1) return undefined;
      options = repeat.least > 0 ? inner : [...inner, []];
    } else {
      const chars = charsOf(pattern.slice(at, end), flags);
      if (chars === undefined) return undefined;
      options = [[{ chars, required: repeat.least > 0, unbounded: repeat.unbounded }]];
    }
    branch = branch.flatMap((sequence) => options.map((option) => [...sequence, ...option]));
    if (sequences.length + branch.length > MOST_SEQUENCES) return undefined;
    at = end + repeat.length;
  }
  return [...sequences, ...branch];
}

/** The most sequences {@linkcode sequencesOf} spells out (`(a|b)(c|d)…` doubles them). */
const MOST_SEQUENCES = 64;

/**
 * The quantifier at `at` (`*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`, lazy or not): its length, the
 * fewest and most repeats, and whether it counts as unbounded (as for
 * {@linkcode unboundedQuantifiers}: `*`, `+`, `{n,}`, `{n,m}` with m > 16). None: length 0.
 */
function repeatAt(pattern: string, at: number) {
  const found = QUANTIFIER.exec(pattern.slice(at, at + 24));
  if (found === null) return { length: 0, least: 1, most: 1, unbounded: false };
  const [text, symbol, exactly, from, to] = found;
  const [least, most] = symbol === "*"
    ? [0, Infinity]
    : symbol === "+"
    ? [1, Infinity]
    : symbol === "?"
    ? [0, 1]
    : exactly !== undefined
    ? [+exactly, +exactly]
    : [+from, to === "" ? Infinity : +to];
  const unbounded = symbol === "*" || symbol === "+" || (from !== undefined && most > 16);
  return { length: text.length, least, most, unbounded };
}

/** A quantifier, lazy or not. */
const QUANTIFIER = /^(?:([*+?])|\{(\d+)\}|\{(\d+),(\d*)\})\??/;

function unionOf(sets: CharSet[]): CharSet {
  const union: CharSet = { tried: new Array(TRIED.length).fill(false), others: false };
  for (const { tried, others } of sets) {
    for (let i = 0; i < TRIED.length; i++) union.tried[i] ||= tried[i];
    union.others ||= others;
  }
  return union;
}

/** The offset after the atom at `at`, or undefined for one not read here. */
function atomEnd(pattern: string, at: number): number | undefined {
  const char = pattern[at];
  if (char === "[") return positive(skipClass(pattern, at + 1));
  if (char === "(") {
    return groupOpening(pattern, at) === 0 ? undefined : positive(skipGroup(pattern, at + 1));
  }
  if (char === "\\") {
    const next = pattern[at + 1] ?? "";
    // (Backreferences name no characters of their own.)
    if (/[1-9k]/.test(next)) return undefined;
    return /[a-zA-Z0-9]/.test(next) ? at + 1 + (escapeLength(pattern, at + 1) ?? 1) : at + 2;
  }
  return /[*+?{})\]]/.test(char) ? undefined : at + (char.codePointAt(0)! > 0xffff ? 2 : 1);
}

function positive(end: number): number | undefined {
  return end === -1 ? undefined : end;
}

/**
 * What one character, escape or class matches: each of the {@linkcode TRIED} characters
 * tried, and others assumed unless the atom is plainly made of ASCII characters and ranges,
 * `\s`, `\w` and `\d` (whose others, and those of case folding, are all tried).
 */
function charsOf(atom: string, flags: string): CharSet | undefined {
  let one: RegExp;
  try {
    one = new RegExp(`^(?:${atom})$`, flags);
  } catch {
    return undefined;
  }
  const tried = TRIED.map((char) => one.test(char));
  return { tried, others: /[^\p{ASCII}]|\\[SWDpPuxc]|^\.$|^\[\^/u.test(atom) };
}
