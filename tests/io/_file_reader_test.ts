import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { describe, it } from "node:test";
import { FileReader } from "../../src/io/_file_reader.ts";
import { inThreadMemory, READ_REGION_BYTES, readRegion } from "../../src/io/_wasm_chunks.ts";
import type { FileStat } from "../../src/io/file_stat.ts";
import { filesOf } from "../_helpers/files.ts";

async function withDir(work: (dir: string) => void | Promise<void>): Promise<void> {
  const dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "linewise-reader-")));
  try {
    await work(dir);
  } finally {
    await fs.rm(dir, { recursive: true });
  }
}

describe("FileReader", () => {
  it("reads files whole, growing its buffer to the largest file", () =>
    withDir(async (dir) => {
      const reader = new FileReader(filesOf(dir), 1024, 4);
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

  it("reads into the thread's read region, which the thread's readers share", () =>
    withDir(async (dir) => {
      await fs.writeFile(path.join(dir, "a"), "one\n");
      await fs.writeFile(path.join(dir, "b"), "x".repeat(300_000));
      const first = new FileReader(filesOf(dir), READ_REGION_BYTES, 4);
      const a = first.read(path.join(dir, "a"));
      assert.ok(a.kind === "bytes" && inThreadMemory(a.bytes));
      assert.equal(a.kind === "bytes" && a.bytes.byteOffset, readRegion()!.byteOffset);
      // (Grown within the region; another reader reads over the same bytes.)
      const b = first.read(path.join(dir, "b"));
      assert.ok(b.kind === "bytes" && inThreadMemory(b.bytes) && b.bytes.length === 300_000);
      const other = new FileReader(filesOf(dir), READ_REGION_BYTES).readUnstated(
        path.join(dir, "a"),
      );
      assert.ok(other !== undefined && inThreadMemory(other));
      assert.equal(
        b.kind === "bytes" && new TextDecoder().decode(b.bytes.subarray(0, 5)),
        "one\nx",
      );
    }));

  it("reads a file larger than the region into fresh memory, and the next in the region", () =>
    withDir(async (dir) => {
      await fs.writeFile(path.join(dir, "a"), "one\n");
      await fs.writeFile(path.join(dir, "big"), "y".repeat(READ_REGION_BYTES + 10));
      const reader = new FileReader(filesOf(dir), 4 * READ_REGION_BYTES);
      const big = reader.read(path.join(dir, "big"));
      assert.ok(big.kind === "bytes" && !inThreadMemory(big.bytes));
      assert.ok(big.kind === "bytes" && big.bytes.length === READ_REGION_BYTES + 10);
      assert.ok(big.kind === "bytes" && big.bytes.every((byte) => byte === 0x79));
      const a = reader.readUnstated(path.join(dir, "a"));
      assert.ok(a !== undefined && inThreadMemory(a) && a.length === 4);
      const again = reader.read(path.join(dir, "big"));
      assert.ok(again.kind === "bytes" && again.bytes.buffer === big.bytes.buffer, "kept");
    }));

  it("reports a file larger than its limit without reading it", () =>
    withDir(async (dir) => {
      await fs.writeFile(path.join(dir, "big"), "y".repeat(50));
      const outcome = new FileReader(filesOf(dir), 10).read(path.join(dir, "big"));
      assert.equal(outcome.kind, "large");
      assert.equal(outcome.stat.size, 50);
    }));

  it("reports a file larger than its buffer as large when the buffer may not grow", () =>
    withDir(async (dir) => {
      const reader = new FileReader(filesOf(dir), 1024, 16);
      await fs.writeFile(path.join(dir, "f"), "z".repeat(40));
      await fs.writeFile(path.join(dir, "small"), "z".repeat(16));
      const outcome = reader.read(path.join(dir, "f"), false);
      assert.equal(outcome.kind, "large");
      assert.equal(outcome.stat.size, 40);
      const small = reader.read(path.join(dir, "small"), false);
      assert.equal(small.kind === "bytes" && small.bytes.length, 16);
      // The buffer kept its size: the larger file still fills it.
      assert.equal(reader.readUnstated(path.join(dir, "f")), undefined);
      assert.equal(reader.read(path.join(dir, "f")).kind, "bytes");
    }));

  it("reports a directory as not a file", () =>
    withDir((dir) => {
      assert.equal(new FileReader(filesOf(dir), 10).read(dir).kind, "not_file");
    }));

  it("refuses a FIFO without blocking", { timeout: 30_000 }, (t) =>
    withDir((dir) => {
      const pipe = path.join(dir, "pipe");
      if (spawnSync("mkfifo", [pipe]).status !== 0) {
        t.skip?.("mkfifo is not available here");
        return;
      }
      assert.equal(new FileReader(filesOf(dir), 10).read(pipe).kind, "not_file");
    }));

  it("throws the runtime's error for a missing file", () =>
    withDir((dir) => {
      assert.throws(() => new FileReader(filesOf(dir), 10).read(path.join(dir, "nope")), {
        code: "ENOENT",
      });
    }));

  describe("readUnstated()", () => {
    const text = (bytes: Uint8Array | unknown) =>
      bytes instanceof Uint8Array ? new TextDecoder().decode(bytes) : bytes;

    it("reads a file that fits the buffer whole, with no stat", () =>
      withDir(async (dir) => {
        const reader = new FileReader(filesOf(dir), 1024, 16);
        await fs.writeFile(path.join(dir, "a"), "one\ntwo\n");
        await fs.writeFile(path.join(dir, "empty"), "");
        assert.equal(text(reader.readUnstated(path.join(dir, "a"))), "one\ntwo\n");
        assert.equal(text(reader.readUnstated(path.join(dir, "empty"))), "");
      }));

    it("gives up on a file that fills the buffer", () =>
      withDir(async (dir) => {
        const reader = new FileReader(filesOf(dir), 1024, 16);
        await fs.writeFile(path.join(dir, "exact"), "e".repeat(16));
        await fs.writeFile(path.join(dir, "b"), "x".repeat(100));
        assert.equal(reader.readUnstated(path.join(dir, "exact")), undefined);
        assert.equal(reader.readUnstated(path.join(dir, "b")), undefined);
        // Once read() grew the buffer to that file, a smaller one than it fits.
        assert.equal(reader.read(path.join(dir, "b")).kind, "bytes");
        await fs.writeFile(path.join(dir, "c"), "z".repeat(90));
        assert.equal(text(reader.readUnstated(path.join(dir, "c"))), "z".repeat(90));
      }));

    it("throws for a directory, a missing file and a FIFO, without blocking", (t) =>
      withDir((dir) => {
        const reader = new FileReader(filesOf(dir), 1024);
        assert.throws(() => reader.readUnstated(dir), { code: "EISDIR" });
        assert.throws(() => reader.readUnstated(path.join(dir, "nope")), { code: "ENOENT" });
        const pipe = path.join(dir, "pipe");
        if (spawnSync("mkfifo", [pipe]).status !== 0) {
          t.skip?.("mkfifo is not available here");
          return;
        }
        // (Reads are positional: a pipe refuses them, and nothing is taken from it.)
        assert.throws(() => reader.readUnstated(pipe), { code: "ESPIPE" });
      }));

    it("reads a device that ends at once as empty, and gives up on one that fills it", () => {
      const reader = new FileReader(filesOf("/"), 1024, 16);
      assert.equal(text(reader.readUnstated("/dev/null")), "");
      assert.equal(reader.readUnstated("/dev/zero"), undefined);
    });
  });

  describe("readInChunks()", () => {
    it("hands over a file in chunks of the buffer's size, without growing it", () =>
      withDir(async (dir) => {
        const reader = new FileReader(filesOf(dir), 1024, 16);
        const content = Array.from({ length: 50 }, (_, i) => String.fromCharCode(97 + i % 26));
        await fs.writeFile(path.join(dir, "f"), content.join(""));
        const chunks: string[] = [];
        const read = reader.readInChunks(path.join(dir, "f"), (chunk) => {
          chunks.push(new TextDecoder().decode(chunk));
          return true;
        });
        assert.equal(read, "read");
        assert.deepEqual(chunks.map((c) => c.length), [16, 16, 16, 2]);
        assert.equal(chunks.join(""), content.join(""));
        // The buffer kept its size: the same file still fills it.
        assert.equal(reader.readUnstated(path.join(dir, "f")), undefined);
      }));

    it("reads a first chunk of the size asked for, then of the buffer's", () =>
      withDir(async (dir) => {
        const reader = new FileReader(filesOf(dir), 1024, 16);
        await fs.writeFile(path.join(dir, "f"), "z".repeat(50));
        const sizes: number[] = [];
        const read = reader.readInChunks(
          path.join(dir, "f"),
          (chunk) => {
            sizes.push(chunk.length);
            return true;
          },
          false,
          4,
        );
        assert.equal(read, "read");
        assert.deepEqual(sizes, [4, 16, 16, 14]);
      }));

    it("stops when the visitor says so, and reads an empty file as no chunk", () =>
      withDir(async (dir) => {
        const reader = new FileReader(filesOf(dir), 1024, 16);
        await fs.writeFile(path.join(dir, "f"), "x".repeat(100));
        await fs.writeFile(path.join(dir, "empty"), "");
        let visits = 0;
        assert.equal(reader.readInChunks(path.join(dir, "f"), () => ++visits < 2), "read");
        assert.equal(visits, 2);
        assert.equal(reader.readInChunks(path.join(dir, "empty"), () => ++visits > 0), "read");
        assert.equal(visits, 2);
      }));

    it("reads nothing of a file over its limit or of what is not a regular file", () =>
      withDir(async (dir) => {
        const reader = new FileReader(filesOf(dir), 64, 16);
        await fs.writeFile(path.join(dir, "big"), "y".repeat(65));
        const never = () => assert.fail("no chunk expected");
        assert.equal(reader.readInChunks(path.join(dir, "big"), never), "large");
        assert.equal(reader.readInChunks(dir, never), "not_file");
        assert.equal(new FileReader(filesOf("/"), 64).readInChunks("/dev/zero", never), "not_file");
        assert.throws(() => reader.readInChunks(path.join(dir, "nope"), never), { code: "ENOENT" });
      }));
  });

  describe("readRanges()", () => {
    /** The ranges read, as text, or undefined when the read gave up. */
    const rangesOf = (
      reader: FileReader,
      file: string,
      ranges: number[],
      accept: (stat: FileStat) => boolean = () => true,
    ) => {
      const got: string[] = [];
      const visit = (range: Uint8Array, index: number) => {
        got.push(`${index}:${new TextDecoder().decode(range)}`);
        return true;
      };
      return reader.readRanges(file, ranges, accept, visit) ? got : undefined;
    };

    it("hands over the ranges one after another, the buffer no larger than the longest", () =>
      withDir(async (dir) => {
        const reader = new FileReader(filesOf(dir), 8, 4);
        await fs.writeFile(path.join(dir, "f"), "0123456789abcdef");
        const f = path.join(dir, "f");
        assert.deepEqual(rangesOf(reader, f, [1, 3, 8, 16]), ["0:12", "1:89abcdef"]);
        // 14 bytes in all, more than the reader's 8: each range fits on its own.
        assert.deepEqual(rangesOf(reader, f, [0, 6, 8, 16]), ["0:012345", "1:89abcdef"]);
      }));

    it("reads nothing it may not, and gives up on a file shorter than its ranges", () =>
      withDir(async (dir) => {
        const reader = new FileReader(filesOf(dir), 8, 4);
        await fs.writeFile(path.join(dir, "f"), "0123456789");
        const f = path.join(dir, "f");
        assert.equal(rangesOf(reader, f, [0, 4], (stat) => stat.size === 11), undefined);
        assert.equal(rangesOf(reader, f, [6, 12]), undefined, "past the end");
        assert.equal(rangesOf(reader, f, [0, 9]), undefined, "over its limit");
        // Asked again after the reads: a file written meanwhile is given up.
        let asked = 0;
        assert.equal(rangesOf(reader, f, [0, 4], () => ++asked === 1), undefined);
        assert.equal(asked, 2);
        assert.throws(() => rangesOf(reader, path.join(dir, "nope"), [0, 1]), {
          code: "ENOENT",
        });
      }));

    it("stops where the visitor says so", () =>
      withDir(async (dir) => {
        const reader = new FileReader(filesOf(dir), 8, 4);
        await fs.writeFile(path.join(dir, "f"), "0123456789");
        const seen: number[] = [];
        const stop = (_: Uint8Array, index: number) => (seen.push(index), false);
        assert.equal(reader.readRanges(path.join(dir, "f"), [0, 2, 4, 6], () => true, stop), false);
        assert.deepEqual(seen, [0]);
      }));
  });
});
