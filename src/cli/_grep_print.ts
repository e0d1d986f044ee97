/**
 * How `linewise grep` prints a file's rows, as ripgrep prints them: `path:line:text` (context
 * `path-line-text`), or each match alone with `-o`, coloured as ripgrep colours them.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { escapeRegExp, quotePath, type ScanRow } from "../core/mod.ts";
import { linearSpans } from "../match/_linear_matcher.ts";
import { ripgrepSpelled } from "../match/_ripgrep_syntax.ts";

/** A match's place in a row's text, in UTF-16 code units. */
export interface Span {
  start: number;
  end: number;
}

/**
 * Every match in a matching row's text, as ripgrep finds them one after another: the pattern
 * run again where that is safe (a literal, a native regular expression the risk analysis let
 * through, or one on the stoppable engine over a line of at most
 * {@linkcode STOPPABLE_SPAN_CHARS}: `-w` puts `\w+` there); otherwise (the linear engine, a
 * longer line, a long list of fixed strings) the one match the search found. An empty match
 * right where the one before ended is passed over, as ripgrep passes it over.
 */
export type MatchSpans = (text: string, row: ScanRow) => Span[];

/**
 * The longest line a pattern on the stoppable engine is run on again for its every match:
 * its lookarounds cost at worst the square of the line's length, a few milliseconds here.
 */
export const STOPPABLE_SPAN_CHARS = 4_096;

/**
 * The {@linkcode MatchSpans} of a pattern.
 *
 * @param pattern the pattern, as compiled
 * @param engine the engine it compiled to
 * @param options whether it ignores case, and whether it is a literal
 * @param firstOnly told of each line whose first match alone is known
 */
export function matchSpans(
  pattern: string,
  engine: string,
  options: { ignoreCase: boolean; literal: boolean },
  firstOnly: () => void = () => {},
): MatchSpans {
  // (A long list of fixed strings is on the "literal" engine too: it is not compiled here.)
  const flags = `gsu${options.ignoreCase ? "i" : ""}`;
  const all = options.literal
    ? new RegExp(escapeRegExp(pattern), flags)
    : engine === "native" || engine === "stoppable"
    ? nativeRegex(pattern, flags)
    : undefined;
  // (A pattern on the linear-time engine finds each match on it: in linear time, where the
  // runtime's engine could take exponential time.)
  if (all === undefined && engine === "linear") {
    const spans = linearSpansOf(pattern, options.ignoreCase);
    if (spans !== undefined) return (text) => spans(text);
  }
  const most = engine === "stoppable" ? STOPPABLE_SPAN_CHARS : Infinity;
  return (text, row) => {
    if (all === undefined || text.length > most) {
      firstOnly();
      return [row.match!];
    }
    const spans: Span[] = [];
    let ended = -1;
    for (const found of text.matchAll(all)) {
      const start = found.index;
      const end = start + found[0].length;
      if (start === end && start === ended) continue;
      spans.push({ start, end });
      ended = end;
    }
    return spans;
  };
}

/** How output is coloured: not at all, or as ripgrep's defaults. */
export interface Paint {
  path(path: string): string;
  line(line: number): string;
  column(column: number): string;
  /** A match's text. */
  match(text: string): string;
}

/** No colour. */
export const PLAIN: Paint = {
  path: (path) => path,
  line: (line) => line < KEPT_NUMBERS ? numbers[line] ??= String(line) : String(line),
  column: (column) => String(column),
  match: (text) => text,
};

/** Line numbers made into text, kept (a grep may print millions of rows). */
const numbers: string[] = [];
/** The line numbers whose text is kept are those below it. */
const KEPT_NUMBERS = 1 << 16;

const RESET = "\x1b[0m";

/** ripgrep's colours: paths magenta, line numbers green, matches bold red. */
export const COLOURED: Paint = {
  path: (path) => `${RESET}\x1b[35m${path}${RESET}`,
  line: (line) => `${RESET}\x1b[32m${line}${RESET}`,
  column: (column) => `${RESET}${column}${RESET}`,
  match: (text) => `${RESET}\x1b[1m\x1b[31m${text}${RESET}`,
};

/** What {@linkcode printed} prints with. */
export interface PrintOptions {
  /** Line numbers on the rows. */
  numbers: boolean;
  /** A heading per file (its path alone on a line, then its rows without it). */
  heading: boolean;
  /** Whether there are context lines (groups apart are then separated by `--`). */
  context: boolean;
  /** Each match alone on a line (`-o`), instead of the line that holds it. */
  onlyMatching: boolean;
  /** The column of a matching line's first match (`--column`), in bytes from 1, as ripgrep's. */
  column: boolean;
  /** A matching line once for each of its matches, with that match's column (`--vimgrep`). */
  vimgrep: boolean;
  /** A NUL after the path instead of its `:`, `-` or line break (`-0`). */
  nul: boolean;
  paint: Paint;
  spans: MatchSpans;
  /**
   * The last line of this file's rows printed before, when these go on from them (standard
   * input, printed as it comes): no heading again, and `--` only between groups apart.
   */
  continuedAfter?: number;
}

/**
 * A path as grep prints it: quoted as the tools quote it, so that no name passes for a row or a
 * note; with -0 (a NUL after each path, for `xargs -0`), a name that is valid UTF-8 as it is,
 * as ripgrep prints it: a NUL cannot be in it. (A name that is not UTF-8 is quoted all the same:
 * its bytes cannot be written as text.)
 *
 * @param path the file's path
 * @param nul whether -0 was given
 * @returns the path as printed
 */
export function shownName(path: string, nul: boolean): string {
  return nul && path.isWellFormed() ? path : quotePath(path);
}

/**
 * One file's rows as ripgrep prints them (without a path: only line numbers); with context,
 * `--` between groups apart.
 *
 * @param path the file's path as shown, or undefined for a file named alone
 * @param rows its rows, in line order
 * @param options how
 * @param flush given the text made so far once it is {@linkcode PRINTED_CHARS} long: the
 *   text of a file of 200,000 matching lines is not held whole
 * @returns the text (after the last flush)
 */
export function printed(
  path: string | undefined,
  rows: readonly ScanRow[],
  options: PrintOptions,
  flush?: (text: string) => void,
): string {
  const { numbers, heading, context, onlyMatching, column, vimgrep, nul, paint, spans } = options;
  const shownPath = path === undefined ? undefined : paint.path(path);
  const continued = options.continuedAfter !== undefined;
  let text = heading && shownPath !== undefined && !continued
    ? `${shownPath}${nul ? "\0" : "\n"}`
    : "";
  // (Most rows: uncoloured, each its text as it is, but for a `\n` after a last line without
  // one; made so without taking the text apart.)
  const plain = paint === PLAIN && !column && !onlyMatching && !vimgrep;
  let previous = options.continuedAfter;
  for (const row of rows) {
    if (flush !== undefined && text.length >= PRINTED_CHARS) {
      flush(text);
      text = "";
    }
    if (context && previous !== undefined && row.line > previous + 1) text += "--\n";
    previous = row.line;
    const mark = row.match !== undefined ? ":" : "-";
    const number = numbers ? `${paint.line(row.line)}${mark}` : "";
    const start = heading || shownPath === undefined
      ? number
      : `${shownPath}${nul ? "\0" : mark}${number}`;
    if (plain) {
      text += row.text.endsWith("\n") ? start + row.text : `${start}${row.text}\n`;
      continue;
    }
    const body = rowBody(row.text);
    const ending = row.text.slice(body.length);
    // (Columns in bytes, counted on from the last one: a line's matches come in order.)
    let counted = 0;
    let bytes = 0;
    const at = (from: number) => {
      if (!column) return "";
      if (from < counted) [counted, bytes] = [0, 0];
      bytes += Buffer.byteLength(body.slice(counted, from));
      counted = from;
      return `${paint.column(bytes + 1)}:`;
    };
    if (row.match === undefined) text += `${start}${body}${ending || "\n"}`;
    else if (onlyMatching) {
      for (const { start: from, end } of spans(body, row)) {
        // (An empty match is printed as its line number alone, uncoloured, as ripgrep's.)
        text += `${start}${at(from)}${from === end ? "" : paint.match(body.slice(from, end))}\n`;
      }
    } else if (vimgrep) {
      // (Each match's line marks that match alone, as ripgrep's.)
      for (const span of spans(body, row)) {
        text += `${start}${at(span.start)}${marked(body, row, paint, () => [span])}${
          ending || "\n"
        }`;
      }
    } else {text += `${start}${at(row.match.start)}${marked(body, row, paint, spans)}${
        ending || "\n"
      }`;}
  }
  return text;
}

/** The characters of rows {@linkcode printed} makes before it hands them on. */
export const PRINTED_CHARS = 64 * 1024;

/**
 * A row's text without its line terminator (`\n`, or `\r\n`: the line rule's).
 *
 * @param text the row's text
 * @returns the line's own characters
 */
export function rowBody(text: string): string {
  if (text.endsWith("\r\n")) return text.slice(0, -2);
  return text.endsWith("\n") ? text.slice(0, -1) : text;
}

/** A matching line's text with its matches marked (those that touch as one, as ripgrep's). */
function marked(text: string, row: ScanRow, paint: Paint, spans: MatchSpans): string {
  if (paint === PLAIN) return text;
  const joined: Span[] = [];
  for (const span of spans(text, row)) {
    if (span.end === span.start) continue;
    const last = joined.at(-1);
    if (last && last.end === span.start) last.end = span.end;
    else joined.push({ ...span });
  }
  let out = "";
  let done = 0;
  for (const { start, end } of joined) {
    out += text.slice(done, start) + paint.match(text.slice(start, end));
    done = end;
  }
  return out + text.slice(done);
}

/** The RegExp the native engine runs for a pattern (as the matcher reads ripgrep's spellings). */
/** {@linkcode linearSpans} of a pattern, spelled as JavaScript where ripgrep's way failed. */
function linearSpansOf(
  pattern: string,
  ignoreCase: boolean,
): ((text: string) => Span[]) | undefined {
  for (const spelled of [pattern, ripgrepSpelled(pattern)]) {
    if (spelled === undefined) continue;
    try {
      return linearSpans(spelled, ignoreCase);
    } catch {
      // (Not this spelling.)
    }
  }
  return undefined;
}

function nativeRegex(pattern: string, flags: string): RegExp {
  try {
    return new RegExp(pattern, flags);
  } catch {
    return new RegExp(ripgrepSpelled(pattern) ?? pattern, flags);
  }
}
