import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { describe, test } from "node:test";
import {
  type AtomicWriteOptions,
  removeAbandonedTempFiles,
  removeTempFilesInFlight,
  writeAtomically,
} from "../../src/files/_atomic_write.ts";
import { filesOf } from "../_helpers/files.ts";

function withDir(body: (dir: string) => Promise<void>): () => Promise<void> {
  return async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "linewise-atomic-")));
    try {
      await body(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

const bytes = (text: string) => new TextEncoder().encode(text);

/** Writes `name` in `dir` atomically, through the directory's handle. */
async function writeIn(
  dir: string,
  name: string,
  content: Uint8Array,
  options: AtomicWriteOptions,
): Promise<void> {
  const files = filesOf(dir);
  const handle = files.openDir(dir);
  try {
    await writeAtomically(files, handle, name, content, options);
  } finally {
    handle.close();
  }
}

describe("writeAtomically()", () => {
  test(
    "creates a file with exactly the bytes and leaves no temporary file",
    withDir(async (dir) => {
      await writeIn(dir, "a.txt", bytes("one\r\n"), {
        display: "a.txt",
        overwrite: false,
        tidy: false,
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
        writeIn(dir, "a.txt", bytes("new"), {
          display: "a.txt",
          overwrite: false,
          tidy: false,
        }),
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
      const options = { display: "run.sh", overwrite: true, mode: 0o755, tidy: false };
      await writeIn(dir, "run.sh", bytes("new"), options);
      assert.equal(readFileSync(join(dir, "run.sh"), "utf8"), "new");
      assert.equal(statSync(join(dir, "run.sh")).mode & 0o777, 0o755);
    }),
  );

  test(
    "a file renamed into place after the last check is put back, not replaced",
    withDir(async (dir) => {
      const path = join(dir, "a.txt");
      writeFileSync(path, "read");
      const read = statSync(path, { bigint: true }).ino;
      const asides: (string | undefined)[] = [];
      const options = (lands: () => void): AtomicWriteOptions => ({
        display: "a.txt",
        overwrite: true,
        tidy: false,
        // (Another writer's rename lands between the check and the swap.)
        beforeRename: lands,
        replaced: (aside) => {
          asides.push(aside);
          if (aside === undefined || statSync(join(dir, aside), { bigint: true }).ino !== read) {
            throw new Error("changed meanwhile");
          }
        },
      });
      const theirs = () => {
        writeFileSync(join(dir, "w.tmp"), "theirs");
        spawnSync("mv", [join(dir, "w.tmp"), path]);
      };
      await assert.rejects(writeIn(dir, "a.txt", bytes("ours"), options(theirs)), {
        message: "changed meanwhile",
      });
      assert.equal(readFileSync(path, "utf8"), "theirs");
      assert.deepEqual(readdirSync(dir), ["a.txt"]);
      assert.equal(asides.length, 1);
      assert.match(asides[0]!, /^\.a\.txt\.\d+-[0-9a-f]{12}\.linewise-tmp$/);
      // (Deleted in between: nothing to swap with, and the check says so.)
      await assert.rejects(
        writeIn(dir, "a.txt", bytes("ours"), options(() => rmSync(path))),
        { message: "changed meanwhile" },
      );
      assert.deepEqual([asides[1], readdirSync(dir)], [undefined, []]);
      // (Unchanged: the swap puts the new content in place and removes the old file.)
      writeFileSync(path, "read");
      const again = statSync(path, { bigint: true }).ino;
      await writeIn(dir, "a.txt", bytes("ours"), {
        ...options(() => {}),
        replaced: (aside) => {
          assert.equal(statSync(join(dir, aside!), { bigint: true }).ino, again);
        },
      });
      assert.equal(readFileSync(path, "utf8"), "ours");
      assert.deepEqual(readdirSync(dir), ["a.txt"]);
    }),
  );

  test(
    "where the file system cannot swap, the write renames, and the check is not asked",
    withDir(async (dir) => {
      writeFileSync(join(dir, "a.txt"), "old");
      const files = filesOf(dir);
      const handle = files.openDir(dir);
      // (As a file system without RENAME_EXCHANGE answers it.)
      handle.exchange = () => {
        throw Object.assign(new Error("EINVAL: invalid argument, rename"), { code: "EINVAL" });
      };
      let asked = false;
      try {
        await writeAtomically(files, handle, "a.txt", bytes("new"), {
          display: "a.txt",
          overwrite: true,
          tidy: false,
          replaced: () => asked = true,
        });
      } finally {
        handle.close();
      }
      assert.equal(readFileSync(join(dir, "a.txt"), "utf8"), "new");
      assert.deepEqual([readdirSync(dir), asked], [["a.txt"], false]);
    }),
  );

  test(
    "a failing check before the rename leaves the old content and no temporary file",
    withDir(async (dir) => {
      writeFileSync(join(dir, "a.txt"), "old");
      const refuse = () => {
        throw new Error("changed meanwhile");
      };
      await assert.rejects(
        writeIn(dir, "a.txt", bytes("new"), {
          display: "a.txt",
          overwrite: true,
          tidy: false,
          beforeRename: refuse,
        }),
        /changed meanwhile/,
      );
      assert.equal(readFileSync(join(dir, "a.txt"), "utf8"), "old");
      assert.deepEqual(readdirSync(dir), ["a.txt"]);
    }),
  );

  test(
    "a cancel heard after the content is written but before the rename writes nothing",
    withDir(async (dir) => {
      writeFileSync(join(dir, "a.txt"), "old");
      const controller = new AbortController();
      const reason = new Error("cancelled");
      await assert.rejects(
        writeIn(dir, "a.txt", bytes("new"), {
          display: "a.txt",
          overwrite: true,
          tidy: false,
          signal: controller.signal,
          beforeRename: () => controller.abort(reason),
        }),
        reason,
      );
      assert.equal(readFileSync(join(dir, "a.txt"), "utf8"), "old");
      assert.deepEqual(readdirSync(dir), ["a.txt"]);
    }),
  );

  test(
    "names its temporary file for the process, and a stopping process removes it",
    withDir(async (dir) => {
      writeFileSync(join(dir, "a.txt"), "old");
      let seen: string[] = [];
      const stop = () => {
        seen = readdirSync(dir);
        removeTempFilesInFlight(); // what a server stopped by a signal does
      };
      await assert.rejects(
        writeIn(dir, "a.txt", bytes("new"), {
          display: "a.txt",
          overwrite: true,
          tidy: false,
          beforeRename: stop,
        }),
        { code: "not_found" },
      );
      const temp = seen.find((name) => name !== "a.txt") ?? "";
      assert.match(temp, new RegExp(`^\\.a\\.txt\\.${process.pid}-[0-9a-f]{12}\\.linewise-tmp$`));
      assert.deepEqual(readdirSync(dir), ["a.txt"]);
      assert.equal(readFileSync(join(dir, "a.txt"), "utf8"), "old");
    }),
  );
});

describe("removeAbandonedTempFiles()", () => {
  test(
    "removes old temporary files of ended processes, and nothing else",
    withDir((dir) => {
      const ended = spawnSync(process.execPath, ["--version"]).pid!;
      const name = (pid: number, target = "a.txt") => `.${target}.${pid}-0123456789ab.linewise-tmp`;
      const old = Date.now() / 1000 - 120;
      const files = {
        abandoned: name(ended),
        recent: name(ended, "b.txt"), // an ended process's, but too fresh to be sure
        ours: name(process.pid),
        running: name(process.ppid),
        unrelated: ".a.txt.xyz.linewise-tmp",
        user: "notes.txt",
      };
      for (const file of Object.values(files)) writeFileSync(join(dir, file), "x");
      for (
        const file of [files.abandoned, files.ours, files.running, files.unrelated, files.user]
      ) {
        utimesSync(join(dir, file), old, old);
      }
      mkdirSync(join(dir, name(ended, "dir"))); // not a file: left alone
      utimesSync(join(dir, name(ended, "dir")), old, old);
      const handle = filesOf(dir).openDir(dir);
      try {
        const keep = (file: string) => file === files.abandoned;
        assert.deepEqual(removeAbandonedTempFiles(handle, undefined, keep), [], "untouchable");
        // (Tidying, not the write's work: a failure to list or remove leaves things as they are.)
        const fails = () => {
          throw Object.assign(new Error("not a directory"), { code: "ENOTDIR" });
        };
        const failing = (method: "list" | "unlink") => ({
          ...handle,
          list: () => handle.list(),
          lstat: (name: string) => handle.lstat(name),
          unlink: (name: string) => handle.unlink(name),
          [method]: fails,
        });
        assert.deepEqual(removeAbandonedTempFiles(failing("list")), []);
        assert.deepEqual(removeAbandonedTempFiles(failing("unlink")), []);
        assert.deepEqual(removeAbandonedTempFiles(handle), [files.abandoned]);
        assert.deepEqual(removeAbandonedTempFiles(handle, 0), [files.recent]);
      } finally {
        handle.close();
      }
      assert.deepEqual(
        readdirSync(dir).sort(),
        [files.ours, files.running, files.unrelated, files.user, name(ended, "dir")].sort(),
      );
      return Promise.resolve();
    }),
  );
});
