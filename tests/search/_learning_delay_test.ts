// When the index starts to learn what a search read: not before a large answer has left.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  LEARN_AFTER_MS,
  LEARN_AFTER_MS_AT_MOST,
  LEARN_AT_ONCE_BELOW,
  learningDelay,
} from "../../src/search/_directory_search.ts";

test("a search of few files teaches at once, whatever its rows", () => {
  assert.equal(learningDelay(LEARN_AT_ONCE_BELOW - 1, 0), 0);
  assert.equal(learningDelay(10, 1_000_000), 0);
});

test("a search of many files teaches later the more rows it answers, up to a limit", () => {
  const files = LEARN_AT_ONCE_BELOW;
  assert.equal(learningDelay(files, 0), LEARN_AFTER_MS);
  const delays = [500, 18_000, 84_000].map((rows) => learningDelay(files, rows));
  assert.ok(
    delays[0] > LEARN_AFTER_MS && delays[0] < delays[1] && delays[1] < delays[2],
    `${delays}`,
  );
  // (84,000 rows took 650-730 ms to answer with learning beside it.)
  assert.ok(delays[2] >= 600, `${delays[2]}`);
  assert.equal(learningDelay(files, 10_000_000), LEARN_AFTER_MS_AT_MOST);
});
