import assert from "node:assert/strict";
import { test } from "node:test";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadLibc } from "../../src/io/libc.ts";
import { CoreOffers, OFFER_EVERY_MS, pipesAmong } from "../../src/io/thread_priority.ts";

const found = loadLibc();
const skip = !("libc" in found); // (Linux with FFI)

/** A named pipe opened at both ends (Linux lets a FIFO be opened for reading and writing). */
function pipe(dir: string, name: string): number {
  const path = join(dir, name);
  assert.equal(spawnSync("mkfifo", [path]).status, 0);
  return fs.openSync(path, fs.constants.O_RDWR | fs.constants.O_NONBLOCK);
}

/** The real `ioctl`, with the yields counted instead of made. */
function counted() {
  const libc = (found as { libc: import("../../src/io/libc.ts").Libc }).libc;
  const c = {
    yields: 0,
    ioctl: libc.ioctl,
    sched_yield: () => (c.yields++, 0),
  };
  return c;
}

test("a search thread offers its core while a pipe holds bytes unread, once per interval at most", {
  skip,
}, () => {
  const dir = fs.mkdtempSync(join(tmpdir(), "linewise-offers-"));
  const input = pipe(dir, "in");
  const output = pipe(dir, "out");
  try {
    const c = counted();
    const offers = new CoreOffers(c, [input, output]);
    assert.equal(offers.offer(0), false, "both pipes empty");
    fs.writeSync(output, "an answer not read yet\n");
    assert.equal(offers.offer(1), true, "the second pipe holds bytes");
    assert.equal(offers.offer(1 + OFFER_EVERY_MS / 2), false, "looked a moment ago");
    assert.equal(offers.offer(1 + OFFER_EVERY_MS), true);
    assert.equal(c.yields, 2);
    fs.readSync(output, Buffer.alloc(100));
    assert.equal(offers.offer(3), false, "read out");
    fs.writeSync(input, "a request\n");
    assert.equal(offers.offer(4), true, "the first pipe holds bytes");
    assert.equal(c.yields, 3);
  } finally {
    fs.closeSync(input);
    fs.closeSync(output);
    fs.rmSync(dir, { recursive: true });
  }
});

test("a descriptor ioctl fails on is no reason to offer the core", { skip }, () => {
  const dir = fs.mkdtempSync(join(tmpdir(), "linewise-offers-"));
  const closed = pipe(dir, "gone");
  fs.closeSync(closed);
  try {
    const c = counted();
    assert.equal(new CoreOffers(c, [closed]).offer(0), false);
    assert.equal(c.yields, 0);
  } finally {
    fs.rmSync(dir, { recursive: true });
  }
});

test("only pipes and sockets are looked at: a file's unread bytes are the rest of it", {
  skip,
}, () => {
  const dir = fs.mkdtempSync(join(tmpdir(), "linewise-offers-"));
  const fifo = pipe(dir, "fifo");
  fs.writeFileSync(join(dir, "file"), "bytes a FIONREAD would count\n");
  const file = fs.openSync(join(dir, "file"), "r");
  const closed = fs.openSync(join(dir, "file"), "r");
  fs.closeSync(closed);
  try {
    assert.deepEqual(pipesAmong([fifo, file, closed]), [fifo]);
  } finally {
    fs.closeSync(fifo);
    fs.closeSync(file);
    fs.rmSync(dir, { recursive: true });
  }
});

test("sched_yield is bound and succeeds", { skip }, () => {
  assert.equal((found as { libc: { sched_yield(): number } }).libc.sched_yield(), 0);
});
