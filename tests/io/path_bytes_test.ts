import assert from "node:assert/strict";
import { test } from "node:test";
import { cString, decodeName } from "../../src/io/path_bytes.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

test("cString() writes a path and its NUL into the scratch buffer when both fit", () => {
  const scratch = new Uint8Array(8);
  assert.equal(cString("a/bc", scratch), scratch);
  assert.deepEqual([...scratch.subarray(0, 5)], [...bytes("a/bc"), 0]);
  // Seven bytes and the NUL fill it exactly.
  assert.equal(cString("abcdefg", scratch), scratch);
  assert.equal(scratch[7], 0);
});

test("cString() gives a new buffer when the NUL would not fit, or the path is cut", () => {
  for (const path of ["abcdefgh", "abcdefghijk", "ab/é/é/é"]) {
    const scratch = new Uint8Array(8).fill(0x78);
    const out = cString(path, scratch);
    assert.notEqual(out, scratch, path);
    assert.deepEqual([...out], [...bytes(path), 0], path);
  }
});

test("cString() and decodeName() keep bytes that are not UTF-8 (U+DC80-U+DCFF)", () => {
  const name = decodeName(new Uint8Array([0x61, 0xff, 0x62]));
  assert.equal(name, "a\udcffb");
  assert.deepEqual([...cString(name, new Uint8Array(16)).subarray(0, 4)], [0x61, 0xff, 0x62, 0]);
  assert.equal(decodeName(bytes("plain.ts")), "plain.ts");
  assert.equal(decodeName(bytes("é.ts")), "é.ts");
});
