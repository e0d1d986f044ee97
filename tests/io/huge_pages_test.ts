import assert from "node:assert/strict";
import * as fs from "node:fs";
import { describe, it } from "node:test";
import { adviseHugePages, loadLibc } from "../../src/io/libc.ts";

const found = loadLibc();
const skip = "libc" in found ? false : `no FFI here (${"reason" in found ? found.reason : ""})`;

/** The `VmFlags` of the mapping that holds an address (from /proc/self/smaps). */
function flagsAt(address: number): string[] {
  let inside = false;
  for (const line of fs.readFileSync("/proc/self/smaps", "utf8").split("\n")) {
    const range = /^([0-9a-f]+)-([0-9a-f]+) /.exec(line);
    if (range) inside = parseInt(range[1], 16) <= address && address < parseInt(range[2], 16);
    else if (inside && line.startsWith("VmFlags:")) return line.slice(8).trim().split(" ");
  }
  return [];
}

describe("adviseHugePages()", { skip }, () => {
  it("advises the huge pages wholly inside a large buffer", () => {
    const bytes = new Uint8Array(8 * 1024 * 1024);
    assert.equal(adviseHugePages(bytes), true);
    if (!("libc" in found)) return;
    const middle = found.libc.addressOf(bytes) + 4 * 1024 * 1024;
    assert.ok(flagsAt(middle).includes("hg"), "the mapping is marked MADV_HUGEPAGE");
    bytes.fill(1); // (still an ordinary buffer)
    assert.equal(bytes[bytes.length - 1], 1);
  });

  it("leaves a buffer alone that holds no whole huge page", () => {
    assert.equal(adviseHugePages(new Uint8Array(1024 * 1024)), false);
    assert.equal(adviseHugePages(new Uint8Array(0)), false);
  });
});
