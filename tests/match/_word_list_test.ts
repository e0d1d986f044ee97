import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { regexMatcher } from "../../src/core/matcher.ts";
import { escapeRegExp } from "../../src/core/mod.ts";
import { MOST_LENGTHS, wordListMatcher } from "../../src/match/_word_list.ts";
import { compilePattern } from "../../src/match/safe_matcher.ts";

/** The word-list matcher of a pattern, which must have one. */
function listOf(pattern: string) {
  const matcher = wordListMatcher(pattern, regexMatcher(pattern));
  assert.ok(matcher !== undefined, pattern);
  return matcher;
}

describe("wordListMatcher()", () => {
  test("matches as the pattern does: leftmost, then the earlier alternative", () => {
    assert.deepEqual(listOf("ab|a").matchLine("xab"), { start: 1, end: 3 });
    assert.deepEqual(listOf("a|ab").matchLine("xab"), { start: 1, end: 2 });
    assert.deepEqual(listOf("bc|abcd").matchLine("abcd"), { start: 0, end: 4 });
    assert.deepEqual(listOf("a\\.b|a\\(").matchLine("a(a.b"), { start: 0, end: 2 });
    assert.equal(listOf("ab|cd").matchLine("a b c d"), null);
    assert.deepEqual(listOf("😀x|y").matchLine("a😀x"), { start: 1, end: 4 });
  });

  test("finds candidates in a text of many lines, never across a line break", () => {
    const matcher = listOf("two|four");
    const text = "one\ntwo\nthree\nfour\ntw\no\n";
    assert.equal(matcher.findCandidate!(text, 0), 4);
    assert.equal(matcher.findCandidate!(text, 5), 14);
    assert.equal(matcher.findCandidate!(text, 15), -1);
  });

  test("is none for an alternative that is no fixed string, or too many lengths", () => {
    for (const pattern of ["ab|a.", "ab|a+", "ab|", "a(b|c)|d", "ab|^c", "abc"]) {
      assert.equal(wordListMatcher(pattern, regexMatcher(pattern)), undefined, pattern);
    }
    const lengths = Array.from({ length: MOST_LENGTHS + 1 }, (_, i) => "w".repeat(i + 1));
    const pattern = lengths.join("|");
    assert.equal(wordListMatcher(pattern, regexMatcher(pattern)), undefined);
    assert.ok(wordListMatcher(lengths.slice(1).join("|"), regexMatcher("x")));
  });

  test("finds the same match as JavaScript's engine in any line", () => {
    const char = fc.constantFrom("a", "b", "c", "(", ".", "😀", "é");
    const word = fc.array(char, { minLength: 1, maxLength: 4 }).map((chars) => chars.join(""));
    fc.assert(
      fc.property(fc.array(word, { minLength: 2, maxLength: 12 }), fc.string(), (words, line) => {
        const pattern = words.map(escapeRegExp).join("|");
        const text = line.replace(/[\r\n]/g, "") + words.join("-");
        assert.deepEqual(listOf(pattern).matchLine(text), regexMatcher(pattern).matchLine(text));
        const shuffled = words.join("x") + line;
        assert.deepEqual(
          listOf(pattern).matchLine(shuffled),
          regexMatcher(pattern).matchLine(shuffled),
        );
      }),
      { numRuns: 500 },
    );
  });
});

describe("compilePattern() of a very large pattern", () => {
  const words = Array.from({ length: 3000 }, (_, i) => `word${i}`);

  test("looks a list of fixed strings up, on the literal engine", () => {
    const { matcher, engine } = compilePattern(words.join("|"));
    assert.equal(engine, "literal");
    assert.equal(matcher.stoppable, undefined);
    // (word2 is an earlier alternative than word2999.)
    assert.deepEqual(matcher.matchLine("a word2999 b"), { start: 2, end: 7 });
    assert.equal(matcher.matchLine("a wor b"), null);
  });

  test("leaves a list with other alternatives, or without case, to the stoppable scan", () => {
    assert.equal(compilePattern([...words, "w.rd"].join("|")).engine, "stoppable");
    assert.equal(compilePattern(words.join("|"), { ignoreCase: true }).engine, "stoppable");
  });
});
