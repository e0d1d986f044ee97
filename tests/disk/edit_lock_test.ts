// The edit lock across processes: another process holding a file's flock makes an edit wait,
// and one that holds it too long is said plainly with nothing written; a lock dies with its
// process, so a killed holder leaves none behind.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DirectoryStore } from "../../src/disk/directory_store.ts";

/** A Python process that takes the file's lock, says so, and holds it until killed. */
function holdLock(path: string) {
  const child = spawn("python3", [
    "-c",
    "import fcntl, sys, time\nf = open(sys.argv[1])\nfcntl.flock(f, fcntl.LOCK_EX)\nprint('locked', flush=True)\ntime.sleep(60)",
    path,
  ]);
  const locked = new Promise<void>((resolve, reject) => {
    child.stdout.once("data", () => resolve());
    child.once("exit", (code) => reject(new Error(`the lock holder ended (${code})`)));
  });
  const ended = new Promise((resolve) => child.once("exit", resolve));
  return { locked, kill: async () => (child.kill("SIGKILL"), await ended) };
}

const raise = (text: string) => ({ text: text.replace("0", "1"), value: undefined });

test(
  "an edit waits for another process's lock, refuses after lockWaitMs, and a dead holder's lock is gone",
  {
    timeout: 30_000,
  },
  async () => {
    const root = mkdtempSync(join(tmpdir(), "linewise-lock-"));
    const file = join(root, "a.txt");
    writeFileSync(file, "count 0\n");
    const store = await DirectoryStore.create({ roots: [root], lockWaitMs: 300 });
    const holder = holdLock(file);
    try {
      await holder.locked;
      const started = Date.now();
      await assert.rejects(store.update("a.txt", raise), {
        code: "busy",
        message: /another process has been editing "a\.txt" for over 0\.3 s/,
      });
      assert.ok(Date.now() - started >= 300, "it waited for the lock first");
      assert.equal(readFileSync(file, "utf8"), "count 0\n", "nothing was written");
      await holder.kill();
      await store.update("a.txt", raise);
      assert.equal(readFileSync(file, "utf8"), "count 1\n");
    } finally {
      await holder.kill();
      await store.close();
      rmSync(root, { recursive: true });
    }
  },
);

test("lockWaitMs must be a non-negative integer", async () => {
  await assert.rejects(DirectoryStore.create({ roots: [tmpdir()], lockWaitMs: -1 }), {
    name: "TypeError",
    message: "lockWaitMs must be a non-negative integer, got -1",
  });
});
