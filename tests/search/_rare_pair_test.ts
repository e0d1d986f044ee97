import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { BYTE_RARITY } from "../../src/search/_byte_rarity.ts";
import { rarePart } from "../../src/search/_rare_pair.ts";

const encode = (text: string) => new TextEncoder().encode(text);
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe("rarePart()", () => {
  it("is the part between the needle's two rarest bytes three or more apart", () => {
    assert.equal(text(rarePart(encode("EXPORT_SYMBOL_GPL("))!.part), "XPORT_SY");
    const found = rarePart(encode("ee$eeea^"))!;
    assert.deepEqual([found.offset, text(found.part)], [2, "$eeea^"]);
  });

  it("is undefined for a needle too short for a pair that far apart", () => {
    assert.equal(rarePart(encode("$e^")), undefined);
    assert.equal(rarePart(encode("")), undefined);
  });

  it("is undefined when the needle's ends are the rarest pair, or not much rarer", () => {
    assert.equal(rarePart(encode("$eeee^")), undefined);
    assert.equal(rarePart(encode("return")), undefined);
  });

  it("is the rarest pair a brute force finds, when rarer enough than the ends", () => {
    const rarity = (needle: Uint8Array, from: number, to: number) =>
      BYTE_RARITY[needle[from]] + BYTE_RARITY[needle[to]];
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(..."eat_($^Q\n"), { minLength: 0, maxLength: 16 }),
        (chars) => {
          const needle = encode(chars.join(""));
          let best = -1;
          for (let from = 0; from < needle.length; from++) {
            for (let to = from + 3; to < needle.length; to++) {
              best = Math.max(best, rarity(needle, from, to));
            }
          }
          const found = rarePart(needle);
          if (best === -1) return assert.equal(found, undefined);
          const ends = rarity(needle, 0, needle.length - 1);
          if (best < ends + 16) return assert.equal(found, undefined);
          assert.ok(found !== undefined);
          const { offset, part } = found;
          assert.ok(part.length >= 4);
          assert.deepEqual(part, needle.subarray(offset, offset + part.length));
          assert.equal(rarity(part, 0, part.length - 1), best);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
