import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { describe, it } from "node:test";
import fc from "fast-check";
import { regexMatcher } from "../../src/core/mod.ts";
import {
  CASELESS_FROM_BYTES,
  type CaselessPart,
  caselessPartsOf,
  eachCaselessOffset,
  scansInWasm,
} from "../../src/search/_caseless_scan.ts";
import {
  caselessOccurrence,
  caselessOccurrences,
  occurrences,
} from "../../src/search/_byte_search.ts";
import { prefilterOf } from "../../src/search/_search_file.ts";
import { CHUNK_BYTES, readRegion } from "../../src/io/_wasm_chunks.ts";

const encoder = new TextEncoder();
const bytesOf = (text: string) => encoder.encode(text);

/** Every spelling of a text's ASCII letters in either case. */
function spellings(text: string): string[] {
  if (text === "") return [""];
  const rest = spellings(text.slice(1));
  const c = text[0];
  const cases = c.toLowerCase() === c.toUpperCase() ? [c] : [c.toLowerCase(), c.toUpperCase()];
  return cases.flatMap((one) => rest.map((tail) => one + tail));
}

/** The offsets where one of the needles starts, found by comparing at each. */
function offsetsOf(bytes: Uint8Array, needles: Uint8Array[]): number[] {
  const found: number[] = [];
  for (let at = 0; at < bytes.length; at++) {
    if (needles.some((n) => n.every((b, i) => bytes[at + i] === b))) found.push(at);
  }
  return found;
}

/** The offsets eachCaselessOffset visits (undefined: it did not look). */
function visited(bytes: Uint8Array, parts: CaselessPart[]): number[] | undefined {
  const found: number[] = [];
  const walked = eachCaselessOffset(bytes, parts, (at) => {
    found.push(at);
    return false;
  });
  return walked === undefined ? undefined : found;
}

describe("caselessPartsOf()", () => {
  it("makes one part of the spellings of three bytes", () => {
    const needles = spellings("n_l").map(bytesOf);
    assert.equal(needles.length, 4);
    const part = 0x6e | 0x5f << 8 | 0x6c << 16;
    assert.deepEqual(caselessPartsOf(needles), [{ part, masks: 0x20 | 0x20 << 16 }]);
  });

  it("makes a part per literal of alternatives, from each needle's first three bytes", () => {
    const needles = [...spellings("pyr"), ...spellings("lice")].map(bytesOf);
    const parts = caselessPartsOf(needles)!;
    assert.equal(parts.length, 2);
    assert.deepEqual(parts.map(({ masks }) => masks), [0x202020, 0x202020]);
  });

  it("keeps bytes beyond ASCII and other signs as they are", () => {
    // (é: 0xc3 0xa9; @ is no letter, though @ | 0x20 is `.)
    const needles = [bytesOf("é@a"), bytesOf("é@A")];
    assert.deepEqual(caselessPartsOf(needles), [{ part: 0xc3 | 0xa9 << 8 | 0x40 << 16, masks: 0 }]);
  });

  it("makes none where a pass each would save nothing, or a needle is too short", () => {
    assert.equal(caselessPartsOf([bytesOf("TODO"), bytesOf("FIXME")]), undefined);
    assert.equal(caselessPartsOf(spellings("ab").map(bytesOf)), undefined);
    assert.equal(caselessPartsOf([]), undefined);
  });
});

describe("eachCaselessOffset()", () => {
  it("scans in WebAssembly in this runtime", () => {
    assert.equal(scansInWasm(), true);
  });

  it("visits in order every offset where a spelling of a part starts", () => {
    const literals = ["n_l", "é@a", "nt("];
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.constantFrom(
              "n",
              "N",
              "_",
              "l",
              "L",
              "\x7f",
              "\x0e",
              "@",
              "`",
              "A",
              "a",
              "t",
              "T",
              "(",
            ),
            fc.constantFrom(...literals.flatMap(spellings)),
            fc.string(),
          ),
          { minLength: 150, maxLength: 1500 },
        ),
        fc.subarray(literals, { minLength: 1 }),
        fc.nat({ max: 100_000 }),
        (pieces, chosen, shift) => {
          const bytes = bytesOf(pieces.join(""));
          const needles = chosen.flatMap(spellings).map(bytesOf);
          const parts = caselessPartsOf(needles)!;
          const want = bytes.length < CASELESS_FROM_BYTES ? undefined : offsetsOf(bytes, needles);
          assert.deepEqual(visited(bytes, parts), want);
          // The same bytes read into the thread's read region: gone through where they are.
          const inRegion = readRegion()!.subarray(shift, shift + bytes.length);
          inRegion.set(bytes);
          assert.deepEqual(visited(inRegion, parts), want, "in the read region");
        },
      ),
      { numRuns: 400 },
    );
  });

  it("finds a part cut by the end of a chunk, and at the end of the bytes, once", () => {
    const parts = caselessPartsOf(spellings("n_l").map(bytesOf))!;
    // Where the copies of two chunks meet (each starts 2 bytes before the last one's end).
    const seam = CHUNK_BYTES - 2;
    for (const length of [CHUNK_BYTES - 1, CHUNK_BYTES, CHUNK_BYTES + 2, 2 * CHUNK_BYTES + 5]) {
      for (const at of [0, seam - 2, seam - 1, seam, 2 * seam - 1, length - 3]) {
        if (at + 3 > length) continue;
        const bytes = new Uint8Array(length).fill(0x6e); // (n, n, n, …)
        bytes.set(bytesOf("N_l"), at);
        assert.deepEqual(visited(bytes, parts), [at], `${at} of ${length}`);
      }
    }
  });

  it("stops where the visit says, and looks at nothing too short to be worth it", () => {
    const bytes = bytesOf("x N_l".repeat(200));
    const seen: number[] = [];
    const parts = caselessPartsOf(spellings("n_l").map(bytesOf))!;
    assert.equal(eachCaselessOffset(bytes, parts, (at) => seen.push(at) === 3), true);
    assert.deepEqual(seen, [2, 7, 12]);
    const short = bytes.subarray(0, CASELESS_FROM_BYTES - 1);
    assert.equal(eachCaselessOffset(short, parts, () => true), undefined);
  });
});

describe("caselessOccurrence() and caselessOccurrences()", () => {
  it("find the first occurrence that occurrences() counts, and every one, in order", () => {
    const pieces = [
      "needle",
      "NEEDLE",
      "nEeDlE",
      "need",
      "dle",
      "ne\u212Adle",
      "ſ",
      "x",
      "\n",
      "é",
      "nEE",
      "DLe",
    ];
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...pieces), { minLength: 140, maxLength: 400 }),
        fc.constantFrom("needle", "need|dle x", "needles", "kneed"),
        (chosen, pattern) => {
          const { anyOf, folded, caseless } = prefilterOf(undefined, ...literalsOf(pattern));
          assert.ok(anyOf && caseless, pattern);
          const buffer = Buffer.from(bytesOf(chosen.join("")));
          const walk = occurrences(buffer, anyOf, folded);
          const every = [];
          for (let found = walk(0); found.at !== -1; found = walk(found.at + 1)) every.push(found);
          const scanned = buffer.length >= CASELESS_FROM_BYTES;
          assert.deepEqual(
            caselessOccurrences(buffer, anyOf, folded, caseless),
            scanned ? every : undefined,
          );
          const first = scanned ? every[0]?.at ?? -1 : undefined;
          assert.equal(caselessOccurrence(buffer, anyOf, folded, caseless), first);
        },
      ),
      { numRuns: 300 },
    );
  });
});

/** A case-insensitive literal's alternatives and folded literals, as the matcher has them. */
function literalsOf(
  pattern: string,
): [readonly string[] | undefined, readonly string[] | undefined] {
  const matcher = regexMatcher(pattern, { ignoreCase: true });
  return [matcher.alternativeLiterals, matcher.foldedLiterals];
}
