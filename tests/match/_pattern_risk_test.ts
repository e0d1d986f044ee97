import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { backtrackingRisk, unboundedQuantifiers } from "../../src/match/_pattern_risk.ts";

describe("unboundedQuantifiers()", () => {
  const cases: Array<[string, number, string]> = [
    ["createElement\\(", 0, "a plain literal has none"],
    ["a?b{2}c{1,3}", 0, "optional and small bounded counts do not count"],
    ["a*b", 1, "a star counts"],
    ["\\w+Sync\\(", 1, "a plus counts"],
    ["foo.*bar.*baz", 2, "each star counts"],
    ["a{2,}x{0,100}", 2, "open and large bounds count"],
    ["[*+]\\*\\+", 0, "quantifier characters in a class or escaped do not count"],
    ["a*a*a*a*a*b", 5, "a run of stars counts each"],
  ];
  for (const [pattern, expected, why] of cases) {
    test(`unboundedQuantifiers(${JSON.stringify(pattern)}) is ${expected}: ${why}`, () => {
      assert.equal(unboundedQuantifiers(pattern), expected);
    });
  }
});

describe("backtrackingRisk()", () => {
  test("names the nested repetition and passes a flat pattern", () => {
    assert.match(backtrackingRisk("(a+)+$")!, /repeats a group that itself repeats/);
    assert.equal(backtrackingRisk("foo.*bar"), undefined);
  });
});
