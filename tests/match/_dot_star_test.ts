import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { regexMatcher } from "../../src/core/mod.ts";
import { type DotStarParts, dotStarParts, headFirst } from "../../src/match/_dot_star.ts";
import { compilePattern } from "../../src/match/safe_matcher.ts";
import { body, referenceLines, regexSource, RUNS, scannedLines } from "../_helpers/arbitraries.ts";

/** The lines of a text, terminators left out (as `matchLine` is given them). */
function linesOf(text: string): string[] {
  return text.split(/\r?\n|\r/);
}

function parts(heads: string[], tail: string, greedy = true): DotStarParts {
  return { heads, tail, greedy };
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
  .map((atoms) => atoms.join(""));

describe("dotStarParts()", () => {
  const rows: [string, DotStarParts | undefined][] = [
    ["\\bnull\\b.*\\bundefined\\b", parts(["\\bnull\\b"], "\\bundefined\\b")],
    ["import .* from", parts(["import "], " from")],
    ["a.*?b", parts(["a"], "b", false)], // lazy: the same lines
    ["a.*b.*?c", parts(["a", "b"], "c", false)],
    ["a.*b.*c", parts(["a", "b"], "c")],
    ["a.*b+.*c", parts(["a"], "b+.*c")], // the heads end where a part varies
    ["a.*", parts(["a"], "")],
    ["a.+b.+?c", parts(["a.", "b."], "c", false)], // `.+` is `..*`
    [".+foo", parts(["."], "foo")],
    ["a.*.*b", parts(["a", ""], "b")],
    ["x\\p{L}.*y", parts(["x\\p{L}"], "y")], // one character, whatever its length
    ["[.*]x.*y", parts(["[.*]x"], "y")], // a class's `.*` is not one
    ["a(?<=a).*b", parts(["a(?<=a)"], "b")],
    [".*foo", undefined], // no first head
    ["a+.*b", undefined], // a first head of any length
    ["a?.*b", undefined],
    ["a{2}.*b", undefined],
    ["a(?:b|cd).*e", undefined],
    ["a.*b|c", undefined], // alternatives
    ["(a).*\\1", undefined], // a backreference
    ["(?<x>a).*\\k<x>", undefined],
    ["\\.*x", undefined], // an escaped dot
    ["(a.*b)", undefined], // inside a group
  ];
  for (const [pattern, want] of rows) {
    test(`${pattern}: ${JSON.stringify(want)}`, () => {
      assert.deepEqual(dotStarParts(pattern), want);
    });
  }
});

describe("headFirst()", () => {
  test("matches each line as the pattern does, with the same span", () => {
    // (A drawn tail in a group: its alternatives would be the whole pattern's. A tail of
    // fixed atoms, or none, after greedy `.*` gives a span worked out without the engine.)
    const tail = fc.oneof(
      regexSource.map((source) => `(?:${source})`),
      fc.array(fc.constantFrom(...FIXED_ATOMS), { maxLength: 2 }).map((atoms) => atoms.join("")),
    );
    const pattern = fc
      .tuple(
        fc.array(fc.tuple(fixedHead, fc.constantFrom(".*", ".*", ".*?", ".+", ".+?")), {
          minLength: 1,
          maxLength: 3,
        }),
        tail,
      )
      .map(([heads, tail]) => heads.map(([head, dots]) => head + dots).join("") + tail);
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
    const pattern = fc
      .tuple(
        fc.array(fc.tuple(regexSource, fc.constantFrom(".*", ".*?", ".+", ".+?")), {
          minLength: 1,
          maxLength: 3,
        }),
        regexSource,
      )
      .map(([heads, tail]) => heads.map(([head, dots]) => head + dots).join("") + tail);
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

  test("runs the pattern itself only on lines that match, and not at all for a known span", () => {
    // (A minified line: the tail only before the head, which the engine would try from each
    // of its 2,000 places to the end of the line and back.)
    const minified = "undefined," + "null,".repeat(2000);
    const text = `${minified}\nnull, undefined\nnothing\nundefined null\n`;
    for (
      const [pattern, engineAsked] of [
        ["\\bnull\\b.*?\\bundefined\\b", ["null, undefined"]], // lazy: the engine gives the span
        ["\\bnull\\b.*\\bundefined\\b", []],
      ] as const
    ) {
      const asked: string[] = [];
      const native = regexMatcher(pattern);
      const spied = {
        ...native,
        matchLine: (line: string) => (asked.push(line), native.matchLine(line)),
      };
      const matcher = headFirst(spied, dotStarParts(pattern)!, false);
      assert.deepEqual(scannedLines(text, matcher), [2], pattern);
      assert.deepEqual(asked, engineAsked, pattern);
    }
  });

  test("leaves a head found inside a surrogate pair to the engine", () => {
    // (V8 finds `\B` between the halves of 😀, where it does not try the whole pattern.)
    for (const pattern of ["\\B.*\\b", "\\B.*x", "a.*\\B.*\\b"]) {
      const native = regexMatcher(pattern);
      const matcher = headFirst(native, dotStarParts(pattern)!, false);
      for (const line of ["a😀", "😀x", "a😀😀b", "ab😀"]) {
        assert.deepEqual(matcher.matchLine(line), native.matchLine(line), `${pattern} on ${line}`);
      }
    }
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
