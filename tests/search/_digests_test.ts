import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { FileReader } from "../../src/io/_file_reader.ts";
import { identityText } from "../../src/io/file_identity.ts";
import { digestFiles } from "../../src/search/_digests.ts";
import type { FileMatches } from "../../src/store/file_store.ts";
import { filesOf } from "../_helpers/files.ts";

describe("digestFiles()", () => {
  let dir: string;
  const texts: Record<string, string> = {
    "a.txt": "hit\nhit\n",
    "b.txt": "x\nhit\n",
    "c.txt": "hit\n" + "y".repeat(100) + "\n",
    "d.txt": "hit\n",
  };
  before(async () => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "linewise-digests-")));
    for (const [name, text] of Object.entries(texts)) fs.writeFileSync(path.join(dir, name), text);
    // (A file changed within the last second has no identity yet.)
    await new Promise((resolve) => setTimeout(resolve, 1100));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** The result of a search for "hit" in every file, and the files it walked. */
  function found(): { files: FileMatches[]; walked: { key: string; display: string }[] } {
    const files = Object.entries(texts).map(([name, text]) => ({
      path: name,
      rows: text.split(/(?<=\n)/).flatMap((line, i) =>
        line.startsWith("hit") ? [{ line: i + 1, text: line, match: { start: 0, end: 3 } }] : []
      ),
      invalidUtf8: false,
    }));
    const walked = ["0.txt", ...Object.keys(texts)].map((name) => ({
      key: path.join(dir, name),
      display: name,
    }));
    return { files, walked };
  }

  function digested(asked: { afterMatches: number; files: number; maxBytes: number }) {
    const { files, walked } = found();
    digestFiles(files, walked, new FileReader(filesOf(dir), 1 << 20), asked);
    return files.filter((file) => file.sha1 !== undefined).map((file) => file.path);
  }

  test("gives the files asked for their digest and identity as they were read", () => {
    const { files, walked } = found();
    digestFiles(files, walked, new FileReader(filesOf(dir), 1 << 20), {
      afterMatches: 0,
      files: 50,
      maxBytes: 1 << 20,
    });
    for (const file of files) {
      const key = path.join(dir, file.path);
      assert.equal(file.sha1, createHash("sha1").update(fs.readFileSync(key)).digest("hex"));
      assert.equal(file.identity, identityText(filesOf(dir).lstat(key)));
    }
  });

  test("takes the first files past the matching lines skipped, of the size allowed", () => {
    assert.deepEqual(digested({ afterMatches: 0, files: 2, maxBytes: 1000 }), ["a.txt", "b.txt"]);
    assert.deepEqual(digested({ afterMatches: 1, files: 2, maxBytes: 1000 }), ["a.txt", "b.txt"]);
    assert.deepEqual(digested({ afterMatches: 2, files: 2, maxBytes: 1000 }), ["b.txt", "c.txt"]);
    assert.deepEqual(digested({ afterMatches: 3, files: 9, maxBytes: 1000 }), ["c.txt", "d.txt"]);
    assert.deepEqual(digested({ afterMatches: 0, files: 9, maxBytes: 50 }), [
      "a.txt",
      "b.txt",
      "d.txt",
    ]);
  });

  test("gives none to a file that no longer holds the rows, changed just now, or gone", async () => {
    const { files, walked } = found();
    files[0].rows[1] = { ...files[0].rows[1], text: "hat\n" };
    fs.writeFileSync(path.join(dir, "b.txt"), "x\nhit\n");
    fs.rmSync(path.join(dir, "c.txt"));
    digestFiles(files, walked, new FileReader(filesOf(dir), 1 << 20), {
      afterMatches: 0,
      files: 50,
      maxBytes: 1 << 20,
    });
    assert.deepEqual(files.filter((file) => file.sha1 !== undefined).map((f) => f.path), [
      "d.txt",
    ]);
    fs.writeFileSync(path.join(dir, "c.txt"), texts["c.txt"]);
    await new Promise((resolve) => setTimeout(resolve, 1100));
  });

  test("gives none to a file read shorter than its stat said (cut while it was read)", () => {
    const { files, walked } = found();
    const real = new FileReader(filesOf(dir), 1 << 20);
    // (The rows of c.txt are all in its first line: the bytes cut after it still hold them.)
    const cut: Pick<FileReader, "read"> = {
      read(key: string) {
        const outcome = real.read(key);
        return outcome.kind === "bytes"
          ? { ...outcome, bytes: outcome.bytes.subarray(0, 4) }
          : outcome;
      },
    };
    digestFiles(files.slice(2, 3), walked, cut as FileReader, {
      afterMatches: 0,
      files: 50,
      maxBytes: 1 << 20,
    });
    assert.equal(files[2].sha1, undefined);
  });

  test("leaves a file that came with its digest and identity as it came, unless too large", () => {
    const { files, walked } = found();
    // (As a search gives a large file read by its plan: the digest of the bytes it read, and
    // the identity the file had then; 8 bytes long.)
    const given = { sha1: "f".repeat(40), identity: "1:2:8:3:4" };
    Object.assign(files[0], given);
    Object.assign(files[1], given);
    const reads: string[] = [];
    const real = new FileReader(filesOf(dir), 1 << 20);
    const counting: Pick<FileReader, "read"> = {
      read(key: string) {
        reads.push(path.basename(key));
        return real.read(key);
      },
    };
    digestFiles(files.slice(0, 1), walked, counting as FileReader, {
      afterMatches: 0,
      files: 50,
      maxBytes: 8,
    });
    assert.deepEqual([files[0].sha1, files[0].identity], [given.sha1, given.identity]);
    // Larger than the files that get versions: it keeps its digest, without the identity
    // that would make it a version (as a file read whole gets none).
    digestFiles(files.slice(1, 2), walked, counting as FileReader, {
      afterMatches: 0,
      files: 50,
      maxBytes: 7,
    });
    assert.deepEqual([files[1].sha1, files[1].identity], [given.sha1, undefined]);
    assert.deepEqual(reads, [], "neither was read again");
  });
});
