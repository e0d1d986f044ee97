// Long lines holding an exact literal, windowed from their bytes: grep must show them as it
// shows the same lines decoded whole and cut by windowRow, and never decode them whole.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { literalMatcher, type Matcher, regexMatcher } from "../../src/core/mod.ts";
import { compilePattern } from "../../src/match/safe_matcher.ts";
import {
  examineBytes,
  type KeptText,
  prefilterOf,
  scannedChunks,
} from "../../src/search/_search_file.ts";
import {
  codePointsIn,
  stretchedPart,
  WINDOWED_FROM_BYTES,
  windowedFromBytes,
} from "../../src/search/_long_rows.ts";
import { occurrences } from "../../src/search/_byte_search.ts";
import { Buffer } from "node:buffer";
import { SearchCollector } from "../../src/store/_search_collector.ts";
import { MemoryStore } from "../../src/store/memory_store.ts";
import { shownRows } from "../_helpers/rows.ts";

const encoder = new TextEncoder();

/**
 * A search of one file through examineBytes, with long lines windowed for `rowCut` (from the
 * stretches around the needle for a regex that is more than its literal).
 */
async function examined(bytes: Uint8Array, matcher: Matcher, maxMatches: number, rowCut: number) {
  const collector = new SearchCollector({ matcher, maxMatches, rowCut });
  const { requiredLiteral, alternativeLiterals, foldedLiterals, requiredLiterals } = matcher;
  const prefilter = prefilterOf(
    requiredLiteral,
    alternativeLiterals,
    foldedLiterals,
    requiredLiterals,
  );
  // (Runs joined where the bytes are read, as a search without context asks: not where a long
  // line is windowed between them.)
  const joinRuns = matcher.stoppable === undefined;
  const examination = matcher.exactLiteral !== undefined || matcher.stretch === undefined
    ? { ...prefilter, rowCut, joinRuns }
    : { ...prefilter, stretch: { ...matcher.stretch, cut: rowCut }, joinRuns };
  const outcome = examineBytes(bytes, examination, 0);
  if (outcome.kind === "text") {
    const { text, invalid, linesBefore } = outcome;
    await collector.scanFile(
      "f",
      scannedChunks(text),
      () => invalid,
      linesBefore,
    );
  } else if (outcome.kind === "none") collector.searchedWithoutMatch("f");
  return { result: collector.result(), text: outcome.kind === "text" ? outcome.text : undefined };
}

/**
 * Checks that a search through examineBytes shows the rows and counts a search of the whole
 * decoded file shows.
 */
async function assertShownAlike(
  bytes: Uint8Array,
  matcher: Matcher,
  maxMatches: number,
  cut: number,
): Promise<void> {
  const want = await new MemoryStore({ f: bytes }).search({ matcher, maxMatches });
  const got = (await examined(bytes, matcher, maxMatches, cut)).result;
  assert.deepEqual(shownRows(got, cut), shownRows(want, cut));
  assert.equal(got.matchedLines, want.matchedLines);
  assert.equal(got.filesSearched, want.filesSearched);
}

/** The longest decoded text an examination handed over. */
function longestDecoded(text: KeptText | undefined): number {
  if (text === undefined) return 0;
  if (typeof text === "string") return text.length;
  if (!Array.isArray(text)) return text.joined.length;
  return Math.max(0, ...text.map((part) => typeof part === "string" ? part.length : 0));
}

/** Pieces of text, some long enough to make a line that is windowed. */
const part = fc.oneof(
  fc.constantFrom("needle", "need", "le", "x", "\n", "\r\n", "\r", "\uFEFF", "é", "😀", "needle 7"),
  fc.constantFrom("x", "é", "😀", "ab\u0300").chain((unit) =>
    fc.integer({ min: 1, max: 40_000 }).map((count) => unit.repeat(count))
  ),
);

/** The cuts and match caps every row property draws. */
const CUTS = fc.constantFrom(1, 7, 100, 2000, 6000);
const MAX_MATCHES = fc.constantFrom(1, 3, 200);

/**
 * {@linkcode assertShownAlike} over texts of drawn pieces, for a matcher made of each drawn
 * pattern (`matcherOf` may assert what the matcher must be).
 */
function assertShownAlikeOver<P>(
  texts: fc.Arbitrary<string[]>,
  patterns: fc.Arbitrary<P>,
  matcherOf: (pattern: P) => Matcher,
  parameters: fc.Parameters<[string[], P, number, number]>,
): Promise<void> {
  return fc.assert(
    fc.asyncProperty(
      texts,
      patterns,
      CUTS,
      MAX_MATCHES,
      async (parts, pattern, cut, maxMatches) => {
        await assertShownAlike(encoder.encode(parts.join("")), matcherOf(pattern), maxMatches, cut);
      },
    ),
    parameters,
  );
}

describe("long lines windowed from their bytes", () => {
  it("show as the same lines decoded whole and cut", { timeout: 60_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(part, { maxLength: 14 }),
        fc.constantFrom("needle", "needle 7", "é😀", "le"),
        fc.boolean(),
        fc.constantFrom(1, 7, 100, 2000, 6000),
        fc.constantFrom(1, 3, 200),
        fc.boolean(),
        async (parts, literal, regex, cut, maxMatches, bad) => {
          const text = parts.join("");
          const bytes = bad
            ? new Uint8Array([...encoder.encode(text), 0xff, 10, ...encoder.encode(text)])
            : encoder.encode(text);
          const matcher = regex
            ? regexMatcher(literal.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
            : literalMatcher(literal);
          await assertShownAlike(bytes, matcher, maxMatches, cut);
        },
      ),
      {
        numRuns: 150,
        // (Found by this property once in 14,000 runs: a window ending in a lone \r.)
        examples: [[
          ["needle", "\r", "x".repeat(46_708), "needle", "x".repeat(18_815), "\n"],
          "needle",
          false,
          7,
          1,
          false,
        ]],
      },
    );
  });

  it("show as the same lines decoded whole and cut, for alternatives", {
    timeout: 60_000,
  }, async () => {
    await assertShownAlikeOver(
      fc.array(part, { maxLength: 14 }),
      // (Alternatives that start at the same place: the earlier one is the match.)
      fc.constantFrom("needle|le", "le|needle", "need|needle", "needle|need", "é😀|needle 7"),
      (pattern) => {
        const matcher = regexMatcher(pattern);
        assert.ok(matcher.exactAlternatives, pattern);
        return matcher;
      },
      { numRuns: 150 },
    );
  });

  it("show as the same lines decoded whole and cut, for a literal without case", {
    timeout: 60_000,
  }, async () => {
    // (A k or an s may stand as a Kelvin sign or a long s: a line whose first occurrence
    // holds one, or other bytes beyond ASCII, is decoded.)
    const cased = fc.constantFrom(
      "NEEDLE",
      "NeEdLe",
      "MASKABLE",
      "maſkable",
      "mas\u212Aable",
      "maſ\u212Aable",
      "maskab€e",
      "Maskable",
      "maska",
    );
    await assertShownAlikeOver(
      fc.array(fc.oneof(part, cased), { maxLength: 14 }),
      fc.constantFrom("needle", "maskable", "NEEDLE 7", "le"),
      (literal) => {
        const matcher = literalMatcher(literal, { ignoreCase: true });
        assert.equal(matcher.exactFolded !== undefined, literal !== "le", literal);
        return matcher;
      },
      { numRuns: 200 },
    );
  });

  it("show as the same lines decoded whole and cut, for a regex more than its literal", {
    timeout: 60_000,
  }, async () => {
    // (Characters the patterns match around the literal, and barriers they do not.)
    const around = fc.constantFrom(" ", "  ", "7", "77", ";", "(", ")", "e", "le", "x_", ",", "\t");
    await assertShownAlikeOver(
      fc.array(fc.oneof(part, around), { maxLength: 16 }),
      fc.constantFrom(
        "needle\\s*7",
        "\\bneedle\\b",
        "ne+dle",
        "(?:x|é)?need(?:le)? ?7*",
        "\\w*needle\\s*[(;7]",
        "needle[ 7x]*\\)",
        "le\\s?\\d{1,3}",
        "(?<word>\\w+)needle",
        "x{2,}needle",
      ),
      (pattern) => {
        const matcher = regexMatcher(pattern);
        assert.ok(matcher.stretch, pattern);
        return matcher;
      },
      {
        numRuns: 150,
        // (A stretch must show \b the character before it: here a word character.)
        examples: [[["x".repeat(70_000), "xneedle;", "\n"], "\\bneedle\\b", 100, 3]],
      },
    );
  });

  it(
    "show as the same lines decoded whole and cut, for such a regex of alternatives or without case",
    {
      timeout: 60_000,
    },
    async () => {
      // (Other cases, and a Kelvin sign or long s, which Unicode case folding matches with k, s.)
      const around = fc.constantFrom(
        " ",
        "7",
        ";",
        ")",
        "x_1",
        "NEEDLE",
        "NeEdLe 7",
        "Needle  7",
        "maſkable",
        "mas\u212Aable",
        "MASKABLE;",
        "Ble",
      );
      await assertShownAlikeOver<[string, boolean]>(
        fc.array(fc.oneof(part, around), { maxLength: 16 }),
        fc.constantFrom<[string, boolean]>(
          ["needle\\s*7", true],
          ["NEED(?:le)?\\s?7", true],
          ["\\bnEEdle\\b", true],
          ["[a-z]*dle\\s*7", true],
          ["ma[a-z]*ble", true],
          ["needle\\s*7|x_\\d", false],
          ["ne+dle;|le\\s*\\)", false],
        ),
        ([pattern, ignoreCase]) => {
          const matcher = regexMatcher(pattern, { ignoreCase });
          assert.ok(matcher.stretch, pattern);
          return matcher;
        },
        {
          numRuns: 150,
          examples: [[
            ["é".repeat(40_000), ";NeEdLe 7;", "x_1", "\n"],
            ["needle\\s*7", true],
            100,
            3,
          ]],
        },
      );
    },
  );

  it("decode only the stretch and the part shown of a regex's long line", async () => {
    const line = "é;".repeat(30_000) + "a(needle  7) needle  8;" + "😀x".repeat(30_000);
    const bytes = encoder.encode(`a needle 7\n${line}\r\nb needle\n${line.replace("7", "9")}\n`);
    const { result, text } = await examined(bytes, regexMatcher("needle\\s*8"), 200, 2000);
    assert.ok(longestDecoded(text) <= 2 * 2000, `decoded ${longestDecoded(text)} units`);
    // The first line holds no match, nor the third: the second's is in its second stretch.
    const rows = result.files[0].rows;
    assert.deepEqual(rows.map((row) => row.line), [2, 4]);
    assert.equal(rows[0].text.slice(rows[0].match!.start, rows[0].match!.end), "needle  8");
    assert.deepEqual(rows[0].piece, {
      from: 60_014 - 200,
      codePoints: 60_023 + 60_000,
      terminator: "\r\n",
    });
    // A stretch too long to decode alone has its line decoded whole, as before.
    const blob = encoder.encode("x".repeat(70_000) + "needle 8\n");
    const long = await examined(blob, regexMatcher("\\w*needle\\s*8"), 9, 2000);
    assert.equal(longestDecoded(long.text), 70_009);
    assert.equal(long.result.matchedLines, 1);
    // So does a line that is not valid UTF-8 (its bytes would count other code points).
    const invalid = new Uint8Array([
      ...encoder.encode(";needle  8;" + "é".repeat(40_000)),
      0xff,
      10,
    ]);
    const bad = await examined(invalid, regexMatcher("needle\\s*8"), 9, 100);
    assert.equal(longestDecoded(bad.text), 40_013);
    await assertShownAlike(invalid, regexMatcher("needle\\s*8"), 9, 100);
    // And a stretch longer than the native engine is trusted with for the pattern: two
    // unbounded quantifiers run natively on 464 UTF-16 units at most (as a line would).
    const guarded = compilePattern("\\w*needle\\s*8").matcher;
    for (const [word, whole] of [[100, false], [600, true]] as const) {
      const line = encoder.encode(`;${"x".repeat(word)}needle 8;${"é".repeat(40_000)}\n`);
      const { text } = await examined(line, guarded, 9, 100);
      assert.equal(longestDecoded(text) > 40_000, whole, `a word of ${word}`);
      await assertShownAlike(line, guarded, 9, 100);
    }
  });

  it("decode only the part shown of a line over the threshold", async () => {
    const line = "é".repeat(60_000) + "needle" + "😀x".repeat(30_000);
    const bytes = encoder.encode(`a needle\n${line}\r\nb\n`);
    const { result, text } = await examined(bytes, literalMatcher("needle"), 200, 2000);
    assert.ok(longestDecoded(text) <= 2 * 2000, `decoded ${longestDecoded(text)} units`);
    // Alternatives too: the leftmost occurrence of either, "nee" before "needle" where both
    // start, is the match.
    const either = await examined(bytes, regexMatcher("nee|needle|x"), 200, 2000);
    assert.ok(longestDecoded(either.text) <= 2 * 2000, `decoded ${longestDecoded(either.text)}`);
    const row = either.result.files[0].rows[1];
    assert.equal(row.text.slice(row.match!.start, row.match!.end), "nee");
    // And a literal without case, unless its first occurrence holds a Kelvin sign for a k.
    const folded = encoder.encode(`a needle\n${line.replace("needle", "NeeDle")}\r\nb\n`);
    const any = await examined(folded, literalMatcher("needle", { ignoreCase: true }), 200, 2000);
    assert.ok(longestDecoded(any.text) <= 2 * 2000, `decoded ${longestDecoded(any.text)}`);
    const anyRow = any.result.files[0].rows[1];
    assert.equal(anyRow.text.slice(anyRow.match!.start, anyRow.match!.end), "NeeDle");
    const kelvin = encoder.encode("x".repeat(70_000) + "mas\u212Aable MASKABLE\n");
    const maskable = literalMatcher("maskable", { ignoreCase: true });
    const decoded = await examined(kelvin, maskable, 9, 100);
    assert.equal(longestDecoded(decoded.text), 70_018);
    const kelvinRow = decoded.result.files[0].rows[0];
    assert.equal(
      kelvinRow.text.slice(kelvinRow.match!.start, kelvinRow.match!.end),
      "mas\u212Aable",
    );
    const [first, second] = result.files[0].rows;
    assert.equal(first.text, "a needle\n");
    assert.equal(second.line, 2);
    assert.deepEqual(second.piece, {
      from: 60_001 - 200,
      codePoints: 60_006 + 60_000,
      terminator: "\r\n",
    });
    assert.equal(second.text.slice(second.match!.start, second.match!.end), "needle");
    assert.ok(second.text.endsWith("\r\n"));
  });

  it("decode a line that is not valid UTF-8, or not long enough, as before", async () => {
    const invalid = new Uint8Array([...encoder.encode("x".repeat(70_000) + "needle"), 0xff, 10]);
    const bad = await examined(invalid, literalMatcher("needle"), 200, 2000);
    assert.equal(longestDecoded(bad.text), 70_008);
    assert.equal(bad.result.files[0].invalidUtf8, true);
    const short = encoder.encode("x".repeat(WINDOWED_FROM_BYTES - 10) + "needle\n");
    assert.equal(
      longestDecoded((await examined(short, literalMatcher("needle"), 9, 2000)).text),
      WINDOWED_FROM_BYTES - 3,
    );
  });

  it("leave a BOM out of line 1, also for a literal that starts with U+FEFF", async () => {
    const bytes = encoder.encode("\uFEFFneedle" + "x".repeat(70_000) + "\uFEFFneedle\n");
    for (const literal of ["needle", "\uFEFFneedle"]) {
      const matcher = literalMatcher(literal);
      const want = await new MemoryStore({ f: bytes }).search({ matcher, maxMatches: 9 });
      const got = (await examined(bytes, matcher, 9, 100)).result;
      assert.deepEqual(shownRows(got, 100), shownRows(want, 100), literal);
      // (An occurrence in the BOM is in no line's text: that line is decoded whole.)
      assert.equal(got.files[0].rows[0].piece?.from, literal === "needle" ? 1 : undefined);
    }
  });

  it("leave a U+FEFF that starts the next line in its text", async () => {
    const bytes = encoder.encode("a\n" + "x".repeat(70_000) + "needle\n\uFEFFneedle\n");
    const matcher = literalMatcher("needle");
    const { result } = await examined(bytes, matcher, 9, 100);
    assert.equal(result.files[0].rows[1].text, "\uFEFFneedle\n");
    const want = await new MemoryStore({ f: bytes }).search({ matcher, maxMatches: 9 });
    assert.deepEqual(shownRows(result, 100), shownRows(want, 100));
  });

  it("are at least 12 cuts long, so that windowRow cuts them too", () => {
    assert.equal(windowedFromBytes(2000), WINDOWED_FROM_BYTES);
    assert.equal(windowedFromBytes(10_000), 120_000);
  });
});

describe("codePointsIn()", () => {
  it("counts the code points of valid UTF-8", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 9000 }), (text) => {
        const bytes = encoder.encode(text);
        assert.equal(codePointsIn(bytes, 0, bytes.length), [...text].length);
      }),
      { numRuns: 200 },
    );
  });
});

describe("stretchedPart()", () => {
  // The part of a long line a plan read: "abc" may follow more word characters, "7" more digits.
  const part = encoder.encode("abcneedle 7 needle 77");
  const needle = encoder.encode("needle");
  const rowOf = (pattern: string, around: { before: number; after: number }, cut = 2000) => {
    const next = occurrences(Buffer.from(part), [needle]);
    const stretch = { ...regexMatcher(pattern).stretch!, cut };
    const row = stretchedPart(part, 0, part.length, next(0), next, stretch, {
      ...around,
      terminator: "\n",
    });
    return row === null || row === undefined ? row : row.piece;
  };

  it("gives the row of the part's first match, with the rest of the line around it", () => {
    assert.equal(rowOf("needle \\d+", { before: 0, after: 0 }), "abcneedle 7 needle 77");
    assert.equal(rowOf("needle \\d+", { before: 5, after: 5 }), undefined, "cut: more line");
    assert.equal(rowOf("needle  \\d", { before: 0, after: 0 }), null, "no match in it");
  });

  it("cannot tell where a stretch reaches an end of the part with more of the line beyond", () => {
    // `\w*needle` from the first needle runs to the part's start: its match may start earlier.
    // (Rows cut at 5 code points: the window alone stays inside the part.)
    assert.equal(rowOf("\\w*needle", { before: 0, after: 0 }, 5), "abcne");
    assert.equal(rowOf("\\w*needle", { before: 3, after: 0 }, 5), undefined);
    // `needle 77\d*` from the last needle runs to the part's end: its match may go on.
    assert.equal(rowOf("needle 77\\d*", { before: 0, after: 0 }, 5), "needl");
    assert.equal(rowOf("needle 77\\d*", { before: 0, after: 3 }, 5), undefined);
  });
});
