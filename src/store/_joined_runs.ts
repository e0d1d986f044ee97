/**
 * A file's kept lines joined for one scan. An examination that reads a file whole keeps the
 * runs of lines that may match, with the counts of lines left out between them; a pattern
 * common in a file (`\bu(8|16|32|64)\b` in the Linux tree: 375,350 runs in 28,523 files)
 * leaves thousands of runs of a line or two, and scanning each on its own cost more than the
 * lines themselves. Without context, no line of one run is a neighbour of another's, so the
 * runs can be scanned as one text and its line numbers mapped back.
 *
 * @module
 */

/**
 * A file's kept runs joined where its bytes were read (see `Examination.joinRuns`): the text
 * {@linkcode JoinedRuns.of} would join, and per run the number of its first line in that text
 * and in the file.
 */
export interface JoinedText {
  joined: string;
  starts: number[];
  lines: number[];
}

/** Runs of whole lines joined, and where each run's lines are in the file. */
export class JoinedRuns {
  /** The runs, one after another (after an empty line when the first is not the file's first). */
  readonly text: string;
  /** Per run: the number of its first line in {@linkcode text}. */
  readonly #starts: number[];
  /** Per run: the number of its first line in the file. */
  readonly #lines: number[];
  /** The run the last line mapped was in (lines are mapped in increasing order). */
  #run = 0;

  private constructor(text: string, starts: number[], lines: number[]) {
    this.text = text;
    this.#starts = starts;
    this.#lines = lines;
  }

  /**
   * Joins a file's kept text: runs of whole lines and counts of lines left out.
   *
   * @param chunks the runs and counts, in order (every run but the last ends with `\n`)
   * @param linesBefore lines of the file before the first chunk
   * @returns the joined runs, or undefined when there is nothing to join (fewer than two
   *   runs) or a chunk is another thing (a long line windowed, or a run not ending with `\n`
   *   before another)
   */
  static of(
    chunks: ReadonlyArray<string | number | object>,
    linesBefore: number,
  ): JoinedRuns | undefined {
    const parts: string[] = [];
    const starts: number[] = [];
    const lines: number[] = [];
    let line = linesBefore + 1;
    let joined = 1;
    for (const chunk of chunks) {
      if (typeof chunk === "number") {
        line += chunk;
        continue;
      }
      if (typeof chunk !== "string") return undefined;
      if (chunk.length === 0) continue;
      if (starts.length > 0 && !parts.at(-1)!.endsWith("\n")) return undefined;
      // A first run after lines left out does not start the text: a U+FEFF there is no BOM.
      if (starts.length === 0 && line > 1) {
        parts.push("\n");
        joined = 2;
      }
      const count = wholeLines(chunk);
      starts.push(joined);
      lines.push(line);
      parts.push(chunk);
      joined += count;
      line += count;
    }
    return starts.length < 2 ? undefined : new JoinedRuns(parts.join(""), starts, lines);
  }

  /**
   * Runs joined where the file's bytes were read.
   *
   * @param kept the text and where its runs are
   * @returns the joined runs, to map line numbers back from
   */
  static from({ joined, starts, lines }: JoinedText): JoinedRuns {
    return new JoinedRuns(joined, starts, lines);
  }

  /**
   * The number in the file of a line of {@linkcode text}; ask in increasing order.
   *
   * @param joined the line's number in the text (the empty line in front maps to the line
   *   before the first run)
   * @returns its number in the file
   */
  lineOf(joined: number): number {
    const starts = this.#starts;
    let run = this.#run;
    while (run + 1 < starts.length && starts[run + 1] <= joined) run++;
    this.#run = run;
    return joined - starts[run] + this.#lines[run];
  }
}

/** Lines in a chunk of whole lines: its `\n`s, plus one for an unterminated last line. */
export function wholeLines(chunk: string): number {
  let count = 0;
  for (let at = chunk.indexOf("\n"); at !== -1; at = chunk.indexOf("\n", at + 1)) count++;
  return chunk.length > 0 && !chunk.endsWith("\n") ? count + 1 : count;
}
