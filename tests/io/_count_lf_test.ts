import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import fc from "fast-check";
import { countLf, countLfInJs, countsInWasm, WASM_FROM_BYTES } from "../../src/io/_count_lf.ts";
import { CHUNK_BYTES, readRegion } from "../../src/io/_wasm_chunks.ts";
import { ASSEMBLED, embeddingOf } from "../../scripts/assemble_wasm.ts";

const counters = { countLf, countLfInJs };

/** What a byte loop counts. */
function lfsIn(bytes: Uint8Array, from: number, to: number): number {
  let count = 0;
  for (let i = from; i < to; i++) if (bytes[i] === 10) count++;
  return count;
}

describe("countLf()", () => {
  it("counts in WebAssembly in this runtime", () => {
    assert.equal(countsInWasm(), true);
  });

  for (const [name, count] of Object.entries(counters)) {
    it(`${name} counts what a byte loop counts, at any alignment and range`, () => {
      fc.assert(
        fc.property(
          // (Past 1,020 bytes JavaScript sums more than one run of 255 words; past 4,032
          // WebAssembly sums more than one round of 63 steps.)
          fc.uint8Array({ maxLength: 10_000 }).map((bytes) =>
            bytes.map((b) => b % 3 === 0 ? 10 : b)
          ),
          fc.nat({ max: 15 }),
          fc.nat(),
          fc.nat(),
          (content, shift, a, b) => {
            // The same bytes at another offset of a buffer, so words start elsewhere.
            const buffer = new Uint8Array(content.length + shift);
            buffer.set(content, shift);
            const bytes = buffer.subarray(shift);
            const from = content.length === 0 ? 0 : a % (content.length + 1);
            const to = from + (content.length === 0 ? 0 : b % (content.length - from + 1));
            assert.equal(count(bytes, from, to), lfsIn(bytes, from, to));
          },
        ),
        { numRuns: 1000 },
      );
    });

    it(`${name} counts a run of nothing but \\n past every lane's limit`, () => {
      const lines = new Uint8Array(4 * 4032 + 4 * 255 * 3 + 7).fill(10);
      for (const [from, to] of [[0, lines.length], [3, lines.length - 2], [1, 4033]]) {
        assert.equal(count(lines, from, to), to - from);
      }
    });
  }

  it("counts bytes in the read region where they are, as it counts them elsewhere", () => {
    const region = readRegion()!;
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: WASM_FROM_BYTES, maxLength: 5_000, size: "max" }).map((
          bytes,
        ) => bytes.map((b) => b % 3 === 0 ? 10 : b)),
        fc.nat({ max: 100_000 }),
        fc.nat(),
        fc.nat(),
        (content, shift, a, b) => {
          const bytes = region.subarray(shift, shift + content.length);
          bytes.set(content);
          // (Ranges WebAssembly counts.)
          const from = a % (content.length - WASM_FROM_BYTES + 1);
          const to = from + WASM_FROM_BYTES + b % (content.length - from - WASM_FROM_BYTES + 1);
          assert.equal(countLf(bytes, from, to), lfsIn(content, from, to));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("leaves the read region as it was when it counts bytes from elsewhere", () => {
    const region = readRegion()!;
    region.fill(10);
    const elsewhere = new Uint8Array(2.5 * CHUNK_BYTES).fill(65);
    assert.equal(countLf(elsewhere, 0, elsewhere.length), 0);
    assert.equal(countLf(region, 0, region.length), region.length);
  });

  it("counts a range longer than its memory a chunk at a time", () => {
    const bytes = new Uint8Array(2.5 * 1024 * 1024 + 13).fill(10);
    bytes.fill(65, 1000, 2000);
    assert.equal(countLf(bytes, 0, bytes.length), bytes.length - 1000);
    assert.equal(countLf(bytes, 5, bytes.length - 5), bytes.length - 1010);
  });

  it("counts ranges either side of where WebAssembly takes over", () => {
    const bytes = new Uint8Array(3 * WASM_FROM_BYTES).map((_, i) => i % 7 === 0 ? 10 : 32);
    for (const length of [WASM_FROM_BYTES - 1, WASM_FROM_BYTES, WASM_FROM_BYTES + 1]) {
      for (const from of [0, 1, 63]) {
        assert.equal(countLf(bytes, from, from + length), lfsIn(bytes, from, from + length));
      }
    }
  });

  it("embeds what its WebAssembly text assembles to", async () => {
    for (const { text, module } of ASSEMBLED) {
      const embedded = readFileSync(new URL(`../../${module}`, import.meta.url), "utf8");
      assert.equal(embedded, await embeddingOf(text), `${module}: run scripts/assemble_wasm.ts`);
    }
  });
});
