import assert from "node:assert/strict";
import * as nodePath from "node:path";
import process from "node:process";
import { describe, test } from "node:test";
import fc from "fast-check";
import { nativePath } from "../../src/io/native_path.ts";

const segment = fc.constantFrom("a", "b", "..", ".", "", "x y", "é", "\udcff");
const path = fc.tuple(fc.boolean(), fc.array(segment, { maxLength: 5 }), fc.boolean())
  .map(([absolute, parts, trailing]) =>
    (absolute ? "/" : "") + parts.join("/") + (trailing ? "/" : "")
  );
const isBun = "Bun" in globalThis;

describe("nativePath", { skip: process.platform === "win32" ? "POSIX only" : false }, () => {
  // node:path is the reference where it keeps lone surrogates (Deno, Node); under Bun it
  // does not, so there the comparison uses only well-formed paths.
  const comparable = (p: string) => !isBun || p.isWellFormed();

  test("join, resolve, relative, dirname and basename agree with node:path", () => {
    fc.assert(
      fc.property(path, path, (a, b) => {
        fc.pre(comparable(a) && comparable(b));
        assert.equal(nativePath.join(a, b), nodePath.posix.join(a, b), `join(${a}, ${b})`);
        assert.equal(nativePath.resolve(a, b), nodePath.posix.resolve(a, b), `resolve`);
        assert.equal(nativePath.relative(a, b), nodePath.posix.relative(a, b), `relative`);
        assert.equal(nativePath.dirname(a), nodePath.posix.dirname(a), `dirname(${a})`);
        assert.equal(nativePath.basename(a), nodePath.posix.basename(a), `basename(${a})`);
        assert.equal(nativePath.isAbsolute(a), nodePath.posix.isAbsolute(a));
      }),
      { numRuns: 3000 },
    );
  });

  test("keeps a lone surrogate (a byte of a name that is not UTF-8) as it is", () => {
    assert.equal(nativePath.resolve("/r", "bad\udcff.txt"), "/r/bad\udcff.txt");
    assert.equal(nativePath.join("/r/bad\udcff", "x"), "/r/bad\udcff/x");
    assert.equal(nativePath.basename("/r/bad\udcff.txt"), "bad\udcff.txt");
    assert.equal(nativePath.relative("/r", "/r/d\udcff/x"), "d\udcff/x");
  });
});
