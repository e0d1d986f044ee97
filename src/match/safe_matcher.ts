/**
 * Compiling grep patterns safely. Normal patterns run on the runtime's own engine at native
 * speed; a pattern at risk of catastrophic backtracking (a repeated group that repeats)
 * runs on RE2JS, a linear-time engine, or is refused with a message saying why. A pattern
 * with unbounded quantifiers runs natively only on lines short enough to bound its
 * polynomial worst case; longer lines go to RE2JS. A pattern with lookarounds or
 * backreferences, which RE2 lacks, runs natively in a helper that is killed at the time
 * budget (`match/stoppable_scan.ts`). None hangs the server, and none yields a silent
 * "no match" (Bun's engine gives up silently when a pattern backtracks too much).
 *
 * @module
 */
import { holdsClassSetOperation, ripgrepSpelled } from "./_ripgrep_syntax.ts";
import { literalMatcher, type Matcher, regexMatcher } from "../core/mod.ts";
import { dotStarParts, headFirst, quantifiersLeft } from "./_dot_star.ts";
import { linearMatcher } from "./_linear_matcher.ts";
import { guardLongLines, nativeLineLimit } from "./_long_line_guard.ts";
import { backtrackingRisk } from "./_pattern_risk.ts";
import { stoppableScan } from "./stoppable_scan.ts";
import { wordListMatcher } from "./_word_list.ts";

export { backtrackingRisk };

/** Patterns longer than this are scanned where they can be stopped (see compilePattern). */
const LARGE_PATTERN = 8 * 1024;

/** How a pattern is to be read. */
export interface PatternOptions {
  /**
   * Search for the pattern as a fixed string.
   * @default false
   */
  literal?: boolean;
  /**
   * Match regardless of case.
   * @default false
   */
  ignoreCase?: boolean;
}

/** A compiled pattern and the engine chosen for it. */
export interface CompiledPattern {
  /** The matcher to scan with. */
  matcher: Matcher;
  /**
   * "literal" (fixed strings: one, or a long list of them), "native" (the runtime's
   * RegExp), "linear" (RE2JS) or "stoppable" (the runtime's RegExp in a helper stopped at
   * the time budget).
   */
  engine: "literal" | "native" | "linear" | "stoppable";
}

/** A pattern that cannot be searched with: invalid, or risky where no safe engine can run it. */
export class PatternError extends SyntaxError {
  /**
   * Makes the error.
   *
   * @param message what is wrong with the pattern, and what to do
   */
  constructor(message: string) {
    super(message); // (named as the SyntaxError it is)
  }
}

/**
 * Compiles a grep pattern: JavaScript syntax with the `u` and `s` flags (and `i`).
 *
 * @param pattern the pattern
 * @param options literal and case handling
 * @returns the matcher and the engine it uses
 * @throws {PatternError} for an invalid pattern, or a risky one the linear engine cannot run
 * @example
 * ```ts
 * import { compilePattern } from "./safe_matcher.ts";
 * import assert from "node:assert/strict";
 * assert.equal(compilePattern("(a+)+$").engine, "linear");
 * assert.equal(compilePattern("fo+").engine, "native");
 * ```
 */
export function compilePattern(pattern: string, options: PatternOptions = {}): CompiledPattern {
  const { matcher, engine } = compile(pattern, options);
  const recipe = {
    pattern,
    literal: options.literal ?? false,
    ignoreCase: options.ignoreCase ?? false,
  };
  return { matcher: { ...matcher, recipe }, engine };
}

/**
 * Whether a pattern asks for a line break, which no line holds (ripgrep refuses such a
 * pattern too, outside its multi-line mode): a `\n` in a literal; in a regex, one outside a
 * character class, as the character or an escape (`\n`, `\x0a`, `\x{a}`, `\u000a`,
 * `\u{a}`, `\cJ`), or a class that holds nothing else (`[\n]`). A class that holds more
 * (`[\na]`, `[^\n]`) matches in a line, as ripgrep takes it.
 */
function holdsLineBreak(pattern: string, literal: boolean): boolean {
  if (literal) return pattern.includes("\n");
  let classFrom = -1; // where the class being read starts (after `[` or `[^`), else -1
  for (let at = 0; at < pattern.length; at++) {
    const char = pattern[at];
    const lineBreak = char === "\n" ? 1 : char === "\\" ? lineBreakEscape(pattern, at) : 0;
    if (classFrom === -1) {
      if (lineBreak > 0) return true;
      if (char === "[") {
        classFrom = pattern[at + 1] === "^" ? at + 2 : at + 1;
        if (pattern[classFrom] === "]") at = classFrom; // (a `]` first is a member)
        else at = classFrom - 1;
      } else if (char === "\\") at++;
    } else if (char === "[" && /^\[:\^?[a-z]+:\]/.test(pattern.slice(at))) {
      at = pattern.indexOf(":]", at) + 1; // (a POSIX class within the class)
    } else if (char === "]") {
      classFrom = -1;
    } else if (lineBreak > 0) {
      // (A class of a line break alone, not negated: `[\n]`.)
      const negated = pattern[classFrom - 1] === "^";
      if (!negated && at === classFrom && pattern[at + lineBreak] === "]") return true;
      at += lineBreak - 1;
    } else if (char === "\\") at++;
  }
  return false;
}

/** The length of the escape at `at` when it spells a line break, else 0. */
function lineBreakEscape(pattern: string, at: number): number {
  const escape = /^\\(?:n|x0[aA]|x\{0*[aA]\}|u000[aA]|u\{0*[aA]\}|c[jJ])/.exec(pattern.slice(at));
  return escape === null ? 0 : escape[0].length;
}

/** Flags set inline at a pattern's start, as ripgrep reads them (`(?i)`, `(?is)`). */
const INLINE_FLAGS = /^\(\?[imsxuU]+\)/;

/** The native matcher of a source, or undefined when JavaScript refuses it. */
function regexOrNone(source: string, options: PatternOptions): Matcher | undefined {
  try {
    return regexMatcher(source, options);
  } catch {
    return undefined;
  }
}

/** Why a pattern is refused, and what to do instead. */
function refusedPattern(pattern: string, error: Error): PatternError {
  const flags = INLINE_FLAGS.exec(pattern)?.[0];
  return new PatternError(
    `pattern ${JSON.stringify(pattern)} is not a valid regular expression (${error.message}); ${
      flags === undefined
        ? "fix it, or pass literal=true to search for the text as it is"
        : `${flags} is ripgrep's syntax, not JavaScript's: leave it out${
          flags.includes("i") ? ", and pass ignore_case=true" : ""
        }`
    }`,
  );
}

function compile(given: string, options: PatternOptions): CompiledPattern {
  if (holdsLineBreak(given, options.literal ?? false)) {
    throw new PatternError(
      `pattern ${JSON.stringify(given)} holds a line break, and grep matches within one line ` +
        "(a line's text ends before its \\n): search for a part that lies on one line",
    );
  }
  if (options.literal) return { matcher: literalMatcher(given, options), engine: "literal" };
  if (holdsClassSetOperation(given)) {
    throw new PatternError(
      `pattern ${JSON.stringify(given)} has &&, -- or ~~ in a class, which ripgrep reads as set ` +
        "operations and JavaScript as characters: write the class out (or escape them)",
    );
  }
  let pattern = given;
  let native: Matcher;
  try {
    native = regexMatcher(pattern, options);
  } catch (error) {
    // (ripgrep's spellings that JavaScript refuses, `^}` or `[[:alpha:]]`, are read as
    // ripgrep reads them.)
    const spelled = ripgrepSpelled(given);
    const rewritten = spelled === undefined ? undefined : regexOrNone(spelled, options);
    if (rewritten !== undefined) {
      pattern = spelled!;
      native = rewritten;
    } else throw refusedPattern(given, error as Error);
  }
  // A very large pattern (a list of thousands of words) is linear on the native engine but
  // costs it milliseconds a line: a list of fixed strings is looked up instead, anything
  // else scanned where it can be stopped at the budget.
  if (pattern.length > LARGE_PATTERN) {
    const words = options.ignoreCase ? undefined : wordListMatcher(pattern, native);
    if (words !== undefined) return { matcher: words, engine: "literal" };
    return { matcher: stoppableOf(native, pattern, options), engine: "stoppable" };
  }
  const risk = backtrackingRisk(pattern);
  if (risk !== undefined) {
    return { matcher: refusedOrLinear(pattern, options, risk), engine: "linear" };
  }
  // (A `.*` after a head of fixed length costs no backtracking there: see _dot_star.ts.)
  const parts = dotStarParts(pattern);
  if (parts !== undefined) native = headFirst(native, parts, options.ignoreCase ?? false);
  const quantifiers = quantifiersLeft(pattern, parts, options.ignoreCase ?? false);
  if (quantifiers === 0) return { matcher: native, engine: "native" };
  let linear: Matcher;
  try {
    linear = linearMatcher(pattern, options.ignoreCase ?? false);
  } catch {
    // Backreferences and lookarounds have no linear-time form: such a pattern is scanned
    // natively, but where it can be stopped at the time budget.
    return { matcher: stoppableOf(native, pattern, options), engine: "stoppable" };
  }
  return {
    matcher: guardLongLines(native, linear, nativeLineLimit(quantifiers)),
    engine: "native",
  };
}

/**
 * The native matcher, scanned where it can be stopped: without its stretch, which a search
 * would match on the native engine where it cannot be stopped.
 */
function stoppableOf(native: Matcher, pattern: string, options: PatternOptions): Matcher {
  const { stretch: _, ...rest } = native;
  return { ...rest, stoppable: stoppableScan(pattern, options.ignoreCase ?? false) };
}

function refusedOrLinear(pattern: string, options: PatternOptions, risk: string): Matcher {
  try {
    return linearMatcher(pattern, options.ignoreCase ?? false);
  } catch (error) {
    throw new PatternError(
      `pattern ${
        JSON.stringify(pattern)
      } ${risk}, which can take exponential time, and it uses a feature the linear-time engine lacks (${
        (error as Error).message
      }); remove the nested repetition or the backreference/lookaround, or pass literal=true`,
    );
  }
}
