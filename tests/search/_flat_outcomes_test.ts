import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { flatOutcomes, outcomesOf } from "../../src/search/_flat_outcomes.ts";
import { textLength } from "../../src/search/_search_pool.ts";
import type { FileStat } from "../../src/io/file_stat.ts";
import type { Examined } from "../../src/search/_search_file.ts";

/**
 * Text as the examination keeps it: strings (any characters) and counts of lines passed, or
 * runs joined with the numbers of their first lines.
 */
const kept = fc.oneof(
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.array(fc.oneof(fc.string({ unit: "binary", maxLength: 20 }), fc.nat(1_000_000)), {
    maxLength: 6,
  }),
  fc.record({
    joined: fc.string({ unit: "binary", maxLength: 40 }),
    runs: fc.array(fc.tuple(fc.nat(1_000_000), fc.nat(1_000_000)), { maxLength: 6 }),
  }).map(({ joined, runs }) => ({
    joined,
    starts: runs.map(([start]) => start),
    lines: runs.map(([, line]) => line),
  })),
);

/** The outcomes a batch may hold that cross flat. */
const flattenable: fc.Arbitrary<Examined> = fc.oneof(
  fc.constant<Examined>({ kind: "binary" }),
  fc.constant<Examined>({ kind: "redo" }),
  fc.constant<Examined>({ kind: "none" }),
  fc.constant<Examined>({ kind: "none", holdsNeedle: true }),
  fc.record({ text: kept, invalid: fc.boolean(), linesBefore: fc.nat(1_000_000) }).map(
    (fields): Examined => ({ kind: "text", ...fields }),
  ),
  fc.record({ lines: fc.nat(1_000_000), invalid: fc.boolean() }).map(
    (fields): Examined => ({ kind: "counted", ...fields }),
  ),
);

describe("flatOutcomes()", () => {
  it("gives back, through outcomesOf, the outcomes as they were", () => {
    fc.assert(
      fc.property(fc.array(flattenable, { maxLength: 40 }), (outcomes) => {
        const flat = flatOutcomes(outcomes);
        assert.ok(flat !== undefined);
        // (Strings alone: what Bun posts without serializing.)
        assert.ok(Object.values(flat).every((value) => typeof value === "string"));
        assert.deepEqual(outcomesOf(structuredClone(flat)), outcomes);
        // (The worker counts the text it hands over by the flat string's length.)
        assert.equal(flat.texts.length, textLength(outcomes));
      }),
      { numRuns: 500 },
    );
  });

  it("leaves to the caller a batch holding what only an object carries", () => {
    const stat = { kind: "file", size: 2, nlink: 2 } as unknown as FileStat;
    const text = { kind: "text", text: "a\n", invalid: false, linesBefore: 0 } as const;
    const window = { piece: "a", from: 1, codePoints: 9, terminator: "\n" };
    for (
      const odd of [
        { kind: "none", linked: stat },
        { kind: "counted", lines: 2, invalid: false, linked: stat },
        { ...text, linked: stat },
        { ...text, sha1: "f".repeat(40), identity: "1:2:2:3:4" },
        { ...text, text: ["a\n", 3, window] },
      ] as Examined[]
    ) {
      assert.equal(flatOutcomes([{ kind: "binary" }, odd]), undefined, JSON.stringify(odd));
    }
  });
});
