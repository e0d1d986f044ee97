// The edit lock across processes: another process holding a file's flock makes an edit wait,
// and one that holds it too long is said plainly with nothing written; a lock dies with its
// process, so a killed holder leaves none behind.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import {
  existsSync,
  linkSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
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

/**
 * A Python process that takes the file's lock as another linewise process editing it does,
 * says so, and on "go" renames new content over it (the edit's last step) and ends.
 */
function editInFlight(path: string, text: string, sparseBytes = 0) {
  const child = spawn("python3", [
    "-c",
    "import fcntl, os, sys\nf = open(sys.argv[1])\nfcntl.flock(f, fcntl.LOCK_EX)\n" +
    "print('locked', flush=True)\nsys.stdin.readline()\n" +
    "new = open(sys.argv[1] + '.new', 'w')\nnew.write(sys.argv[2])\n" +
    "if int(sys.argv[3]): new.truncate(int(sys.argv[3]))\n" +
    "new.close()\nos.rename(sys.argv[1] + '.new', sys.argv[1])",
    path,
    text,
    String(sparseBytes),
  ]);
  const locked = new Promise<void>((resolve, reject) => {
    child.stdout.once("data", () => resolve());
    child.once("exit", (code) => reject(new Error(`the editor ended (${code})`)));
  });
  const ended = new Promise((resolve) => child.once("exit", resolve));
  return { locked, finish: async () => (child.stdin.end("go\n"), await ended) };
}

/** Whether a promise is still pending after `ms`. */
async function pendingAfter(promise: Promise<unknown>, ms: number): Promise<boolean> {
  const late = Symbol();
  const first = await Promise.race([
    promise.then(() => undefined, () => undefined),
    new Promise((resolve) => setTimeout(() => resolve(late), ms)),
  ]);
  return first === late;
}

test(
  "a delete of expected text waits for another process's edit, then keeps what it wrote",
  { timeout: 30_000 },
  async () => {
    const root = mkdtempSync(join(tmpdir(), "linewise-lock-"));
    const file = join(root, "a.txt");
    writeFileSync(file, "seen\n");
    const store = await DirectoryStore.create({ roots: [root], lockWaitMs: 10_000 });
    const editor = editInFlight(file, "theirs\n");
    try {
      await editor.locked;
      const deleting = store.delete("a.txt", { expected: "seen\n" });
      assert.ok(await pendingAfter(deleting, 200), "the delete waits for the edit's lock");
      await editor.finish();
      await assert.rejects(deleting, { code: "changed" });
      assert.equal(readFileSync(file, "utf8"), "theirs\n", "the edit's text is kept");
      await store.delete("a.txt", { expected: "theirs\n" });
      assert.ok(!existsSync(file), "with its text as expected, it is deleted");
    } finally {
      await editor.finish();
      await store.close();
      rmSync(root, { recursive: true });
    }
  },
);

test("a symlink deleted with expected text waits for another process's edit of its target", {
  timeout: 30_000,
}, async () => {
  const root = mkdtempSync(join(tmpdir(), "linewise-lock-"));
  const target = join(root, "real.txt");
  writeFileSync(target, "seen\n");
  symlinkSync("real.txt", join(root, "link.txt"));
  const store = await DirectoryStore.create({ roots: [root], lockWaitMs: 10_000 });
  const editor = editInFlight(target, "theirs\n");
  try {
    await editor.locked;
    const deleting = store.delete("link.txt", { expected: "seen\n" });
    assert.ok(await pendingAfter(deleting, 200), "the delete waits for the target's lock");
    await editor.finish();
    await assert.rejects(deleting, { code: "changed" });
    assert.ok(existsSync(join(root, "link.txt")), "the link is kept");
  } finally {
    await editor.finish();
    await store.close();
    rmSync(root, { recursive: true });
  }
});

test("a delete of expected text refuses a file that grew past the cap while it waited", {
  timeout: 30_000,
}, async () => {
  const root = mkdtempSync(join(tmpdir(), "linewise-lock-"));
  const file = join(root, "a.txt");
  writeFileSync(file, "seen\n");
  const store = await DirectoryStore.create({ roots: [root], lockWaitMs: 10_000 });
  // (100 GB, sparse: read whole, it could not even be held.)
  const editor = editInFlight(file, "theirs\n", 100 * 1024 ** 3);
  try {
    await editor.locked;
    const deleting = store.delete("a.txt", { expected: "seen\n" });
    assert.ok(await pendingAfter(deleting, 200), "the delete waits for the edit's lock");
    await editor.finish();
    await assert.rejects(deleting, { code: "too_large" });
    assert.ok(existsSync(file), "kept");
  } finally {
    await editor.finish();
    await store.close();
    rmSync(root, { recursive: true });
  }
});

test(
  "a move over a file waits for another process's edit of it, and its content stays there",
  { timeout: 30_000 },
  async () => {
    const root = mkdtempSync(join(tmpdir(), "linewise-lock-"));
    const target = join(root, "dst.txt");
    writeFileSync(join(root, "src.txt"), "moved\n");
    writeFileSync(target, "old\n");
    const store = await DirectoryStore.create({ roots: [root], lockWaitMs: 10_000 });
    const editor = editInFlight(target, "theirs\n");
    try {
      await editor.locked;
      const moving = store.move("src.txt", "dst.txt", { overwrite: true });
      assert.ok(await pendingAfter(moving, 200), "the move waits for the edit's lock");
      await editor.finish();
      await moving;
      assert.equal(readFileSync(target, "utf8"), "moved\n", "what was moved is there");
      assert.ok(!existsSync(join(root, "src.txt")));
    } finally {
      await editor.finish();
      await store.close();
      rmSync(root, { recursive: true });
    }
  },
);

test(
  "a move takes its two files' locks in the order of their paths",
  { timeout: 30_000 },
  async () => {
    // Another process holds a.txt's lock, as a move of b.txt onto a.txt does first; a move of
    // a.txt onto b.txt must wait for it before it takes b.txt's, or each would hold one lock
    // and wait for the other.
    const root = mkdtempSync(join(tmpdir(), "linewise-lock-"));
    writeFileSync(join(root, "a.txt"), "a\n");
    writeFileSync(join(root, "b.txt"), "b\n");
    const other = spawn("python3", [
      "-c",
      "import fcntl, sys, time\na = open(sys.argv[1])\nfcntl.flock(a, fcntl.LOCK_EX)\n" +
      "print('locked', flush=True)\nsys.stdin.readline()\nb = open(sys.argv[2])\n" +
      "try:\n  fcntl.flock(b, fcntl.LOCK_EX | fcntl.LOCK_NB)\n  print('free', flush=True)\n" +
      "except OSError:\n  print('taken', flush=True)",
      join(root, "a.txt"),
      join(root, "b.txt"),
    ]);
    let out = "";
    const locked = new Promise<void>((resolve) => other.stdout.once("data", () => resolve()));
    other.stdout.on("data", (chunk) => out += chunk);
    const ended = new Promise((resolve) => other.once("exit", resolve));
    const store = await DirectoryStore.create({ roots: [root], lockWaitMs: 10_000 });
    try {
      await locked;
      const moving = store.move("a.txt", "b.txt", { overwrite: true });
      assert.ok(await pendingAfter(moving, 200), "the move waits for a.txt's lock");
      other.stdin.end("go\n");
      await ended;
      assert.match(out, /free/, "b.txt's lock was not taken before a.txt's");
      await moving;
      assert.equal(readFileSync(join(root, "b.txt"), "utf8"), "a\n");
    } finally {
      other.kill();
      await store.close();
      rmSync(root, { recursive: true });
    }
  },
);

test("a move onto another name of the same file is refused at once", async () => {
  const root = mkdtempSync(join(tmpdir(), "linewise-lock-"));
  writeFileSync(join(root, "a.txt"), "same\n");
  linkSync(join(root, "a.txt"), join(root, "b.txt"));
  const store = await DirectoryStore.create({ roots: [root], lockWaitMs: 10_000 });
  try {
    const started = Date.now();
    await assert.rejects(store.move("a.txt", "b.txt", { overwrite: true }), {
      code: "cannot_move",
      message: /b\.txt is another name of the same file/,
    });
    assert.ok(Date.now() - started < 2_000, "without waiting for its own lock");
    assert.equal(readFileSync(join(root, "b.txt"), "utf8"), "same\n");
    assert.ok(existsSync(join(root, "a.txt")));
  } finally {
    await store.close();
    rmSync(root, { recursive: true });
  }
});

test("lockWaitMs must be a non-negative integer", async () => {
  await assert.rejects(DirectoryStore.create({ roots: [tmpdir()], lockWaitMs: -1 }), {
    name: "TypeError",
    message: "lockWaitMs must be a non-negative integer, got -1",
  });
});
