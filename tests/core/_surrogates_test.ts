import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { hasSurrogates } from "../../src/core/_surrogates.ts";
import { RUNS } from "../_helpers/arbitraries.ts";

const ROWS: Array<[string, string, boolean]> = [
  ["empty text", "", false],
  ["ASCII", "abc", false],
  ["Latin-1 beyond ASCII", "caf\u00e9", false],
  ["BMP characters beyond Latin-1", "\u4e2d\u20ac", false],
  ["an astral character (a pair)", "a😀b", true],
  ["a lone high surrogate", "\uD83Dx", true],
  ["a lone low surrogate", "x\uDE00", true],
  ["the last character of a long ASCII line", "x".repeat(1_000_000) + "😀", true],
  ["a long ASCII line", "x".repeat(1_000_000), false],
];
for (const [name, text, expected] of ROWS) {
  test(`hasSurrogates(): ${name}`, () => {
    assert.equal(hasSurrogates(text), expected);
  });
}

test("hasSurrogates() agrees with a scan of every code unit", () => {
  const scan = (s: string) => [...s].some((c) => c.length === 2 || /[\uD800-\uDFFF]/.test(c));
  fc.assert(
    fc.property(fc.string({ unit: "binary" }), (s) => hasSurrogates(s) === scan(s)),
    RUNS,
  );
});
