import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import process from "node:process";
import { crc32 as zlibCrc32 } from "node:zlib";
import { describe, test } from "node:test";
import fc from "fast-check";
import { crc32, hexDigest, randomHex } from "../../src/io/hashes.ts";
import { builtin } from "../../src/io/runtime.ts";

// (Lone surrogates too: a string is hashed as its UTF-8 bytes, each lone one as U+FFFD.)
const text = fc.string({ unit: fc.constantFrom("a", "é", "\u{1F600}", "\ud800", "\udfff", "\n") });

describe("hashes", () => {
  test("digests are node:crypto's, of bytes and of strings", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), text, (bytes, string) => {
        for (const algorithm of ["sha1", "sha256"] as const) {
          assert.equal(
            hexDigest(algorithm, bytes),
            createHash(algorithm).update(bytes).digest("hex"),
          );
          assert.equal(
            hexDigest(algorithm, string),
            createHash(algorithm).update(string, "utf8").digest("hex"),
          );
        }
      }),
    );
  });

  test("the CRC-32 is zlib's", () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
      assert.equal(crc32(bytes), zlibCrc32(bytes));
    }));
  });

  test("random names differ", () => {
    const names = new Set(Array.from({ length: 100 }, () => randomHex(6)));
    assert.equal(names.size, 100);
  });

  test("a built-in module loads without process.getBuiltinModule (Node before 20.16)", () => {
    const own = Object.getOwnPropertyDescriptor(process, "getBuiltinModule");
    const asked: string[] = [];
    Object.defineProperty(process, "getBuiltinModule", {
      value: undefined,
      configurable: true,
      writable: true,
    });
    try {
      const zlib = builtin<typeof import("node:zlib")>("node:zlib");
      assert.equal(zlib.crc32(new TextEncoder().encode("123456789")), 0xcbf43926);
    } finally {
      if (own) Object.defineProperty(process, "getBuiltinModule", own);
      else delete (process as { getBuiltinModule?: unknown }).getBuiltinModule;
    }
    // (And with it, it is the one asked.)
    const real = process.getBuiltinModule;
    Object.defineProperty(process, "getBuiltinModule", {
      value: (name: string) => (asked.push(name), real.call(process, name)),
      configurable: true,
      writable: true,
    });
    try {
      builtin("node:zlib");
      assert.deepEqual(asked, ["node:zlib"]);
    } finally {
      if (own) Object.defineProperty(process, "getBuiltinModule", own);
    }
  });
});
