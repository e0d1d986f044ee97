import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import ignore from "ignore";
import { GitignoreRules } from "../../src/match/gitignore.ts";

const piece = fc.constantFrom(
  "a",
  "b",
  "*",
  "?",
  "/",
  "**",
  "***",
  "[ab]",
  "[!a]",
  "[a-b]",
  "[]a]",
  ".",
  "-",
  "x",
  "#",
  "!",
  " ",
  "\\ ",
  "\\*",
);
const pattern = fc.tuple(
  fc.constantFrom("", "!", "/", "**/"),
  fc.array(piece, { minLength: 1, maxLength: 6 }),
  fc.constantFrom("", "/", " ", "/**"),
).map(([head, body, tail]) => head + body.join("") + tail)
  // (Not empty segments: "a//b" is read differently by every tool.)
  .filter((line) => !line.includes("//"));
const path = fc.array(fc.constantFrom("a", "b", "ab", "x", ".a", "a-b", "ba"), {
  minLength: 1,
  maxLength: 4,
}).map((parts) => parts.join("/"));

describe("GitignoreRules", () => {
  test("agrees with the ignore package (which looks at parents too), for files and directories", () => {
    fc.assert(
      fc.property(fc.array(pattern, { minLength: 1, maxLength: 3 }), path, (lines, p) => {
        const reference = ignore().add(lines);
        const ours = new GitignoreRules(lines);
        for (const isDirectory of [false, true]) {
          const expected = reference.test(isDirectory ? p + "/" : p);
          const got = ours.testWithParents(p, isDirectory);
          assert.deepEqual(
            { ignored: got.ignored, unignored: got.unignored },
            { ignored: expected.ignored, unignored: expected.unignored },
            `${JSON.stringify(lines)} on ${p}${isDirectory ? "/" : ""}`,
          );
        }
      }),
      { numRuns: 5000 },
    );
  });
});

describe("GitignoreRules' index", () => {
  // Names, suffixes and prefixes (what the index sorts rules by) mixed with other patterns,
  // several rules a file, so that order and `!` decide.
  const indexed = fc.tuple(
    fc.constantFrom("", "!", "/"),
    fc.constantFrom("*.a", "*.b", "*a", "a*", "a.*", ".*", "ab", "a.b", "*", "*.a.*", "a?b"),
    fc.constantFrom("", "", "/"),
  ).map(([head, body, tail]) => head + body + tail);
  const name = fc.constantFrom("a", "b", "ab", "a.a", "a.b", ".a", "x.a.b", "x.aba", "aa.b", "a.");
  const deep = fc.array(name, { minLength: 1, maxLength: 3 }).map((parts) => parts.join("/"));

  test("gives the verdict of every rule run in order", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(indexed, pattern), { minLength: 1, maxLength: 8 }),
        deep,
        fc.boolean(),
        (lines, p, isDirectory) => {
          const rules = new GitignoreRules(lines);
          assert.deepEqual(
            rules.test(p, isDirectory),
            rules.testEachRule(p, isDirectory),
            `${JSON.stringify(lines)} on ${p}${isDirectory ? "/" : ""}`,
          );
        },
      ),
      { numRuns: 20_000 },
    );
  });
});
