import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { bytesOf, countLf, presentNeedles } from "../../src/search/_byte_search.ts";

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

describe("presentNeedles()", () => {
  const bytes = (text: string) => bytesOf(new TextEncoder().encode(text));
  const needles = ["nt(", "nT(", "Nt(", "NT("].map((s) => new TextEncoder().encode(s));
  const folded = ["one(", "two(", "three(", "four("].map((s) => new TextEncoder().encode(s));

  it("is undefined when the bytes hold none of the needles", () => {
    assert.equal(presentNeedles(bytes("no such text"), needles, folded), undefined);
    assert.equal(presentNeedles(bytes(""), needles), undefined);
  });

  it("keeps the needles the bytes hold, in order, each with its own folded literal", () => {
    const present = presentNeedles(bytes("a Nt( and an nt( but no other"), needles, folded);
    assert.deepEqual(present?.needles, [needles[0], needles[2]]);
    assert.deepEqual(present?.folded, [folded[0], folded[2]]);
    const plain = presentNeedles(bytes("NT("), needles);
    assert.deepEqual(plain, { needles: [needles[3]], folded: undefined });
  });

  it("gives the same arrays back for the same needles present (what is worked out for them is kept)", () => {
    const all = presentNeedles(bytes("nt( nT( Nt( NT("), needles, folded);
    assert.equal(all?.needles, needles);
    assert.equal(all?.folded, folded);
    const first = presentNeedles(bytes("x nT( y"), needles, folded);
    assert.equal(presentNeedles(bytes("nT( only"), needles, folded), first);
    // Other folded literals for the same needles are not given the first ones' answer.
    const others = folded.map((one) => one.slice(1));
    assert.deepEqual(presentNeedles(bytes("x nT( y"), needles, others)?.folded, [others[1]]);
  });
});
