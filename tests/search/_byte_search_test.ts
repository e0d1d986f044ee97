import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  bytesOf,
  FIRST_WINDOW_BYTES,
  firstIndexOf,
  firstIndexOfInWasm,
  listedOccurrences,
  occurrences,
  occurrencesThroughRun,
  presentNeedles,
} from "../../src/search/_byte_search.ts";
import { sharedRun } from "../../src/search/_search_file.ts";
import { CASELESS_FROM_BYTES } from "../../src/search/_caseless_scan.ts";
import { rarePart } from "../../src/search/_rare_pair.ts";
import { CHUNK_BYTES } from "../../src/io/_wasm_chunks.ts";

describe("firstIndexOf()", () => {
  const encode = (text: string) => new TextEncoder().encode(text);
  /** Texts of 300 pieces or more, each piece part of a needle or not. */
  const texts = (maxLength: number) =>
    fc.array(fc.constantFrom("ab", "abc", "abd", "b", "c", "x", "\0", "é", "\n"), {
      minLength: 300,
      maxLength,
    });
  const NEEDLES = fc.constantFrom("a", "ab", "abc", "abcab", "bca", "xab", "é", "cé");

  it("finds in WebAssembly what Buffer.indexOf finds, for needles of any length", () => {
    fc.assert(
      fc.property(
        texts(900),
        NEEDLES,
        (pieces, needleText) => {
          const buffer = bytesOf(encode(pieces.join("")));
          const needle = encode(needleText);
          assert.equal(firstIndexOfInWasm(buffer, needle), buffer.indexOf(needle));
          assert.equal(firstIndexOf(buffer, needle), buffer.indexOf(needle));
        },
      ),
      { numRuns: 500 },
    );
  });

  it("finds from any offset what Buffer.indexOf finds, through windows of any first size", () => {
    fc.assert(
      fc.property(
        texts(3000),
        NEEDLES,
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.constantFrom(3, 100, 512, 700, FIRST_WINDOW_BYTES),
        (pieces, needleText, where, window) => {
          const buffer = bytesOf(encode(pieces.join("")));
          const needle = encode(needleText);
          const from = Math.floor(where * buffer.length);
          const expected = buffer.indexOf(needle, from);
          assert.equal(firstIndexOfInWasm(buffer, needle, from, window), expected, `from ${from}`);
          assert.equal(firstIndexOf(buffer, needle, from), expected);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("finds through a needle's rare part what Buffer.indexOf finds, from every offset", () => {
    // ($ and ^ are rare in code, e and a common: each needle is looked for through the part
    // between its two, and the texts hold those parts without the needle around them.)
    const needles = ["e$ea^e", "ee$eeea^", "$ea^ee"];
    for (const needle of needles) assert.ok(rarePart(encode(needle)), needle);
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom("$ea^", "e$ea^", "$ea^e", "ee$eeea^", "e", "a", "$", "^", "\n"), {
          minLength: 1,
          maxLength: 60,
        }),
        fc.constantFrom(...needles),
        (pieces, needleText) => {
          const buffer = bytesOf(encode(pieces.join("")));
          const needle = encode(needleText);
          for (let from = 0; from <= buffer.length; from++) {
            assert.equal(
              firstIndexOf(buffer, needle, from),
              buffer.indexOf(needle, from),
              `${from}`,
            );
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it("finds a needle whose rare part is at the very end of the bytes", () => {
    const needle = encode("ee$eeea^");
    const part = rarePart(needle)!;
    const bytes = bytesOf(encode("xx$eeea^ ee$eeea^"));
    assert.equal(firstIndexOf(bytes, needle), bytes.length - needle.length);
    // (The part alone at the start, with too few bytes before it for the needle.)
    assert.equal(firstIndexOf(bytesOf(part.part), needle), -1);
  });

  it("finds a needle across the seam of two windows, from an offset", () => {
    const needle = encode("needle");
    const from = 10;
    // (Windows of 600, 1200 and 2400 bytes from offset 10: seams at 610, 1810 and 4210.)
    for (const seam of [610, 1810, 4210]) {
      for (let at = seam - needle.length; at <= seam; at++) {
        const bytes = new Uint8Array(6000).fill(0x6e); // (n, n, n, …)
        bytes.set(needle, at);
        assert.equal(firstIndexOfInWasm(bytesOf(bytes), needle, from, 600), at, `at ${at}`);
      }
    }
  });

  it("finds a needle across the seam of two chunks, and at the very end", () => {
    const needle = encode("needle");
    for (const at of [CHUNK_BYTES - 4, CHUNK_BYTES - 2, CHUNK_BYTES, 2 * CHUNK_BYTES - 6]) {
      const bytes = new Uint8Array(2 * CHUNK_BYTES).fill(0x6e); // (n, n, n, …)
      bytes.set(needle, at);
      assert.equal(firstIndexOfInWasm(bytesOf(bytes), needle), at, `at ${at}`);
    }
    const none = bytesOf(new Uint8Array(CASELESS_FROM_BYTES).fill(0x6e));
    assert.equal(firstIndexOfInWasm(none, needle), -1);
  });
});

describe("occurrencesThroughRun()", () => {
  const encode = (text: string) => new TextEncoder().encode(text);
  const SETS = [
    ["kmalloc(", "kzalloc("],
    // (The run twice in one needle; and further into one needle than into another.)
    ["abcXabc", "abcY"],
    ["zzabc", "abcq", "abc"],
    // (Runs that overlap: `xaaa` starts before `aaa` found at the same run of `xaaaa`.)
    ["aaa", "xaaa"],
  ].map((set) => set.map(encode));

  it("walks the occurrences occurrences() walks, from every offset", () => {
    let dense = 0; // (runs that stand too often to be walked)
    fc.assert(
      fc.property(
        fc.array(
          fc.constantFrom(
            "kmalloc(",
            "kzalloc(",
            "alloc(",
            "abcXabc",
            "abcY",
            "abc",
            "zz",
            "q",
            "a",
            "xaa",
            "\n",
          ),
          { maxLength: 40 },
        ),
        fc.constantFrom(...SETS),
        (pieces, needles) => {
          const buffer = bytesOf(encode(pieces.join("")));
          const run = sharedRun(needles)!;
          const found = occurrencesThroughRun(buffer, needles, run);
          if (found === undefined) return void dense++;
          const listed = listedOccurrences(found);
          const walked = occurrences(buffer, needles);
          for (let from = 0; from <= buffer.length; from++) {
            assert.deepEqual(listed(from), walked(from), `from ${from}`);
          }
        },
      ),
      { numRuns: 500 },
    );
    assert.ok(dense < 50, `${dense} of 500 texts too dense to walk`);
  });

  it("gives a needle that holds the run further in first, where it starts first", () => {
    const [aaa, xaaa] = SETS[3];
    const found = occurrencesThroughRun(bytesOf(encode("xaaaa")), [aaa, xaaa], encode("aaa"));
    assert.deepEqual(found, [{ at: 0, length: 4 }, { at: 1, length: 3 }, { at: 2, length: 3 }]);
  });

  it("leaves bytes where the run stands more often than the needles are worth looking for", () => {
    const [kmalloc, kzalloc] = SETS[0];
    const run = encode("alloc(");
    // (16 places in any bytes; then one per 512 bytes for two needles.)
    const sparse = "alloc(".repeat(16) + "x".repeat(2048) + "kzalloc(";
    assert.deepEqual(occurrencesThroughRun(bytesOf(encode(sparse)), [kmalloc, kzalloc], run), [
      { at: 96 + 2048, length: 8 },
    ]);
    const dense = "alloc(".repeat(17) + "x".repeat(2048) + "kzalloc(";
    assert.equal(occurrencesThroughRun(bytesOf(encode(dense)), [kmalloc, kzalloc], run), undefined);
  });

  it("finds nothing in bytes that hold the run but no needle", () => {
    const buffer = bytesOf(encode("vmalloc( and alloc( alone"));
    assert.deepEqual(occurrencesThroughRun(buffer, SETS[0], encode("alloc(")), []);
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
