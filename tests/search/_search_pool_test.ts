import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import process from "node:process";
import { describe, it } from "node:test";
import { FileReader } from "../../src/io/_file_reader.ts";
import { HAS_SHARED_MEMORY, HAS_WORKERS, RUNTIME } from "../../src/io/runtime.ts";
import { filesOf } from "../_helpers/files.ts";
import { type Examination, examineFile } from "../../src/search/_search_file.ts";
import { ExaminedBatches, startSearchWorkers, WarmWorkers } from "../../src/search/_search_pool.ts";

async function withTree(
  count: number,
  work: (keys: string[]) => Promise<void>,
): Promise<void> {
  const dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "linewise-pool-")));
  try {
    const keys: string[] = [];
    for (let i = 0; i < count; i++) {
      const key = path.join(dir, `f${String(i).padStart(4, "0")}`);
      const content = i % 7 === 0
        ? `a\nneedle ${i}\nb\n`
        : i % 11 === 0
        ? new Uint8Array([110, 101, 0, 1])
        : `plain ${i}\n`;
      await fs.writeFile(key, content);
      keys.push(key);
    }
    keys.push(path.join(dir, "missing"));
    await work(keys);
  } finally {
    await fs.rm(dir, { recursive: true });
  }
}

/** What one thread alone makes of the files. */
function expected(keys: string[], needle: Uint8Array): unknown[] {
  const reader = new FileReader(filesOf("/"), 1 << 20);
  return keys.map((key) => examineFile(reader, key, { needle, context: 1, links: true }));
}

async function all(batches: ExaminedBatches, keys: string[]): Promise<unknown[]> {
  const outcomes: unknown[] = [];
  try {
    for (const key of keys) batches.add(key);
    batches.end();
    for (let i = 0; i < batches.count; i++) outcomes.push(...await batches.get(i));
  } finally {
    batches.close();
  }
  return outcomes;
}

const needle = new TextEncoder().encode("needle");

/** Batches over a fresh reader, examined with `workers` (or on this thread alone). */
function batchesWith(
  workers: ConstructorParameters<typeof ExaminedBatches>[0]["workers"],
  options: { needle?: Uint8Array; context?: number; digests?: Examination["digests"] } = {},
): ExaminedBatches {
  return new ExaminedBatches({
    needle: options.needle ?? needle,
    context: options.context ?? 1,
    digests: options.digests,
    links: true,
    reader: new FileReader(filesOf("/"), 1 << 20),
    workers,
  });
}

describe("ExaminedBatches", () => {
  it("lets the worker read batches while files are still being added", () =>
    withTree(500, async (keys) => {
      const batches = batchesWith(startSearchWorkers(1));
      const outcomes: unknown[] = [];
      try {
        for (const key of keys.slice(0, 300)) batches.add(key);
        await new Promise((resolve) => setTimeout(resolve, 50));
        for (const key of keys.slice(300)) batches.add(key);
        batches.end();
        for (let i = 0; i < batches.count; i++) outcomes.push(...await batches.get(i));
      } finally {
        batches.close();
      }
      assert.deepEqual(outcomes, expected(keys, needle));
    }));

  it("gives every file's outcome in path order with a worker", () =>
    withTree(700, async (keys) => {
      const batches = batchesWith(startSearchWorkers(1));
      assert.deepEqual(await all(batches, keys), expected(keys, needle));
    }));

  it("gives every file's outcome in path order with three workers", () =>
    withTree(900, async (keys) => {
      const workers = startSearchWorkers(3);
      if (HAS_WORKERS && HAS_SHARED_MEMORY) assert.equal(workers.length, 3);
      const batches = batchesWith(workers);
      assert.deepEqual(await all(batches, keys), expected(keys, needle));
    }));

  it("gives the digests asked for to the first files, whichever thread reads them", () =>
    withTree(300, async (keys) => {
      // (A file changed within the last second has no identity, and gets no digest.)
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const digests = { files: 100, maxBytes: 1 << 20 };
      const batches = batchesWith(startSearchWorkers(1), { digests });
      const outcomes: unknown[] = [];
      try {
        for (const key of keys) batches.add(key);
        batches.end();
        // (Time for the worker to take batches past the first files.)
        await new Promise((resolve) => setTimeout(resolve, 300));
        for (let i = 0; i < batches.count; i++) outcomes.push(...await batches.get(i));
      } finally {
        batches.close();
      }
      const reader = new FileReader(filesOf("/"), 1 << 20);
      const examination = { needle, context: 1, links: true, digests };
      const one = keys.map((key, at) => examineFile(reader, key, examination, undefined, at));
      assert.deepEqual(outcomes, one);
      const digested = outcomes.flatMap((outcome, at) =>
        (outcome as { sha1?: string }).sha1 === undefined ? [] : [at]
      );
      assert.deepEqual(digested, keys.slice(0, 100).flatMap((_, at) => at % 7 === 0 ? [at] : []));
    }));

  it("reads alone, losing nothing, when one of its workers cannot start", () =>
    withTree(600, async (keys) => {
      if (!HAS_WORKERS || !HAS_SHARED_MEMORY) return;
      const missing = new URL("./no_such_worker_module.ts", import.meta.url).href;
      const workers = [...startSearchWorkers(2), new Worker(missing, { type: "module" })];
      const batches = batchesWith(workers);
      assert.deepEqual(await all(batches, keys), expected(keys, needle));
    }));

  it("gives the same outcomes on one thread", () =>
    withTree(100, async (keys) => {
      const batches = batchesWith(undefined);
      assert.deepEqual(await all(batches, keys), expected(keys, needle));
    }));

  it("examines everything on the main thread when the worker cannot start", () =>
    withTree(300, async (keys) => {
      if (typeof Worker !== "function" || typeof SharedArrayBuffer !== "function") return;
      const missing = new URL("./no_such_worker_module.ts", import.meta.url).href;
      const batches = batchesWith([new Worker(missing, { type: "module" })]);
      assert.deepEqual(await all(batches, keys), expected(keys, needle));
    }));

  it("says once on stderr that its worker failed, and still gives everything", {
    skip: !HAS_WORKERS || !HAS_SHARED_MEMORY,
    timeout: 60_000,
  }, () =>
    withTree(200, async (keys) => {
      // In a process of its own: the notice is said once per process. Two searches, each
      // with a worker that throws once loaded; each waits for its worker's error first.
      const dir = await fs.mkdtemp(path.join(os.tmpdir(), "linewise-broken-worker-"));
      const src = (module: string) =>
        JSON.stringify(new URL(`../../src/${module}`, import.meta.url).href);
      try {
        await fs.writeFile(path.join(dir, "broken.js"), 'throw new Error("broken on purpose");\n');
        await fs.writeFile(path.join(dir, "keys.json"), JSON.stringify(keys));
        await fs.writeFile(
          path.join(dir, "main.ts"),
          `import { readFileSync } from "node:fs";
          import { FileReader } from ${src("io/_file_reader.ts")};
          import { openFileSystem } from ${src("io/file_system.ts")};
          import { ExaminedBatches } from ${src("search/_search_pool.ts")};
          const keys = JSON.parse(readFileSync(new URL("./keys.json", import.meta.url), "utf8"));
          for (let round = 0; round < 2; round++) {
            const worker = new Worker(new URL("./broken.js", import.meta.url), { type: "module" });
            const failed = new Promise((resolve) => worker.addEventListener("error", resolve));
            const batches = new ExaminedBatches({
              needle: new TextEncoder().encode("needle"),
              context: 1,
              links: true,
              reader: new FileReader(openFileSystem(["/"]), 1 << 20),
              workers: [worker],
            });
            await failed;
            for (const key of keys) batches.add(key);
            batches.end();
            const shown = [];
            for (let i = 0; i < batches.count; i++) {
              for (const o of await batches.get(i)) shown.push(o.kind === "text" ? o.text : o.kind);
            }
            batches.close();
            console.log(JSON.stringify(shown));
          }`,
        );
        const script = path.join(dir, "main.ts");
        const args = RUNTIME === "deno" ? ["run", "--quiet", "--allow-all", script] : [script];
        const child = spawnSync(process.execPath, args, { encoding: "utf8" });
        assert.equal(child.status, 0, child.stderr);
        const shown = expected(keys, needle).map((o) => {
          const outcome = o as { kind: string; text?: string };
          return outcome.kind === "text" ? outcome.text : outcome.kind;
        });
        const rounds = child.stdout.trim().split("\n").map((line) => JSON.parse(line));
        assert.deepEqual(rounds, [shown, shown], "every file, on the main thread");
        const notices = child.stderr.split("\n").filter((line) => line.startsWith("linewise:"));
        assert.equal(notices.length, 1, child.stderr);
        assert.match(
          notices[0],
          /^linewise: the search worker failed \(.*broken on purpose.*\); working without it$/,
        );
      } finally {
        await fs.rm(dir, { recursive: true });
      }
    }));

  it("holds the worker back while much decoded text waits, and still gives everything", async () => {
    const dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "linewise-pool-")));
    try {
      const keys: string[] = [];
      const body = ("needle " + "x".repeat(92) + "\n").repeat(1000); // 100 kB, decoded whole
      for (let i = 0; i < 160; i++) {
        const key = path.join(dir, `f${String(i).padStart(3, "0")}`);
        await fs.writeFile(key, `needle ${i}\n${body}needle\n`);
        keys.push(key);
      }
      const batches = batchesWith(startSearchWorkers(1), { context: 0 });
      const lengths: number[] = [];
      try {
        for (const key of keys) batches.add(key);
        batches.end();
        for (let i = 0; i < batches.count; i++) {
          for (const outcome of await batches.get(i)) {
            // (One run each: given as it is, not joined.)
            const text = outcome.kind === "text" ? outcome.text : undefined;
            lengths.push(typeof text === "string" ? text.length : -1);
          }
          await new Promise((resolve) => setTimeout(resolve, 5)); // a slow scan
        }
      } finally {
        batches.close();
      }
      assert.deepEqual(lengths, keys.map((_, i) => `needle ${i}\n`.length + body.length + 7));
    } finally {
      await fs.rm(dir, { recursive: true });
    }
  });

  it("stops its workers when closed early", () =>
    withTree(400, async (keys) => {
      const batches = batchesWith(startSearchWorkers(2), { context: 0 });
      for (const key of keys) batches.add(key);
      batches.end();
      const first = await batches.get(0);
      batches.close();
      assert.equal(first.length, batches.batchSize);
    }));

  it("can borrow warm workers for search after search, even one closed early", () =>
    withTree(600, async (keys) => {
      const workers = startSearchWorkers(2);
      const released: boolean[] = [];
      const lease = { workers, release: (dead: boolean) => void released.push(dead) };
      try {
        const plain = new TextEncoder().encode("plain");
        for (const [round, looking] of [needle, plain, needle, plain].entries()) {
          const batches = batchesWith(lease, { needle: looking });
          if (round === 1) {
            // Closed after one batch: its worker may still post batches of this search,
            // which the next search must not take for its own.
            for (const key of keys) batches.add(key);
            batches.end();
            await batches.get(0);
            batches.close();
            continue;
          }
          assert.deepEqual(await all(batches, keys), expected(keys, looking), `round ${round}`);
        }
        assert.deepEqual(released, [false, false, false, false]);
      } finally {
        for (const worker of workers) worker.terminate();
      }
    }));

  it("warm workers are lent to one search at a time, and stopped when closed", () => {
    const warm = new WarmWorkers(2);
    const lease = warm.borrow()!;
    assert.equal(lease.workers.length, 2, "lent");
    assert.equal(warm.borrow(), undefined, "not twice at once");
    lease.release(false);
    const again = warm.borrow()!;
    assert.deepEqual(again.workers, lease.workers, "the same workers, kept warm");
    warm.close();
    assert.equal(warm.borrow(), undefined, "none after close");
    again.release(false); // stops them now
    const dead = new WarmWorkers(1);
    const first = dead.borrow()!;
    first.release(true); // one failed: new ones are started next time
    const second = dead.borrow()!;
    assert.notEqual(second.workers[0], first.workers[0]);
    second.release(false);
    dead.close();
    assert.equal(new WarmWorkers(0).borrow(), undefined, "none kept, none lent");
  });
});
