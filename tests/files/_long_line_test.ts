import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { literalMatcher, regexMatcher } from "../../src/core/mod.ts";
import { passLongLine, SEARCH_OVERLAP, SEARCH_WINDOW } from "../../src/files/_long_line.ts";

const encoder = new TextEncoder();

/** A text's bytes in blocks of `size` (so characters and "\r\n" split across blocks). */
async function* blocksOf(text: string, size = 65_536 + 1): AsyncGenerator<Uint8Array> {
  const bytes = encoder.encode(text);
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

describe("passLongLine()", () => {
  test("counts code points and keeps the piece from a column, across blocks", async () => {
    const text = "é𝄞".repeat(100_000) + "tail"; // 2 and 4 bytes, split across blocks
    for (const [terminator, size] of [["\r\n", 7], ["\n", 65_536], ["", 1000]] as const) {
      const line = await passLongLine(blocksOf(text + terminator, size), { from: 5, keep: 6 });
      assert.equal(line.codePoints, 200_004);
      assert.equal(line.terminator, terminator);
      assert.equal(line.piece, "é𝄞é𝄞é𝄞");
      assert.equal(line.from, 5);
      assert.equal(line.invalid, false);
    }
  });

  test("a \r or \n at the end of a block is text unless the line ends there", async () => {
    const cases: [string, string, string][] = [
      ["a\rb\r\r\nc\r\n", "a\rb\r\r\nc", "\r\n"],
      ["ab\r\r\n", "ab\r", "\r\n"],
      ["ab\r\n\r", "ab\r\n\r", ""],
      ["ab\n\n", "ab\n", "\n"],
      ["\r\n", "", "\r\n"],
      ["\r", "\r", ""],
      ["ab\r", "ab\r", ""],
    ];
    for (const [text, content, terminator] of cases) {
      for (let size = 1; size <= text.length; size++) {
        const line = await passLongLine(blocksOf(text, size), { from: 1, keep: 100 });
        const what = `${JSON.stringify(text)} in blocks of ${size}`;
        assert.equal(line.terminator, terminator, what);
        assert.equal(line.piece, content, what);
        assert.equal(line.codePoints, content.length, what);
      }
    }
  });

  test("an ASCII line is counted without decoding past its piece", async () => {
    const line = await passLongLine(blocksOf("x".repeat(5_000_000) + "\n"), { from: 1, keep: 3 });
    assert.deepEqual([line.piece, line.codePoints, line.terminator], ["xxx", 5_000_000, "\n"]);
  });

  test("marks bytes that are not UTF-8, and not a U+FFFD of the text's own", async () => {
    const bytes = new Uint8Array([...encoder.encode("a".repeat(10)), 0xff, 0x0a]);
    const bad = await passLongLine(
      (async function* () {
        yield bytes;
      })(),
      { from: 1, keep: 100 },
    );
    assert.equal(bad.invalid, true);
    const own = await passLongLine(blocksOf("a\uFFFDb\n"), { from: 1, keep: 100 });
    assert.equal(own.invalid, false);
  });

  test("finds a match anywhere, also across two windows, with an excerpt around it", async () => {
    const before = SEARCH_WINDOW - 5; // the needle straddles the end of the first window
    const text = "a".repeat(before) + "NEEDLE" + "b".repeat(3 * SEARCH_WINDOW) + "\n";
    const line = await passLongLine(blocksOf(text), {
      from: 1,
      keep: 50,
      search: { matcher: literalMatcher("NEEDLE") },
    });
    assert.equal(line.codePoints, text.length - 1);
    assert.ok(line.match, "found");
    assert.equal(line.piece.slice(line.match.start, line.match.end), "NEEDLE");
    assert.equal(line.from + [...line.piece.slice(0, line.match.start)].length, before + 1);
  });

  test("^ and $ hold only at the line's ends, not at a window's", async () => {
    const text = "b".repeat(3 * SEARCH_WINDOW) + "\n";
    for (const pattern of ["^b{10}$", "^bb", "bb$", "^b"]) {
      const line = await passLongLine(blocksOf(text), {
        from: 1,
        keep: 50,
        search: { matcher: regexMatcher(pattern) },
      });
      const expected = new RegExp(pattern, "su").exec(text.slice(0, -1));
      assert.equal(line.match !== undefined, expected !== null, pattern);
      if (expected) assert.equal(line.from - 1 + line.match!.start, expected.index, pattern);
    }
  });

  test("stops at the deadline, saying so", async () => {
    const text = "a".repeat(4 * SEARCH_WINDOW) + "\n";
    const line = await passLongLine(blocksOf(text), {
      from: 1,
      keep: 50,
      search: { matcher: literalMatcher("zzz"), deadline: Date.now() - 1 },
    });
    assert.equal(line.timedOut, true);
    assert.ok(SEARCH_OVERLAP < SEARCH_WINDOW);
  });
});
