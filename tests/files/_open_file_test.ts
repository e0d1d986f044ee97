import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import { BLOCKING_READ_BYTES, openForRead, readAll, readHead } from "../../src/files/_open_file.ts";
import { FileTooLargeError, NotAFileError } from "../../src/store/errors.ts";
import { filesOf } from "../_helpers/files.ts";

describe("openForRead()", () => {
  let dir: string;
  const node = (name: string) => ({ key: path.join(dir, name), display: name });
  before(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "linewise-open-")));
    fs.writeFileSync(path.join(dir, "small.txt"), "one\ntwo\n");
    fs.writeFileSync(path.join(dir, "large.txt"), "y".repeat(BLOCKING_READ_BYTES + 10));
    fs.mkdirSync(path.join(dir, "sub"));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("reads a small file (blocking calls) and a large one (non-blocking) the same way", async () => {
    for (const [name, size] of [["small.txt", 8], ["large.txt", BLOCKING_READ_BYTES + 10]]) {
      const { handle, stat } = await openForRead(filesOf(dir), node(name as string));
      try {
        assert.equal(Number(stat.size), size);
        const head = await readHead(handle, 4);
        assert.equal(new TextDecoder().decode(head), name === "small.txt" ? "one\n" : "yyyy");
        const past = await handle.read(new Uint8Array(4), 0, 4, Number(stat.size));
        assert.equal(past.bytesRead, 0);
      } finally {
        await handle.close();
      }
    }
  });

  it("readHead() gives fewer bytes for a shorter file", async () => {
    const { handle } = await openForRead(filesOf(dir), node("small.txt"));
    try {
      assert.equal((await readHead(handle, 100)).length, 8);
    } finally {
      await handle.close();
    }
  });

  it("refuses a directory, naming it", async () => {
    await assert.rejects(openForRead(filesOf(dir), node("sub")), (error) => {
      assert.ok(error instanceof NotAFileError);
      assert.match(String(error.message), /sub.*a directory/);
      return true;
    });
  });

  it("refuses a missing file with the store's error", async () => {
    await assert.rejects(openForRead(filesOf(dir), node("missing.txt")), { code: "not_found" });
  });

  it("refuses a FIFO before opening it, so nothing blocks", async (t) => {
    const fifo = path.join(dir, "pipe");
    if (spawnSync("mkfifo", [fifo]).status !== 0) {
      t.skip?.("mkfifo is not available here");
      return;
    }
    await assert.rejects(openForRead(filesOf(dir), node("pipe")), /FIFO/);
  });
});

describe("readAll", () => {
  /** A file of `bytes` that was `size` bytes long when it was opened. */
  function grown(bytes: Uint8Array) {
    const reads: number[] = []; // the length each read asked for
    const handle = {
      read(buffer: Uint8Array, offset: number, length: number, position: number) {
        reads.push(length);
        const part = bytes.subarray(position, position + length);
        buffer.set(part, offset);
        return Promise.resolve({ bytesRead: part.length });
      },
      close: () => Promise.resolve(),
    };
    return { handle, reads };
  }
  const bytes = (n: number) => Uint8Array.from({ length: n }, (_, i) => i % 251);

  it("reads a file that grew while it was read, to its new end", async () => {
    for (const extra of [0, 1, 4095, 4096, 4097, 3 * 1024 * 1024]) {
      const file = bytes(10_000 + extra);
      const { handle, reads } = grown(file);
      const read = await readAll(handle, 10_000, undefined, "a.txt");
      assert.deepEqual(read, file, `${extra} bytes more`);
      assert.equal(reads[0], 10_000, "the size first");
      assert.ok(reads[1] <= 4096, `then a small read to see whether it grew (${reads[1]})`);
    }
  });

  it("refuses a file that grew past the cap while it was read", async () => {
    for (const extra of [100, 8192, 2 * 1024 * 1024]) {
      const { handle } = grown(bytes(10_000 + extra));
      await assert.rejects(readAll(handle, 10_000, 10_050, "a.txt"), FileTooLargeError, `${extra}`);
    }
    const { handle } = grown(bytes(10_050));
    assert.equal((await readAll(handle, 10_000, 10_050, "a.txt")).length, 10_050, "up to the cap");
  });
});
