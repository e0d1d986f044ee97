import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import { BINARY, FileFilters, underAny } from "../../../src/search/index/_file_filters.ts";
import { filesOf } from "../../_helpers/files.ts";
import { mayContain, needleTrigrams } from "../../../src/search/index/_trigram_filter.ts";

const trigrams = (text: string) => needleTrigrams(new TextEncoder().encode(text));

/** Waits until the filters know `count` files (they are built on a worker thread). */
function known(filters: FileFilters, count: number): Promise<void> {
  return new Promise((resolve) => {
    const check = () => filters.stats.files >= count ? resolve() : setTimeout(check, 5);
    check();
  });
}

describe("FileFilters", () => {
  let dir: string;
  const at = (name: string) => path.join(dir, name);
  before(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "linewise-filters-")));
    fs.mkdirSync(at("sub"));
    fs.writeFileSync(at("a.ts"), "const alpha = 1;\n");
    fs.writeFileSync(at("sub/b.ts"), "const beta = 2;\n");
    fs.writeFileSync(at("bin"), new Uint8Array([0, 1, 2, 3]));
    fs.writeFileSync(at("big.txt"), "x".repeat(5000));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("learns files only once started, and calls back when the queue is worked off", async () => {
    let idleCalls = 0;
    const filters = new FileFilters(filesOf(dir), 1 << 20, () => idleCalls++);
    try {
      filters.learn([at("a.ts"), at("sub/b.ts"), at("bin"), at("missing")]);
      assert.equal(filters.stats.queued, 4);
      assert.equal(filters.stats.files, 0, "nothing read before start()");
      const done = new Promise<void>((resolve) => {
        const check = () => idleCalls > 0 ? resolve() : setTimeout(check, 5);
        filters.start();
        check();
      });
      await done;
      assert.equal(filters.stats.files, 3);
      assert.equal(filters.get(at("bin")), BINARY);
      const a = filters.get(at("a.ts")) as Uint8Array;
      assert.equal(mayContain(a, trigrams("alpha")), true);
      assert.equal(mayContain(a, trigrams("omega")), false);
      assert.equal(filters.get(at("missing")), undefined);
    } finally {
      filters.close();
    }
  });

  it("learns nothing while paused, and goes on when the last pause ends", async () => {
    let idleCalls = 0;
    const filters = new FileFilters(filesOf(dir), 1 << 20, () => idleCalls++);
    try {
      filters.pause();
      filters.pause();
      filters.learn([at("a.ts"), at("sub/b.ts")]);
      filters.start();
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(filters.stats.files, 0, "nothing learnt during a pause");
      filters.resume();
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(filters.stats.files, 0, "one pause still holds");
      filters.resume();
      await known(filters, 2);
      assert.equal(idleCalls, 1);
    } finally {
      filters.close();
    }
  });

  it("keeps within its byte budget: files beyond it get no filter", async () => {
    const filters = new FileFilters(filesOf(dir), 10, () => {});
    try {
      filters.start();
      filters.learn([at("a.ts"), at("big.txt")]);
      await known(filters, 1);
      assert.ok(filters.stats.bytes <= 10, JSON.stringify(filters.stats));
      assert.equal(filters.get(at("big.txt")), undefined);
    } finally {
      filters.close();
    }
  });

  it("forgets changed files and everything below a changed directory", async () => {
    const filters = new FileFilters(filesOf(dir), 1 << 20, () => {});
    try {
      filters.start();
      filters.learn([at("a.ts"), at("sub/b.ts")]);
      await known(filters, 2);
      const version = filters.version;
      const unknown = filters.forget(new Set([at("sub")]));
      assert.deepEqual([...unknown], [at("sub")], "a path without a filter may be a directory");
      assert.equal(filters.get(at("sub/b.ts")), undefined);
      assert.notEqual(filters.get(at("a.ts")), undefined);
      assert.ok(filters.version > version);
      filters.forget(new Set([at("a.ts")]));
      assert.equal(filters.get(at("a.ts")), undefined);
      assert.equal(filters.stats.bytes, 0);
    } finally {
      filters.close();
    }
  });
});

describe("underAny()", () => {
  it("holds for keys below a directory in the set, by whole segments", () => {
    const dirs = new Set([path.join(path.sep, "a"), path.join(path.sep, "x", "y")]);
    assert.equal(underAny(path.join(path.sep, "a", "b"), dirs), true);
    assert.equal(underAny(path.join(path.sep, "x", "y", "z", "w"), dirs), true);
    assert.equal(underAny(path.join(path.sep, "ab", "c"), dirs), false);
    assert.equal(underAny(path.join(path.sep, "a"), dirs), false);
  });
});
