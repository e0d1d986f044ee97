// Shared machinery of the edit functions: the rules of SPEC §3 that every edit obeys.
import { endsWithTerminator, lineSpanAt } from "./split_lines.ts";

/** Offsets where each line starts, plus the text's length: line n is `[at[n-1], at[n])`. */
export function lineStarts(body: string): number[] {
  const starts = [0];
  for (let at = 0; at < body.length;) {
    at = lineSpanAt(body, at).next;
    starts.push(at);
  }
  return starts;
}

/**
 * Gives every line break in `text` the terminator `eol`; a lone `\r` stays text. A line whose
 * text ends in `\r` keeps `\r\n`: a `\n` after that `\r` would make it part of the terminator.
 */
export function withBreaks(text: string, eol: string): string {
  return text.replace(
    /\r?\n/g,
    (_found: string, at: number) => text.charCodeAt(at - 1) === CR ? "\r\n" : eol,
  );
}

/**
 * Appends a terminator to text that has none. Text ending in a lone `\r` gets `\r\n`, since
 * a `\n` would turn that `\r`, which is text, into part of the terminator.
 */
export function withTerminator(text: string, eol: string): string {
  return text + (text.charCodeAt(text.length - 1) === CR ? "\r\n" : eol);
}

const CR = 13;

/**
 * New text that would run into the line after it gets a terminator, so that no edit ever
 * joins two lines by accident.
 */
export function terminated(text: string, eol: string): string {
  return text.length > 0 && !text.endsWith("\n") ? withTerminator(text, eol) : text;
}

/**
 * Restores the original final-newline state on the edited text: only the last line can
 * change, and only when an edit reached the end of the file. An empty last line keeps its
 * terminator: without it the line would not exist, and an edit must not drop a line.
 */
export function keepFinalState(before: string, after: string, eol: string): string {
  if (after.length === 0 || endsWithTerminator(before) === endsWithTerminator(after)) return after;
  if (endsWithTerminator(before)) return withTerminator(after, eol);
  const stripped = after.slice(0, after.length - (after.endsWith("\r\n") ? 2 : 1));
  return stripped.length === 0 || stripped.endsWith("\n") ? after : stripped;
}

/** The terminator of line `line` (1-based), or "" when it has none or does not exist. */
export function terminatorAt(body: string, starts: number[], line: number): string {
  if (line < 1 || line >= starts.length) return "";
  const span = lineSpanAt(body, starts[line - 1]);
  return body.slice(span.end, span.next);
}
