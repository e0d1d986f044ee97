import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { type ScanOptions, type ScanRow, scanText } from "../../src/core/scan_text.ts";
import {
  escapeRegExp,
  literalMatcher,
  type Matcher,
  regexMatcher,
} from "../../src/core/matcher.ts";
import { sliceLines } from "../../src/core/slice_lines.ts";
import { lineText } from "../../src/core/split_lines.ts";
import { splitBom } from "../../src/core/bom.ts";
import { countLines } from "../../src/core/split_lines.ts";
import {
  plainLine,
  referenceLines,
  regexSource,
  regexWithLookarounds,
  RUNS,
  text,
} from "../_helpers/arbitraries.ts";

function scan(t: string, matcher: Matcher, options?: ScanOptions) {
  const rows: ScanRow[] = [];
  const summary = scanText(t, matcher, (row) => {
    rows.push(row);
  }, options);
  return { rows, summary };
}

function matchedLines(t: string, matcher: Matcher, options?: ScanOptions): number[] {
  return scan(t, matcher, options).rows.filter((r) => r.match).map((r) => r.line);
}

/** A matcher without the whole-text fast path: the scanner then walks every line. */
function perLine(matcher: Matcher): Matcher {
  return { matchLine: (line) => matcher.matchLine(line) };
}

const LONG = "x".repeat(100_000);

describe("scanText() line numbers", () => {
  const ROWS: Array<[name: string, text: string, matcher: Matcher, lines: number[]]> = [
    ["finds nothing in empty text", "", regexMatcher("^"), []],
    ["finds a match in one line without a newline", "abc", literalMatcher("b"), [1]],
    ['numbers "a\\nb\\n" as 2 lines', "a\nb\n", literalMatcher("b"), [2]],
    ["numbers CRLF lines", "a\r\nb\r\nb\r\n", regexMatcher("b$"), [2, 3]],
    ["matches x$ in a CRLF line", "x\r\n", regexMatcher("x$"), [1]],
    ["does not match x$ before a lone CR at the end", "x\r", regexMatcher("x$"), []],
    ["matches \\r$ on a lone CR at the end", "a\nx\r", regexMatcher("\\r$"), [2]],
    ["does not see the \\r of a CRLF", "x\r\n", regexMatcher("\\r"), []],
    ["matches a lone CR inside a line with .", "a\rb\n", regexMatcher("^a.b$"), [1]],
    ["does not start a line after a lone CR", "a\rb\n", regexMatcher("^b"), []],
    ["does not start a line after U+2028", "a\u2028b\n", regexMatcher("^b"), []],
    ["does not end a line before U+2028", "a\u2028b\n", regexMatcher("a$"), []],
    ["numbers mixed endings", "a\r\nb\nc\rd\r\ne", regexMatcher("^[be]"), [2, 4]],
    ["does not count the BOM as part of line 1 for ^", "\uFEFFab\n", regexMatcher("^a"), [1]],
    ["does not count the BOM as part of line 1 for a literal", "\uFEFFab\n", literalMatcher("a"), [
      1,
    ]],
    ["anchors ^ and $ per line after a BOM + CRLF", "\uFEFFa\r\nb\r\n", regexMatcher("^b$"), [2]],
    [
      "finds a match at the end of a 100,000-character line",
      `${LONG}needle\nx`,
      literalMatcher("needle"),
      [1],
    ],
    ["finds whitespace-only and empty lines", "a\n \t\n\n  \r\nb", regexMatcher("^\\s*$"), [
      2,
      3,
      4,
    ]],
    ["matches astral characters as one with .", "😀x\nxx\n", regexMatcher("^.x$"), [1, 2]],
    ["matches ^ on every line", "a\nb\n", regexMatcher("^"), [1, 2]],
    ["matches ^ on every line without a final newline", "a\nb", regexMatcher("^"), [1, 2]],
    ["matches $ on every line without a final newline", "a\nb", regexMatcher("$"), [1, 2]],
    ["matches $ on a one-line text without a newline", "ab", regexMatcher("$"), [1]],
    ["adds no phantom line after a final newline for $", "a\nb\n", regexMatcher("$"), [1, 2]],
    ["adds no phantom line after a final newline for ^$", "a\n", regexMatcher("^$"), []],
    ["finds an empty line with ^$", "a\n\nb", regexMatcher("^$"), [2]],
    ["finds an empty CRLF line with ^$", "a\r\n\r\nb", regexMatcher("^$"), [2]],
    ["finds a lone newline as one empty line", "\n", regexMatcher("^$"), [1]],
    ["finds a match at the very end with a final newline", "a\nb\nend\n", literalMatcher("end"), [
      3,
    ]],
    ["finds a match at the very end without a final newline", "a\nb\nend", literalMatcher("end"), [
      3,
    ]],
    ["finds a zero-length match at the very end", "a\nb\nend", regexMatcher("d$"), [3]],
    ["never matches \\n, which no line's text holds", "a\nb\n", regexMatcher("\\n"), []],
    ["never matches a literal with a newline", "a\nb\n", literalMatcher("a\nb"), []],
    [
      "never matches a literal with a newline, ignoring case",
      "a\nb\n",
      literalMatcher("A\nB", { ignoreCase: true }),
      [],
    ],
    ["never matches across lines with [^]", "a\n\nb", regexMatcher("a[^]"), []],
    ["never matches across lines with \\s", "a\nb", regexMatcher("a\\sb"), []],
    ["never matches across lines with \\W", "a\nb", regexMatcher("a\\Wb"), []],
    ["never matches across lines with \\D", "a\r\nb", regexMatcher("a\\D\\Db"), []],
    ["never matches across lines with [^x]", "a\nb", regexMatcher("a[^x]b"), []],
    ["matches \\s$ only on whitespace inside the line", "a \r\nb\r\n", regexMatcher("\\s$"), [1]],
    ["keeps lookbehind inside the line", "a\nb\nab", regexMatcher("(?<=a)b"), [3]],
    ["keeps negative lookahead inside the line", "a\r\nab", regexMatcher("a(?!$)"), [2]],
    ["keeps lookahead inside the line", "a\nb", regexMatcher("a(?=\\s)"), []],
    ["finds a literal ignoring case", "X\nx\ny", literalMatcher("x", { ignoreCase: true }), [1, 2]],
    ["finds a literal with metacharacters", "a.b-c(\naxb-c(", literalMatcher("a.b-c("), [1]],
    ["matches every line with an empty literal", "a\n\nb", literalMatcher(""), [1, 2, 3]],
  ];
  for (const [name, t, matcher, lines] of ROWS) {
    test(`scanText() ${name}`, () => {
      assert.deepEqual(matchedLines(t, matcher), lines);
      assert.deepEqual(matchedLines(t, perLine(matcher)), lines, "without the fast path");
    });
  }

  test("scanText() reports rows verbatim with their terminators and without the BOM", () => {
    const { rows } = scan("\uFEFFab\r\ncd\nab", literalMatcher("b"));
    assert.deepEqual(rows, [
      { line: 1, text: "ab\r\n", match: { start: 1, end: 2 } },
      { line: 3, text: "ab", match: { start: 1, end: 2 } },
    ]);
  });

  test("scanText() reports the match span in UTF-16 offsets of the line's text", () => {
    const { rows } = scan("x\n😀needle\n", literalMatcher("needle"));
    assert.deepEqual(rows[0].match, { start: 2, end: 8 });
  });
});

describe("scanText() context", () => {
  const TEN = Array.from({ length: 10 }, (_, i) => `l${i + 1}\n`).join("");
  const at = (...lines: number[]) => regexMatcher(`^l(?:${lines.join("|")})$`);
  const shape = (rows: ScanRow[]) => rows.map((r) => (r.match ? `${r.line}` : `${r.line}-`));

  const ROWS: Array<
    [name: string, text: string, matcher: Matcher, context: number, shape: string[]]
  > = [
    ["shows context before and after a match", TEN, at(5), 1, ["4-", "5", "6-"]],
    ["shows overlapping context once, in line order", TEN, at(3, 5), 1, [
      "2-",
      "3",
      "4-",
      "5",
      "6-",
    ]],
    ["joins adjacent groups without repeating lines", TEN, at(3, 6), 1, [
      "2-",
      "3",
      "4-",
      "5-",
      "6",
      "7-",
    ]],
    ["keeps separate groups apart", TEN, at(2, 8), 1, ["1-", "2", "3-", "7-", "8", "9-"]],
    ["shows a matching line inside context as a match", TEN, at(4, 5), 2, [
      "2-",
      "3-",
      "4",
      "5",
      "6-",
      "7-",
    ]],
    ["stops context at line 1", TEN, at(1), 3, ["1", "2-", "3-", "4-"]],
    ["stops context at the last line", TEN, at(10), 2, ["8-", "9-", "10"]],
    ["stops context at the last line without a final newline", "a\nb\nc", regexMatcher("^b$"), 5, [
      "1-",
      "2",
      "3-",
    ]],
    ["shows an empty first line as context", "\nx\n", literalMatcher("x"), 1, ["1-", "2"]],
    ["shows an empty first line after a BOM as context", "\uFEFF\nx", literalMatcher("x"), 1, [
      "1-",
      "2",
    ]],
    ["shows empty lines as context", "\n\nx\n\n\n", literalMatcher("x"), 2, [
      "1-",
      "2-",
      "3",
      "4-",
      "5-",
    ]],
  ];
  for (const [name, t, matcher, context, expected] of ROWS) {
    test(`scanText() ${name}`, () => {
      assert.deepEqual(shape(scan(t, matcher, { context }).rows), expected);
      assert.deepEqual(
        shape(scan(t, perLine(matcher), { context }).rows),
        expected,
        "without the fast path",
      );
    });
  }

  test("scanText() context rows are verbatim, CRLF, lone CR and no BOM", () => {
    const { rows } = scan("\uFEFFa\r\nb\rc\nneedle\r\nd", literalMatcher("needle"), { context: 2 });
    assert.deepEqual(rows, [
      { line: 1, text: "a\r\n" },
      { line: 2, text: "b\rc\n" },
      { line: 3, text: "needle\r\n", match: { start: 0, end: 6 } },
      { line: 4, text: "d" },
    ]);
  });

  test("scanText() context of an empty first line is the line, not an empty string", () => {
    const { rows } = scan("\nx\n", literalMatcher("x"), { context: 1 });
    assert.deepEqual(rows[0], { line: 1, text: "\n" });
  });
});

describe("scanText() limits", () => {
  test("scanText() stops at maxMatches and says more exist", () => {
    const { rows, summary } = scan("a\na\na\n", literalMatcher("a"), { maxMatches: 2 });
    assert.deepEqual(rows.map((r) => r.line), [1, 2]);
    assert.deepEqual(summary, { matchedLines: 2, more: true, stopped: false });
  });

  test("scanText() says no more exist when maxMatches is exactly the count", () => {
    const { summary } = scan("a\na\na\n", literalMatcher("a"), { maxMatches: 3 });
    assert.deepEqual(summary, { matchedLines: 3, more: false, stopped: false });
  });

  test("scanText() with maxMatches 0 reports nothing but says whether a match exists", () => {
    assert.deepEqual(scan("a\n", literalMatcher("a"), { maxMatches: 0 }), {
      rows: [],
      summary: { matchedLines: 0, more: true, stopped: false },
    });
    assert.deepEqual(scan("b\n", literalMatcher("a"), { maxMatches: 0 }).summary.more, false);
  });

  test("scanText() still reports the last match's after-context at maxMatches", () => {
    const { rows, summary } = scan("a\nb\nc\na\n", literalMatcher("a"), {
      maxMatches: 1,
      context: 1,
    });
    assert.deepEqual(rows.map((r) => r.line), [1, 2]);
    assert.equal(summary.more, true);
  });

  test("scanText() stops at once when the sink returns false", () => {
    const seen: number[] = [];
    const summary = scanText("a\na\na\n", literalMatcher("a"), (row) => {
      seen.push(row.line);
      return seen.length < 2;
    });
    assert.deepEqual(seen, [1, 2]);
    assert.deepEqual(summary, { matchedLines: 2, more: false, stopped: true });
  });

  test("scanText() stops at once when the sink refuses a context row", () => {
    const seen: number[] = [];
    const summary = scanText("x\na\ny\n", literalMatcher("a"), (row) => {
      seen.push(row.line);
      return false;
    }, { context: 1 });
    assert.deepEqual(seen, [1]);
    assert.deepEqual(summary, { matchedLines: 0, more: false, stopped: true });
  });

  test("scanText() counts matching lines, not matches", () => {
    assert.equal(scan("aaa\nbab\n", literalMatcher("a")).summary.matchedLines, 2);
  });
});

describe("scanText() properties", () => {
  const check = (t: string, matcher: Matcher, reference: RegExp) => {
    const expected = referenceLines(t, (line) => reference.test(line));
    assert.deepEqual(matchedLines(t, matcher), expected, "fast path");
    assert.deepEqual(matchedLines(t, perLine(matcher)), expected, "per-line walk");
  };

  test("scanText() with a regex finds exactly the lines a per-line reference finds", () => {
    fc.assert(
      fc.property(regexWithLookarounds, text, fc.boolean(), (source, t, ignoreCase) => {
        check(
          t,
          regexMatcher(source, { ignoreCase }),
          new RegExp(source, ignoreCase ? "usi" : "us"),
        );
      }),
      RUNS,
    );
  });

  test("scanText() with a literal finds exactly the lines a per-line reference finds", () => {
    const needle = fc.oneof(
      plainLine,
      fc.constantFrom("\r", "a\r", "\rb", "\uFEFF", "\u2028", "😀", "A", "a.", "\r\n", "\n"),
    );
    fc.assert(
      fc.property(needle, text, fc.boolean(), (n, t, ignoreCase) => {
        check(
          t,
          literalMatcher(n, { ignoreCase }),
          new RegExp(escapeRegExp(n), ignoreCase ? "usi" : "us"),
        );
      }),
      RUNS,
    );
  });

  test("scanText() rows address, through sliceLines(), exactly the lines they report", () => {
    fc.assert(
      fc.property(regexSource, text, fc.integer({ min: 0, max: 3 }), (source, t, context) => {
        const matcher = regexMatcher(source);
        for (const row of scan(t, matcher, { context }).rows) {
          assert.deepEqual(sliceLines(t, row.line, row.line).lines, [row.text]);
          if (row.match) assert.deepEqual(row.match, matcher.matchLine(lineText(row.text)));
        }
      }),
      RUNS,
    );
  });

  test("scanText() shows each match with its context once, in order, up to maxMatches", () => {
    fc.assert(
      fc.property(
        regexSource,
        text,
        fc.integer({ min: 0, max: 3 }),
        fc.integer({ min: 0, max: 4 }),
        (source, t, context, maxMatches) => {
          const all = referenceLines(t, (line) => new RegExp(source, "us").test(line));
          const shown = all.slice(0, maxMatches);
          const total = countLines(splitBom(t).body);
          const expected = new Set<number>();
          // After-context stops before the first match past maxMatches: the scan ends there.
          const cap = all.length > shown.length ? all[shown.length] - 1 : total;
          for (const m of shown) {
            const last = Math.min(m + context, cap, total);
            for (let n = Math.max(1, m - context); n <= last; n++) expected.add(n);
          }
          const { rows, summary } = scan(t, regexMatcher(source), { context, maxMatches });
          assert.deepEqual(rows.map((r) => r.line), [...expected].sort((a, b) => a - b));
          assert.deepEqual(rows.filter((r) => r.match).map((r) => r.line), shown);
          assert.deepEqual(summary, {
            matchedLines: shown.length,
            more: all.length > shown.length,
            stopped: false,
          });
        },
      ),
      RUNS,
    );
  });

  test("scanText() stops after exactly as many rows as the sink accepts", () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 5 }), (t, accept) => {
        const all = scan(t, regexMatcher("^"), { context: 1 }).rows.length;
        let seen = 0;
        const summary = scanText(t, regexMatcher("^"), () => ++seen < accept, { context: 1 });
        return seen === Math.min(accept, all) && summary.stopped === (all >= accept);
      }),
      RUNS,
    );
  });
});

test("scanText() stops at its deadline, saying so, with the rows found before", () => {
  const text = "x\n".repeat(1000);
  const rows: number[] = [];
  const summary = scanText(text, literalMatcher("x"), (row) => void rows.push(row.line), {
    deadline: Date.now() - 1,
  });
  assert.equal(summary.timedOut, true);
  assert.ok(rows.length > 0 && rows.length < 1000, `${rows.length} rows before it stopped`);
  assert.deepEqual(rows, Array.from({ length: rows.length }, (_, i) => i + 1));
  const whole = scanText(text, literalMatcher("x"), () => {}, { deadline: Date.now() + 60_000 });
  assert.equal(whole.timedOut, undefined);
  assert.equal(whole.matchedLines, 1000);
});
