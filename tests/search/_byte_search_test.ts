import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { bytesOf, presentNeedles } from "../../src/search/_byte_search.ts";

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
