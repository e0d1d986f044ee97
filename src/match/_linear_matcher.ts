// The linear-time engine (RE2JS) behind the Matcher interface, for patterns the runtime's
// backtracking engine could take exponential or polynomial time on.
import { RE2JS } from "re2js";
import type { Matcher, MatchSpan } from "../core/mod.ts";

/**
 * Compiles a JavaScript pattern for RE2JS (flags s, and i for ignoreCase).
 *
 * @throws {Error} when the pattern uses what RE2 lacks (backreferences, lookarounds)
 */
export function linearMatcher(pattern: string, ignoreCase: boolean): Matcher {
  const engine = compiled(pattern, ignoreCase);
  return {
    key: `linear:${ignoreCase ? "i" : ""}:${pattern}`,
    matchLine(text: string): MatchSpan | null {
      const found = engine.exec(text) as RegExpExecArray | null;
      return found ? { start: found.index, end: found.index + found[0].length } : null;
    },
  };
}

/**
 * Every match in a line, leftmost first, on the linear-time engine (what `-o` prints and
 * `--count-matches` counts): each one found after the last, in the whole line, so that `^`
 * and `\b` see what comes before it.
 *
 * @throws {Error} when the pattern uses what RE2 lacks (backreferences, lookarounds)
 */
export function linearSpans(pattern: string, ignoreCase: boolean): (text: string) => MatchSpan[] {
  const engine = compiled(pattern, ignoreCase);
  return (text) => {
    const found = engine.matcher(text);
    const spans: MatchSpan[] = [];
    while (found.find()) spans.push({ start: found.start(), end: found.end() });
    return spans;
  };
}

function compiled(pattern: string, ignoreCase: boolean): RE2JS {
  const flags = RE2JS.DOTALL | (ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
  return RE2JS.compile(RE2JS.translateRegExp(withJsSpaces(pattern)), flags);
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
