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
  /** The pattern, when it is text alone, or text after or before one `*` (case kept). */
  plain?: { kind: "literal" | "suffix" | "prefix"; text: string };
  /** Text that every path the pattern matches contains (tested before the regex). */
  needs?: string;
}

/** A rule and its place in the file. */
interface Placed {
  text: string;
  at: number;
}

/**
 * The rules by what a path must be for each to match, so that a test need not run them all
 * (most rules of a large tree's `.gitignore` files are `*.ext` or names): exact names and
 * paths, suffixes by their last character, prefixes by their first; the other rules are run,
 * from the last, until one matches.
 */
class RuleIndex {
  readonly names = new Map<string, number[]>();
  readonly paths = new Map<string, number[]>();
  readonly suffixes = new Map<number, Placed[]>();
  readonly prefixes = new Map<number, Placed[]>();
  /** The other rules' places, last first. */
  readonly others: number[] = [];
  /** Whether every rule is matched against the last segment alone. */
  readonly namesOnly: boolean;

  constructor(rules: readonly Rule[]) {
    this.namesOnly = rules.every((rule) => rule.name);
    rules.forEach((rule, at) => {
      const plain = rule.plain;
      if (plain === undefined) {
        this.others.push(at);
        return;
      }
      const { kind, text } = plain;
      if (kind === "literal") push(rule.name ? this.names : this.paths, text, at);
      else if (kind === "suffix") {
        push(this.suffixes, text.charCodeAt(text.length - 1), { text, at });
      } else push(this.prefixes, text.charCodeAt(0), { text, at });
    });
    this.others.reverse();
  }
}

/** The last of `places` (ascending) after `last` whose rule applies, else `last`. */
function lastApplying(
  rules: readonly Rule[],
  places: readonly number[],
  last: number,
  isDirectory: boolean,
): number {
  for (let i = places.length - 1; i >= 0 && places[i] > last; i--) {
    if (isDirectory || !rules[places[i]].directoryOnly) return places[i];
  }
  return last;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

const NO_MATCH: IgnoreVerdict = { ignored: false, unignored: false };
const IGNORED: IgnoreVerdict = { ignored: true, unignored: false };
const UNIGNORED: IgnoreVerdict = { ignored: false, unignored: true };

/** The rules of one .gitignore file (or a list of deny globs). */
export class GitignoreRules {
  readonly #rules: Rule[] = [];
  readonly #index: RuleIndex;

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
    this.#index = new RuleIndex(this.#rules);
  }

  /** True when there are no rules. */
  get empty(): boolean {
    return this.#rules.length === 0;
  }

  /**
   * Whether every rule looks at the last segment alone: {@linkcode test} then needs the
   * name only (a walk need not make the path from the rules' directory).
   */
  get namesOnly(): boolean {
    return this.#index.namesOnly;
  }

  /**
   * What the rules say of a path.
   *
   * @param path the path from the rules' directory, `/`-separated, without a trailing `/`
   *   (the name alone will do when {@linkcode namesOnly})
   * @param isDirectory whether it names a directory
   * @param name the path's last segment, when the caller has it
   * @returns the last matching rule's verdict
   */
  test(
    path: string,
    isDirectory: boolean,
    name: string = path.slice(path.lastIndexOf("/") + 1),
  ): IgnoreVerdict {
    const rules = this.#rules;
    const index = this.#index;
    // The last rule that matches and applies (a rule for directories does not apply to a
    // file). (Plain loops: this runs for every entry of a walk, at every level.)
    let last = -1;
    const names = index.names.get(name);
    if (names !== undefined) last = lastApplying(rules, names, last, isDirectory);
    const paths = index.paths.size === 0 ? undefined : index.paths.get(path);
    if (paths !== undefined) last = lastApplying(rules, paths, last, isDirectory);
    const suffixes = index.suffixes.get(name.charCodeAt(name.length - 1));
    for (let i = 0; suffixes !== undefined && i < suffixes.length; i++) {
      const { text, at } = suffixes[i];
      if (at > last && (isDirectory || !rules[at].directoryOnly) && name.endsWith(text)) last = at;
    }
    const prefixes = index.prefixes.get(name.charCodeAt(0));
    for (let i = 0; prefixes !== undefined && i < prefixes.length; i++) {
      const { text, at } = prefixes[i];
      if (at > last && (isDirectory || !rules[at].directoryOnly) && name.startsWith(text)) {
        last = at;
      }
    }
    const others = index.others;
    for (let i = 0; i < others.length && others[i] > last; i++) {
      const rule = rules[others[i]];
      if (!isDirectory && rule.directoryOnly) continue;
      const subject = rule.name ? name : path;
      if ((rule.needs === undefined || subject.includes(rule.needs)) && rule.test(subject)) {
        last = others[i];
        break;
      }
    }
    if (last === -1) return NO_MATCH;
    return rules[last].negated ? UNIGNORED : IGNORED;
  }

  /**
   * {@linkcode test} running every rule in order, without the index: the reference the
   * index is checked against.
   *
   * @param path the path from the rules' directory, `/`-separated, without a trailing `/`
   * @param isDirectory whether it names a directory
   * @returns the last matching rule's verdict
   */
  testEachRule(path: string, isDirectory: boolean): IgnoreVerdict {
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
    plain: options.ignoreCase ? undefined : plainOf(line, name),
    needs: options.ignoreCase ? undefined : neededText(line),
  };
}

/**
 * The longest run of plain text in a glob, which every match contains; none for a glob with
 * escapes, `**` (which may take a `/` next to it) or a bracket that is not a plain `[...]`.
 */
function neededText(glob: string): string | undefined {
  if (glob.includes("\\") || glob.includes("**") || /\[[!^]?\]/.test(glob)) return undefined;
  const runs = glob.split(/\[[^\]]*\]|[*?]/);
  if (runs.some((run) => run.includes("[") || run.includes("]"))) return undefined;
  const longest = runs.reduce((a, b) => (b.length > a.length ? b : a), "");
  return longest === "" ? undefined : longest;
}

/** Glob characters (with escapes: a pattern with a `\` is left to its regex). */
const SPECIAL = /[*?[\\]/;

/**
 * The plain form of a pattern, if it has one: literal text (a name, or a path), or a name's
 * text after a leading `*` or before a trailing one (one `*` matches within a segment, and a
 * name has no `/`).
 */
function plainOf(glob: string, name: boolean): Rule["plain"] {
  if (!SPECIAL.test(glob)) return { kind: "literal", text: glob };
  if (!name || glob.length < 2) return undefined; // ("*" alone is left to its regex)
  if (glob.startsWith("*") && !SPECIAL.test(glob.slice(1))) {
    return { kind: "suffix", text: glob.slice(1) };
  }
  if (glob.endsWith("*") && !SPECIAL.test(glob.slice(0, -1))) {
    return { kind: "prefix", text: glob.slice(0, -1) };
  }
  return undefined;
}
