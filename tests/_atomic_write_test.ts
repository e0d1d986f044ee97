import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { writeAtomically } from "../src/store/_atomic_write.ts";

function withDir(body: (dir: string) => Promise<void>): () => Promise<void> {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), "linewise-atomic-"));
    try {
      await body(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

const bytes = (text: string) => new TextEncoder().encode(text);

describe("writeAtomically()", () => {
  test(
    "creates a file with exactly the bytes and leaves no temporary file",
    withDir(async (dir) => {
      await writeAtomically(join(dir, "a.txt"), bytes("one\r\n"), {
        display: "a.txt",
        overwrite: false,
      });
      assert.equal(readFileSync(join(dir, "a.txt"), "utf8"), "one\r\n");
      assert.deepEqual(readdirSync(dir), ["a.txt"]);
    }),
  );

  test(
    "refuses an existing file without overwrite and keeps it",
    withDir(async (dir) => {
      writeFileSync(join(dir, "a.txt"), "old");
      await assert.rejects(
        writeAtomically(join(dir, "a.txt"), bytes("new"), { display: "a.txt", overwrite: false }),
        { code: "exists" },
      );
      assert.equal(readFileSync(join(dir, "a.txt"), "utf8"), "old");
      assert.deepEqual(readdirSync(dir), ["a.txt"]);
    }),
  );

  test(
    "replaces a file with overwrite, giving it the mode asked for",
    withDir(async (dir) => {
      writeFileSync(join(dir, "run.sh"), "old", { mode: 0o755 });
      const options = { display: "run.sh", overwrite: true, mode: 0o755 };
      await writeAtomically(join(dir, "run.sh"), bytes("new"), options);
      assert.equal(readFileSync(join(dir, "run.sh"), "utf8"), "new");
      assert.equal(statSync(join(dir, "run.sh")).mode & 0o777, 0o755);
    }),
  );

  test(
    "a failing check before the rename leaves the old content and no temporary file",
    withDir(async (dir) => {
      writeFileSync(join(dir, "a.txt"), "old");
      const refuse = () => Promise.reject(new Error("changed meanwhile"));
      await assert.rejects(
        writeAtomically(join(dir, "a.txt"), bytes("new"), {
          display: "a.txt",
          overwrite: true,
          beforePlace: refuse,
        }),
        /changed meanwhile/,
      );
      assert.equal(readFileSync(join(dir, "a.txt"), "utf8"), "old");
      assert.deepEqual(readdirSync(dir), ["a.txt"]);
    }),
  );
});
