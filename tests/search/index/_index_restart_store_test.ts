// A store whose search index was given up starts it again (Bun only: see _tree_watcher.ts).
// The watcher is broken as a cleaner of the temporary folder would break it: its private
// directory goes, so its barrier cannot be written. Every answer, before, between and after,
// must be a store's without an index, also for changes made after the index started again.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, test } from "node:test";
import { literalMatcher, regexMatcher } from "../../../src/core/mod.ts";
import { DirectoryStore } from "../../../src/disk/directory_store.ts";
import { noticesTo, WATCH_ORDER_KEPT } from "../../../src/io/runtime.ts";
import { REPEAT_WINDOW_MS } from "../../../src/search/index/_tree_watcher.ts";
import { indexed, tempTree } from "../../_helpers/index_trees.ts";

const RESTART_MS = 200;

describe("a store whose search index was given up", () => {
  test("starts it again after the wait, and it hears what changes from then on", {
    skip: WATCH_ORDER_KEPT ? false : "the search index runs only on Bun",
    timeout: 60_000,
  }, async () => {
    const root = tempTree(60);
    const watchDir = fs.mkdtempSync(path.join(path.dirname(root), "linewise-watch-test-"));
    const said: string[] = [];
    const routedBack = noticesTo((line) => said.push(line));
    const store = await DirectoryStore.create({
      roots: [root],
      searchIndex: true,
      watchDir,
      searchIndexRestartMs: RESTART_MS,
    });
    const plain = await DirectoryStore.create({ roots: [root] });
    const queries = [
      () => ({ matcher: literalMatcher("createElement(") }),
      () => ({ matcher: regexMatcher("walrus|x\\d+") }),
    ];
    const agree = async (label: string) => {
      for (const [i, query] of queries.entries()) {
        assert.deepEqual(await store.search(query()), await plain.search(query()), `${label} ${i}`);
      }
    };
    /** Waits past Bun's repeat window, so that the next change is heard as new. */
    const settle = () => new Promise((resolve) => setTimeout(resolve, REPEAT_WINDOW_MS + 10));
    try {
      await agree("learning");
      await indexed(store);
      await agree("indexed");
      // The watcher's directory goes: its next barrier fails, and the index with it.
      fs.rmSync(watchDir, { recursive: true });
      fs.writeFileSync(path.join(root, "d0", "new.ts"), "walrus\n");
      await agree("given up");
      assert.match(said.join("\n"), /the file watcher stopped \(its check file could not be/);
      assert.equal(store.searchIndexStats(), undefined, "searches go without it");
      await agree("before the wait");
      await new Promise((resolve) => setTimeout(resolve, RESTART_MS + 50));
      await agree("started again");
      assert.match(said.at(-1)!, /^linewise: the search index starts again \(given up /);
      assert.ok(fs.existsSync(watchDir), "its directory is made again");
      await indexed(store);
      await agree("indexed again");
      // What changes now is heard by the new watcher, or the answers would be the old ones.
      await settle();
      fs.writeFileSync(path.join(root, "d1", "f1.ts"), "createElement(walrus)\n");
      fs.rmSync(path.join(root, "d0", "f0.ts"));
      fs.writeFileSync(path.join(root, "d2", "newer.ts"), "x42 walrus\n");
      await agree("after changes");
      await settle();
      fs.appendFileSync(path.join(root, "d0", "new.ts"), "createElement(zebra)\n");
      await agree("after an append");
      assert.equal(said.filter((line) => line.includes("stopped")).length, 1, said.join("\n"));
    } finally {
      routedBack();
      store.close();
      fs.rmSync(root, { recursive: true, force: true });
      fs.rmSync(watchDir, { recursive: true, force: true });
    }
  });

  test("refuses a wait that is not a non-negative number", async () => {
    const root = tempTree(2);
    try {
      for (const wait of [-1, Number.NaN]) {
        await assert.rejects(
          DirectoryStore.create({ roots: [root], searchIndex: true, searchIndexRestartMs: wait }),
          {
            name: "TypeError",
            message: `searchIndexRestartMs must be a non-negative number, got ${wait}`,
          },
        );
      }
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
