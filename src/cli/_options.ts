/**
 * The command line's options, as `parseArgs` reads them, and how a value is read: the
 * usage mistakes, whole numbers, seconds and sizes.
 *
 * @module
 */
import type { parseArgs } from "node:util";

/** A usage mistake: exit status 2. */
export class UsageError extends Error {}

/** Every option of every command (a command passes over those it has no use for). */
export const OPTIONS = {
  root: { type: "string", multiple: true },
  deny: { type: "string", multiple: true },
  "read-only": { type: "boolean" },
  force: { type: "boolean" },
  json: { type: "boolean" },
  "max-lines": { type: "string" },
  "max-chars": { type: "string" },
  "max-edit-bytes": { type: "string" },
  timeout: { type: "string" },
  threads: { type: "string", short: "j" },
  "no-cache": { type: "boolean" },
  "ignore-case": { type: "boolean", short: "i" },
  "case-sensitive": { type: "boolean", short: "s" },
  "smart-case": { type: "boolean", short: "S" },
  unrestricted: { type: "boolean", short: "u", multiple: true },
  "fixed-strings": { type: "boolean", short: "F" },
  // (-P asks for ripgrep's other engine: linewise's one already takes lookarounds and
  // backreferences, as JavaScript does. It changes nothing.)
  pcre2: { type: "boolean", short: "P" },
  "line-regexp": { type: "boolean", short: "x" },
  "invert-match": { type: "boolean", short: "v" },
  file: { type: "string", short: "f", multiple: true },
  context: { type: "string", short: "C" },
  "after-context": { type: "string", short: "A" },
  "before-context": { type: "string", short: "B" },
  regexp: { type: "string", short: "e", multiple: true },
  "word-regexp": { type: "boolean", short: "w" },
  "files-with-matches": { type: "boolean", short: "l" },
  "files-without-match": { type: "boolean" },
  count: { type: "boolean", short: "c" },
  "only-matching": { type: "boolean", short: "o" },
  "count-matches": { type: "boolean" },
  quiet: { type: "boolean", short: "q" },
  "max-count": { type: "string", short: "m" },
  "line-number": { type: "boolean", short: "n" },
  "no-line-number": { type: "boolean", short: "N" },
  "with-filename": { type: "boolean", short: "H" },
  "no-filename": { type: "boolean", short: "I" },
  heading: { type: "boolean" },
  "no-heading": { type: "boolean" },
  "line-buffered": { type: "boolean" },
  "block-buffered": { type: "boolean" },
  color: { type: "string" },
  hidden: { type: "boolean", short: "." },
  "no-ignore": { type: "boolean" },
  "no-ignore-dot": { type: "boolean" },
  "no-ignore-global": { type: "boolean" },
  files: { type: "boolean" },
  glob: { type: "string", short: "g", multiple: true },
  type: { type: "string", short: "t", multiple: true },
  "type-not": { type: "string", short: "T", multiple: true },
  "type-list": { type: "boolean" },
  column: { type: "boolean" },
  null: { type: "boolean", short: "0" },
  "no-messages": { type: "boolean" },
  vimgrep: { type: "boolean" },
  "max-depth": { type: "string" },
  "max-filesize": { type: "string" },
  sort: { type: "string" },
  "max-matches": { type: "string" },
  "include-ignored": { type: "boolean" },
  depth: { type: "string" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "V" },
} as const;

/** The options parsed. */
export type Values = ReturnType<
  typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>
>["values"];

/**
 * The words with each option that takes a value joined to the next word when that starts
 * with `-` (`-e ->next` as `--regexp=->next`): it takes it, as in ripgrep, where `-e` is how
 * a pattern starting with `-` is given; `parseArgs` would refuse it as ambiguous. A short
 * one's value after `=` (`-m=1`) is its value, as ripgrep reads it.
 */
export function withValuesJoined(words: string[]): string[] {
  const joined: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i];
    if (word === "--") return [...joined, ...words.slice(i)];
    const equals = /^(-[^-])=/s.exec(word);
    const short = equals === null ? undefined : valueTaker(equals[1]);
    if (short !== undefined) {
      joined.push(`--${short}=${word.slice(3)}`);
      continue;
    }
    const name = valueTaker(word);
    if (name !== undefined && words[i + 1]?.startsWith("-")) {
      joined.push(`--${name}=${words[++i]}`);
    } else joined.push(word);
  }
  return joined;
}

/** The long name of the option a word is (`-e`, `--regexp`) when it takes a value. */
function valueTaker(word: string): string | undefined {
  const name = word.startsWith("--") ? word.slice(2) : SHORT_NAMES.get(word);
  return OPTIONS[name as keyof typeof OPTIONS]?.type === "string" ? name : undefined;
}

/** Each short option (`-e`) by the name of its long one. */
const SHORT_NAMES = new Map<string, string>(
  Object.entries(OPTIONS).flatMap(([name, option]) =>
    "short" in option ? [[`-${option.short}`, name] as const] : []
  ),
);

/** The command word of a line the parser refused: the first word that is no option's. */
export function commandOf(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i];
    if (!word.startsWith("-")) return word;
    if (valueTaker(word) !== undefined) i++; // (its value)
  }
  return undefined;
}

/** A whole number of `minimum` or more, as an option gives it (undefined: not given). */
export function count(
  value: string | undefined,
  name: string,
  minimum: number,
): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < minimum) {
    throw new UsageError(
      `${name} takes a whole number of ${minimum} or more, got ${JSON.stringify(value)}`,
    );
  }
  return Number(value);
}

/** A size as ripgrep writes one: digits, then K, M or G (of 1,024) if any. */
export function bytesOf(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const size = /^(\d+)([KMG]?)$/.exec(value);
  if (size === null) {
    throw new UsageError(
      `${name} takes digits and K, M or G if any (as 10K or 2M), got ${JSON.stringify(value)}`,
    );
  }
  return Number(size[1]) * 1024 ** " KMG".indexOf(size[2] || " ");
}

/** "2.5" seconds as milliseconds. */
export function seconds(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+(?:\.\d+)?$/.test(value) || Number(value) <= 0) {
    throw new UsageError(`${name} takes a number of seconds above 0, got ${JSON.stringify(value)}`);
  }
  return Math.round(Number(value) * 1000);
}
