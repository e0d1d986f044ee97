/**
 * Matchers: what grep looks for. The scanner does not know the engine; a linear-time
 * regular-expression engine can be injected from outside the core by implementing
 * {@linkcode Matcher}.
 *
 * @module
 */
import { barriersOf } from "./_barriers.ts";
import {
  classesAsGroups,
  escapeLength,
  exactIn,
  groupOpening,
  lineStartOf,
  MAX_GROUP_DEPTH,
  optionalAt,
  skipClass,
  skipGroup,
  spelledBranchesOf,
  spelledLiteralOf,
  SYNTAX_CHARACTERS,
  topLevelBranches,
  unwrappedGroups,
} from "./_pattern_parts.ts";

/** Where a match lies in a line's text: UTF-16 offsets `[start, end)`. */
export interface MatchSpan {
  /** Offset of the match's first code unit. */
  start: number;
  /** Offset just past the match. */
  end: number;
}

/** Finds matches in one line's text (terminator excluded), with an optional fast path. */
export interface Matcher {
  /**
   * The first match in a line's text, which never contains its terminator: `^` and `$` are
   * the ends of that text, and a match never spans lines.
   */
  matchLine(text: string): MatchSpan | null;
  /**
   * Optional fast path: the offset of the next place at or after `from` in a multi-line
   * text where a line may match, or -1. It must never skip a line that `matchLine` would
   * match; it may stop at lines that do not (they are checked with `matchLine`).
   */
  findCandidate?(text: string, from: number): number;
  /**
   * A case-sensitive string every match contains, for byte-level prefilters; or undefined.
   * When there are several, the one likely to be rarest in source code.
   */
  readonly requiredLiteral?: string;
  /**
   * Every case-sensitive string found that each match contains (`requiredLiteral`, the
   * longest, among them), for filters that can test several at once; or undefined.
   */
  readonly requiredLiterals?: readonly string[];
  /**
   * When every match is exactly this case-sensitive string and every occurrence of it is a
   * match (a fixed string, or a pattern that spells one): the first occurrence in a line is
   * the line's match, so a search may find it in the bytes without decoding the line.
   */
  readonly exactLiteral?: string;
  /**
   * When the pattern is case-sensitive alternatives each of which spells a string, these
   * strings in the pattern's order (`TODO|FIXME`), and they are its `alternativeLiterals`:
   * every occurrence of one is a match, and a line's match is the leftmost occurrence, the
   * earlier alternative where two start at the same place. As with `exactLiteral`, a search
   * may find it in the bytes without decoding the line.
   */
  readonly exactAlternatives?: readonly string[];
  /**
   * Case-sensitive strings one of which each match contains, for byte-level prefilters when
   * no single string is required: one per top-level alternative of the pattern
   * (`TODO|FIXME`), or for a case-insensitive pattern the spellings of part of a required
   * literal (`nt(`, `Nt(`, … for `createElement(`); or undefined. An empty list rules
   * nothing out.
   */
  readonly alternativeLiterals?: readonly string[];
  /**
   * For a case-insensitive pattern, one per alternative literal (which spells part of a
   * required literal): that literal, or the stretch of it around the spelling, in lower case
   * and ASCII, which every match holding the spelling contains when ASCII letters are
   * compared without case, except in a text holding a Kelvin sign or a long s (Unicode case
   * folding matches them with `k` and `s`); a prefilter may check the bytes around an
   * alternative literal against it. Or undefined.
   */
  readonly foldedLiterals?: readonly string[];
  /**
   * When the pattern ignores case and spells an ASCII string (`-i createElement\(`): that
   * string in lower case, which is then every folded literal, each alternative literal lying
   * in it once. Every match is the string in some case (its `k` and `s` may also stand as a
   * Kelvin sign or a long s), and a line's match is the leftmost: in a line without those two
   * characters, a search may find it in the bytes, ASCII letters compared without case,
   * without decoding the line.
   */
  readonly exactFolded?: string;
  /**
   * For a regex that is more than its `requiredLiteral` (`new Promise\(\s*`), or than its
   * `alternativeLiterals` one of which each match holds: its source and flags, and the ASCII
   * characters none of its matches holds. Each match then lies in the stretch around an
   * occurrence of such a literal that holds none of them, and does not look past the
   * characters either side of it (no `^`, `$` or lookaround), so a search may decode and
   * match only that stretch of a long line, if it is at most `most` UTF-16 units long (a
   * longer one is matched as its line is). Undefined when unknown.
   */
  readonly stretch?: {
    readonly source: string;
    readonly flags: string;
    readonly barriers: string;
    readonly most?: number;
  };
  /**
   * A case-sensitive string every match starts with, at the start of its line (`from ` of
   * `^from \w+ import`): a text none of whose lines starts with it holds no match. Or
   * undefined.
   */
  readonly lineStart?: string;
  /**
   * Names what the matcher matches: two matchers with the same key match the same lines,
   * so results may be kept under it (a search cache). Undefined when unknown.
   */
  readonly key?: string;
  /**
   * For a pattern that may run without end on some line (lookarounds and backreferences
   * have no linear-time engine): a scan that runs where it can be stopped, another process
   * or thread. Searches use it instead of scanning here, so that such a pattern can neither
   * outlive its time budget nor hold up the thread that answers requests.
   */
  readonly stoppable?: StoppableScan;
  /**
   * How to make this matcher again where it cannot be sent (another thread): the pattern
   * and the options it was compiled from. Undefined for a matcher made by hand, which is
   * then only used where it was made.
   */
  readonly recipe?: MatcherRecipe;
}

/** A scan run somewhere it can be stopped (see {@linkcode Matcher.stoppable}). */
export interface StoppableScan {
  /**
   * The rows of a text (as `scanText` reports them: line, text, and the match for a
   * matching line), with `context` lines around matches, up to `maxMatches` matching lines.
   *
   * @param text whole lines
   * @param options context lines, the most matching lines wanted, and whether a U+FEFF
   *   starting the text is the BOM (as `scanText` takes them)
   * @param stop when to give up: at the deadline (rejecting with
   *   {@linkcode PatternStoppedError}) or when the signal is aborted (with its reason)
   * @returns the rows, in line order
   */
  scan(
    text: string,
    options: { context: number; maxMatches: number; bom?: boolean },
    stop: { deadline?: number; signal?: AbortSignal },
  ): Promise<Array<{ line: number; text: string; match?: MatchSpan }>>;
}

/** A stoppable scan was stopped at its deadline: the pattern had not finished. */
export class PatternStoppedError extends Error {
  /**
   * Makes the error.
   *
   * @param message what was stopped
   */
  constructor(message = "the pattern was stopped at the time budget") {
    super(message);
    this.name = "PatternStoppedError";
  }
}

/** What a matcher was compiled from (see {@linkcode Matcher.recipe}). */
export interface MatcherRecipe {
  /** The pattern as the user gave it. */
  pattern: string;
  /** Whether it is a fixed string. */
  literal: boolean;
  /** Whether case is ignored. */
  ignoreCase: boolean;
}

/** Options of the built-in matchers. */
export interface MatcherOptions {
  /**
   * Match regardless of case (Unicode case folding).
   * @default false
   */
  ignoreCase?: boolean;
}

/**
 * A matcher for a fixed string.
 *
 * @param needle the string to find; "" matches every line
 * @param options case handling
 * @returns the matcher
 * @example
 * ```ts
 * import { literalMatcher } from "./matcher.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(literalMatcher("a.b").matchLine("xa.b"), { start: 1, end: 4 });
 * assert.equal(literalMatcher("A", { ignoreCase: true }).matchLine("a")?.start, 0);
 * ```
 */
export function literalMatcher(needle: string, options: MatcherOptions = {}): Matcher {
  if (options.ignoreCase) return regexMatcher(escapeRegExp(needle), options);
  if (needle.includes("\n")) return { matchLine: () => null, findCandidate: () => -1 };
  return {
    key: `literal:${needle}`,
    requiredLiteral: needle,
    requiredLiterals: [needle],
    ...(exactIn(needle) ? { exactLiteral: needle } : {}),
    matchLine(text) {
      const start = text.indexOf(needle);
      return start === -1 ? null : { start, end: start + needle.length };
    },
    findCandidate: (text, from) => text.indexOf(needle, from),
  };
}

/**
 * A matcher for a JavaScript regular expression, compiled with the `u` and `s` flags (and
 * `i` for `ignoreCase`) and applied to each line's text. This is the runtime's own
 * backtracking engine: screen patterns at risk of catastrophic backtracking before using it.
 *
 * @param source the pattern, without slashes or flags
 * @param options case handling
 * @returns the matcher
 * @throws {SyntaxError} when the pattern is not a valid regular expression
 * @example
 * ```ts
 * import { regexMatcher } from "./matcher.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(regexMatcher("x$").matchLine("ax"), { start: 1, end: 2 });
 * ```
 */
export function regexMatcher(source: string, options: MatcherOptions = {}): Matcher {
  const flags = options.ignoreCase ? "usi" : "us";
  const line = new RegExp(source, flags);
  const matchLine = (text: string): MatchSpan | null => {
    const found = line.exec(text);
    return found ? { start: found.index, end: found.index + found[0].length } : null;
  };
  // (The literals are read inside groups that wrap the whole pattern: it matches as they do.)
  const inner = unwrappedGroups(source);
  // (Case-sensitive literals are read with small classes as groups: `[Uu]se`, `Use` or `use`.)
  const parts = options.ignoreCase ? inner : classesAsGroups(inner);
  const read = options.ignoreCase ? undefined : requiredLiteralsOf(parts);
  const grouped = options.ignoreCase ? undefined : groupedInstead(read, parts);
  const requiredLiterals = grouped === undefined ? read : undefined;
  const requiredLiteral = requiredLiterals?.reduce(rarest);
  const spelled = options.ignoreCase
    ? caseVariantsOf(requiredLiteralsOf(inner)) ?? alternativeSpellingsOf(inner) ??
      joinedSpellingsOf(inner)
    : undefined;
  const alternativeLiterals = spelled?.variants ?? grouped ??
    (requiredLiterals || options.ignoreCase ? undefined : alternativeLiteralsOf(parts));
  const key = `regex:${flags}:${source}`;
  const exactLiteral = options.ignoreCase ? undefined : spelledLiteralOf(inner);
  const lineStart = options.ignoreCase ? undefined : lineStartOf(inner);
  const exactAlternatives = options.ignoreCase || alternativeLiterals === undefined
    ? undefined
    : spelledAlternativesOf(inner, alternativeLiterals);
  const exactFolded = options.ignoreCase ? foldedLiteralOf(inner, spelled) : undefined;
  // (A regex that is its literals is found in the bytes; one with none needs no stretch.)
  const exact = exactLiteral ?? exactAlternatives ?? exactFolded;
  const barriers = exact === undefined && (requiredLiteral ?? alternativeLiterals?.[0])
    ? barriersOf(source, options.ignoreCase)
    : undefined;
  const literals = {
    requiredLiteral,
    requiredLiterals,
    alternativeLiterals,
    foldedLiterals: spelled?.folded,
    ...(exactLiteral === undefined ? {} : { exactLiteral }),
    ...(exactAlternatives === undefined ? {} : { exactAlternatives }),
    ...(exactFolded === undefined ? {} : { exactFolded }),
    ...(lineStart === undefined ? {} : { lineStart }),
    ...(barriers === undefined ? {} : { stretch: { source, flags, barriers } }),
  };
  const confined = lineConfinedSource(source);
  if (confined === undefined) return { key, matchLine, ...literals };
  const whole = new RegExp(confined, options.ignoreCase ? "gmui" : "gmu");
  return {
    key,
    matchLine,
    ...literals,
    findCandidate(text, from) {
      // Every match holds the required literal, so the next line that may match holds it:
      // the regex starts there (and a text without it is not run through at all: a pattern
      // like `\w+needle` takes time quadratic in a long line it cannot match).
      if (requiredLiteral !== undefined) {
        const at = text.indexOf(requiredLiteral, from);
        if (at === -1) return -1;
        from = Math.max(from, text.lastIndexOf("\n", at) + 1);
      }
      whole.lastIndex = from;
      return whole.exec(text)?.index ?? -1;
    },
  };
}

/**
 * Escapes a string for use as a literal inside a regular expression.
 *
 * @param text any string
 * @returns the pattern source that matches exactly `text`
 * @example
 * ```ts
 * import { escapeRegExp } from "./matcher.ts";
 * import assert from "node:assert/strict";
 * assert.equal(escapeRegExp("a.b*"), "a\\.b\\*");
 * ```
 */
export function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");
}

/**
 * Rewrites a pattern for searching a whole multi-line text (flags `gmu`) so that it finds
 * every line the per-line pattern matches, and rarely runs across a line break: `.`, `\s`,
 * `\W`, `\D` and negated classes lose `\n`. Any match it finds is re-checked per line, so a
 * superset is enough. Lookarounds can see past a line's end, so they get no rewrite
 * (undefined) and the scanner walks every line instead; but for `(?<!\w)` and `(?!\w)`, the
 * word edges of `-w` (a line break is no word character, as the line's edge is none).
 */
/** A word character as ripgrep's `\w` reads it (Unicode: letters, marks, digits, `_`, …). */
const UNICODE_WORD = "[\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\p{Join_Control}]";
/** No word character right before: where a word match (`-w`) may start, as ripgrep's. */
export const WORD_START = `(?<!${UNICODE_WORD})`;
/** No word character right after: where a word match (`-w`) may end. */
export const WORD_END = `(?!${UNICODE_WORD})`;
/** The lookarounds a line-confined source keeps: no word character before, or after. */
const WORD_EDGES = ["(?<!\\w)", "(?!\\w)", WORD_START, WORD_END];

function lineConfinedSource(source: string): string | undefined {
  // (Nothing to rewrite, nor a lookaround: as it is. A list of thousands of words is that.)
  if (!/[\\.[(]/.test(source)) return source;
  let out = "";
  let inClass = false;
  let negated = false;
  for (let at = 0; at < source.length; at++) {
    const char = source[at];
    if (char === "\\") {
      const next = source[++at] ?? "";
      out += inClass ? char + next : (LINE_BREAKING_ESCAPES[next] ?? char + next);
    } else if (inClass) {
      if (char === "]") inClass = false;
      out += char === "]" && negated ? "\\n]" : char;
    } else if (char === "[") {
      inClass = true;
      negated = source[at + 1] === "^";
      out += char;
    } else if (char === ".") {
      out += "[^\\n]";
    } else if (char === "(") {
      const edge = WORD_EDGES.find((one) => source.startsWith(one, at));
      if (edge !== undefined) {
        out += edge;
        at += edge.length - 1;
      } else if (/^\(\?<?[=!]/.test(source.slice(at, at + 4))) return undefined;
      else out += char;
    } else {
      out += char;
    }
  }
  return out;
}

/**
 * The runs of plain characters that every match of a pattern (flags `u`, `s`) contains, in
 * pattern order, for byte-level prefilters (with `i`, each matched without case); undefined
 * when there is none or the pattern is beyond this conservative reading. Groups and classes
 * end a run, an optional character (`?`, `*`, `{0,…}`) is dropped from it, and a top-level
 * `|` means no literal is required; a plain group that is not optional and holds no `|` at
 * its own top level adds what it requires (up to {@linkcode MAX_GROUP_DEPTH} levels down).
 */
function requiredLiteralsOf(source: string, depth = 0): string[] | undefined {
  const runs: string[] = [];
  let run = "";
  let lastLiteral = ""; // the last atom of `run`, if the last atom was a plain character
  const flush = () => {
    if (run !== "") runs.push(run);
    run = "";
    lastLiteral = "";
  };
  for (let at = 0; at < source.length;) {
    const char = String.fromCodePoint(source.codePointAt(at)!);
    at += char.length;
    if (char === "\\") {
      const next = source[at++];
      if (next !== undefined && SYNTAX_CHARACTERS.includes(next)) {
        run += next;
        lastLiteral = next;
      } else if (next === "t") {
        run += "\t";
        lastLiteral = "\t";
      } else if (next !== undefined && "dDwWsSbB".includes(next)) {
        flush();
      } else {
        // (`\x41`, `\u{1F600}`, `\p{Lu}`, a backreference…: one atom, not read, ends the run.)
        const length = escapeLength(source, at - 1);
        if (length === undefined) return undefined;
        flush();
        at += length - 1;
      }
    } else if (char === "[") {
      flush();
      at = skipClass(source, at);
      if (at === -1) return undefined;
    } else if (char === "(") {
      flush();
      const end = skipGroup(source, at);
      if (end === -1) return undefined;
      // A group every match goes through, without alternatives: what it requires, each
      // match requires (an unreadable one is passed over).
      const open = depth < MAX_GROUP_DEPTH && !optionalAt(source, end)
        ? groupOpening(source, at - 1)
        : 0;
      const inner = open === 0 ? undefined : source.slice(at - 1 + open, end - 1);
      if (inner !== undefined && topLevelBranches(inner) === undefined) {
        runs.push(...requiredLiteralsOf(inner, depth + 1) ?? []);
      }
      at = end;
    } else if (char === "|" || char === ")") {
      return undefined;
    } else if (char === "*" || char === "?" || char === "+" || char === "{") {
      let optional = char !== "+";
      if (char === "{") {
        const bounds = /^\{(\d+)(?:,\d*)?\}/.exec(source.slice(at - 1));
        if (bounds === null) return undefined;
        optional = Number(bounds[1]) === 0;
        at += bounds[0].length - 1;
      }
      if (optional && lastLiteral !== "") run = run.slice(0, -lastLiteral.length);
      flush();
      if (source[at] === "?") at++; // lazy
    } else if (char === "^" || char === "$" || char === ".") {
      flush();
    } else {
      run += char;
      lastLiteral = char;
    }
  }
  flush();
  return runs.length === 0 ? undefined : runs;
}

/**
 * For a case-insensitive pattern, the ASCII string it spells in lower case, when each of its
 * spellings (`caseVariantsOf`) lies in it once and it is their folded literal.
 */
function foldedLiteralOf(
  source: string,
  spelled: { variants: string[]; folded: string[] } | undefined,
): string | undefined {
  const literal = spelledLiteralOf(source)?.toLowerCase();
  if (literal === undefined || !/^\p{ASCII}*$/u.test(literal) || spelled === undefined) {
    return undefined;
  }
  const once = (variant: string) => {
    const at = literal.indexOf(variant.toLowerCase());
    return at !== -1 && at === literal.lastIndexOf(variant.toLowerCase());
  };
  const whole = spelled.folded.every((folded) => folded === literal);
  return whole && spelled.variants.every(once) ? literal : undefined;
}

/**
 * The strings a pattern of alternatives spells, one per alternative in order (the first of
 * alternatives alike), when every alternative spells one and they are `literals`.
 */
function spelledAlternativesOf(source: string, literals: readonly string[]): string[] | undefined {
  const strings = [...new Set(spelledBranchesOf(source, MAX_ALTERNATIVE_LITERALS))];
  const same = strings.length === literals.length && strings.every((s, i) => s === literals[i]);
  return same ? strings : undefined;
}

/** Top-level alternatives beyond which a pattern gets no alternative literals. */
const MAX_ALTERNATIVE_LITERALS = 64;

/**
 * For a pattern made of top-level alternatives (`TODO|FIXME`), one required literal of each
 * (the rarest), when every alternative has one: each match then contains one of them. An
 * alternative whose literals are too short for a trigram, or that has none, gives the
 * literals of a group of alternatives it goes through instead, where they are long enough
 * (`(?:kmalloc|kzalloc)\(|vmalloc\(`: `kmalloc`, `kzalloc`, `vmalloc(`; not `(`), down to
 * {@linkcode MAX_GROUP_DEPTH} groups.
 *
 * @param depth how many groups down `source` lies
 */
function alternativeLiteralsOf(source: string, depth = 0): string[] | undefined {
  const literals = new Set<string>();
  // (A prefilter looks for each literal on its own: past a few dozen, that costs more than
  // reading every file.)
  const branches = topLevelBranches(source, MAX_ALTERNATIVE_LITERALS) ?? [];
  for (const branch of branches) {
    const required = requiredLiteralsOf(branch);
    const grouped = depth < MAX_GROUP_DEPTH ? groupedInstead(required, branch, depth) : undefined;
    if (grouped !== undefined) { for (const literal of grouped) literals.add(literal); }
    else if (required === undefined) return undefined;
    else literals.add(required.reduce(rarest));
  }
  if (literals.size > MAX_ALTERNATIVE_LITERALS) return undefined;
  return literals.size === 0 ? undefined : [...literals];
}

/** The fewest characters of a literal that an index's trigrams can look for. */
const TRIGRAM = 3;

/**
 * The alternative literals of a group of alternatives that every match goes through
 * (`\b(?:kmalloc|kzalloc)\(`), when they filter better than the pattern's required
 * literals: it has none, or each is too short for a trigram (`(`) while every alternative's
 * literal is long enough, or longer than each (`\bu(8|16|32|64)\b`: `u8`, …, rather than
 * `u`, which is in nearly every line). Of several such groups, the one whose shortest
 * literal is the longest.
 *
 * @param depth how many groups down `source` lies
 */
function groupedInstead(
  required: string[] | undefined,
  source: string,
  depth = 0,
): string[] | undefined {
  if (topLevelBranches(source) !== undefined) return undefined; // (alternatives of its own)
  let best = joinedAlternativesOf(source);
  if (best !== undefined && shortest(best) >= TRIGRAM) return best;
  for (const group of mandatoryGroups(source)) {
    const literals = alternativeLiteralsOf(group, depth + 1);
    if (literals !== undefined && (best === undefined || shortest(literals) > shortest(best))) {
      best = literals;
    }
  }
  if (best === undefined || required === undefined) return best;
  const longest = Math.max(...required.map((literal) => literal.length));
  return longest < TRIGRAM && shortest(best) > longest ? best : undefined;
}

/** The length of the shortest of some literals. */
function shortest(literals: string[]): number {
  return Math.min(...literals.map((one) => one.length));
}

/**
 * Groups of alternatives a pattern's joined literals are looked for around, at the most: each
 * reads the whole pattern again (5,000 groups took 8 s).
 */
const MAX_JOINED_GROUPS = 4;

/** Stands for a group while the literals around it are read (a character no pattern holds). */
const PLACE = "\uE000";

/**
 * The strings every match holds one of when a required literal is made of a group of
 * alternatives that each spell a string and the plain characters right around it, and the
 * pattern's other required literals are too short for a trigram: the alternatives with those
 * characters (`(get|set)Value`: `getValue`, `setValue`; `\b(?:kmalloc|kzalloc)\(`:
 * `kmalloc(`, `kzalloc(`; `\.(get|post)\(['"]/`: `.get(`, `.post(`, beside its `/`). Each
 * holds that required literal, so they filter better. A group repeated joins only what
 * stands before it (its first time is next to that); an optional one joins nothing. Of the
 * first {@linkcode MAX_JOINED_GROUPS} such groups, the one whose shortest string is the
 * longest.
 */
function joinedAlternativesOf(source: string): string[] | undefined {
  if (source.includes(PLACE)) return undefined;
  let best: string[] | undefined;
  let tried = 0;
  for (const { at, open, end } of plainGroups(source)) {
    const branches = spelledBranchesOf(source.slice(at + open, end - 1), MAX_ALTERNATIVE_LITERALS);
    if (branches === undefined) continue;
    if (++tried > MAX_JOINED_GROUPS) break;
    // (Read with the group as one character: what stays next to it is what joins it.)
    const runs = requiredLiteralsOf(source.slice(0, at) + PLACE + source.slice(end)) ?? [];
    const run = runs.find((one) => one.includes(PLACE));
    if (run === undefined || runs.some((one) => one !== run && one.length >= TRIGRAM)) continue;
    const [before, after] = run.split(PLACE);
    const joined = [...new Set(branches.map((branch) => before + branch + after))];
    if (best === undefined || shortest(joined) > shortest(best)) best = joined;
  }
  return best;
}

/** What the plain groups of a pattern's top level that are not optional hold. */
function mandatoryGroups(source: string): string[] {
  return [...plainGroups(source)]
    .filter(({ end }) => !optionalAt(source, end))
    .map(({ at, open, end }) => source.slice(at + open, end - 1));
}

/**
 * The plain groups of a pattern's top level (see `groupOpening`), in order: where each opens,
 * the length of its opening, and the offset after its `)`.
 */
function* plainGroups(source: string): Generator<{ at: number; open: number; end: number }> {
  for (let at = 0; at < source.length; at++) {
    const char = source[at];
    if (char === "\\") at++;
    else if (char === "[") {
      at = skipClass(source, at + 1) - 1;
      if (at < 0) return;
    } else if (char === "(") {
      const end = skipGroup(source, at + 1);
      if (end === -1) return;
      const open = groupOpening(source, at);
      if (open !== 0) yield { at, open, end };
      at = end - 1;
    }
  }
}

/**
 * {@linkcode caseVariantsOf} for a case-insensitive pattern made of top-level alternatives:
 * the spellings of a stretch of each, when every alternative has one, each with its own
 * folded literal.
 */
function alternativeSpellingsOf(
  source: string,
): { variants: string[]; folded: string[] } | undefined {
  const branches = topLevelBranches(source, MAX_ALTERNATIVE_LITERALS) ?? [];
  return spellingsOfEach(branches.map((branch) => requiredLiteralsOf(branch)));
}

/**
 * {@linkcode alternativeSpellingsOf} for a case-insensitive pattern whose literal is a group
 * of alternatives with the characters around it (`use(state|effect)\(`): the spellings of a
 * stretch of each joined alternative (`usestate(`, `useeffect(`; see `joinedAlternativesOf`).
 * Every match holds one of those in some case, as it holds one of a pattern's alternatives.
 */
function joinedSpellingsOf(
  source: string,
): { variants: string[]; folded: string[] } | undefined {
  const spelled = spellingsOfEach((joinedAlternativesOf(source) ?? []).map((one) => [one]));
  return spelled !== undefined && spelled.variants.length <= MAX_ALTERNATIVE_LITERALS
    ? spelled
    : undefined;
}

/** The spellings of a stretch of each set of literals, when every set has one. */
function spellingsOfEach(
  literals: (string[] | undefined)[],
): { variants: string[]; folded: string[] } | undefined {
  const variants: string[] = [];
  const folded: string[] = [];
  for (const one of literals) {
    const spelled = caseVariantsOf(one);
    if (spelled === undefined) return undefined;
    variants.push(...spelled.variants);
    folded.push(...spelled.folded);
  }
  return variants.length === 0 ? undefined : { variants, folded };
}

/** Most letters in the stretch whose case variants {@linkcode caseVariantsOf} lists (2^3). */
const MAX_VARIED_LETTERS = 3;

/**
 * For a case-insensitive pattern, every spelling in upper and lower case of a stretch of one
 * of its required literals (each match then contains one of them as it is): a stretch of
 * three characters or more, of ASCII characters only and without `k` or `s`, with as few
 * letters as there can be (each doubles the spellings to look for; at most
 * {@linkcode MAX_VARIED_LETTERS}), then of the rarest letters (see
 * {@linkcode letterFrequency}), then as long as there can be; and, folded to lower case,
 * the literal holding it when that is ASCII, or else the longest such stretch around it. (Under Unicode case folding, `k` also matches the
 * Kelvin sign and `s` the long s, and letters beyond ASCII have more forms; a stretch
 * without them matches its ASCII spellings only.)
 */
function caseVariantsOf(
  literals: string[] | undefined,
): { variants: string[]; folded: string[] } | undefined {
  let best = { window: "", letters: Infinity, frequency: Infinity };
  let folded = ""; // the stretch holding the best window
  const isLetter = (char: string) => /[a-zA-Z]/.test(char);
  for (const literal of literals ?? []) {
    for (const run of literal.split(/[^\p{ASCII}]|[ksKS]/u)) {
      for (let from = 0; from + 3 <= run.length; from++) {
        let letters = [...run.slice(from, from + 2)].filter(isLetter).length;
        for (let to = from + 3; to <= run.length; to++) {
          if (isLetter(run[to - 1])) letters++;
          if (letters > MAX_VARIED_LETTERS) break;
          const window = run.slice(from, to);
          const frequency = [...window].reduce(
            (product, char) => product * letterFrequency(char),
            1,
          );
          const better = letters !== best.letters
            ? letters < best.letters
            : frequency !== best.frequency
            ? frequency < best.frequency
            : window.length > best.window.length;
          // (The whole literal when it is ASCII: its k and s are matched in ASCII too, unless
          // the text holds a Kelvin sign or a long s, which a prefilter must look out for.)
          const around = /^\p{ASCII}*$/u.test(literal) ? literal : run;
          if (better) [best, folded] = [{ window, letters, frequency }, around];
        }
      }
    }
  }
  if (best.window === "") return undefined;
  let variants = [""];
  for (const char of best.window) {
    const lower = char.toLowerCase();
    const upper = char.toUpperCase();
    variants = variants.flatMap((head) =>
      lower === upper ? [head + char] : [head + lower, head + upper]
    );
  }
  return { variants, folded: variants.map(() => folded.toLowerCase()) };
}

/**
 * How often a letter occurs in English text, in percent, either case (1 for any other
 * character): the spellings of a stretch of common letters occur far more often than those
 * of one of rare letters, and every occurrence costs a look at the bytes around it. On the
 * Linux kernel's source, `-i spin_lock_irqsave` looked for `in_` and found it 175,000 times
 * in 20,000 files; `n_l` 27,000 times.
 */
function letterFrequency(char: string): number {
  const at = char.toLowerCase().charCodeAt(0) - 0x61;
  return at >= 0 && at < 26 ? ENGLISH_LETTERS[at] : 1;
}

/** Percent of English letters that are a, b, c ... z. */
// deno-fmt-ignore
const ENGLISH_LETTERS = [
  8.2, 1.5, 2.8, 4.3, 12.7, 2.2, 2.0, 6.1, 7.0, 0.15, 0.77, 4.0, 2.4, 6.7, 7.5, 1.9, 0.095, 6.0,
  6.3, 9.1, 2.8, 0.98, 2.4, 0.15, 2.0, 0.074,
];

/** The rarer of two literals (for `reduce`). */
function rarest(a: string, b: string): string {
  return rarer(b, a) ? b : a;
}

/**
 * How common a character is in source code, coarsely: 1 for the most common (space,
 * frequent letters, everyday punctuation), 2 for other lowercase letters and digits, 3 for
 * capitals, 4 for anything else.
 */
function commonness(char: string): number {
  if (" \t\netaoinsrlcudpm().,;=_'\"".includes(char)) return 1;
  if (/[a-z0-9]/.test(char)) return 2;
  if (/[A-Z]/.test(char)) return 3;
  return 4;
}

/**
 * Whether literal `a` is likely rarer than `b` (a prefilter that looks for it rules out
 * more): one long enough for a trigram over one that is not (`k` of `\bk[mz]alloc\(` is
 * in nearly every line, `alloc(` is not), then the one holding the rarer character, then
 * the longer, as ripgrep picks its literal.
 */
function rarer(a: string, b: string): boolean {
  if ((a.length >= TRIGRAM) !== (b.length >= TRIGRAM)) return a.length > b.length;
  const rarest = (text: string) => Math.max(...[...text].map(commonness));
  return rarest(a) !== rarest(b) ? rarest(a) > rarest(b) : a.length > b.length;
}

/** Escapes that match `\n`, and the same sets without it. */
const LINE_BREAKING_ESCAPES: Record<string, string> = {
  s: "[^\\S\\n]",
  W: "[^\\w\\n]",
  D: "[^\\d\\n]",
};
