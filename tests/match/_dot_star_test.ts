import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { type Matcher, regexMatcher, scanText } from "../../src/core/mod.ts";
import { dotStarParts, headFirst } from "../../src/match/_dot_star.ts";
import { compilePattern } from "../../src/match/safe_matcher.ts";
import { body, referenceLines, regexSource, RUNS } from "../_helpers/arbitraries.ts";

/** The numbers of the lines `matcher` matches in `text`, as the scanner finds them. */
function scannedLines(text: string, matcher: Matcher): number[] {
  const lines: number[] = [];
  scanText(text, matcher, (row) => {
    if (row.match) lines.push(row.line);
  });
  return lines;
}

/** The lines of a text, terminators left out (as `matchLine` is given them). */
function linesOf(text: string): string[] {
  return text.split(/\r?\n|\r/);
}

/** Atoms that always match one character, or none (assertions). */
const FIXED_ATOMS = ["a", "x", "A", ".", "\\.", "\\w", "[ab]", "[^a]", "😀", "é", "\\b", "^"];
/** Heads: one to four such atoms, some in a group or a lookaround. */
const fixedHead = fc
  .array(
    fc.oneof(
      fc.constantFrom(...FIXED_ATOMS),
      fc.constantFrom(...FIXED_ATOMS).map((atom) => `(?:${atom}a)`),
      fc.constantFrom(...FIXED_ATOMS).map((atom) => `(?<=${atom})`),
    ),
    { minLength: 1, maxLength: 4 },
  )
  .map((atoms) => atoms.join(""))
  .filter((head) => head !== "^" && head !== "\\b");

describe("dotStarParts()", () => {
  const rows: [string, { head: string; tail: string } | undefined][] = [
    ["\\bnull\\b.*\\bundefined\\b", { head: "\\bnull\\b", tail: "\\bundefined\\b" }],
    ["import .* from", { head: "import ", tail: " from" }],
    ["a.*?b", { head: "a", tail: "b" }], // lazy: the same lines
    ["a.*b.*c", { head: "a", tail: "b.*c" }], // at the first
    ["a.*", { head: "a", tail: "" }],
    ["x\\p{L}.*y", { head: "x\\p{L}", tail: "y" }], // one character, whatever its length
    ["[.*]x.*y", { head: "[.*]x", tail: "y" }], // a class's `.*` is not one
    ["a(?<=a).*b", { head: "a(?<=a)", tail: "b" }],
    [".*foo", undefined], // no head
    ["a+.*b", undefined], // a head of any length
    ["a?.*b", undefined],
    ["a{2}.*b", undefined],
    ["a(?:b|cd).*e", undefined],
    ["a.*b|c", undefined], // alternatives
    ["(a).*\\1", undefined], // a backreference
    ["(?<x>a).*\\k<x>", undefined],
    ["\\.*x", undefined], // an escaped dot
    ["(a.*b)", undefined], // inside a group
  ];
  for (const [pattern, parts] of rows) {
    test(`${pattern}: ${JSON.stringify(parts)}`, () => {
      assert.deepEqual(dotStarParts(pattern), parts);
    });
  }
});

describe("headFirst()", () => {
  test("matches each line as the pattern does, with the same span", () => {
    // (The tail in a group: its alternatives would be the whole pattern's.)
    const pattern = fc.tuple(fixedHead, fc.constantFrom(".*", ".*?"), regexSource)
      .map(([head, dots, tail]) => `${head}${dots}(?:${tail})`);
    fc.assert(
      fc.property(pattern, body, fc.boolean(), (source, text, ignoreCase) => {
        const parts = dotStarParts(source);
        assert.ok(parts !== undefined, source);
        const native = regexMatcher(source, { ignoreCase });
        const matcher = headFirst(native, parts, ignoreCase);
        for (const line of linesOf(text)) {
          assert.deepEqual(matcher.matchLine(line), native.matchLine(line), `${source} on ${line}`);
        }
        const reference = new RegExp(source, ignoreCase ? "isu" : "su");
        assert.deepEqual(
          scannedLines(text, matcher),
          referenceLines(text, (line) => reference.test(line)),
        );
      }),
      RUNS,
    );
  });

  test("splits only patterns it matches alike", () => {
    // (Drawn without regard to the rules: any split it makes must still match alike.)
    const pattern = fc.tuple(regexSource, fc.constantFrom(".*", ".*?"), regexSource)
      .map(([head, dots, tail]) => head + dots + tail);
    fc.assert(
      fc.property(pattern, body, (source, text) => {
        const parts = dotStarParts(source);
        fc.pre(parts !== undefined);
        const native = regexMatcher(source);
        const matcher = headFirst(native, parts!, false);
        for (const line of linesOf(text)) {
          assert.deepEqual(matcher.matchLine(line), native.matchLine(line), `${source} on ${line}`);
        }
      }),
      RUNS,
    );
  });

  test("runs the pattern itself only on lines that match", () => {
    const asked: string[] = [];
    const native = regexMatcher("\\bnull\\b.*\\bundefined\\b");
    const spied = {
      ...native,
      matchLine: (text: string) => (asked.push(text), native.matchLine(text)),
    };
    const matcher = headFirst(spied, dotStarParts("\\bnull\\b.*\\bundefined\\b")!, false);
    // (A minified line: the tail only before the head, which the engine would try from each
    // of its 2,000 places to the end of the line and back.)
    const minified = "undefined," + "null,".repeat(2000);
    const text = `${minified}\nnull, undefined\nnothing\nundefined null\n`;
    assert.deepEqual(scannedLines(text, matcher), [2]);
    assert.deepEqual(asked, ["null, undefined"]);
  });

  test("compilePattern() uses it, and guards only against the tail's quantifiers", () => {
    const { matcher, engine } = compilePattern("null.*undefined");
    assert.equal(engine, "native");
    const line = "x".repeat(50_000) + "null" + "y".repeat(50_000) + "undefined";
    assert.deepEqual(matcher.matchLine(line), { start: 50_000, end: line.length });
    assert.equal(matcher.matchLine("undefined " + "null ".repeat(20_000)), null);
    // (Ignoring case, the head and the tail ignore it too.)
    const folded = compilePattern("NULL.*Undefined", { ignoreCase: true }).matcher;
    assert.deepEqual(folded.matchLine("a null b UNDEFINED"), { start: 2, end: 18 });
  });
});
