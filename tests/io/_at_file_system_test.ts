// The parsing of getdents64's records, fed records made here: the names the kernel gives
// always end with a NUL, so a record without one is never met on a real directory; and a
// handle listed more than once, on a real directory.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { direntEntries, Scratch } from "../../src/io/_at_file_system.ts";
import type { RawDirEntry } from "../../src/io/_file_system_types.ts";
import { openFileSystem } from "../../src/io/file_system.ts";
import { dropPages } from "../_helpers/page_cache.ts";

/** Writes linux_dirent64 records (u64 ino, s64 off, u16 reclen, u8 type, name) from 0. */
function records(s: Scratch, names: { name: Uint8Array; type: number; nul: boolean }[]): number {
  let at = 0;
  for (const { name, type, nul } of names) {
    const length = 19 + name.length + (nul ? 1 : 0);
    s.direntsView.setBigUint64(at, 1n, true);
    s.direntsView.setBigInt64(at + 8, BigInt(at + length), true);
    s.direntsView.setUint16(at + 16, length, true);
    s.dirents[at + 18] = type;
    s.dirents.set(name, at + 19);
    if (nul) s.dirents[at + 19 + name.length] = 0;
    at += length;
  }
  return at;
}

test("direntEntries() ends each name at its NUL or its record, and leaves out . and ..", () => {
  const s = new Scratch();
  const bytes = (text: string) => new TextEncoder().encode(text);
  const n = records(s, [
    { name: bytes("."), type: 4, nul: true },
    { name: bytes(".."), type: 4, nul: true },
    { name: bytes("abc"), type: 8, nul: true },
    // (Filling its record to the end: the next record's header must not become its name.)
    { name: bytes("hello"), type: 4, nul: false },
    { name: bytes("naïve"), type: 10, nul: true },
  ]);
  const entries: RawDirEntry[] = [];
  direntEntries(s, n, entries);
  assert.deepEqual(entries, [
    { name: "abc", kind: "file" },
    { name: "hello", kind: "directory" },
    { name: "naïve", kind: "symlink" },
  ]);
});

test("a directory handle listed again lists every entry again, new ones too", (t) => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "linewise-list-")));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  for (let i = 0; i < 300; i++) fs.writeFileSync(path.join(root, `file-${i}.txt`), "");
  const files = openFileSystem([root]);
  if (!files.raceFree) return t.skip("no system calls beyond node:fs here");
  const dir = files.openDir(root);
  try {
    const names = () => dir.list().map((entry) => entry.name).sort();
    const first = names();
    assert.equal(first.length, 300);
    assert.deepEqual(names(), first);
    fs.writeFileSync(path.join(root, "later.txt"), "");
    assert.deepEqual(names(), [...first, "later.txt"].sort());
  } finally {
    dir.close();
  }
});

test("readCached() reads what memory holds, at once, and fails as a read fails", (t) => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "linewise-cached-")));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  const file = path.join(root, "f.txt");
  fs.writeFileSync(file, "one\ntwo\nthree\n"); // (just written: in the page cache)
  const files = openFileSystem([root]);
  if (!files.raceFree) return t.skip("no system calls beyond node:fs here");
  assert.ok(files.readCached !== undefined);
  const fd = files.openRead(file);
  const buffer = new Uint8Array(64);
  try {
    const got = files.readCached(fd, buffer, 2, 8, 4);
    if (got === -1) return t.skip("this file system cannot read without waiting (-1)");
    assert.equal(got, 8);
    assert.equal(new TextDecoder().decode(buffer.subarray(2, 10)), "two\nthre");
    assert.equal(files.readCached(fd, buffer, 0, 64, 100), 0, "past the end: nothing");
    assert.equal(files.readCached(fd, buffer, 60, 64, 0), 4, "no further than the buffer");
    // Out of the page cache (clean pages dropped), it reads nothing and says so.
    if (dropPages(file)) assert.equal(files.readCached(fd, buffer, 0, 8, 0), -1);
  } finally {
    files.close(fd);
  }
  // (A descriptor open for writing alone: a closed one's number may be taken at once by a
  // test running beside this one in the process, a FIFO's said ESPIPE.)
  const writeOnly = fs.openSync(file, "a");
  try {
    assert.throws(
      () => files.readCached!(writeOnly, buffer, 0, 8, 0),
      /EBADF|bad file descriptor/i,
    );
  } finally {
    fs.closeSync(writeOnly);
  }
});
