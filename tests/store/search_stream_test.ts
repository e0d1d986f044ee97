// searchStream counting only: the lines holding a literal that is the whole of every match are
// counted in the bytes of each run (as `yes foo | linewise grep -c foo` asks), and the count
// must be the scan's, with its cap per file and its word on invalid UTF-8.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import fc from "fast-check";
import { literalMatcher, type Matcher } from "../../src/core/mod.ts";
import { searchStream } from "../../src/store/search_stream.ts";

const LINES = ["foo", "bar", "", "foo bar foo", "é foo", "\ufefffoo", "fo", "o", "x\r", "ba\xffr"];

async function* runsOf(lines: Buffer[], cuts: number[]): AsyncGenerator<Uint8Array> {
  let from = 0;
  for (
    const cut of [...cuts.map((n) => n % (lines.length + 1)).sort((a, b) => a - b), lines.length]
  ) {
    if (cut > from) yield Buffer.concat(lines.slice(from, cut));
    from = Math.max(from, cut);
  }
}

test("a count of a literal's lines in the bytes is the scan's", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.constantFrom(...LINES), { maxLength: 30 }),
      fc.constantFrom("\n", "\r\n"),
      fc.array(fc.nat(), { maxLength: 6 }),
      fc.constantFrom(undefined, 1, 2, 5),
      fc.constantFrom("foo", "o", "\ufefffoo", "é", "\ufffd"),
      async (texts, ending, cuts, perFile, literal) => {
        const lines = texts.map((text) => {
          // (\xff: a byte that is no UTF-8, where U+0100's two bytes were.)
          const bytes = Buffer.from(text.replaceAll("\xff", "\u0100") + ending, "utf8");
          const bad = bytes.indexOf(Buffer.from("\u0100"));
          if (bad === -1) return bytes;
          return Buffer.concat([
            bytes.subarray(0, bad),
            Buffer.from([0xff]),
            bytes.subarray(bad + 2),
          ]);
        });
        const exact = literalMatcher(literal);
        // (Without `exactLiteral`, the lines are decoded and scanned.)
        const scanned: Matcher = { matchLine: exact.matchLine };
        const query = { countOnly: true, maxMatches: Infinity, maxMatchesPerFile: perFile };
        const stream = (matcher: Matcher) =>
          searchStream({ ...query, matcher }, { path: "<stdin>", runs: runsOf(lines, cuts) });
        assert.deepEqual(await stream(exact), await stream(scanned));
      },
    ),
    { numRuns: 500 },
  );
});

test("a count in the bytes reads no further run once the search is called off", async () => {
  const stop = new AbortController();
  let pulled = 0;
  async function* runs(): AsyncGenerator<Uint8Array> {
    while (pulled < 10) {
      pulled++;
      if (pulled === 2) stop.abort(new Error("called off"));
      yield Buffer.from("foo\nbar\n");
    }
  }
  const query = { matcher: literalMatcher("foo"), countOnly: true, signal: stop.signal };
  await assert.rejects(searchStream(query, { path: "<stdin>", runs: runs() }), /called off/);
  assert.equal(pulled, 2);
});
