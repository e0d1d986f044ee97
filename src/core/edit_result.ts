/**
 * What an edit returns: the new text and where lines moved, so that a tool can show the
 * changed region with its new numbers and the agent can go on without re-reading.
 *
 * @module
 */

/** One changed region, in the old and the new numbering. */
export interface ChangedRegion {
  /** First line replaced, old numbering (for a pure insertion: the line after the point). */
  oldStart: number;
  /** Last line replaced, old numbering (`oldStart - 1` for a pure insertion). */
  oldEnd: number;
  /** First line of the new text, new numbering. */
  newStart: number;
  /** Last line of the new text, new numbering (`newStart - 1` when lines were only deleted). */
  newEnd: number;
}

/** The outcome of an edit. */
export interface EditResult {
  /** The whole new text, BOM kept. */
  text: string;
  /** Changed regions in line order. */
  regions: ChangedRegion[];
  /** How much line numbers after the last region moved (new count minus old count). */
  lineDelta: number;
  /** For a text replacement, how many occurrences were replaced. */
  occurrences?: number;
}

/** `expected_text` no longer matches the file: the whole edit is refused, nothing written. */
export class ExpectedTextMismatchError extends Error {
  /** The ranges (old numbering) whose text differs from what the caller expected. */
  readonly ranges: Array<{ start: number; end: number; firstDifferentLine: number }>;

  /**
   * Builds the refusal, naming the ranges but none of their content.
   *
   * @param ranges the ranges that differ, each with its first differing line
   */
  constructor(ranges: Array<{ start: number; end: number; firstDifferentLine: number }>) {
    const list = ranges
      .map((r) =>
        `${
          r.start === r.end ? `line ${r.start}` : `lines ${r.start}-${r.end}`
        } (first difference at line ${r.firstDifferentLine})`
      )
      .join(", ");
    super(
      `expected_text does not match the file at ${list}; nothing was written`,
    );
    this.name = "ExpectedTextMismatchError";
    this.ranges = ranges;
  }
}

/**
 * The occurrences an {@linkcode OldTextMatchError} names by line, at the most (`old_text`
 * found 262,144 times named them all: 1.8 MB in one error).
 */
export const LINES_NAMED = 20;

/** `old_text` was not found, or found more than once without `replace_all`. */
export class OldTextMatchError extends Error {
  /** Line numbers where each occurrence starts (empty when not found). */
  readonly lines: number[];

  /**
   * Builds the error, naming the line of every occurrence.
   *
   * @param lines where each occurrence starts (the message names the first {@linkcode LINES_NAMED});
   *   empty when there is none
   * @param which the edit it is about when there are several (`edits[1]: `)
   */
  constructor(lines: number[], which = "") {
    super(
      which +
        (lines.length === 0
          ? "old_text was not found; read the file again and copy the text exactly (whitespace included), or use replace_lines with line numbers"
          : `old_text occurs ${lines.length} times (at lines ${
            lines.slice(0, LINES_NAMED).join(", ")
          }${
            lines.length > LINES_NAMED ? ` and ${lines.length - LINES_NAMED} more` : ""
          }); include more surrounding text to make it unique, pass replace_all=true, or use replace_lines`),
    );
    this.name = "OldTextMatchError";
    this.lines = lines;
  }
}
