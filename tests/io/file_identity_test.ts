// A file's identity is the same words whether it comes from statx through FFI or from a
// parsed stat (of node:fs too): the search index's cache records one and checks the other.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, test } from "node:test";
import { openFileSystem } from "../../src/io/file_system.ts";
import {
  IDENTITY_WORDS,
  identityOfStat,
  identityText,
  sameIdentity,
} from "../../src/io/file_identity.ts";
import { fromNodeStat } from "../../src/io/file_stat.ts";

let root: string;
before(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "linewise-identity-")));
  fs.writeFileSync(path.join(root, "a.txt"), "one\n");
  fs.writeFileSync(path.join(root, "big.bin"), new Uint8Array(5_000_000));
  fs.writeFileSync(path.join(root, "linked.txt"), "two\n");
  fs.linkSync(path.join(root, "linked.txt"), path.join(root, "other-name.txt"));
  fs.symlinkSync("a.txt", path.join(root, "link"));
  fs.mkdirSync(path.join(root, "dir"));
  // Times before 1970 and with nanoseconds: seconds are signed, nanoseconds are not.
  fs.writeFileSync(path.join(root, "old.txt"), "old\n");
  fs.utimesSync(path.join(root, "old.txt"), -12345.678, -98765.4321);
});
after(() => fs.rmSync(root, { recursive: true, force: true }));

/**
 * Whether node:fs gives times to the nanosecond here (Deno's gives milliseconds and whole
 * seconds: its identities are its own, and the racy rule's 2 s covers them).
 */
const NODE_TO_THE_NS = [import.meta.filename!, os.tmpdir()].some((file) =>
  fs.lstatSync(file, { bigint: true }).ctimeNs % 1_000_000n !== 0n
);

function fromNode(name: string): Uint32Array | undefined {
  const words = new Uint32Array(IDENTITY_WORDS);
  const stat = fromNodeStat(fs.lstatSync(path.join(root, name), { bigint: true }));
  return identityOfStat(stat, words, 0) !== undefined ? words : undefined;
}

for (const raceFree of [true, false]) {
  test(`identify gives what the stat gives (${raceFree ? "handle-relative" : "node:fs"})`, () => {
    const files = openFileSystem([root], { raceFree });
    const dir = files.openDir(root);
    try {
      for (const name of ["a.txt", "big.bin", "old.txt"]) {
        const words = new Uint32Array(IDENTITY_WORDS + 3);
        const parsed = new Uint32Array(IDENTITY_WORDS);
        assert.equal(dir.identify(name, words, 3), "file", name);
        assert.equal(identityOfStat(dir.lstat(name), parsed, 0), "file", name);
        assert.deepEqual(words.subarray(3), parsed, name);
        assert.ok(sameIdentity(words, 3, parsed, 0));
        if (NODE_TO_THE_NS) assert.deepEqual(parsed, fromNode(name), `${name}: as node:fs says`);
      }
      // A directory has one, itself (null) or as an entry, the same words either way.
      const self = new Uint32Array(IDENTITY_WORDS);
      const entry = new Uint32Array(IDENTITY_WORDS);
      const sub = files.openDir(path.join(root, "dir"));
      try {
        assert.equal(sub.identify(null, self, 0), "directory");
      } finally {
        sub.close();
      }
      assert.equal(dir.identify("dir", entry, 0), "directory");
      assert.deepEqual(self, entry);
      if (NODE_TO_THE_NS) assert.deepEqual(self, fromNode("dir"), "the directory, as node:fs says");
      // Of files, only a regular file with one name has one: a write through another name, or
      // through what a symlink leads to, would change it unseen.
      const untouched = new Uint32Array(IDENTITY_WORDS).fill(7);
      for (const name of ["linked.txt", "link", "missing"]) {
        assert.equal(dir.identify(name, untouched, 0), undefined, name);
      }
      assert.ok(untouched.every((word) => word === 7), "nothing written");
    } finally {
      dir.close();
    }
  });
}

test("an identity changes with the content, even with the times put back", () => {
  const dir = openFileSystem([root]).openDir(root);
  const before = new Uint32Array(IDENTITY_WORDS);
  const now = new Uint32Array(IDENTITY_WORDS);
  try {
    assert.equal(dir.identify("a.txt", before, 0), "file");
    const file = path.join(root, "a.txt");
    const stat = fs.statSync(file);
    fs.writeFileSync(file, "ONE\n");
    fs.utimesSync(file, stat.atime, stat.mtime);
    assert.equal(dir.identify("a.txt", now, 0), "file");
    assert.equal(sameIdentity(now, 0, before, 0), false, "ctime tells");
  } finally {
    dir.close();
  }
});

test("a directory's identity changes when an entry comes or goes", () => {
  const files = openFileSystem([root]);
  const before = new Uint32Array(IDENTITY_WORDS);
  const now = new Uint32Array(IDENTITY_WORDS);
  const dir = files.openDir(path.join(root, "dir"));
  // (Its mtime set well back first: a change in the same tick of the clock would not show.)
  const setBack = () => fs.utimesSync(path.join(root, "dir"), 1_000_000, 1_000_000);
  try {
    setBack();
    assert.equal(dir.identify(null, before, 0), "directory");
    fs.writeFileSync(path.join(root, "dir", "new.txt"), "");
    assert.equal(dir.identify(null, now, 0), "directory");
    assert.equal(sameIdentity(now, 0, before, 0), false, "a new entry");
    setBack();
    assert.equal(dir.identify(null, before, 0), "directory");
    fs.rmSync(path.join(root, "dir", "new.txt"));
    assert.equal(dir.identify(null, now, 0), "directory");
    assert.equal(sameIdentity(now, 0, before, 0), false, "an entry gone");
  } finally {
    dir.close();
  }
});

test("identityText vouches for a file whose status is a second older than the time asked", () => {
  const stat = openFileSystem([root]).lstat(path.join(root, "a.txt"));
  const ctimeMs = Number(stat.ctimeNs / 1_000_000n);
  assert.equal(identityText(stat, ctimeMs + 999), undefined, "changed just before");
  assert.equal(identityText(stat, ctimeMs - 5), undefined, "changed since");
  assert.match(identityText(stat, ctimeMs + 1000)!, /^\d+:\d+:4:\d+:\d+$/);
  // (A runtime that gives no ctime cannot tell a change: no identity.)
  assert.equal(identityText({ ...stat, ctimeNs: 0n }, ctimeMs + 10_000), undefined);
});
