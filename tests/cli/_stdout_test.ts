import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { Buffer } from "node:buffer";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, test } from "node:test";
import { blockingOutput, type WriteError } from "../../src/cli/_stdout.ts";

const posix = process.platform === "win32" ? "needs mkfifo" : false;

/** A temporary directory, and a FIFO in it read by a child that waits `waitMs` first. */
async function slowFifo(waitMs: number, readBytes?: number) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "linewise-stdout-"));
  const fifo = path.join(dir, "fifo");
  const out = path.join(dir, "out");
  const made = spawn("mkfifo", [fifo]);
  await new Promise((resolve) => made.on("exit", resolve));
  const take = readBytes === undefined ? "cat" : `head -c ${readBytes}`;
  const reader = spawn("sh", [
    "-c",
    `exec 3<"${fifo}"; sleep ${waitMs / 1000}; ${take} <&3 >"${out}"`,
  ]);
  const ended = new Promise((resolve) => reader.on("exit", resolve));
  // (Opened without blocking once the reader has it open: until then, ENXIO.)
  let fd = -1;
  for (let tries = 0; fd === -1; tries++) {
    try {
      fd = fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK);
    } catch (error) {
      if ((error as WriteError).code !== "ENXIO" || tries > 500) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
  return { dir, fd, out, ended };
}

describe("blockingOutput()", () => {
  test("waits on a descriptor that is non-blocking until the reader takes everything", {
    skip: posix,
  }, async () => {
    // (A parent may hand over a non-blocking pipe: a full one says EAGAIN, and is waited on.)
    const { dir, fd, out, ended } = await slowFifo(300);
    try {
      const text = Array.from({ length: 20_000 }, (_, i) => `line ${i}\n`).join("");
      const write = blockingOutput(fd, (error) => assert.fail(error));
      write(text); // (ten times what the pipe holds)
      fs.closeSync(fd);
      await ended;
      assert.equal(fs.readFileSync(out, "utf8"), text);
    } finally {
      fs.rmSync(dir, { recursive: true });
    }
  });

  test("tells of a reader gone once, and writes nothing after", { skip: posix }, async () => {
    // (The reader takes 10 bytes and goes: the write of more than the pipe holds fails.)
    const { dir, fd, ended } = await slowFifo(0, 10);
    try {
      const failures: WriteError[] = [];
      const write = blockingOutput(fd, (error) => failures.push(error));
      write("x".repeat(1_000_000));
      write("more");
      assert.deepEqual(failures.map((error) => error.code), ["EPIPE"]);
      fs.closeSync(fd);
      await ended;
    } finally {
      fs.rmSync(dir, { recursive: true });
    }
  });

  test("writes a long text's UTF-8 whole, surrogate pairs across its pieces included", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "linewise-stdout-"));
    try {
      // (Written a piece at a time: a pair lands on each side of many of the pieces' ends.)
      const texts = [
        "😀".repeat(100_000),
        `a${"😀".repeat(100_000)}`,
        `é\uD800x${"\uDC00".repeat(3)}${"😀中".repeat(30_000)}\uD83D`,
        "",
        "x",
      ];
      for (const [i, text] of texts.entries()) {
        const file = path.join(dir, `out${i}`);
        const fd = fs.openSync(file, "w");
        blockingOutput(fd, (error) => assert.fail(error))(text);
        fs.closeSync(fd);
        assert.ok(
          Buffer.compare(fs.readFileSync(file), Buffer.from(text, "utf8")) === 0,
          `text ${i}: its bytes differ from Buffer.from's`,
        );
      }
    } finally {
      fs.rmSync(dir, { recursive: true });
    }
  });
});
