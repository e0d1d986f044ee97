import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { rarestFirst } from "../../../src/search/index/_search_index.ts";
import { BINARY, type Filter } from "../../../src/search/index/_file_filters.ts";
import {
  mayContain,
  needleTrigrams,
  trigramFilter,
} from "../../../src/search/index/_trigram_filter.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("the trigrams a new pattern judges files with", () => {
  test("come rarest first, as the files' filters hold them", () => {
    // "common" is in every file, "zq" in one: its trigrams hold the fewest.
    const filters: Filter[] = Array.from(
      { length: 400 },
      (_, i) => trigramFilter(bytes(i === 0 ? "common zqx" : `common file ${i}`)),
    );
    const literal = needleTrigrams(bytes("common zqx"));
    const ordered = rarestFirst(literal, filters);
    // ("n z", " zq" and "zqx": the trigrams the other files lack.)
    const rare = [...needleTrigrams(bytes("n zqx"))].sort();
    assert.deepEqual([...ordered.subarray(0, 3)].sort(), rare);
    assert.equal(literal[0], needleTrigrams(bytes("com"))[0]); // (the literal's own is kept)
  });

  test("are the same trigrams, so a file is judged as before", () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 60 }), { minLength: 1, maxLength: 80 }),
        fc.string({ minLength: 3, maxLength: 12 }),
        (texts, needle) => {
          const filters: (Filter | undefined)[] = texts.map((text, i) =>
            i % 7 === 3 ? BINARY : i % 11 === 5 ? undefined : trigramFilter(bytes(text))
          );
          const trigrams = needleTrigrams(bytes(needle));
          const ordered = rarestFirst(trigrams, filters);
          assert.deepEqual([...ordered].sort(), [...trigrams].sort());
          for (const filter of filters) {
            if (filter === undefined || filter === BINARY) continue;
            assert.equal(mayContain(filter, ordered), mayContain(filter, trigrams));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  test("a literal of one trigram, or none, is left as it is", () => {
    const one = needleTrigrams(bytes("abc"));
    assert.equal(rarestFirst(one, [trigramFilter(bytes("abc"))]), one);
    const none = needleTrigrams(bytes("ab"));
    assert.equal(rarestFirst(none, []), none);
  });
});
