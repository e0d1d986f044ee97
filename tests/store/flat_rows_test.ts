// Rows kept flat read as the rows they stand for, are made only when asked for, and a file
// frozen before they are made gets them frozen.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { ScanRow } from "../../src/core/mod.ts";
import type { FileMatches, SearchResult } from "../../src/store/file_store.ts";
import {
  eachRow,
  hasFlatRows,
  rowCount,
  RowTable,
  withFlatRows,
} from "../../src/store/flat_rows.ts";
import { freezeResult } from "../../src/store/frozen_result.ts";
import { MemoryStore } from "../../src/store/memory_store.ts";
import { literalMatcher } from "../../src/core/mod.ts";

const piece = { from: 3, codePoints: 9000, terminator: "\n" };
/**
 * The rows of two files as they cross threads, each after its prefix; the second file's are
 * rows 2 and 3.
 */
const crossed = () =>
  new RowTable({
    lines: Float64Array.of(1, 2, 7, 8),
    textLengths: Int32Array.of(4, 6, 6, 5),
    texts: "1\ta\n2-\tbc\n7\txyz\n8-\tq\n",
    matches: Int32Array.of(0, 1, -1, -1, 1, 2, -1, -1),
    pieces: new Map([[2, piece]]),
  });
const second: ScanRow[] = [
  { line: 7, text: "xyz\n", match: { start: 1, end: 2 }, piece },
  { line: 8, text: "q\n" },
];

function secondFile(): FileMatches {
  return withFlatRows({ path: "b.txt", rows: [], invalidUtf8: false }, {
    table: crossed(),
    from: 2,
    count: 2,
    at: 10,
  });
}

function seen(file: FileMatches, stopAfter = Infinity): unknown[] {
  const rows: unknown[] = [];
  eachRow(file, (line, text, start, end, piece) => {
    rows.push([line, text, start, end, piece]);
    return rows.length < stopAfter;
  });
  return rows;
}

describe("flat rows", () => {
  it("read as the rows they stand for, made once", () => {
    const file = secondFile();
    assert.ok(hasFlatRows(file));
    assert.deepEqual(file.rows, second);
    assert.equal(file.rows, file.rows);
    assert.ok(!hasFlatRows(file));
  });

  it("are collected in a table that grows, each file reading its own", () => {
    const table = new RowTable();
    // (The last two past 2^31: a file of more than 2 GB may have more lines than that.)
    const first: ScanRow[] = Array.from({ length: 700 }, (_, i) => ({
      line: i < 698 ? i + 1 : [2 ** 31 + 5, Number.MAX_SAFE_INTEGER][i - 698],
      text: `${i}\n`,
      ...i % 3 === 0 ? { match: { start: 0, end: 1 } } : {},
    }));
    for (const row of first) table.push(row.line, row.text, row.match, row.piece);
    for (const row of second) table.push(row.line, row.text, row.match, row.piece);
    const file = (from: number, count: number) =>
      withFlatRows({ path: "x", rows: [], invalidUtf8: false }, { table, from, count, at: 0 });
    assert.deepEqual(file(0, 700).rows, first);
    assert.deepEqual(file(700, 2).rows, second);
    assert.equal(rowCount(file(700, 2)), 2);
    // (Trimmed of the room it grew into, it reads the same.)
    table.trim();
    assert.equal(table.lines.length, 702);
    assert.deepEqual(file(700, 2).rows, second);
  });

  it("may be replaced, as a plain file's rows may, unless the file is frozen", () => {
    const file = secondFile();
    file.rows = second.slice(1);
    assert.deepEqual(seen(file), [[8, "q\n", -1, -1, undefined]]);
    assert.equal(rowCount(file), 1);
    const frozen = Object.freeze(secondFile());
    assert.throws(() => (frozen as FileMatches).rows = [], TypeError);
    assert.equal(frozen.rows.length, 2);
  });

  it("are read in order without making a row, or stopped", () => {
    const file = secondFile();
    const expected = [[7, "xyz\n", 1, 2, piece], [8, "q\n", -1, -1, undefined]];
    assert.deepEqual(seen(file), expected);
    assert.deepEqual(seen(file, 1), expected.slice(0, 1));
    assert.ok(hasFlatRows(file), "no row was made");
    // (A file of rows as objects reads alike.)
    assert.deepEqual(seen({ path: "b.txt", rows: second, invalidUtf8: false }), expected);
  });

  it("of a frozen file are frozen as they are made", () => {
    const result: SearchResult = {
      files: [secondFile()],
      matchedLines: 1,
      filesSearched: 2,
      binaryFilesSkipped: 0,
      filesNotSearched: 0,
    };
    freezeResult(result);
    const [file] = result.files;
    assert.ok(Object.isFrozen(file) && hasFlatRows(file), "frozen, and not made by freezing");
    const rows = file.rows;
    assert.ok(Object.isFrozen(rows) && rows.every((row) => Object.isFrozen(row)));
    assert.ok(Object.isFrozen(rows[0].match) && Object.isFrozen(rows[0].piece));
    assert.throws(() => (rows[0] as { line: number }).line = 1, TypeError);
  });

  it("are how a search keeps its rows, but not those it hands on file by file", async () => {
    const store = new MemoryStore({ "a.txt": "x\nfoo\nfoo\n", "b.txt": "foo\n" });
    const query = { matcher: literalMatcher("foo"), context: 0 };
    const kept = await store.search(query);
    assert.deepEqual(kept.files.map(hasFlatRows), [true, true]);
    assert.deepEqual(kept.files.map((file) => file.rows.map((row) => row.line)), [[2, 3], [1]]);
    // (Handed on, a file's rows are printed and dropped: a table would hold them all.)
    const handed: FileMatches[] = [];
    await store.search({ ...query, onFile: (file) => handed.push(file) });
    assert.deepEqual(handed.map(hasFlatRows), [false, false]);
    assert.deepEqual(handed.map((file) => file.rows.map((row) => row.line)), [[2, 3], [1]]);
  });

  it("made before the file is frozen are frozen with it", () => {
    const file = secondFile();
    void file.rows;
    freezeResult({
      files: [file],
      matchedLines: 1,
      filesSearched: 2,
      binaryFilesSkipped: 0,
      filesNotSearched: 0,
    });
    assert.ok(file.rows.every((row) => Object.isFrozen(row)));
  });
});
