// A search result packed to cross threads comes back as it was, row for row.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { rowPrefix, shownWhole, windowRow } from "../../src/core/format_rows.ts";
import {
  keptNumber,
  packResult,
  splitStrings,
  unpackResult,
  withStrings,
} from "../../src/disk/_packed_result.ts";
import type { SearchResult } from "../../src/store/file_store.ts";
import { shownRows } from "../../src/store/flat_rows.ts";

const row = fc.record(
  {
    // (Past 2^31 too: a file of more than 2 GB may have more lines than an Int32Array holds.)
    line: fc.oneof(fc.integer({ min: 1, max: 1_000_000 }), fc.maxSafeNat().map((n) => n || 1)),
    text: fc.string({ unit: "grapheme", maxLength: 40 }),
    match: fc.record({ start: fc.nat(40), end: fc.nat(40) }, { noNullPrototype: true }),
    piece: fc.record(
      {
        from: fc.integer({ min: 1, max: 1000 }),
        codePoints: fc.nat(10_000),
        terminator: fc.constantFrom("", "\n", "\r\n"),
      },
      { noNullPrototype: true },
    ),
  },
  { requiredKeys: ["line", "text"], noNullPrototype: true },
);

const result = fc.record({
  files: fc.array(
    fc.record({
      // (No path holds a NUL: the packed paths are joined with it.)
      path: fc.string().filter((path) => !path.includes("\0")),
      rows: fc.array(row, { maxLength: 6 }),
      invalidUtf8: fc.boolean(),
      sha1: fc.stringMatching(/^[0-9a-f]{40}$/),
      identity: fc.string(),
      matchedLines: fc.oneof(fc.nat(), fc.maxSafeNat()),
    }, { requiredKeys: ["path", "rows", "invalidUtf8"], noNullPrototype: true }).map((file) => {
      if (file.sha1 === undefined) delete file.identity; // (an identity goes with a digest)
      if (file.matchedLines !== undefined) file.rows = []; // (a count comes without rows)
      return file;
    }),
    { maxLength: 6 },
  ),
  matchedLines: fc.nat(),
  filesSearched: fc.nat(),
  binaryFilesSkipped: fc.nat(),
  filesNotSearched: fc.nat(),
}, { noNullPrototype: true }) as fc.Arbitrary<SearchResult>;

test("a packed result unpacks to the same result", () => {
  fc.assert(
    fc.property(result, (original) => {
      const { packed } = packResult(original, undefined);
      assert.deepEqual(unpackResult(structuredClone(packed)), original);
    }),
    { numRuns: 300 },
  );
});

test("a packed result posted as its strings and the rest unpacks to the same result", () => {
  fc.assert(
    fc.property(result, (original) => {
      const { strings, rest } = splitStrings(packResult(original, undefined).packed);
      // (The strings go alone, in a message of strings: the rest carries none of them again.)
      assert.ok(Object.values(strings).every((value) => typeof value === "string"));
      assert.deepEqual([rest.files.texts, rest.files.paths], ["", ""]);
      const back = withStrings(structuredClone(rest), structuredClone(strings));
      assert.deepEqual(unpackResult(back), original);
    }),
    { numRuns: 300 },
  );
});

test("empty paths, and no file at all, come back as they were", () => {
  const file = (path: string) => ({ path, rows: [], invalidUtf8: false });
  for (const files of [[], [file("")], [file(""), file("a"), file("")]]) {
    const original = {
      files,
      matchedLines: 0,
      filesSearched: 0,
      binaryFilesSkipped: 0,
      filesNotSearched: 0,
    };
    assert.deepEqual(
      unpackResult(structuredClone(packResult(original, undefined).packed)),
      original,
    );
  }
});

test("packing with a cut gives each row as windowRow shows it", () => {
  const long = "x".repeat(50_000) + "needle" + "y".repeat(50_000) + "\n";
  const original: SearchResult = {
    files: [{
      path: "a.txt",
      rows: [{ line: 3, text: long, match: { start: 50_000, end: 50_006 } }, {
        line: 4,
        text: "short\n",
      }],
      invalidUtf8: false,
    }],
    matchedLines: 1,
    filesSearched: 1,
    binaryFilesSkipped: 0,
    filesNotSearched: 0,
    stopped: "max_matches",
  };
  const { packed, transfer } = packResult(original, 2000);
  const back = unpackResult(packed);
  assert.deepEqual(back.files[0].rows, original.files[0].rows.map((r) => windowRow(r, 2000)));
  assert.ok(back.files[0].rows[0].text.length < long.length, "the long row was cut");
  assert.equal(back.stopped, "max_matches");
  assert.equal(transfer.length, 7);
});

test("a file packed with a cut is shown whole in one piece exactly when each row is", () => {
  fc.assert(
    fc.property(result, fc.integer({ min: 1, max: 45 }), (original, cut) => {
      const back = unpackResult(structuredClone(packResult(original, cut).packed));
      back.files.forEach((file, f) => {
        const whole = shownRows(file, cut);
        const rows = file.rows; // (made now: the file is no longer flat after this)
        const shown = rows.length > 0 && rows.every((row) => shownWhole(row.text, row.piece, cut));
        assert.equal(whole !== undefined, shown, `file ${f}`);
        if (whole === undefined) return;
        assert.equal(whole.text, rows.map((r) => rowPrefix(r.line, !r.match) + r.text).join(""));
        assert.deepEqual(whole.matchLines, rows.filter((r) => r.match).map((r) => r.line));
        assert.equal(whole.count, rows.length);
        assert.equal(shownRows(file, cut), undefined, "rows made are read one by one");
      });
      // (Asked at another cut, or packed without one, no file is taken whole.)
      const other = unpackResult(packResult(original, cut).packed);
      assert.ok(other.files.every((file) => shownRows(file, cut + 1) === undefined));
      const uncut = unpackResult(packResult(original, undefined).packed);
      assert.ok(uncut.files.every((file) => shownRows(file, cut) === undefined));
    }),
    { numRuns: 300 },
  );
});

test("a kept (frozen) result has one number per cut; a result of one search has none", () => {
  const make = (): SearchResult => ({
    files: [{ path: "a.txt", rows: [{ line: 2, text: "x\n" }], invalidUtf8: false }],
    matchedLines: 1,
    filesSearched: 1,
    binaryFilesSkipped: 0,
    filesNotSearched: 0,
  });
  assert.equal(keptNumber(make(), undefined), undefined);
  const kept = Object.freeze(make());
  const number = keptNumber(kept, undefined);
  assert.equal(typeof number, "number");
  assert.equal(keptNumber(kept, undefined), number, "the same for every search answered with it");
  const cut = keptNumber(kept, 2000);
  assert.notEqual(cut, number, "packed with another cut, it is another one");
  assert.equal(keptNumber(kept, 2000), cut);
  const other = keptNumber(Object.freeze(make()), undefined);
  assert.ok(other !== number && other !== cut, "another kept result has another number");
});
