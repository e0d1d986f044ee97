import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { literalMatcher } from "../../src/core/mod.ts";
import { MemoryStore } from "../../src/store/memory_store.ts";
import { testFileStore } from "../../src/testing/mod.ts";

testFileStore("MemoryStore", (files, { deny }) => {
  const store = new MemoryStore(files, { deny });
  return { store, changeFile: (path, content) => store.set(path, content) };
});

describe("MemoryStore", () => {
  it("treats /a.txt, ./a.txt and a.txt as one file", async () => {
    const store = new MemoryStore({ "a.txt": "x" });
    for (const path of ["/a.txt", "./a.txt", "a.txt", "b/../a.txt"]) {
      assert.equal((await store.readText(path)).path, "a.txt");
    }
  });

  it("refuses initial files where a file would be a directory", () => {
    assert.throws(() => new MemoryStore({ "a": "x", "a/b": "y" }), TypeError);
  });
});

describe("MemoryStore.search() query checks", () => {
  it("refuses a rowCut that is not a positive integer, as the other numbers", async () => {
    const store = new MemoryStore({ "a.txt": "x\n" });
    for (const rowCut of [0, -1, 1.5]) {
      await assert.rejects(
        store.search({ matcher: literalMatcher("x"), rowCut }),
        /rowCut must be a positive integer/,
      );
    }
    assert.equal((await store.search({ matcher: literalMatcher("x"), rowCut: 5 })).matchedLines, 1);
  });

  it("refuses a maxChars that is not a positive integer", async () => {
    const store = new MemoryStore({ "a.txt": "x\n" });
    for (const maxChars of [0, -1, 1.5, NaN]) {
      await assert.rejects(
        store.search({ matcher: literalMatcher("x"), maxChars }),
        /maxChars must be a positive integer/,
      );
    }
  });
});
