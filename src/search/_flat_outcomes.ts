/**
 * A batch's examined files as they cross from a search worker, in strings alone: Bun hands a
 * message of strings and numbers to the other thread as it is, and serializes any other, its
 * strings too (see `STRINGS_POST_APART`). Posting the outcomes of the kernel's
 * `\b(?:kmalloc|kzalloc)\(` took the worker 35-52 ms as objects and 9-10 ms as strings; of the
 * bench tree's `\bvar\b` (9.5 M characters kept), 86 ms and 38.
 *
 * @module
 */
import type { Examined } from "./_search_file.ts";
import type { JoinedText } from "../store/_joined_runs.ts";

/** The outcomes of a batch, flat: one letter each, their numbers, their text. */
export interface FlatOutcomes {
  /**
   * One letter per file: `b` binary, `n` none, `h` none though it holds the needle, `r` redo,
   * `t` text in one string, `a` text in parts, `j` text joined, `c` lines counted.
   */
  kinds: string;
  /**
   * For each text, comma-separated: invalid (0 or 1), the lines before it, then its length
   * (`t`), or its count of parts and each part (`a`): a string's length, or a number `n` as
   * `-1 - n`, or its length and count of runs and each run's two line numbers (`j`, see
   * `JoinedText`); for each count, invalid and the lines counted.
   */
  numbers: string;
  /** Every string of text, one after another. */
  texts: string;
}

/**
 * The outcomes as strings, unless one holds what only an object carries (another name's
 * stat, a digest and identity, a long line's window): the caller then posts them as they are.
 *
 * @param outcomes a batch's outcomes
 * @returns the flat outcomes, or undefined
 */
export function flatOutcomes(outcomes: readonly Examined[]): FlatOutcomes | undefined {
  let kinds = "";
  const numbers: number[] = [];
  const texts: string[] = [];
  for (const outcome of outcomes) {
    if (outcome.kind === "binary") kinds += "b";
    else if (outcome.kind === "redo") kinds += "r";
    else if (outcome.kind === "none") {
      if (outcome.linked !== undefined) return undefined;
      kinds += outcome.holdsNeedle ? "h" : "n";
    } else if (outcome.kind === "counted") {
      if (outcome.linked !== undefined) return undefined;
      kinds += "c";
      numbers.push(outcome.invalid ? 1 : 0, outcome.lines);
    } else {
      const { text, invalid, linesBefore, linked, sha1, identity } = outcome;
      if (linked !== undefined || sha1 !== undefined || identity !== undefined) return undefined;
      numbers.push(invalid ? 1 : 0, linesBefore);
      if (typeof text === "string") {
        kinds += "t";
        numbers.push(text.length);
        texts.push(text);
        continue;
      }
      if (!Array.isArray(text)) {
        kinds += "j";
        const { joined, starts, lines } = text;
        numbers.push(joined.length, starts.length);
        for (let r = 0; r < starts.length; r++) numbers.push(starts[r], lines[r]);
        texts.push(joined);
        continue;
      }
      kinds += "a";
      numbers.push(text.length);
      for (const part of text) {
        if (typeof part === "string") numbers.push(part.length), texts.push(part);
        else if (typeof part === "number") numbers.push(-1 - part);
        else return undefined;
      }
    }
  }
  return { kinds, numbers: numbers.join(","), texts: texts.join("") };
}

/**
 * The outcomes {@linkcode flatOutcomes} made flat.
 *
 * @param flat what crossed
 * @returns the outcomes, as they were
 */
export function outcomesOf(flat: FlatOutcomes): Examined[] {
  const numbers = flat.numbers === "" ? [] : flat.numbers.split(",").map(Number);
  const outcomes: Examined[] = [];
  let n = 0;
  let at = 0;
  const piece = (length: number) => flat.texts.slice(at, at += length);
  for (const kind of flat.kinds) {
    if (kind === "b") outcomes.push({ kind: "binary" });
    else if (kind === "r") outcomes.push({ kind: "redo" });
    else if (kind === "n") outcomes.push({ kind: "none" });
    else if (kind === "h") outcomes.push({ kind: "none", holdsNeedle: true });
    else if (kind === "c") {
      outcomes.push({ kind: "counted", invalid: numbers[n++] === 1, lines: numbers[n++] });
    } else {
      const invalid = numbers[n++] === 1;
      const linesBefore = numbers[n++];
      let text: string | (string | number)[] | JoinedText;
      if (kind === "t") text = piece(numbers[n++]);
      else if (kind === "j") {
        const joined = piece(numbers[n++]);
        const starts: number[] = [];
        const lines: number[] = [];
        for (let runs = numbers[n++]; runs > 0; runs--) {
          starts.push(numbers[n++]), lines.push(numbers[n++]);
        }
        text = { joined, starts, lines };
      } else {
        text = [];
        for (let parts = numbers[n++]; parts > 0; parts--) {
          const part = numbers[n++];
          text.push(part >= 0 ? piece(part) : -1 - part);
        }
      }
      outcomes.push({ kind: "text", text, invalid, linesBefore });
    }
  }
  return outcomes;
}
