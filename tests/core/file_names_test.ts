import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import {
  decodeName,
  encodeName,
  quotePath,
  quotePathInRow,
  unquotePath,
} from "../../src/core/file_names.ts";

/** Characters that matter here, as single units: controls, quotes, escapes, raw bytes. */
const unit = fc.constantFrom(
  "a",
  "/",
  " ",
  "é",
  "日",
  "𝄞",
  "\n",
  "\t",
  "\r",
  "\u0000",
  "\u0007",
  "\u001b",
  "\u007f",
  "\u0085",
  "\u2028",
  '"',
  "\\",
  "[",
  "\udc80",
  "\udcff",
  "\udcc3",
);

const names = fc.array(unit, { maxLength: 10 }).map((units) => units.join(""))
  .filter((name) => decodeName(encodeName(name)) === name);

describe("file names", () => {
  test("decodeName() and encodeName() give every byte sequence back", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 12 }), (bytes) => {
        assert.deepEqual([...encodeName(decodeName(bytes))], [...bytes]);
      }),
      { numRuns: 2000 },
    );
  });

  test("decodeName() keeps a leading U+FEFF (a BOM's bytes) as part of the name", () => {
    for (const bytes of [[0xef, 0xbb, 0xbf], [0xef, 0xbb, 0xbf, 0x61], [0xef, 0xbb, 0xbf, 0xff]]) {
      const name = decodeName(new Uint8Array(bytes));
      assert.ok(name.startsWith("\ufeff"), JSON.stringify(name));
      assert.deepEqual([...encodeName(name)], bytes);
    }
  });

  test("decodeName() keeps valid UTF-8 as its text and escapes only the bytes that are not", () => {
    const bytes = new Uint8Array([0x61, 0xc3, 0xa9, 0xff, 0xc3, 0x62]);
    assert.equal(decodeName(bytes), "aé\udcff\udcc3b");
  });

  test("quotePath() leaves plain paths, valid Unicode included, as they are", () => {
    for (
      const path of ["src/a.ts", "a b/c.txt", "日本/é.md", "[x].txt", "app/[slug]/x", "a@0123abcd"]
    ) {
      assert.equal(quotePath(path), path);
    }
  });

  test("quotePath() quotes a name that reads as a note only where it could stand alone", () => {
    assert.equal(quotePathInRow("[x]"), "[x]");
    assert.equal(quotePathInRow("a\tb"), '"a\\tb"');
    assert.equal(quotePath("[x]"), '"[x]"');
  });

  const quoted: [string, string, string][] = [
    ["a newline and a tab", "evil\n1\tx.txt", '"evil\\n1\\tx.txt"'],
    ["a byte that is not UTF-8", "bad\udcffname.txt", '"bad\\377name.txt"'],
    ["a quote", 'say "hi".txt', '"say \\"hi\\".txt"'],
    ["a backslash", "a\\b", '"a\\\\b"'],
    ["an escape character", "x\u001b[31m", '"x\\033[31m"'],
    ["DEL and a C1 control", "a\u007fb\u0085", '"a\\177b\\302\\205"'],
    ["a line separator", "a\u2028b", '"a\\342\\200\\250b"'],
    ["brackets around it all, as a note has", "[lines 1-2 of 9]", '"[lines 1-2 of 9]"'],
    ["a version after it, as a grep heading has", "b.txt @0123ABCD", '"b.txt @0123ABCD"'],
  ];
  for (const [name, path, expected] of quoted) {
    test(`quotePath() quotes a path with ${name}, and unquotePath() takes it back`, () => {
      assert.equal(quotePath(path), expected);
      assert.equal(unquotePath(expected), path);
    });
  }

  test("a quoted path is one line of printable text that reads back as the path", () => {
    fc.assert(
      // (Only names decodeName can make: "\udcc3\udc80" would be the bytes of "À".)
      fc.property(names, (path) => {
        const shown = quotePath(path);
        // deno-lint-ignore no-control-regex -- control characters are what it looks for
        assert.doesNotMatch(shown, /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
        assert.ok(shown.isWellFormed(), "no lone surrogate is shown");
        assert.equal(unquotePath(shown), path);
      }),
      { numRuns: 2000 },
    );
  });

  test("unquotePath() takes back each quoted name of a path built on one", () => {
    // (list shows a folder as `"dir\nx"/`: the path to a file in it is made from that.)
    assert.equal(unquotePath('"dir\\nx"/f.txt'), "dir\nx/f.txt");
    assert.equal(unquotePath('src/"a\\tb"/"c\\377"'), "src/a\tb/c\udcff");
    // (A name that is not well-formed, or unquotes to nothing or to a slash, stays as it is.)
    for (const path of ['"a/b"/c', '""/c', '"x\\q"/c', 'a"/b', '"\\057"/c']) {
      assert.equal(unquotePath(path), path);
    }
  });

  test("unquotePath() takes what is not a well-formed quoted path as it is", () => {
    for (const path of ['"', '""x', '"a"b"', '"trailing\\"', '"bad\\q"', '"\\400"', "plain"]) {
      assert.equal(unquotePath(path), path);
    }
    assert.equal(unquotePath('""'), "");
  });
});
