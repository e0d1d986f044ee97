import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import process from "node:process";
import { spawn } from "node:child_process";
import { describe, test } from "node:test";
import { releaseLockFile, tryLockFile } from "../../src/io/_lock_files.ts";

describe("lock files", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "linewise-lockfile-"));
  const file = path.join(dir, "f.txt");
  fs.writeFileSync(file, "x\n");
  const identity = () => {
    const { dev, ino } = fs.statSync(file, { bigint: true });
    return { dev, ino };
  };
  const lockPath = () => {
    const { dev, ino } = identity();
    return path.join(os.tmpdir(), `linewise-locks-${process.getuid?.()}`, `${dev}-${ino}`);
  };

  test("one descriptor holds a file's lock until it is released", () => {
    const [first, second] = [fs.openSync(file, "r"), fs.openSync(file, "r")];
    try {
      assert.equal(tryLockFile(first, identity()), true);
      assert.equal(fs.statSync(path.dirname(lockPath())).mode & 0o777, 0o700);
      // (Made whole and linked into place: never seen empty, and nothing left beside it.)
      assert.match(fs.readFileSync(lockPath(), "utf8"), /^\d+ \S+ [0-9a-f]{12}$/);
      const beside = fs.readdirSync(path.dirname(lockPath()));
      assert.deepEqual(beside.filter((name) => name.startsWith(path.basename(lockPath()))), [
        path.basename(lockPath()),
      ]);
      assert.equal(tryLockFile(second, identity()), false, "held by this process's other edit");
      releaseLockFile(first);
      assert.equal(fs.existsSync(lockPath()), false);
      assert.equal(tryLockFile(second, identity()), true);
    } finally {
      releaseLockFile(first);
      releaseLockFile(second);
      fs.closeSync(first);
      fs.closeSync(second);
    }
  });

  test("a lock whose process is gone is taken over; one of a live process is not", () => {
    const fd = fs.openSync(file, "r");
    try {
      fs.writeFileSync(lockPath(), "2147483646 1"); // (no such pid)
      assert.equal(tryLockFile(fd, identity()), true);
      releaseLockFile(fd);
      // (pid 1 runs; its start time is whatever /proc says, so it is the same process. Deno
      // reads /proc only with every permission: then a live pid is all it goes by.)
      let init: string;
      try {
        init = fs.readFileSync("/proc/1/stat", "utf8");
      } catch {
        return;
      }
      const started = init.slice(init.lastIndexOf(")") + 2).split(" ")[19];
      fs.writeFileSync(lockPath(), `1 ${started}`);
      assert.equal(tryLockFile(fd, identity()), false);
      // (The same pid started at another time: a pid used again, not the holder.)
      fs.writeFileSync(lockPath(), `1 ${Number(started) + 1}`);
      assert.equal(tryLockFile(fd, identity()), true);
      releaseLockFile(fd);
      // (Empty: being written just now; or, older, its process killed before it wrote it.)
      fs.writeFileSync(lockPath(), "");
      assert.equal(tryLockFile(fd, identity()), false);
      fs.utimesSync(lockPath(), new Date(Date.now() - 5000), new Date(Date.now() - 5000));
      assert.equal(tryLockFile(fd, identity()), true);
    } finally {
      releaseLockFile(fd);
      fs.closeSync(fd);
      fs.rmSync(lockPath(), { force: true });
    }
  });

  test("a takeover's guard left by a killed process is removed once old", () => {
    const fd = fs.openSync(file, "r");
    const guard = `${lockPath()}.takeover`;
    try {
      fs.writeFileSync(lockPath(), "2147483646 1"); // (stale)
      fs.writeFileSync(guard, "");
      assert.equal(tryLockFile(fd, identity()), false, "another is taking it over");
      fs.utimesSync(guard, new Date(Date.now() - 10_000), new Date(Date.now() - 10_000));
      assert.equal(tryLockFile(fd, identity()), false, "the old guard goes");
      assert.equal(fs.existsSync(guard), false);
      assert.equal(tryLockFile(fd, identity()), true);
    } finally {
      releaseLockFile(fd);
      fs.closeSync(fd);
      fs.rmSync(guard, { force: true });
    }
  });

  test("a lock folder that is not private is not used", { timeout: 30_000 }, async () => {
    const tmp = path.join(dir, "tmp");
    const folder = path.join(tmp, `linewise-locks-${process.getuid?.()}`);
    fs.mkdirSync(folder, { recursive: true });
    fs.chmodSync(folder, 0o777);
    const script = path.join(dir, "open.ts");
    const module = path.resolve(import.meta.dirname!, "../../src/io/_lock_files.ts");
    fs.writeFileSync(
      script,
      `import { tryLockFile } from ${JSON.stringify(module)};
console.log(tryLockFile(7, { dev: 1n, ino: 2n }));
`,
    );
    const deno = (globalThis as { Deno?: unknown }).Deno !== undefined;
    const out = await new Promise<string>((resolve, reject) => {
      let text = "";
      const child = spawn(process.execPath, deno ? ["run", "-A", "--quiet", script] : [script], {
        env: { ...process.env, TMPDIR: tmp },
      });
      child.stdout.on("data", (chunk) => text += chunk);
      child.on("error", reject);
      child.on("close", () => resolve(text));
    });
    assert.equal(out.trim(), "true", "no lock files: flock alone");
    assert.deepEqual(fs.readdirSync(folder), [], "nothing written in a folder others may write");
  });

  test("four processes contending for one lock never hold it at once", {
    timeout: 60_000,
  }, async () => {
    // (Each takes the lock, claims a marker file that must be free, gives both back; a lock
    // taken over while alive, or released by another, shows as a claim that fails.)
    const script = path.join(dir, "contend.ts");
    const module = path.resolve(import.meta.dirname!, "../../src/io/_lock_files.ts");
    fs.writeFileSync(
      script,
      `import * as fs from "node:fs";
import { releaseLockFile, tryLockFile } from ${JSON.stringify(module)};
const marker = ${JSON.stringify(path.join(dir, "marker"))};
let held = 0, overlaps = 0;
for (const end = Date.now() + 2000; Date.now() < end;) {
  if (!tryLockFile(7, { dev: 999n, ino: BigInt(${process.pid}) })) continue;
  held++;
  try { fs.writeFileSync(marker, "x", { flag: "wx" }); } catch { overlaps++; }
  fs.rmSync(marker, { force: true });
  releaseLockFile(7);
}
console.log(held, overlaps);
`,
    );
    const deno = (globalThis as { Deno?: unknown }).Deno !== undefined;
    const args = deno ? ["run", "-A", "--quiet", script] : [script];
    const runs = await Promise.all(
      Array.from({ length: 4 }, () =>
        new Promise<string>((resolve, reject) => {
          let out = "";
          const child = spawn(process.execPath, args, { env: { ...process.env, TMPDIR: dir } });
          child.stdout.on("data", (chunk) => out += chunk);
          child.on("error", reject);
          child.on("close", () => resolve(out));
        })),
    );
    for (const out of runs) {
      const [held, overlaps] = out.trim().split(" ").map(Number);
      assert.ok(held > 0, out);
      assert.equal(overlaps, 0, out);
    }
  });

  test("a lock file is never seen empty while another process takes it", {
    timeout: 60_000,
  }, async () => {
    // (Made in place and then written, a third of the reads of a lock taken in a loop saw it
    // empty: such a moment cannot be told from another process's.)
    const script = path.join(dir, "take.ts");
    const module = path.resolve(import.meta.dirname!, "../../src/io/_lock_files.ts");
    fs.writeFileSync(
      script,
      `import { releaseLockFile, tryLockFile } from ${JSON.stringify(module)};
for (const end = Date.now() + 1500; Date.now() < end;) {
  if (tryLockFile(7, { dev: 998n, ino: BigInt(${process.pid}) })) releaseLockFile(7);
}
`,
    );
    const lock = path.join(dir, `linewise-locks-${process.getuid?.()}`, `998-${process.pid}`);
    const deno = (globalThis as { Deno?: unknown }).Deno !== undefined;
    const child = spawn(process.execPath, deno ? ["run", "-A", "--quiet", script] : [script], {
      env: { ...process.env, TMPDIR: dir },
    });
    const ended = new Promise((resolve) => child.on("close", resolve));
    let [reads, empty, running] = [0, 0, true];
    void ended.then(() => running = false);
    while (running) {
      for (let i = 0; i < 1000; i++) {
        try {
          if (fs.readFileSync(lock, "utf8") === "") empty++;
          reads++;
        } catch {
          // (Not held just then.)
        }
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.ok(reads > 100, `${reads} reads`);
    assert.equal(empty, 0, `${empty} of ${reads} reads empty`);
  });

  test("cleans up", () => fs.rmSync(dir, { recursive: true, force: true }));
});
