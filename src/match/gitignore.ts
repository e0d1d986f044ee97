/**
 * .gitignore rules, as git reads them, matched in time bounded by the path's length (see
 * `bounded_matcher.ts`): a line with `*a*a*a*a*b` cannot stall a walk.
 *
 * A blank line or one starting with `#` is nothing; trailing spaces are dropped unless
 * escaped; `!` re-includes; a trailing `/` matches directories only; a pattern with no other
 * `/` matches a name at any depth, one with a `/` the path from the file's directory (a
 * leading `/` only anchors it); `*`, `?`, `[...]` and `**` as in `glob_regex.ts`, and `\x`
 * is the character x. A malformed bracket is a character, as git takes it.
 *
 * @module
 */
import { boundedTest } from "./bounded_matcher.ts";
import { globToRegex } from "./glob_regex.ts";

/** What the rules say of a path: the last rule that matched decides. */
export interface IgnoreVerdict {
  /** A rule matched, and it ignores the path. */
  ignored: boolean;
  /** A rule matched, and it re-includes the path (`!`). */
  unignored: boolean;
}

/** Options of {@linkcode GitignoreRules}. */
export interface GitignoreOptions {
  /**
   * Match regardless of case (deny rules do: `.ENV` must not slip past `.env`).
   * @default false
   */
  ignoreCase?: boolean;
  /**
   * Refuse a malformed pattern (deny rules, which a person typed) instead of reading it as
   * git would.
   * @default false
   */
  strict?: boolean;
}

interface Rule {
  negated: boolean;
  directoryOnly: boolean;
  /** Matched against the last segment only (no `/` in the pattern). */
  name: boolean;
  test: (text: string) => boolean;
}

const NO_MATCH: IgnoreVerdict = { ignored: false, unignored: false };
const IGNORED: IgnoreVerdict = { ignored: true, unignored: false };
const UNIGNORED: IgnoreVerdict = { ignored: false, unignored: true };

/** The rules of one .gitignore file (or a list of deny globs). */
export class GitignoreRules {
  readonly #rules: Rule[] = [];

  /**
   * Reads the rules.
   *
   * @param lines the file's text, or its lines
   * @param options case and strictness
   * @throws {InputError} for a malformed pattern, when strict
   * @example
   * ```ts
   * import { GitignoreRules } from "./gitignore.ts";
   * import assert from "node:assert/strict";
   * const rules = new GitignoreRules("build/\n*.log\n!keep.log\n");
   * assert.equal(rules.test("src/build", true).ignored, true);
   * assert.equal(rules.test("a/x.log", false).ignored, true);
   * assert.equal(rules.test("keep.log", false).unignored, true);
   * ```
   */
  constructor(lines: string | readonly string[], options: GitignoreOptions = {}) {
    for (const raw of typeof lines === "string" ? lines.split("\n") : lines) {
      const rule = parseLine(raw, options);
      if (rule !== undefined) this.#rules.push(rule);
    }
  }

  /** True when there are no rules. */
  get empty(): boolean {
    return this.#rules.length === 0;
  }

  /**
   * What the rules say of a path.
   *
   * @param path the path from the rules' directory, `/`-separated, without a trailing `/`
   * @param isDirectory whether it names a directory
   * @returns the last matching rule's verdict
   */
  test(path: string, isDirectory: boolean): IgnoreVerdict {
    let verdict = NO_MATCH;
    let name: string | undefined;
    for (const rule of this.#rules) {
      if (rule.directoryOnly && !isDirectory) continue;
      const subject = rule.name ? (name ??= path.slice(path.lastIndexOf("/") + 1)) : path;
      if (rule.test(subject)) verdict = rule.negated ? UNIGNORED : IGNORED;
    }
    return verdict;
  }

  /**
   * What the rules say of a path, its directories included: a path below an ignored
   * directory is ignored, and no rule can re-include it (as in git).
   *
   * @param path the path from the rules' directory, `/`-separated, without a trailing `/`
   * @param isDirectory whether it names a directory
   * @returns the verdict
   */
  testWithParents(path: string, isDirectory: boolean): IgnoreVerdict {
    for (let at = path.indexOf("/"); at !== -1; at = path.indexOf("/", at + 1)) {
      if (this.test(path.slice(0, at), true).ignored) return IGNORED;
    }
    return this.test(path, isDirectory);
  }
}

function parseLine(raw: string, options: GitignoreOptions): Rule | undefined {
  let line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
  if (line.startsWith("#")) return undefined;
  // Trailing spaces go, unless escaped ("a\ " keeps one).
  let end = line.length;
  while (end > 0 && line[end - 1] === " " && line[end - 2] !== "\\") end--;
  line = line.slice(0, end);
  let negated = false;
  if (line.startsWith("!")) {
    negated = true;
    line = line.slice(1);
  }
  let directoryOnly = false;
  if (line.endsWith("/") && !line.endsWith("\\/")) {
    directoryOnly = true;
    line = line.replace(/\/+$/, "");
  }
  if (line === "") return undefined;
  const name = !line.includes("/");
  if (line.startsWith("/")) line = line.replace(/^\/+/, "");
  if (line === "") return undefined;
  const { source, unbounded } = globToRegex(line, {
    escapes: true,
    braces: false,
    strict: options.strict ?? false,
  });
  return {
    negated,
    directoryOnly,
    name,
    test: boundedTest(source, unbounded, { ignoreCase: options.ignoreCase }),
  };
}
