import assert from "node:assert/strict";
import * as fs from "node:fs";
import { describe, it } from "node:test";
import { adviseHugePages, loadLibc } from "../../src/io/libc.ts";

const found = loadLibc();
const skip = "libc" in found ? false : `no FFI here (${"reason" in found ? found.reason : ""})`;

/** What /proc/self/smaps says, or undefined where the runtime may not read it (Deno's tests). */
function smaps(): string | undefined {
  try {
    return fs.readFileSync("/proc/self/smaps", "utf8");
  } catch {
    return undefined;
  }
}

/** The `VmFlags` of the mapping that holds an address (from /proc/self/smaps). */
function flagsAt(text: string, address: number): string[] {
  let inside = false;
  for (const line of text.split("\n")) {
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
    // (Deno's test run may not read /proc/self; Bun's, where the index runs, does.)
    const text = smaps();
    if (text !== undefined) {
      assert.ok(flagsAt(text, middle).includes("hg"), "the mapping is marked MADV_HUGEPAGE");
    }
    bytes.fill(1); // (still an ordinary buffer)
    assert.equal(bytes[bytes.length - 1], 1);
  });

  it("leaves a buffer alone that holds no whole huge page", () => {
    assert.equal(adviseHugePages(new Uint8Array(1024 * 1024)), false);
    assert.equal(adviseHugePages(new Uint8Array(0)), false);
  });
});
