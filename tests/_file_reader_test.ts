import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { describe, it } from "node:test";
import { FileReader } from "../src/store/_file_reader.ts";

async function withDir(work: (dir: string) => void | Promise<void>): Promise<void> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "linewise-reader-"));
  try {
    await work(dir);
  } finally {
    await fs.rm(dir, { recursive: true });
  }
}

describe("FileReader", () => {
  it("reads files whole, growing its buffer to the largest file", () =>
    withDir(async (dir) => {
      const reader = new FileReader(1024, 4);
      await fs.writeFile(path.join(dir, "a"), "one\ntwo\n");
      await fs.writeFile(path.join(dir, "b"), "x".repeat(100));
      await fs.writeFile(path.join(dir, "empty"), "");
      const a = reader.read(path.join(dir, "a"));
      assert.equal(a.kind, "bytes");
      assert.equal(a.kind === "bytes" && new TextDecoder().decode(a.bytes), "one\ntwo\n");
      const b = reader.read(path.join(dir, "b"));
      assert.equal(b.kind === "bytes" && b.bytes.length, 100);
      assert.equal(b.stat.size, 100);
      const empty = reader.read(path.join(dir, "empty"));
      assert.equal(empty.kind === "bytes" && empty.bytes.length, 0);
    }));

  it("reports a file larger than its limit without reading it", () =>
    withDir(async (dir) => {
      await fs.writeFile(path.join(dir, "big"), "y".repeat(50));
      const outcome = new FileReader(10).read(path.join(dir, "big"));
      assert.equal(outcome.kind, "large");
      assert.equal(outcome.stat.size, 50);
    }));

  it("reports a directory as not a file", () =>
    withDir((dir) => {
      assert.equal(new FileReader(10).read(dir).kind, "not_file");
    }));

  it("refuses a FIFO without blocking", { timeout: 30_000 }, (t) =>
    withDir((dir) => {
      const pipe = path.join(dir, "pipe");
      if (spawnSync("mkfifo", [pipe]).status !== 0) {
        t.skip?.("mkfifo is not available here");
        return;
      }
      assert.equal(new FileReader(10).read(pipe).kind, "not_file");
    }));

  it("throws the runtime's error for a missing file", () =>
    withDir((dir) => {
      assert.throws(() => new FileReader(10).read(path.join(dir, "nope")), { code: "ENOENT" });
    }));
});
