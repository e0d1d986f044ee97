import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import picomatch from "picomatch";
import { boundedTest } from "../../src/match/bounded_matcher.ts";
import { globToRegex } from "../../src/match/glob_regex.ts";
import { compileGlob } from "../../src/store/walk.ts";

const piece = fc.constantFrom("a", "b", "*", "?", "/", "**", ".", "x", "{a,b}", "{a,*}", "[ab]");
// (Where picomatch reads globs its own way, it is no reference: "a/**" matches "a" there, so
// does "a/**/{a,*}" (ripgrep: no), and a "**" that is not a whole segment, or three stars, are
// read otherwise.)
const glob = fc.array(piece, { minLength: 1, maxLength: 6 }).map((parts) => parts.join(""))
  .filter((g) =>
    !g.includes("//") && !/^\.?\//.test(g) && !g.endsWith("/") && !g.endsWith("/**") &&
    !g.includes("***") && !/[^/]\*\*|\*\*[^/]/.test(g) && !/\*\*\/\{[^}]*\*/.test(g)
  );
const path = fc.array(fc.constantFrom("a", "b", "ab", "x", ".a", "a.b", "ba"), {
  minLength: 1,
  maxLength: 4,
}).map((parts) => parts.join("/"));

function matches(pattern: string, text: string): boolean {
  const { source, unbounded } = globToRegex(pattern);
  return boundedTest(source, unbounded)(text);
}

describe("globToRegex()", () => {
  test("matches what picomatch (dot: true) matches, where picomatch reads globs as ripgrep", () => {
    fc.assert(
      fc.property(glob, path, (pattern, text) => {
        const expected = picomatch(pattern, { dot: true })(text);
        assert.equal(matches(pattern, text), expected, `${pattern} on ${text}`);
      }),
      { numRuns: 5000 },
    );
  });

  const CASES: [string, string, boolean][] = [
    ["*.ts", "a.ts", true],
    ["*.ts", "a/b.ts", false],
    ["src/**/*.ts", "src/a/b/c.ts", true],
    ["src/**/*.ts", "src/c.ts", true],
    ["**/b", "b", true],
    ["**/b", "a/x/b", true],
    ["a/**", "a/b/c", true],
    ["a/**", "a", false],
    ["a/**/{a,*}", "a", false],
    ["a/**/b", "a/b", true],
    ["a/**/b", "a/x/y/b", true],
    ["a**b", "a/b", false],
    ["[!a]x", "bx", true],
    ["[!a]x", "ax", false],
    ["[!a]x", "/x", false],
    ["[^a]x", "bx", true],
    ["[a-c]", "b", true],
    ["[]]", "]", true],
    ["x[.-0]y", "x/y", false],
    ["x[.-0]y", "x.y", true],
    ["{a,b{c,d}}.md", "bd.md", true],
    ["{a,b{c,d}}.md", "b.md", false],
    ["?", "/", false],
    ["a.b", "aXb", false],
    ["(x)|y+", "(x)|y+", true],
  ];
  for (const [pattern, text, expected] of CASES) {
    test(`${pattern} ${expected ? "matches" : "does not match"} ${text}`, () => {
      assert.equal(matches(pattern, text), expected);
    });
  }

  for (const malformed of ["[", "[!", "x[a", "{a,b", "a{", "[b-a]"]) {
    test(`a malformed glob ${JSON.stringify(malformed)} is refused, saying why`, () => {
      assert.throws(() => globToRegex(malformed), (error: Error) => {
        assert.match(error.message, /^glob .* is malformed: /);
        return true;
      });
    });
  }

  test("a backslash escapes where escapes are on, and a bad bracket is a character then", () => {
    const syntax = { escapes: true, braces: false, strict: false };
    const test = (pattern: string) => new RegExp(globToRegex(pattern, syntax).source, "su");
    assert.equal(test("\\*.md").test("*.md"), true);
    assert.equal(test("\\*.md").test("a.md"), false);
    assert.equal(test("x[a").test("x[a"), true);
    assert.equal(test("{a,b}").test("{a,b}"), true);
  });

  test("a glob with many stars on a long name answers at once (no backtracking blow-up)", () => {
    const name = "a".repeat(250);
    for (const pattern of ["*a*a*a*a*b", "*a*a*a*a*a*a*a*b"]) {
      for (let i = 0; i < 200; i++) assert.equal(matches(pattern, name), false);
      assert.equal(matches(pattern, name + "b"), true);
    }
    assert.equal(compileGlob("*a*a*a*a*a*a*a*b")(`dir/${name}`), false);
  });
});
