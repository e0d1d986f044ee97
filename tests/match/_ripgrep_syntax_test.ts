import { test } from "node:test";
import assert from "node:assert/strict";
import { holdsClassSetOperation, ripgrepSpelled } from "../../src/match/_ripgrep_syntax.ts";
import { compilePattern } from "../../src/match/safe_matcher.ts";

test("ripgrepSpelled() writes ripgrep's spellings as JavaScript's", () => {
  const cases: Array<[string, string | undefined]> = [
    ["^}", "^\\}"],
    ["arr\\[0]", "arr\\[0\\]"],
    ["foo]", "foo\\]"],
    ["[]a]", "[\\]a]"],
    ["[^]a]", "[^\\]a]"],
    ["x{y", undefined], // (ripgrep refuses a { that starts no repetition)
    ["a{,2}", undefined],
    ["\\<foo\\>", undefined], // (ripgrep 13 refuses them; 14 reads word boundaries)
    ["\\_", undefined],
    ["\\&\\~}", "&~\\}"],
    ["a{2}b{1,}c{1,3}", undefined],
    ["[[:digit:]]+", "[0-9]+"],
    ["[^[:space:]]+", "[^\\t\\n\\v\\f\\r ]+"],
    ["[[:alpha:]_]", "[A-Za-z_]"],
    ["\\#include", "#include"],
    ["a\\-b", "a-b"],
    ["[a\\-z]", undefined],
    ["\\x{212A}", "\\u{212A}"],
    ["(?P<n>abc)", "(?<n>abc)"],
    ["\\.\\*\\(\\)", undefined],
    ["plain", undefined],
    ["[[:nope:]]", undefined],
    ["[a[b]]", undefined],
    ["[[:alpha:]&&[:upper:]]", undefined], // (set operations of ripgrep's classes)
    ["[[:digit:]--5]", undefined],
    ["[a-z~~b]}", undefined],
    ["[[:constructor:]]", undefined],
    ["\\pL\\PN+", "\\p{L}\\P{N}+"],
    ["[\\pL_]", "[\\p{L}_]"],
    ["\\p{Greek}", "\\p{Script=Greek}"],
    ["\\p{Lu}", undefined], // (JavaScript reads it)
    ["\\p{Bogus}", undefined],
    ["\\Afoo\\z", "^foo$"],
    ["[[:^digit:]]", "[^0-9]"],
    ["[^[:^digit:]]", "[0-9]"],
    ["[a[:^digit:]]", undefined], // (a negated POSIX class beside others has no spelling here)
  ];
  for (const [pattern, expected] of cases) {
    assert.equal(ripgrepSpelled(pattern), expected, pattern);
  }
});

test("compilePattern() reads a pattern JavaScript refuses as ripgrep does", () => {
  const cases: Array<[string, string, boolean]> = [
    ["^}", "}", true],
    ["^}", " }", false],
    ["arr\\[0]", "x = arr[0];", true],
    ["[]a]", "]", true],
    ["[[:digit:]]{3}", "abc123", true],
    ["[[:digit:]]{3}", "abc12", false],
    ["\\#define", "#define X", true],
    ["(?P<w>ab)c", "abc", true],
    ["\\x{212A}", "\u212A", true],
    ["\\p{Greek}+", "αβγ", true],
    ["\\p{Greek}+", "abc", false],
    ["\\AA", "AB", true],
    ["\\AA", "BA", false],
    ["[[:^digit:]]", "12", false],
    ["[[:^digit:]]", "1a", true],
  ];
  for (const [pattern, line, matches] of cases) {
    const { matcher } = compilePattern(pattern);
    assert.equal(matcher.matchLine(line) !== null, matches, `${pattern} on ${line}`);
    // (The thread compiles the recipe again: the original pattern, read the same way.)
    assert.equal(matcher.recipe?.pattern, pattern);
  }
  // A pattern JavaScript reads keeps its meaning; one still refused says why, as before.
  assert.equal(compilePattern("[a-z]{2}").matcher.matchLine("ab") !== null, true);
  assert.throws(() => compilePattern("(a"), /is not a valid regular expression/);
  assert.throws(() => compilePattern("[[:nope:]]"), /is not a valid regular expression/);
});

test("a class with ripgrep's set operations is refused, whatever JavaScript would make of it", () => {
  // (JavaScript reads [\w&&\d] as \w, & or \d: it matched `abc` and `&`, ripgrep `123` only.)
  for (
    const pattern of ["[\\w&&\\d]", "[a-z&&b-y]", "[a~~b]", "[a-c--b]", "[[:alpha:]&&[:upper:]]"]
  ) {
    assert.equal(holdsClassSetOperation(pattern), true, pattern);
    assert.throws(() => compilePattern(pattern), /set operations/, pattern);
  }
  for (const pattern of ["a&&b", "[a-c]--", "[\\-\\-]", "[&]&", "[[:alpha:]\\n]"]) {
    assert.equal(holdsClassSetOperation(pattern), false, pattern);
  }
  // (A POSIX class inside a class does not end it: the \n after it is in the class.)
  assert.equal(compilePattern("[[:alpha:]\\n]").matcher.matchLine("a") !== null, true);
});
