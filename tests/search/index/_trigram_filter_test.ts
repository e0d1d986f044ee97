import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { describe, test } from "node:test";
import fc from "fast-check";
import {
  foldedTrigrams,
  mayContain,
  mayContainFolded,
  needleTrigrams,
  trigramFilter,
} from "../../../src/search/index/_trigram_filter.ts";
import { FORMAT } from "../../../src/search/index/_index_cache.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("trigram filters", () => {
  test("every run of a file's bytes may be in it (no false 'absent')", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 3000 }),
        fc.nat(),
        fc.nat({ max: 40 }),
        (content, from, length) => {
          const start = content.length === 0 ? 0 : from % content.length;
          const needle = content.subarray(start, start + length);
          assert.equal(mayContain(trigramFilter(content), needleTrigrams(needle)), true);
        },
      ),
      { numRuns: 1000 },
    );
  });

  test("text made of few letters keeps every run of them (dense trigrams)", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom("a", "b", "\n"), maxLength: 5000 }), (text) => {
        const content = bytes(text);
        const filter = trigramFilter(content);
        for (let at = 0; at + 5 <= content.length; at += 97) {
          assert.equal(mayContain(filter, needleTrigrams(content.subarray(at, at + 5))), true);
        }
      }),
      { numRuns: 300 },
    );
  });

  test("the filter has three bits per distinct trigram, rounded up to a power of two, at least 64", () => {
    assert.equal(trigramFilter(new Uint8Array(0)).length, 8);
    assert.equal(trigramFilter(new Uint8Array(1_000_000)).length, 8, "one trigram, repeated");
    assert.equal(trigramFilter(bytes("abc".repeat(100_000))).length, 8, "three trigrams");
    // 22 distinct trigrams need 66 bits: 128.
    assert.equal(trigramFilter(bytes("abcdefghijklmnopqrstuvwx")).length, 16);
    const counted = new Uint8Array(40_000); // 39,998 trigrams, each distinct
    for (let i = 0; i < counted.length; i += 2) [counted[i], counted[i + 1]] = [i >> 8, i & 255];
    const distinct = new Set<number>();
    for (let i = 2; i < counted.length; i++) {
      distinct.add((counted[i - 2] << 16) | (counted[i - 1] << 8) | counted[i]);
    }
    let bits = 64;
    while (bits < distinct.size * 3) bits *= 2;
    assert.equal(trigramFilter(counted).length, bits / 8);
  });

  test("filters made one after another do not carry each other's trigrams", () => {
    trigramFilter(bytes("the first file holds a needle"));
    const filter = trigramFilter(bytes("the second holds none"));
    assert.equal(mayContain(filter, needleTrigrams(bytes("needle"))), false);
    assert.equal(mayContain(filter, needleTrigrams(bytes("the second holds"))), true);
  });

  test("a needle under three bytes always may be there", () => {
    const filter = trigramFilter(bytes("xyz"));
    assert.equal(needleTrigrams(bytes("ab")).length, 0);
    assert.equal(mayContain(filter, needleTrigrams(bytes("ab"))), true);
  });

  test("a trigram not in the text passes at most as often as the filter's bits are set", () => {
    // 20 KB of random lowercase words: nearly one distinct trigram per byte, the densest
    // case. Needles of digits and signs share no trigram with it, so whatever passes is a
    // collision.
    const word = seededWords(7);
    let text = "";
    while (text.length < 20_000) text += `${word(LOWER, 6)} = ${word(LOWER, 8)};\n`;
    const filter = trigramFilter(bytes(text));
    const fill = bitsSet(filter) / (filter.length * 8);
    assert.ok(fill < 0.63, `fill ${fill}`);
    const one = passing(filter, word, 3, 2000);
    assert.ok(one < fill + 0.05, `one trigram: ${one} pass, fill ${fill}`);
    const ten = passing(filter, word, 12, 2000);
    assert.ok(ten < 0.01, `ten trigrams: ${ten} pass`);
  });

  test("a trigram not in the text passes only where both of its bits are set", () => {
    // Lowercase words again (their folded trigrams are the same), sized so that the filter
    // has about three bits per distinct trigram: the fullest a filter gets.
    const word = seededWords(11);
    let text = "";
    const distinct = new Set<string>();
    while (distinct.size < 2700) {
      text += word(LOWER, 7) + " ";
      for (let i = Math.max(0, text.length - 10); i + 3 <= text.length; i++) {
        distinct.add(text.slice(i, i + 3));
      }
    }
    const filter = trigramFilter(bytes(text));
    const bits = filter.length * 8;
    assert.equal(bits, 8192);
    const fill = bitsSet(filter) / bits;
    const rate = passing(filter, word, 3, 20_000);
    // One bit per trigram would set 1 - e^(-n/m) of the bits and let that many through.
    const oneBit = 1 - Math.exp(-distinct.size / bits);
    assert.ok(rate < fill * fill + 0.03, `${rate} pass, ${fill} of the bits set`);
    assert.ok(rate < oneBit - 0.02, `${rate} pass, where one bit per trigram lets ${oneBit}`);
  });
});

const LOWER = "abcdefghijklmnopqrstuvwxyz";

/** Random words from a seed: the same for the same seed. */
function seededWords(seed: number): (letters: string, length: number) => string {
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  return (letters, length) =>
    Array.from({ length }, () => letters[Math.floor(random() * letters.length)]).join("");
}

/** How many bits of a filter are set. */
function bitsSet(filter: Uint8Array): number {
  let set = 0;
  for (const byte of filter) for (let bit = 0; bit < 8; bit++) set += (byte >> bit) & 1;
  return set;
}

/**
 * The share of needles of digits and signs (no trigram of lowercase words) of a length that
 * the filter lets through.
 */
function passing(
  filter: Uint8Array,
  word: (letters: string, length: number) => string,
  length: number,
  tries: number,
): number {
  let passed = 0;
  for (let i = 0; i < tries; i++) {
    if (mayContain(filter, needleTrigrams(bytes(word("0123456789#$%&@!?~^", length))))) passed++;
  }
  return passed / tries;
}

test("filters fold ASCII case, and mark a Kelvin sign or a long s for folded literals", () => {
  const hashes = (...trigrams: string[]) =>
    trigrams.map((one) => needleTrigrams(new TextEncoder().encode(one))[0]);
  const filter = trigramFilter(bytes("x = CreateElement(1)"));
  assert.equal(mayContain(filter, needleTrigrams(bytes("createelement("))), true, "in lower case");
  assert.equal(mayContain(filter, needleTrigrams(bytes("CreateElement("))), true, "as it is");
  assert.equal(mayContainFolded(filter, foldedTrigrams("createelement(")), true);
  // (onk, nke, key, bus, usi, sin, nes and ess hold a k or an s: a Kelvin sign or a long s
  // matches those too, and they are other bytes.)
  const monkey = foldedTrigrams("monkey_business");
  assert.deepEqual([...monkey.plain], hashes("mon", "ey_", "y_b", "_bu", "ine"));
  assert.equal(monkey.all.length, "monkey_business".length - 2);
  const none = new Uint32Array(0);
  assert.deepEqual(foldedTrigrams("k_s"), { all: Uint32Array.from(hashes("k_s")), plain: none });
  assert.deepEqual(foldedTrigrams("é12"), { all: none, plain: none }, "a byte that is not ASCII");
  // Each spelling passes: other cases, a Kelvin sign, a long s (also at the start or the end
  // of the bytes filtered); a text with the plain trigrams alone passes only beside one of them.
  const spellings = [
    "MONKEY_BUSINESS",
    "MON\u212AEY_BU\u017FINE\u017F\u017F\n",
    "\u017Fx mon\u212Aey_business",
    "monkey_bu\u017Finess and \u017F",
  ];
  for (const text of spellings) {
    assert.equal(mayContainFolded(trigramFilter(bytes(text)), monkey), true, text);
  }
  const nearMiss = "money_buine, mon ey_business";
  assert.equal(mayContainFolded(trigramFilter(bytes(nearMiss)), monkey), false);
  for (const odd of ["\u017F", "\u212A"]) {
    const filter = trigramFilter(bytes(nearMiss + odd));
    assert.equal(mayContainFolded(filter, monkey), true, `beside ${odd}`);
  }
  // Each place a long s or a Kelvin sign can be within the bytes a block filters.
  const text = bytes("ab\u017Fcd\u212Aef");
  for (let from = 0; from < text.length - 2; from++) {
    for (let to = from + 1; to <= text.length; to++) {
      const inside = new TextDecoder().decode(text.subarray(from, Math.min(to + 2, text.length)));
      const odd = /[\u017F\u212A]/.test(inside);
      const kept = mayContainFolded(trigramFilter(text, from, to), foldedTrigrams("sk\n"));
      if (odd) assert.equal(kept, true, `${from}-${to}`);
    }
  }
});

test("the filters are made as the cache's format says", () => {
  // Filters are kept on disk: made another way, those of an older file would say "absent" of
  // trigrams their files hold. Whoever changes how they are made bumps FORMAT with this.
  const filter = trigramFilter(bytes("const answer = 42;\n"));
  assert.deepEqual([FORMAT, Buffer.from(filter).toString("hex")], [13, "401e79a86b11eac0"]);
});
