import assert from "node:assert/strict";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { describe, it } from "node:test";
import { ContentCache } from "../src/store/_content_cache.ts";
import { DirectoryStore } from "../src/store/directory_store.ts";
import { literalMatcher } from "../src/core/mod.ts";

const version = (size: number, mtimeNs = 1n) => ({ dev: 1n, ino: 2n, size: BigInt(size), mtimeNs });

describe("ContentCache", () => {
  it("returns content only for the same version of a file", () => {
    const cache = new ContentCache(100);
    cache.set("a", version(3), new Uint8Array(3));
    assert.equal(cache.get("a", version(3))?.length, 3);
    assert.equal(cache.get("a", version(3, 2n)), undefined);
    assert.equal(cache.get("a", version(3)), undefined, "a stale entry is dropped");
    assert.equal(cache.size, 0);
  });

  it("never holds more than its budget", () => {
    const cache = new ContentCache(10);
    cache.set("a", version(6), new Uint8Array(6));
    cache.set("b", version(6), new Uint8Array(6));
    assert.equal(cache.get("b", version(6)), undefined);
    assert.equal(cache.size, 6);
    assert.throws(() => new ContentCache(-1), TypeError);
  });
});

describe("DirectoryStore.search() with the cache", () => {
  it("sees a change on disk in the next search", async () => {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), "linewise-cache-"));
    try {
      await fs.writeFile(path.join(root, "a.txt"), "one\nneedle\n");
      const store = await DirectoryStore.create({ roots: [root] });
      const search = async () =>
        (await store.search({ matcher: literalMatcher("needle") })).files.map((f) =>
          f.rows.map((r) => `${f.path}:${r.line}`)
        ).flat();
      assert.deepEqual(await search(), ["a.txt:2"]);
      assert.deepEqual(await search(), ["a.txt:2"]);
      await fs.writeFile(path.join(root, "a.txt"), "needle\nzero\n");
      assert.deepEqual(await search(), ["a.txt:1"]);
      await fs.writeFile(path.join(root, "a.txt"), "none\n");
      assert.deepEqual(await search(), []);
    } finally {
      await fs.rm(root, { recursive: true });
    }
  });
});
