/**
 * What `linewise grep` is asked, read from its options as ripgrep reads its own: the ones
 * that override each other, smart case, pattern files, and the options it does not take.
 *
 * @module
 */
import * as fs from "node:fs";
import { unquotePath } from "../core/mod.ts";
import { ripgrepGlob } from "./_ripgrep_glob.ts";
import type { GrepRequest } from "./grep_command.ts";
import { bytesOf, commandOf, count, seconds, UsageError, type Values } from "./_options.ts";
import type { StdinSource } from "./_stdin.ts";

/** What grep asks of the terminal it runs in (see `CliIo`). */
export interface GrepTerminal {
  stdoutIsTerminal?: boolean;
  stderrIsTerminal?: boolean;
  progressAfterMs?: number;
  /** Standard input, when there is one to search. */
  stdin?: Pick<StdinSource, "searchable">;
}

/** The grep command's flags and words, as ripgrep reads them. */
export function grepRequest(
  rest: string[],
  values: Values,
  tokens: ReadonlyArray<{ kind: string; name?: string; value?: string }>,
  io: GrepTerminal,
): GrepRequest {
  const given = optionsInOrder(tokens);
  // (As ripgrep: --files lists what a search would look through, and its words are paths.)
  if (values.files && (values.regexp !== undefined || values.file !== undefined)) {
    throw new UsageError(
      `--files lists the files a search would look through and takes no pattern: drop ${
        values.regexp !== undefined ? "-e" : "-f"
      }, or --files`,
    );
  }
  const patterns = [...values.regexp ?? [], ...(values.file ?? []).flatMap(patternsIn)];
  const words = rest.map((word) => STDIN_ALIASES.has(word) ? "-" : word);
  if (patterns.length === 0 && !values.files && values.file === undefined) {
    if (words.length === 0) throw new UsageError("grep takes PATTERN [PATH]... (or -e PATTERN)");
    patterns.push(words.shift()!);
  }
  // (-u leaves the ignore files out, -uu hidden names too; -uuu would search binary files.)
  const unrestricted = values.unrestricted?.length ?? 0;
  if (unrestricted >= 3) {
    throw new UsageError(
      "grep takes -u and -uu, not -uuu: binary files a walk meets are passed over (one named on the line is looked through)",
    );
  }
  // (The last of --heading and --no-heading decides, as in ripgrep.)
  const heading = lastOf(given, "heading", "no-heading");
  const filenames = lastOf(given, "with-filename", "no-filename");
  // (And of --line-buffered and --block-buffered.)
  const buffering = lastOf(given, "line-buffered", "block-buffered");
  // (Files print in path order, what --sort path asks.)
  if (values.sort !== undefined && values.sort !== "path" && values.sort !== "none") {
    throw new UsageError(
      `--sort takes path or none, got ${
        JSON.stringify(values.sort)
      }: linewise prints files in path order`,
    );
  }
  const whole = lastOf(given, "word-regexp", "line-regexp");
  // (The last of -l and --files-without-match decides; -c outweighs both.)
  const listing = lastOf(given, "files-with-matches", "files-without-match");
  const counting = (values.count || values["count-matches"]) ?? false;
  // (The last of -c and --count-matches decides what is counted.)
  const counted = lastOf(given, "count", "count-matches");
  const stdin = stdinAsked(words, values, io);
  return {
    patterns,
    // (A path in the quoted form grep prints names the file it printed, as with every tool.)
    paths: words.length > 0 ? words.map(unquotePath) : stdin === "guessed" ? ["-"] : ["."],
    pathsGiven: words.length > 0,
    stdin,
    ignoreCase: ignoresCase(given, patterns, values["fixed-strings"] ?? false),
    fixed: values["fixed-strings"] ?? false,
    word: whole === "word-regexp",
    line: whole === "line-regexp",
    invert: values["invert-match"] ?? false,
    filesWithMatches: values["files-with-matches"] ?? false,
    filesWithoutMatch: listing === "files-without-match" && !counting,
    count: counting,
    onlyMatching: values["only-matching"] ?? false,
    countMatches: counted === "count-matches",
    quiet: values.quiet ?? false,
    maxCount: count(values["max-count"], "-m", 0),
    files: values.files ?? false,
    // (The last of -n and -N, and of -H and -I, decides, as in ripgrep.)
    lineNumbers: lastOf(given, "line-number", "no-line-number") !== "no-line-number",
    // (--vimgrep prints every path, as ripgrep's.)
    filenames: filenames === undefined
      ? values.vimgrep || undefined
      : filenames === "with-filename",
    column: (values.column || values.vimgrep) ?? false,
    vimgrep: values.vimgrep ?? false,
    nul: values.null ?? false,
    noMessages: values["no-messages"] ?? false,
    ...contextOf(given),
    globs: (values.glob ?? []).map(ripgrepGlob),
    types: values.type ?? [],
    typesNot: values["type-not"] ?? [],
    maxDepth: count(values["max-depth"], "--max-depth", 0),
    maxFilesize: bytesOf(values["max-filesize"], "--max-filesize"),
    hidden: (values.hidden || values["include-ignored"] || unrestricted >= 2) ?? false,
    noIgnore: (values["no-ignore"] || values["include-ignored"] || unrestricted >= 1) ?? false,
    // (--vimgrep prints no headings, as ripgrep's.)
    heading: values.vimgrep
      ? false
      : heading === undefined
      ? io.stdoutIsTerminal ?? false
      : heading === "heading",
    color: colorOf(values.color, io, values.vimgrep ?? false),
    lineBuffered: buffering === undefined
      ? io.stdoutIsTerminal ?? false
      : buffering === "line-buffered",
    progressAfterMs: io.stderrIsTerminal ? io.progressAfterMs ?? 1000 : undefined,
    maxMatches: count(values["max-matches"], "--max-matches", 1),
    timeoutMs: seconds(values.timeout, "--timeout"),
    maxLines: count(values["max-lines"], "--max-lines", 1),
    maxChars: count(values["max-chars"], "--max-chars", 1000),
  };
}

/** The options given, in their order (what ripgrep's flags that override others need). */
function optionsInOrder(tokens: ReadonlyArray<{ kind: string; name?: string; value?: string }>) {
  return tokens.flatMap((token) =>
    token.kind === "option" ? [{ name: token.name!, value: token.value }] : []
  );
}

/**
 * The context lines asked for, as ripgrep 13 reads -A, -B and -C: a -C overrides an -A or -B
 * given before it, and an -A or -B overrides a -C given before it (the other side is then 0).
 */
function contextOf(given: ReadonlyArray<{ name: string; value?: string }>) {
  let after: number | undefined;
  let before: number | undefined;
  let both: number | undefined;
  for (const { name, value } of given) {
    if (name === "context") [both, after, before] = [count(value, "-C", 0), undefined, undefined];
    else if (name === "after-context") [after, both] = [count(value, "-A", 0), undefined];
    else if (name === "before-context") [before, both] = [count(value, "-B", 0), undefined];
  }
  return { before: before ?? both ?? 0, after: after ?? both ?? 0 };
}

/**
 * Whether a grep ignores case, as ripgrep reads -i, -s and -S: the last of them decides, and
 * -S ignores case when no pattern holds an upper-case letter of its own (one a `\x46` spells
 * too; not one in an escape such as `\S` or `\p{Lu}`, unless -F makes it a fixed string).
 */
function ignoresCase(
  given: ReadonlyArray<{ name: string }>,
  patterns: readonly string[],
  fixed: boolean,
): boolean {
  const last = lastOf(given, "ignore-case", "case-sensitive", "smart-case");
  if (last !== "smart-case") return last === "ignore-case";
  // As ripgrep: case is ignored when the patterns hold a literal character and none in upper
  // case; the letters that name a class (`\p{Lu}`, `[[:upper:]]`, `\W`) or a group are none.
  const literals = patterns.map((pattern) => fixed ? pattern : literalsOf(pattern)).join("");
  return literals !== "" && !/\p{Lu}/u.test(literals);
}

/**
 * The literal characters of a pattern, roughly as ripgrep's smart case tells them, read from
 * the left: an escaped character and `\x{…}` or `\u0041` are literal (`\t` too), a class, an assertion,
 * a group's syntax and a repetition are not.
 */
function literalsOf(pattern: string): string {
  let literals = "";
  for (let at = 0; at < pattern.length; at++) {
    SKIPPED.lastIndex = HEX.lastIndex = at;
    const skipped = SKIPPED.exec(pattern)?.[0];
    const hex = HEX.exec(pattern);
    const code = hex === null ? 0 : parseInt(hex[1] ?? hex[2] ?? hex[3] ?? hex[4], 16);
    if (skipped !== undefined) at += skipped.length - 1;
    else if (hex !== null) {
      // (Past U+10FFFF there is no character: the pattern's own compiling says so.)
      if (code <= 0x10FFFF) literals += String.fromCodePoint(code);
      at += hex[0].length - 1;
    } else if (pattern[at] === "\\") {
      const next = pattern[++at] ?? "";
      // (A letter escaped is a class or an assertion, but for the control characters.)
      if (!/[A-Za-z]/.test(next) || "tnrfva".includes(next)) literals += next;
    } else if (!".^$*+?()[]{}|".includes(pattern[at])) literals += pattern[at];
  }
  return literals;
}

/** What a pattern holds that is no literal: a Unicode or POSIX class, a group's syntax, a repetition. */
const SKIPPED =
  /\\[pP](?:\{[^}]*\}|[A-Za-z])|\[:\^?[a-z]+:\]|\(\?(?:P?<[A-Za-z_]\w*>|<[=!]|[:=!])|\{\d+(?:,\d*)?\}/y;
/** A character by its code: `\x41`, `\u0041`, `\U00000041`, or `\x{41}` (`\u{…}`, `\U{…}`). */
const HEX =
  /\\(?:[xuU]\{([0-9a-fA-F]{1,8})\}|x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8}))/y;

/**
 * Whether standard input is searched: `-` names it, and a grep given no path searches it
 * when it is a pipe or a file (see `_stdin.ts`), unless the patterns came from it (`-f -`)
 * or `--files` lists files.
 */
export function stdinAsked(
  words: readonly string[],
  values: Values,
  io: GrepTerminal,
): GrepRequest["stdin"] {
  const patternsFromIt = values.file?.some(namesStdin) ?? false;
  if (words.some(namesStdin)) {
    if (values.files) {
      throw new UsageError(
        "--files lists the files a search would look through: - (standard input) is none; give ./- for a file named -",
      );
    }
    if (patternsFromIt) {
      throw new UsageError(
        "-f - read the patterns from standard input: it cannot be searched too; save one of them to a file",
      );
    }
    if (io.stdin === undefined) throw new UsageError("- (standard input): there is none here");
    return "given";
  }
  const guess = words.length === 0 && !values.files && !patternsFromIt && io.stdin?.searchable;
  return guess ? "guessed" : undefined;
}

/**
 * Paths that name standard input itself, searched as `-` is: the root's sandbox would
 * refuse them (outside it, or a link), and what they lead to is the pipe or file given.
 */
const STDIN_ALIASES = new Set(["/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"]);

/** Whether a path given names standard input (`-`, or one of {@linkcode STDIN_ALIASES}). */
function namesStdin(path: string): boolean {
  return path === "-" || STDIN_ALIASES.has(path);
}

/** Which of some options that override each other was given last, if any. */

function lastOf(
  given: ReadonlyArray<{ name: string }>,
  ...names: string[]
): string | undefined {
  return given.findLast(({ name }) => names.includes(name))?.name;
}

/**
 * The patterns of a pattern file (`-f`; `-` is standard input), one a line, as ripgrep reads
 * them: an empty line is a pattern that matches every line, and a file without a line has
 * none.
 */
function patternsIn(file: string): string[] {
  let text: string;
  try {
    // (A BOM is kept, as in ripgrep: a pattern's first character.)
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(
      fs.readFileSync(namesStdin(file) ? 0 : file),
    );
  } catch (error) {
    const code = (error as { code?: string }).code;
    const why = error instanceof TypeError
      ? "its bytes are not UTF-8"
      : FILE_ERRORS[code ?? ""] ?? (error as Error).message;
    throw new UsageError(`-f ${file}: ${why}`);
  }
  // (A \r ends a pattern's line only before a \n, as in ripgrep.)
  const lines = text.split("\n").map((line, i, all) =>
    i < all.length - 1 && line.endsWith("\r") ? line.slice(0, -1) : line
  );
  if (text.endsWith("\n") || text === "") lines.pop();
  return lines;
}

/** What a pattern file that cannot be read is, by the error's code. */
const FILE_ERRORS: Record<string, string> = {
  ENOENT: "no such file",
  EISDIR: "a directory, not a file",
  EACCES: "permission denied",
};

/**
 * Whether grep colours its output: `--color auto` (the default: on a terminal, but not with
 * `--vimgrep`, whose lines an editor reads, as in ripgrep), always, never.
 */
function colorOf(when: string | undefined, io: GrepTerminal, vimgrep: boolean): boolean {
  if (when === undefined || when === "auto") return !vimgrep && (io.stdoutIsTerminal ?? false);
  if (when === "always" || when === "never") return when === "always";
  throw new UsageError(`--color takes auto, always or never, got ${JSON.stringify(when)}`);
}

/** grep --json runs the grep tool, which has none of ripgrep's own flags: they are refused. */
export function refuseRipgrepOnly(values: Values): void {
  const flags: Array<[keyof Values, string]> = [
    ["regexp", "-e"],
    ["file", "-f"],
    ["word-regexp", "-w"],
    ["line-regexp", "-x"],
    ["invert-match", "-v"],
    ["count-matches", "--count-matches"],
    ["column", "--column"],
    ["vimgrep", "--vimgrep"],
    ["null", "-0"],
    ["files-with-matches", "-l"],
    ["files-without-match", "--files-without-match"],
    ["count", "-c"],
    ["only-matching", "-o"],
    ["quiet", "-q"],
    ["max-count", "-m"],
    ["files", "--files"],
    ["smart-case", "-S"],
    ["case-sensitive", "-s"],
    ["unrestricted", "-u"],
    ["no-line-number", "-N"],
    ["with-filename", "-H"],
    ["no-filename", "-I"],
    ["after-context", "-A"],
    ["before-context", "-B"],
    ["type", "-t"],
    ["type-not", "-T"],
    ["max-depth", "--max-depth"],
    ["max-filesize", "--max-filesize"],
    ["hidden", "--hidden"],
    ["no-ignore", "--no-ignore"],
    ["heading", "--heading"],
    ["color", "--color"],
  ];
  const given = flags.filter(([key]) => values[key] !== undefined).map(([, flag]) => flag);
  if ((values.glob?.length ?? 0) > 1) given.push("-g more than once");
  if (given.length > 0) {
    throw new UsageError(
      `grep --json gives the grep tool's result, which takes no ${given.join(", ")}`,
    );
  }
}

/**
 * For an option the command line does not know, what it says instead of the parser's advice
 * (whose quotes do not pair): which option, and how to give a word that starts with `-`; for
 * a grep given one of ripgrep's that people reach for, why linewise has none.
 */
export function notTaken(error: Error, argv: readonly string[]): string | undefined {
  const option = /^Unknown option '([^']+)'/.exec(error.message)?.[1];
  if (option === undefined) return undefined;
  if (commandOf(argv) !== "grep") {
    return `unknown option ${option} (linewise --help lists the options; a word that starts with - goes after --, as in -- ${option})`;
  }
  const why = NOT_TAKEN[option];
  return `grep does not take ${option}${
    why ? `: ${why}` : " (linewise --help lists what it takes)"
  }`;
}

/** Why grep has no such option, for ripgrep's that people reach for. */
const NOT_TAKEN: Record<string, string> = Object.fromEntries(
  ([
    [["-U", "--multiline"], "a match lies within a line, by linewise's line rule"],
    [
      ["-a", "--text"],
      "binary files a walk meets are passed over; one named on the line is looked through",
    ],
    [
      ["-L", "--follow"],
      "a walk searches links to files within the root and enters no linked directory",
    ],
  ] as [string[], string][]).flatMap(([names, why]) => names.map((name) => [name, why])),
);
