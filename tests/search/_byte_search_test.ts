import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { countLf } from "../../src/search/_byte_search.ts";

describe("countLf()", () => {
  it("counts what a byte loop counts, at any alignment and range", () => {
    fc.assert(
      fc.property(
        // (Past 1,020 bytes the count is summed from more than one run of 255 words.)
        fc.uint8Array({ maxLength: 3000 }).map((bytes) => bytes.map((b) => b % 3 === 0 ? 10 : b)),
        fc.nat({ max: 3 }),
        fc.nat(),
        fc.nat(),
        (content, shift, a, b) => {
          // The same bytes at another offset of a buffer, so words start elsewhere.
          const buffer = new Uint8Array(content.length + shift);
          buffer.set(content, shift);
          const bytes = buffer.subarray(shift);
          const from = content.length === 0 ? 0 : a % (content.length + 1);
          const to = from + (content.length === 0 ? 0 : b % (content.length - from + 1));
          let expected = 0;
          for (let i = from; i < to; i++) if (bytes[i] === 10) expected++;
          assert.equal(countLf(bytes, from, to), expected);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("counts a run of nothing but \\n past every lane's limit", () => {
    const lines = new Uint8Array(4 * 255 * 3 + 7).fill(10);
    assert.equal(countLf(lines, 0, lines.length), lines.length);
    assert.equal(countLf(lines, 3, lines.length - 2), lines.length - 5);
  });
});
