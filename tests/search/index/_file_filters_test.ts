import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import {
  BINARY,
  FileFilters,
  underAny,
  underAnyOf,
} from "../../../src/search/index/_file_filters.ts";
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

  it("stops learning when full, and learns again what comes once there is room", async () => {
    const many = Array.from({ length: 300 }, (_, i) => at(`many/f${i}.ts`));
    fs.mkdirSync(at("many"));
    for (const key of many) fs.writeFileSync(key, "const gamma = 3;\n");
    let idle = 0;
    const filters = new FileFilters(filesOf(dir), 8, () => idle++); // (one smallest filter)
    try {
      filters.learn(many);
      filters.start();
      while (idle === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      assert.deepEqual(filters.stats, { files: 1, blocked: 0, bytes: 8, queued: 0, indexing: 0 });
      filters.forget(new Set([many[0]]));
      filters.learn(many.slice(1, 3));
      await known(filters, 1);
      assert.notEqual(filters.get(many[1]), undefined, "learned once there was room");
    } finally {
      filters.close();
      fs.rmSync(at("many"), { recursive: true });
    }
  });

  it("learns a large file just changed again once it is old enough for block filters", async () => {
    const fresh = at("fresh.js");
    fs.writeFileSync(fresh, Array.from({ length: 40_000 }, (_, i) => `w${i};\n`).join(""));
    const filters = new FileFilters(filesOf(dir), 1 << 30, () => {});
    try {
      filters.start();
      filters.learn([fresh]);
      await known(filters, 1);
      assert.equal(filters.stats.blocked, 0, "changed less than 2 s before it was read");
      for (let i = 0; i < 400 && filters.stats.blocked === 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      assert.equal(filters.stats.blocked, 1, "learned again, with block filters");
    } finally {
      filters.close();
      fs.rmSync(fresh);
    }
  });

  it("drops block filters to make room for the filter of another file", async () => {
    const large = at("large.js");
    fs.writeFileSync(large, Array.from({ length: 40_000 }, (_, i) => `v${i};\n`).join(""));
    // (A file changed less than 2 s before it is read gets no block filters.)
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const roomy = new FileFilters(filesOf(dir), 1 << 30, () => {});
    let room: number;
    try {
      roomy.start();
      roomy.learn([large]);
      await known(roomy, 1);
      assert.equal(roomy.stats.blocked, 1);
      room = roomy.stats.bytes;
    } finally {
      roomy.close();
    }
    const filters = new FileFilters(filesOf(dir), room + 8, () => {});
    try {
      filters.start();
      filters.learn([large]);
      await known(filters, 1);
      assert.equal(filters.stats.blocked, 1);
      // A filter that would not fit even without them leaves them be.
      let seed = 7;
      const noise = Array.from(
        { length: 60_000 },
        () => (seed = (seed * 48271) % 2147483647) % 256,
      );
      fs.writeFileSync(at("noise.txt"), new Uint8Array(noise.map((byte) => byte || 1)));
      filters.learn([at("noise.txt")]);
      while (filters.stats.queued + filters.stats.indexing > 0) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      assert.equal(filters.get(at("noise.txt")), undefined);
      assert.equal(filters.stats.blocked, 1, "nothing dropped for a filter that cannot fit");
      filters.learn([at("a.ts"), at("sub/b.ts")]); // 8 bytes each
      await known(filters, 3);
      assert.equal(filters.stats.blocked, 0, "the block filters made room");
      assert.ok(filters.stats.bytes <= room + 8, JSON.stringify(filters.stats));
      assert.notEqual(filters.get(large), undefined, "the file's own filter stays");
    } finally {
      filters.close();
      fs.rmSync(large);
      fs.rmSync(at("noise.txt"), { force: true });
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
      // (A regular file without a filter, a new one say, is not looked under; one that is
      // gone may have been a directory.)
      fs.writeFileSync(at("new.ts"), "new\n");
      const before = filters.version;
      const gone = at("gone");
      assert.deepEqual([...filters.forget(new Set([at("new.ts"), gone]))], [gone]);
      assert.equal(filters.version, before, "nothing known changed");
    } finally {
      filters.close();
    }
  });
});

describe("FileFilters.otherNames()", () => {
  it("names the files read under another name of a changed file with several names", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "linewise-links-"));
    const at = (name: string) => path.join(dir, name);
    for (const name of ["a.ts", "b.ts"]) fs.writeFileSync(at(name), `${name}\n`);
    // (Old enough to be read with their identities: what just changed is not.)
    for (const name of ["a.ts", "b.ts"]) fs.utimesSync(at(name), 1e9, 1e9);
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const filters = new FileFilters(filesOf(dir), 1 << 20, () => {});
    try {
      filters.start();
      filters.learn([at("a.ts"), at("b.ts")]);
      await known(filters, 2);
      assert.deepEqual([...filters.otherNames(new Set([at("a.ts")]))], [], "one name");
      fs.linkSync(at("a.ts"), at("link.ts"));
      assert.deepEqual([...filters.otherNames(new Set([at("link.ts"), at("gone")]))], [at("a.ts")]);
    } finally {
      filters.close();
      fs.rmSync(dir, { recursive: true, force: true });
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

describe("underAnyOf()", () => {
  it("answers as underAny, for few directories and for many", () => {
    const key = (...parts: string[]) => path.join(path.sep, ...parts);
    const keys = [key("a", "b"), key("x", "y", "z", "w"), key("ab", "c"), key("a"), key("q", "r")];
    for (let count = 0; count <= 20; count++) {
      const dirs = new Set([key("a"), key("x", "y")]);
      for (let i = 0; dirs.size < count; i++) dirs.add(key(`d${i}`));
      while (dirs.size > count) dirs.delete([...dirs].pop()!);
      const under = underAnyOf(dirs);
      for (const one of keys) assert.equal(under(one), underAny(one, dirs), `${count}: ${one}`);
    }
  });
});
