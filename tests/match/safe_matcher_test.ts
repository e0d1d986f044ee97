import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { backtrackingRisk, compilePattern, PatternError } from "../../src/match/safe_matcher.ts";
import { body, regexSource } from "../_helpers/arbitraries.ts";
import { lineText, splitLines } from "../../src/core/split_lines.ts";

describe("backtrackingRisk()", () => {
  const RISKY: Array<{ pattern: string; why: RegExp }> = [
    { pattern: "(a+)+$", why: /repeats a group that itself repeats/ },
    { pattern: "(a*)*b", why: /repeats a group that itself repeats/ },
    { pattern: "(?:a+)+", why: /repeats a group that itself repeats/ },
    { pattern: "(\\w+\\s?)+$", why: /repeats a group that itself repeats/ },
    { pattern: "([a-z]+)*x", why: /repeats a group that itself repeats/ },
    { pattern: "(a|aa)*b", why: /repeats a group of alternatives/ },
    { pattern: "(a|b){2,}", why: /repeats a group of alternatives/ },
    { pattern: "(a+){2,5}", why: /repeats a group that itself repeats/ },
    { pattern: "(a+){10}$", why: /repeats a group that itself repeats/ },
    { pattern: "(.*a){20}", why: /repeats a group that itself repeats/ },
    { pattern: "(a|aa){8}$", why: /repeats a group of alternatives/ },
    { pattern: "((a+))+", why: /repeats a group that itself repeats/ },
    { pattern: "(x(a)\\2)+", why: /repeats a group that itself repeats/ },
  ];
  for (const row of RISKY) {
    test(`backtrackingRisk() flags ${row.pattern}`, () => {
      assert.match(backtrackingRisk(row.pattern) ?? "(none)", row.why);
    });
  }

  const SAFE: Array<{ pattern: string; name: string }> = [
    { pattern: "foo.*bar", name: "a plain pattern" },
    { pattern: "\\w+\\(", name: "a quantifier outside any group" },
    { pattern: "(foo|bar)", name: "an unrepeated alternation" },
    { pattern: "(ab)+", name: "a repeated group without inner repetition" },
    { pattern: "(a{2})+", name: "a fixed count inside a repeated group" },
    { pattern: "(ab){3}", name: "a fixed count of a plain group" },
    { pattern: "(a+)?", name: "an optional group" },
    { pattern: "(a+){1}", name: "a group repeated once" },
    { pattern: "(a+){0,1}", name: "a group at most once" },
    { pattern: "\\(a+\\)+", name: "escaped parentheses" },
    { pattern: "[(a+)]+", name: "parentheses inside a class" },
    { pattern: "(\\w+)\\s+\\1", name: "a backreference outside repetition" },
  ];
  for (const row of SAFE) {
    test(`backtrackingRisk() passes ${row.name}: ${row.pattern}`, () => {
      assert.equal(backtrackingRisk(row.pattern), undefined);
    });
  }
});

describe("compilePattern()", () => {
  const ENGINES: Array<{ pattern: string; literal?: boolean; engine: string }> = [
    { pattern: "fo+", engine: "native" },
    { pattern: "(a+)+$", engine: "linear" },
    { pattern: "(a+){10}$", engine: "linear" },
    { pattern: "(a+)+$", literal: true, engine: "literal" },
  ];
  for (const row of ENGINES) {
    test(`compilePattern() runs ${row.pattern}${row.literal ? " (literal)" : ""} on the ${row.engine} engine`, () => {
      assert.equal(compilePattern(row.pattern, { literal: row.literal }).engine, row.engine);
    });
  }

  test("compilePattern() keeps no stretch on a pattern scanned where it can be stopped", () => {
    // (A stretch is matched on the native engine, where nothing stops it.)
    const words = (count: number) => Array.from({ length: count }, (_, i) => `w${i}`).join("|");
    const large = compilePattern(`needle\\s*(?:${words(3000)})`);
    assert.equal(large.engine, "stoppable");
    assert.equal(large.matcher.stretch, undefined);
    assert.ok(compilePattern(`needle\\s*(?:${words(10)})`).matcher.stretch, "a short one has one");
  });

  test("compilePattern() answers (a+)+$ on a catastrophic line, and finds a real match", () => {
    const { matcher } = compilePattern("(a+)+$");
    assert.equal(matcher.matchLine("a".repeat(5000) + "!"), null);
    assert.deepEqual(matcher.matchLine("x" + "a".repeat(5000)), { start: 1, end: 5001 });
  });

  test("compilePattern() answers (a+){10}$ on a line that would take the native engine seconds", () => {
    const { matcher } = compilePattern("(a+){10}$");
    assert.equal(matcher.matchLine("a".repeat(40) + "!"), null);
    assert.deepEqual(matcher.matchLine("!" + "a".repeat(10)), { start: 1, end: 11 });
  });

  test("compilePattern() refuses a risky pattern with a backreference and says why", () => {
    assert.throws(() => compilePattern("(a+)+\\1"), (error: unknown) => {
      assert.ok(error instanceof SyntaxError);
      const message = (error as Error).message;
      assert.match(message, /^pattern "\(a\+\)\+\\\\1" repeats a group that itself repeats/);
      assert.match(message, /exponential time/);
      assert.match(message, /backreference\/lookaround/);
      assert.match(message, /literal=true/);
      return true;
    });
  });

  test("compilePattern() refuses a risky pattern with a lookahead and says why", () => {
    assert.throws(() => compilePattern("(?=a)(a|aa)*b"), /repeats a group of alternatives.*lacks/);
  });

  test("compilePattern() keeps the pattern's literals through the long-line guard", () => {
    const guarded = compilePattern("TODO|fix\\w+ME").matcher; // an unbounded quantifier: guarded
    assert.deepEqual(guarded.alternativeLiterals, ["TODO", "fix"]);
    const required = compilePattern("let \\w+ = \\$el").matcher;
    assert.deepEqual(required.requiredLiterals, ["let ", " = $el"]);
    assert.equal(required.requiredLiteral, " = $el");
  });

  test("compilePattern() refuses a pattern that asks for a line break, as ripgrep does", () => {
    // (It could never match: a line's text ends before its \n. It used to be "no match".)
    const refused: Array<[string, boolean]> = [
      ["a\nb", false],
      ["a\nb", true],
      ["a\\nb", false],
      ["x|\\n", false],
      ["\\x0a", false],
      ["\\x{a}", false],
      ["\\u000A", false],
      ["\\cJ", false],
      ["[\\n]", false],
      ["[\\x0a]", false],
    ];
    for (const [pattern, literal] of refused) {
      assert.throws(
        () => compilePattern(pattern, { literal }),
        (error: Error) => error instanceof PatternError && /holds a line break/.test(error.message),
        JSON.stringify(pattern),
      );
    }
    // (A class that holds more than the line break matches in a line; so does a `]` first.)
    for (const pattern of ["[^\\n]+", "[\\na]", "x[^]\\n]y", "[]\\n]", "a\\\\nb", "a\\.n"]) {
      assert.doesNotThrow(() => compilePattern(pattern), JSON.stringify(pattern));
    }
    assert.doesNotThrow(() => compilePattern("a\\nb", { literal: true }), "a backslash and n");
  });

  test("compilePattern() refuses an invalid pattern with a message naming it", () => {
    assert.throws(
      () => compilePattern("("),
      /^SyntaxError: pattern "\(" is not a valid regular expression \(.*\); fix it, or pass literal=true/,
    );
  });

  test("compilePattern() says that ripgrep's inline flags are not JavaScript's, and what to pass", () => {
    assert.throws(
      () => compilePattern("(?i)kmalloc"),
      /\); \(\?i\) is ripgrep's syntax, not JavaScript's: leave it out, and pass ignore_case=true$/,
    );
    assert.throws(
      () => compilePattern("(?s)a.b"),
      /\); \(\?s\) is ripgrep's syntax.*: leave it out$/,
    );
  });

  const SEMANTICS: Array<
    {
      name: string;
      pattern: string;
      line: string;
      ignoreCase?: boolean;
      match: { start: number; end: number } | null;
    }
  > = [
    {
      name: "a linear pattern reports UTF-16 offsets after astral characters",
      pattern: "(a+)+b",
      line: "😀😀aab",
      match: { start: 4, end: 7 },
    },
    {
      name: "a linear pattern matches . against a lone \\r (flag s)",
      pattern: "(x.)+y",
      line: "x\ry",
      match: { start: 0, end: 3 },
    },
    {
      name: "a linear pattern honours ignore_case",
      pattern: "(x+)+",
      line: "XX",
      ignoreCase: true,
      match: { start: 0, end: 2 },
    },
    {
      name: "a linear \\s matches U+00A0 as JavaScript's does",
      pattern: "(\\s+)+$",
      line: "a\u00a0",
      match: { start: 1, end: 2 },
    },
    {
      name: "a linear \\s matches U+2028 as JavaScript's does",
      pattern: "(\\s+)+$",
      line: "a\u2028",
      match: { start: 1, end: 2 },
    },
    {
      name: "a linear \\s matches U+FEFF as JavaScript's does",
      pattern: "(\\s+)+$",
      line: "a\uFEFF",
      match: { start: 1, end: 2 },
    },
    {
      name: "a linear \\s inside a class matches U+3000",
      pattern: "([\\sx]+)+$",
      line: "a\u3000",
      match: { start: 1, end: 2 },
    },
    {
      name: "a linear \\S does not match U+00A0",
      pattern: "(\\S+)+$",
      line: "\u00a0",
      match: null,
    },
    {
      name: "a literal pattern takes regex characters as text",
      pattern: "a.b",
      line: "axb a.b",
      match: { start: 4, end: 7 },
    },
  ];
  for (const row of SEMANTICS) {
    test(`compilePattern(): ${row.name}`, () => {
      const literal = row.name.startsWith("a literal");
      const { matcher } = compilePattern(row.pattern, { ignoreCase: row.ignoreCase, literal });
      assert.deepEqual(matcher.matchLine(row.line), row.match);
    });
  }

  test("compilePattern()'s linear engine finds the same lines and match starts as JavaScript's", () => {
    // Where a match ends may differ: when a repeated group can match the empty string, RE2
    // and JavaScript stop the repetition by different rules ((?:(?:[^x]|a)*|\w\b)*(?:x+)+
    // on "x x": JavaScript 0-3, RE2 0-1). Only the start is used (it places the window of a
    // long line).
    fc.assert(
      fc.property(regexSource, body, (source, text) => {
        // Repeating a group that repeats forces the linear engine.
        const pattern = `(?:${source})*(?:x+)+`;
        const compiled = compilePattern(pattern);
        assert.equal(compiled.engine, "linear");
        const reference = new RegExp(pattern, "us");
        for (const line of splitLines(text)) {
          const own = lineText(line);
          const expected = reference.exec(own)?.index ?? null;
          const found = compiled.matcher.matchLine(own);
          assert.equal(found?.start ?? null, expected, `${pattern} on ${JSON.stringify(own)}`);
        }
      }),
      { numRuns: 300 },
    );
  });

  test("the linear engine's match end may differ from JavaScript's after an empty repetition", () => {
    const pattern = "(?:(?:[^x]|a)*|\\w\\b)*(?:x+)+";
    assert.equal(compilePattern(pattern).engine, "linear");
    assert.deepEqual(compilePattern(pattern).matcher.matchLine("x x"), { start: 0, end: 1 });
    assert.equal(new RegExp(pattern, "us").exec("x x")?.[0], "x x");
  });
});
