// Shared fast-check arbitraries and reference implementations for the core's property tests.
// Texts come from a small alphabet rich in the characters the line rule cares about, so that
// short random texts hit every edge: "\n", "\r\n", lone "\r" (also at the end of a line and of
// the text), a leading BOM, astral characters, and characters that look like line breaks to
// other tools (U+2028, a BOM inside the text).
import fc from "fast-check";
import { splitBom } from "../../src/core/bom.ts";
import { lineText, splitLines } from "../../src/core/split_lines.ts";
import { type Matcher, scanText } from "../../src/core/mod.ts";

/** Runs per property: the issue asks for at least 1,000. */
export const RUNS = { numRuns: 1000 } as const;

const PIECES = [
  "a",
  "b",
  "x",
  "A",
  " ",
  "\t",
  "\n",
  "\n",
  "\n",
  "\r",
  "\r",
  "\r\n",
  "\r\n",
  "\r\n",
  "😀",
  "é",
  "\u2028",
  "\uFEFF",
  ".",
];

/** One piece of text from the alphabet. */
export const piece: fc.Arbitrary<string> = fc.constantFrom(...PIECES);

/** A text without a leading BOM. */
export const body: fc.Arbitrary<string> = fc.array(piece, { maxLength: 40 }).map((p) => p.join(""));

/** A text, with a leading BOM one time in four. */
export const text: fc.Arbitrary<string> = fc
  .tuple(fc.integer({ min: 0, max: 3 }), body)
  .map(([bom, rest]) => (bom === 0 ? "\uFEFF" : "") + rest);

const LINE_CHARS = ["a", "b", "x", " ", "\t", "😀", "é", "."];

/** Text of one line: no "\n" and no "\r". */
export const plainLine: fc.Arbitrary<string> = fc
  .array(fc.constantFrom(...LINE_CHARS), { maxLength: 6 })
  .map((p) => p.join(""));

/** A text whose every terminator is `eol`: at least two lines, final terminator or not. */
export function pureText(eol: "\n" | "\r\n"): fc.Arbitrary<string> {
  return fc
    .tuple(
      fc.boolean(),
      fc.array(plainLine, { minLength: 2, maxLength: 8 }),
      fc.boolean(),
    )
    .map(([bom, lines, final]) => (bom ? "\uFEFF" : "") + lines.join(eol) + (final ? eol : ""));
}

/** New text for an edit in LF style (may hold "\r\n" too, never a lone "\r"). */
export const breakText: fc.Arbitrary<string> = fc
  .array(fc.constantFrom("a", "b", "😀", " ", "\n", "\n", "\r\n"), { maxLength: 8 })
  .map((p) => p.join(""));

/** New text for an edit, from the whole alphabet (lone "\r" included). */
export const anyText: fc.Arbitrary<string> = body;

/** Line numbers (1-based) of the lines whose text `test` accepts: the naive reference scanner. */
export function referenceLines(whole: string, test: (line: string) => boolean): number[] {
  const numbers: number[] = [];
  splitLines(splitBom(whole).body).forEach((line, i) => {
    if (test(lineText(line))) numbers.push(i + 1);
  });
  return numbers;
}

/** Line numbers of the lines `matcher` matches in `whole`, as the scanner finds them. */
export function scannedLines(whole: string, matcher: Matcher): number[] {
  const numbers: number[] = [];
  scanText(whole, matcher, (row) => {
    if (row.match) numbers.push(row.line);
  });
  return numbers;
}

const ATOMS = [
  "a",
  "x",
  "A",
  ".",
  "\\s",
  "\\S",
  "\\w",
  "\\W",
  "\\d",
  "\\D",
  "[^x]",
  "[^]",
  "[ab]",
  "\\r",
  "😀",
  "é",
  "\\.",
];
const ASSERTIONS = ["^", "$", "\\b", "\\B"];

const QUANTIFIERS = ["", "", "*", "+", "?"];

/** A group that repeats (`*` or `+`) alternatives of plain atoms. */
const repeatedGroup: fc.Arbitrary<string> = fc
  .tuple(
    fc.array(
      fc.array(fc.constantFrom(...ATOMS), { minLength: 1, maxLength: 3 }).map((a) => a.join("")),
      { minLength: 1, maxLength: 3 },
    ),
    fc.constantFrom("*", "+"),
  )
  .map(([alternatives, q]) => `(?:${alternatives.join("|")})${q}`);

/**
 * A regular expression from a small grammar: atoms, `*`/`+`/`?`, anchors, alternation, groups.
 * Only a group of plain atoms repeats: a repeated group holding another repetition can take
 * the runtime's backtracking engine minutes on a 40-character text (one drawn pattern of that
 * kind took 108 s in CI), so nested groups are at most optional.
 */
export const regexSource: fc.Arbitrary<string> = alternations(
  (alternation) =>
    fc.oneof(
      {
        weight: 20,
        arbitrary: fc
          .tuple(fc.constantFrom(...ATOMS), fc.constantFrom(...QUANTIFIERS))
          .map(([a, q]) => a + q),
      },
      {
        weight: 5,
        arbitrary: fc
          .tuple(alternation, fc.constantFrom("", "", "?"))
          .map(([s, q]) => `(?:${s})${q}`),
      },
      { weight: 2, arbitrary: repeatedGroup },
      { weight: 8, arbitrary: fc.constantFrom(...ASSERTIONS) },
    ),
  4,
);

/**
 * Patterns of up to three alternatives, each a sequence of up to `maxTerms` terms; a term
 * may hold a whole pattern again (given to `term`, for groups).
 *
 * @param term the terms, given the patterns they may nest
 * @param maxTerms the most terms in a sequence
 * @returns the patterns
 */
export function alternations(
  term: (alternation: fc.Arbitrary<string>) => fc.Arbitrary<string>,
  maxTerms: number,
): fc.Arbitrary<string> {
  return fc.letrec((tie) => ({
    term: term(tie("alternation") as fc.Arbitrary<string>),
    sequence: fc
      .array(tie("term") as fc.Arbitrary<string>, { minLength: 1, maxLength: maxTerms })
      .map((t) => t.join("")),
    alternation: fc
      .array(tie("sequence") as fc.Arbitrary<string>, {
        minLength: 1,
        maxLength: 3,
        depthIdentifier: "re",
      })
      .map((s) => s.join("|")),
  })).alternation as fc.Arbitrary<string>;
}

/** Like {@linkcode regexSource}, sometimes with a lookahead or lookbehind around it. */
export const regexWithLookarounds: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: regexSource },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom("(?=", "(?!", "(?<=", "(?<!"), regexSource, regexSource)
      .map(([open, inner, rest]) => `${open}${inner})${rest}`),
  },
);

/**
 * Pieces of a file for the search prefilters' property tests: a needle, parts of it, its
 * spellings in other cases (and with the long s and the Kelvin sign, which Unicode case
 * folding matches with s and k), and the characters the line rule cares about.
 */
export const needlePiece: fc.Arbitrary<string> = fc.constantFrom(
  "needle",
  "need",
  "le",
  "x",
  "\n",
  "\n",
  "\r\n",
  "\r",
  "\uFEFF",
  "é",
  "needle 7",
  "NEEDLE",
  "NeEd",
  "dLe",
  "s",
  "S",
  "ſ",
  "\u212A",
  " 7",
  "filler text without it ",
);
