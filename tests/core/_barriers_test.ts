import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { barriersOf } from "../../src/core/_barriers.ts";
import { regexMatcher } from "../../src/core/matcher.ts";

/** Patterns made of what barriersOf reads, nested. */
const pattern: fc.Arbitrary<string> = fc.letrec<{ node: string }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom(
      "a",
      "b",
      "_",
      " ",
      ";",
      "7",
      "é",
      "\\(",
      "\\)",
      "\\.",
      "\\t",
      "\\s",
      "\\d",
      "\\w",
      "\\b",
      "\\B",
      "[a-c]",
      "[ab;]",
      "[\\d_]",
      "[\\s(]",
      "[-a]",
      "[a\\-z]",
      "[ -\\/]",
      "[x-é]",
      "[x-\u017F]",
      "\u212A",
    ),
    fc.tuple(tie("node"), tie("node")).map(([a, b]) => a + b),
    fc.tuple(tie("node"), tie("node")).map(([a, b]) => `(?:${a}|${b})`),
    tie("node").map((a) => `(${a})`),
    fc.tuple(tie("node"), fc.constantFrom("*", "+", "?", "{1,2}", "{2}", "{0,}", "*?"))
      .map(([a, q]) => `(?:${a})${q}`),
  ),
})).node;

/** Texts of the characters the patterns use, and others around them. */
const text = fc.array(
  fc.constantFrom(
    ..."abckszABCKSZ_ \t;()7-./éx",
    "\u017F", // (the long s, which matches s ignoring case)
    "\u212A", // (the Kelvin sign, which matches k)
  ),
  { maxLength: 30 },
).map((chars) => chars.join(""));

describe("barriersOf()", () => {
  test("names no character that a match of the pattern holds, from any start", () => {
    fc.assert(
      fc.property(pattern, text, fc.boolean(), (source, text, ignoreCase) => {
        const barriers = barriersOf(source, ignoreCase);
        if (barriers === undefined) return;
        const regex = new RegExp(source, ignoreCase ? "usyi" : "usy");
        for (let at = 0; at <= text.length; at++) {
          regex.lastIndex = at;
          const found = regex.exec(text);
          if (found === null) continue;
          for (const char of found[0]) {
            assert.ok(!barriers.includes(char), `${source} matched ${JSON.stringify(found[0])}`);
          }
        }
      }),
      { numRuns: 2000 },
    );
  });

  test("names what the pattern cannot match, and nothing it can", () => {
    const barriers = barriersOf("new Promise\\(\\s*")!;
    for (const char of "new Promise( \t") assert.ok(!barriers.includes(char), char);
    for (const char of ";)x.,{") assert.ok(barriers.includes(char), char);
    assert.ok(!barriersOf("\\w+_id\\d")!.includes("Q"));
    assert.ok(barriersOf("\\w+_id\\d")!.includes("-"));
    assert.ok(!barriersOf("[a-f\\-]x")!.includes("-"));
    assert.ok(!barriersOf("[a-é]x")!.includes("{"), "a range past ASCII holds its ASCII part");
    assert.ok(barriersOf("[a-é]x")!.includes("A"));
    assert.ok(barriersOf("(?<name>ab)c")!.includes("n"), "a group's name is no part of a match");
  });

  test("ignoring case, holds both cases of a letter, and reads no character beyond ASCII", () => {
    assert.ok(!barriersOf("[a-c]x", true)!.includes("B"));
    assert.ok(!barriersOf("Q\\w", true)!.includes("q"));
    assert.ok(barriersOf("Q\\d", true)!.includes("r"));
    assert.ok(barriersOf("[a-c]x", false)!.includes("B"));
    assert.equal(barriersOf("\u212Ax", true), undefined, "the Kelvin sign matches k");
    assert.equal(barriersOf("[x-\u017F]", true), undefined, "the long s matches s");
  });

  test("is undefined where a match may hold any character or look past its ends", () => {
    for (
      const source of [
        "a.b",
        "^ab",
        "ab$",
        "a(?=b)",
        "a(?!b)",
        "(?<=a)b",
        "(?<!a)b",
        "[^a]b",
        "a\\Sb",
        "a\\Wb",
        "a\\Db",
        "(a)\\1",
        "\\p{L}a",
        "\\x41b",
        "\\u0041b",
        "[\\b]a",
      ]
    ) {
      assert.equal(barriersOf(source), undefined, source);
    }
  });

  test("makes a matcher's stretch only for a regex more than its literals", () => {
    assert.deepEqual(regexMatcher("new Promise\\(\\s*").stretch?.source, "new Promise\\(\\s*");
    assert.equal(regexMatcher("new Promise\\(").stretch, undefined, "an exact literal");
    assert.equal(regexMatcher("new Promise\\(", { ignoreCase: true }).stretch, undefined);
    assert.equal(regexMatcher("new Promise\\(\\s*", { ignoreCase: true }).stretch?.flags, "usi");
    assert.ok(regexMatcher("foo\\s*|bar").stretch, "alternatives one of which each match holds");
    assert.equal(regexMatcher("import .* from").stretch, undefined);
    assert.equal(regexMatcher("\\w+").stretch, undefined, "no required literal");
  });
});
