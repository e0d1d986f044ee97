/**
 * The pattern `linewise grep` runs, made of its words as ripgrep makes its own: `-e`, `-F`,
 * `-w`, `-x` and `-v`, with where each line's matches lie (for `-o` and colour), and a
 * pattern's errors in the command line's words.
 *
 * @module
 */
import { escapeRegExp, type Matcher, WORD_END, WORD_START } from "../core/mod.ts";
import { type CompiledPattern, compilePattern, PatternError } from "../match/safe_matcher.ts";
import { type MatchSpans, matchSpans } from "./_grep_print.ts";

/** What {@linkcode grepPattern} needs of the command's request. */
export interface PatternRequest {
  patterns: string[];
  ignoreCase: boolean;
  fixed: boolean;
  word: boolean;
  line: boolean;
  invert: boolean;
}

/**
 * The matcher of a grep's patterns, and the spans of a line's matches.
 *
 * @param request the patterns and the flags that shape them
 * @param firstOnly told once when a line's first match alone can be known (with its engine)
 * @returns the matcher and spans, or why the patterns cannot be run
 */
export function grepPattern(
  request: PatternRequest,
  firstOnly: (engine: string) => void,
): { matcher: Matcher; spans: MatchSpans } | { error: string } {
  const simple = request.patterns.length === 1 && !request.word && !request.line;
  const options = { ignoreCase: request.ignoreCase, literal: simple && request.fixed };
  // (Each pattern must hold alone: joined, `foo)|(bar` for -w or `foo(` and `)bar` for two
  // -e would make one that does, and find what no pattern typed asks for.)
  const fault = simple ? undefined : patternAtFault(request);
  if (fault !== undefined) return { error: inCommandWords(fault) };
  const pattern = simple ? request.patterns[0] : joined(request);
  let compiled: CompiledPattern;
  try {
    compiled = compilePattern(pattern, options);
  } catch (error) {
    if (!(error instanceof PatternError)) throw error;
    const fault = patternAtFault(request);
    if (fault === undefined && request.word) return { error: wordRefused(request.patterns) };
    return { error: inCommandWords(fault ?? error) };
  }
  if (request.invert) {
    return {
      matcher: inverted(pattern, compiled, request.ignoreCase),
      spans: (_, row) => [row.match!],
    };
  }
  let said = false;
  const spans = matchSpans(pattern, compiled.engine, options, () => {
    if (!said) firstOnly(compiled.engine);
    said = true;
  });
  return { matcher: compiled.matcher, spans };
}

/**
 * The regular expression for every pattern, as ripgrep joins `-e`, `-F`, `-w` and `-x`: a
 * word match has no word character right before or after it, a word character as ripgrep
 * reads it (Unicode: `-w мир` is not in `мирный`), and `-w -e -EINVAL` finds
 * `return -EINVAL;`, where `\b` would want a word character beside the `-`; a line match is
 * the whole line.
 */
function joined(request: PatternRequest): string {
  const each = request.patterns.map((p) => request.fixed ? escapeRegExp(p) : p);
  const any = each.length === 1 ? each[0] : each.map((p) => `(?:${p})`).join("|");
  if (request.line) return `^(?:${any})$`;
  return request.word ? `${WORD_START}(?:${any})${WORD_END}` : any;
}

/**
 * Which of the patterns a joined one (`-e`, `-w`, `-x`) failed for, compiled alone: the
 * error then names the pattern as it was typed, not as it was joined.
 */
function patternAtFault(request: PatternRequest): PatternError | undefined {
  if (request.fixed) return undefined;
  for (const pattern of request.patterns) {
    try {
      compilePattern(pattern, { ignoreCase: request.ignoreCase });
    } catch (error) {
      if (error instanceof PatternError) return error;
      throw error;
    }
  }
  return undefined;
}

/**
 * Why `-w` cannot be run with patterns that run alone: `-w` puts lookarounds around them, and
 * one that must run on the linear-time engine (for a repetition that could take exponential
 * time) cannot have them there; `\b`, which that engine has, can (ASCII word characters).
 */
function wordRefused(patterns: readonly string[]): string {
  const any = patterns.length === 1 ? patterns[0] : patterns.map((p) => `(?:${p})`).join("|");
  const bounded = `\\b(?:${any})\\b`;
  return `-w puts lookarounds around the pattern, and a pattern that runs on the linear-time engine (as this one must, for its repetition) cannot have them: write \\b on either side instead ('${bounded}', ASCII word characters), or pass -F`;
}

/** A pattern's error in the command line's words: its flags, not the tool's arguments. */
function inCommandWords(error: PatternError): string {
  return error.message.replaceAll("pass literal=true", "pass -F")
    .replaceAll("ignore_case=true", "-i");
}

/**
 * `-v`: a line without a match of the pattern is one match, the whole line (what `-o` prints
 * and `--count-matches` counts, as in ripgrep). A pattern that runs where it can be stopped
 * (lookarounds, backreferences) is inverted in the pattern itself, and runs there too.
 */
function inverted(pattern: string, compiled: CompiledPattern, ignoreCase: boolean): Matcher {
  const inner = compiled.matcher;
  if (inner.stoppable !== undefined) {
    return compilePattern(`^(?![\\s\\S]*?(?:${pattern}))[\\s\\S]*`, { ignoreCase }).matcher;
  }
  return {
    matchLine: (text) => inner.matchLine(text) === null ? { start: 0, end: text.length } : null,
  };
}
