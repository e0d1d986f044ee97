// A collection set up for when a thread is idle (Bun only: elsewhere there is none to force).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { cancelIdleCollection, collectGarbageWhenIdle, RUNTIME } from "../../src/io/runtime.ts";

const BUN_ONLY = { skip: RUNTIME === "bun" ? false : "only Bun's collection is forced" };

describe("collectGarbageWhenIdle()", () => {
  it("collects once the thread was idle, unless work came first", BUN_ONLY, async () => {
    const bun = (globalThis as unknown as { Bun: { gc: (force: boolean) => void } }).Bun;
    const gc = bun.gc;
    let collections = 0;
    bun.gc = () => void collections++;
    try {
      collectGarbageWhenIdle(5);
      await new Promise((resolve) => setTimeout(resolve, 30));
      assert.equal(collections, 1, "idle: collected");
      collectGarbageWhenIdle(5);
      cancelIdleCollection(); // (a search came in)
      await new Promise((resolve) => setTimeout(resolve, 30));
      assert.equal(collections, 1, "called off");
    } finally {
      bun.gc = gc;
    }
  });
});
