/**
 * Compiling grep patterns safely. Normal patterns run on the runtime's own engine at native
 * speed; a pattern at risk of catastrophic backtracking runs on RE2JS, a linear-time
 * engine, or is refused with a message saying why. It never hangs and never yields a
 * silent "no match" (Bun's engine gives up silently when a pattern backtracks too much).
 *
 * @module
 */
import { RE2JS } from "re2js";
import { literalMatcher, type Matcher, type MatchSpan, regexMatcher } from "../core/mod.ts";

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
  /** "literal", "native" (the runtime's RegExp) or "linear" (RE2JS). */
  engine: "literal" | "native" | "linear";
}

/**
 * Compiles a grep pattern: JavaScript syntax with the `u` and `s` flags (and `i`).
 *
 * @param pattern the pattern
 * @param options literal and case handling
 * @returns the matcher and the engine it uses
 * @throws {SyntaxError} for an invalid pattern, or a risky one the linear engine cannot run
 * @example
 * ```ts
 * import { compilePattern } from "./safe_matcher.ts";
 * import assert from "node:assert/strict";
 * assert.equal(compilePattern("(a+)+$").engine, "linear");
 * assert.equal(compilePattern("fo+").engine, "native");
 * ```
 */
export function compilePattern(pattern: string, options: PatternOptions = {}): CompiledPattern {
  if (options.literal) return { matcher: literalMatcher(pattern, options), engine: "literal" };
  let native: Matcher;
  try {
    native = regexMatcher(pattern, options);
  } catch (error) {
    throw new SyntaxError(
      `pattern ${JSON.stringify(pattern)} is not a valid regular expression (${
        (error as Error).message
      }); fix it, or pass literal=true to search for the text as it is`,
    );
  }
  const risk = backtrackingRisk(pattern);
  if (risk === undefined) return { matcher: native, engine: "native" };
  return { matcher: linearMatcher(pattern, options, risk), engine: "linear" };
}

function linearMatcher(pattern: string, options: PatternOptions, risk: string): Matcher {
  let engine: RE2JS;
  try {
    const flags = RE2JS.DOTALL | (options.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
    engine = RE2JS.compile(RE2JS.translateRegExp(withJsSpaces(pattern)), flags);
  } catch (error) {
    throw new SyntaxError(
      `pattern ${
        JSON.stringify(pattern)
      } ${risk}, which can take exponential time, and it uses a feature the linear-time engine lacks (${
        (error as Error).message
      }); remove the nested repetition or the backreference/lookaround, or pass literal=true`,
    );
  }
  return {
    matchLine(text: string): MatchSpan | null {
      const found = engine.exec(text) as RegExpExecArray | null;
      return found ? { start: found.index, end: found.index + found[0].length } : null;
    },
  };
}

/** What JavaScript's `\s` matches. RE2's `\s` is only `[\t\n\f\r ]`. */
const JS_SPACE = "\\t\\n\\v\\f\\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff";

/**
 * Spells `\s` and `\S` out as JavaScript means them, so that the linear engine matches
 * the same lines as the native one (a line ending in U+00A0 must match `(\s+)+$`). A `\S`
 * inside a class cannot be spelled out there and keeps RE2's meaning.
 */
function withJsSpaces(pattern: string): string {
  let out = "";
  let inClass = false;
  for (let at = 0; at < pattern.length; at++) {
    const char = pattern[at];
    if (char === "\\") {
      const next = pattern[at + 1] ?? "";
      if (next === "s") out += inClass ? JS_SPACE : `[${JS_SPACE}]`;
      else if (next === "S" && !inClass) out += `[^${JS_SPACE}]`;
      else out += char + next;
      at++;
      continue;
    }
    if (char === "[" && !inClass) inClass = true;
    else if (char === "]" && inClass) inClass = false;
    out += char;
  }
  return out;
}

/**
 * Why a pattern risks catastrophic backtracking, or undefined when it does not: a
 * repeated group that itself contains repetition or alternation (`(a+)+`, `(a|aa)*`), or
 * a backreference inside repetition. Simple patterns (`foo.*bar`, `\w+\(`) pass.
 */
export function backtrackingRisk(pattern: string): string | undefined {
  // Per open group: whether it contains a quantifier or an alternation.
  const stack: Array<{ repeats: boolean; alternates: boolean }> = [];
  let inClass = false;
  for (let at = 0; at < pattern.length; at++) {
    const char = pattern[at];
    if (char === "\\") {
      if (/[1-9k]/.test(pattern[at + 1] ?? "") && stack.length > 0) {
        stack[stack.length - 1].repeats = true;
      }
      at++;
      continue;
    }
    if (inClass) {
      if (char === "]") inClass = false;
      continue;
    }
    if (char === "[") inClass = true;
    else if (char === "(") stack.push({ repeats: false, alternates: false });
    else if (char === "|" && stack.length > 0) stack[stack.length - 1].alternates = true;
    else if (char === ")") {
      const group = stack.pop();
      const quantified = repeatsGroup(pattern, at + 1);
      if (group && quantified && group.repeats) return "repeats a group that itself repeats";
      if (group && quantified && group.alternates) return "repeats a group of alternatives";
      if (group && stack.length > 0 && (group.repeats || quantified)) {
        stack[stack.length - 1].repeats = true;
      }
    } else if (isUnboundedQuantifier(pattern, at) && stack.length > 0) {
      stack[stack.length - 1].repeats = true;
    }
  }
  return undefined;
}

/** Whether a `*`, `+` or `{n,}`/`{n,m}` (m > 1) quantifier starts at `at`. */
function isUnboundedQuantifier(pattern: string, at: number): boolean {
  const char = pattern[at];
  if (char === "*" || char === "+") return true;
  if (char !== "{") return false;
  const bounds = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(at));
  if (!bounds || bounds[2] === undefined) return false;
  return bounds[3] === "" || Number(bounds[3]) > 1;
}

/**
 * Whether a quantifier that repeats a group more than once starts at `at`: an unbounded one
 * or a fixed count `{n}` with n > 1. `(a+){10}$` backtracks as badly as `(a+)+$` (it tries
 * every way to cut a run of a's into ten pieces), while `a{2}` inside a group is harmless.
 */
function repeatsGroup(pattern: string, at: number): boolean {
  const count = /^\{(\d+)\}/.exec(pattern.slice(at, at + 12));
  return isUnboundedQuantifier(pattern, at) || (count !== null && Number(count[1]) > 1);
}
