// -g globs as ripgrep reads them: a `\` escapes the character after it (off Windows), and
// what the tools' syntax cannot say is refused, not read another way.
import { test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { ripgrepGlob } from "../../src/cli/_ripgrep_glob.ts";
import { UsageError } from "../../src/cli/_options.ts";
import { compileGlob } from "../../src/store/walk.ts";

test("an escaped character matches itself alone", { skip: process.platform === "win32" }, () => {
  const cases: Array<[string, string[], string[]]> = [
    ["\\*.txt", ["*.txt", "d/*.txt"], ["a.txt"]],
    ["q\\?.md", ["q?.md"], ["qa.md"]],
    ["\\[a\\]", ["[a]"], ["a"]],
    ["\\{a\\,b\\}", ["{a,b}"], ["a", "b"]],
    ["\\!x", ["!x"], ["x"]],
    ["*\\.md", ["a.md"], ["amd"]],
    // (A `]` first in a class is a member: the escape after it is outside the class.)
    ["[]a]\\*", ["]*", "a*"], ["]x", "*"]],
    ["[!]]\\*", ["a*"], ["]*"]],
  ];
  for (const [glob, matching, others] of cases) {
    const matches = compileGlob(ripgrepGlob(glob));
    for (const path of matching) assert.equal(matches(path), true, `${glob} ${path}`);
    for (const path of others) assert.equal(matches(path), false, `${glob} ${path}`);
  }
  // (A leading `!` still excludes; unescaped globs pass as they are.)
  assert.equal(ripgrepGlob("!\\!x"), "!{!}x");
  assert.equal(ripgrepGlob("src/**/*.ts"), "src/**/*.ts");
});

test("what the tools' globs cannot say is refused", { skip: process.platform === "win32" }, () => {
  for (
    const [glob, said] of [
      ["a\\", /ends with a \\/],
      ["a\\\\b", /put \? in its place/],
      ["[a\\]]", /in a \[class\]/],
      // (In a class that starts with `]`, the escape is still in the class.)
      ["[]\\*]", /in a \[class\]/],
    ] as const
  ) {
    assert.throws(() => ripgrepGlob(glob), (error: Error) => {
      assert.ok(error instanceof UsageError);
      assert.match(error.message, said);
      return true;
    });
  }
});
