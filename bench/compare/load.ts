// Heavy load on one server: 50 greps and 150 small reads sent at once over the Linux kernel
// source (Debian's linux-source-6.1, about 1.4 GB in 78,000 files), with a ping every 50 ms
// throughout. Measures how long a small read and a ping take under that load, next to the
// same reads on an idle server, how the greps were answered, and the server's peak memory.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import process from "node:process";
import { McpClient } from "./client.ts";
import { BINARY, CORPUS, fmt, log, median, notes, percentile, QUICK, rows } from "./support.ts";

const KERNEL_ARCHIVE = "/usr/src/linux-source-6.1.tar.xz";
export const KERNEL = path.join(CORPUS, "linux-source-6.1");
const GREPS = 50;
const READS = 150;

/** Identifiers common in the kernel: each is grepped for as a literal and as a regex. */
const WORDS = [
  "mutex_lock",
  "spin_lock_irqsave",
  "kmalloc",
  "copy_from_user",
  "EXPORT_SYMBOL_GPL",
  "list_for_each_entry",
  "dev_err",
  "container_of",
  "atomic_inc",
  "rcu_read_lock",
  "kfree_skb",
  "pci_enable_device",
  "of_property_read_u32",
  "devm_kzalloc",
  "wait_event_interruptible",
  "schedule_work",
  "init_waitqueue_head",
  "platform_get_irq",
  "dma_map_single",
  "READ_ONCE",
  "module_param",
  "IS_ERR",
  "printk",
  "memcpy",
  "kthread_run",
];

export function ensureKernel(): boolean {
  if (!fs.existsSync(path.join(KERNEL, "MAINTAINERS")) && !unpackKernel()) return false;
  // Debian's packaging ignores every top-level entry but debian/ (its `/*`, `!/debian/`):
  // without those two lines the tree is searched as its upstream .gitignore has it.
  const ignoreFile = path.join(KERNEL, ".gitignore");
  const lines = fs.readFileSync(ignoreFile, "utf8").split("\n");
  const kept = lines.filter((line) => line !== "/*" && line !== "!/debian/");
  if (kept.length !== lines.length) fs.writeFileSync(ignoreFile, kept.join("\n"));
  return true;
}

function unpackKernel(): boolean {
  if (!fs.existsSync(KERNEL_ARCHIVE)) {
    log(`skipping the load bench: ${KERNEL_ARCHIVE} is missing (apt-get install linux-source-6.1)`);
    return false;
  }
  log(`unpacking ${KERNEL_ARCHIVE} into ${CORPUS}`);
  fs.mkdirSync(CORPUS, { recursive: true });
  const unpacked = spawnSync("tar", ["-xJf", KERNEL_ARCHIVE, "-C", CORPUS], { stdio: "inherit" });
  if (unpacked.status !== 0) throw new Error("tar failed");
  return true;
}

/** Every `step`-th C file of the tree, relative to it, as many as asked. */
function sourceFiles(count: number): string[] {
  const found = spawnSync("sh", ["-c", "find drivers kernel fs mm net -name '*.c' | sort"], {
    cwd: KERNEL,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  }).stdout.trim().split("\n");
  const step = Math.floor(found.length / count);
  return Array.from({ length: count }, (_, i) => found[i * step]);
}

function grepArgs(i: number): Record<string, unknown> {
  const word = WORDS[i % WORDS.length];
  return i < WORDS.length ? { pattern: word, literal: true } : { pattern: `\\b${word}\\s*\\(` };
}

/** The note lines of a grep's answer (its budget and its other stops). */
function notesOf(text: string): string[] {
  return text.split("\n").filter((line) => line.startsWith("[")).map((line) =>
    line.replace(/\d[\d,]*/g, "N")
  );
}

/** Round trips of reads of 50 lines of each file, all sent at once. */
function readsAtOnce(client: McpClient, files: string[]): Promise<number>[] {
  return files.map((file) =>
    client.call("read", { path: file, start_line: 1, end_line: 50 }).then((r) => r.ms)
  );
}

export async function loadBench(): Promise<void> {
  if (!ensureKernel()) return;
  log("load: 50 greps + 150 small reads at once over the kernel tree");
  const files = sourceFiles(READS);
  const size = spawnSync("du", ["-sm", KERNEL], { encoding: "utf8" }).stdout.split("\t")[0];
  const count = spawnSync("sh", ["-c", `find ${KERNEL} -type f | wc -l`], { encoding: "utf8" })
    .stdout.trim();
  notes.push(`Load tree: the Linux 6.1 source, ${size} MB in ${count} files.`);
  spawnSync("sh", ["-c", `cat $(find ${KERNEL} -type f) > /dev/null`]); // a warm cache

  // Default budgets, as an agent's host would start it.
  const serve = async () => (await McpClient.start(BINARY, ["serve", "--root", KERNEL])).client;
  const idle = await serve();
  await Promise.all(readsAtOnce(idle, files)); // warm-up
  const idleReads = await Promise.all(readsAtOnce(idle, files));
  await idle.close();

  const client = await serve();
  const pings: number[] = [];
  let loading = true;
  const pinging = (async () => {
    while (loading) {
      const started = performance.now();
      await client.request("ping", {});
      pings.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  await Promise.all(readsAtOnce(client, files)); // warm-up
  const started = performance.now();
  const greps = Array.from(
    { length: GREPS },
    (_, i) =>
      client.call("grep", grepArgs(i)).then(({ result, ms }) => ({
        ms,
        notes: notesOf(result.content[0].text),
      })),
  );
  const readTimes = await Promise.all(readsAtOnce(client, files));
  // And one read at a time while the greps go on: what a single agent waits.
  const oneByOne: number[] = [];
  while (oneByOne.length < READS && performance.now() - started < 8000) {
    const file = files[oneByOne.length];
    oneByOne.push((await client.call("read", { path: file, start_line: 1, end_line: 50 })).ms);
  }
  const grepAnswers = await Promise.all(greps);
  const wall = performance.now() - started;
  loading = false;
  await pinging;
  const memory = client.memory();
  await client.close();

  const stops = new Map<string, number>();
  for (const answer of grepAnswers) {
    for (const note of answer.notes) stops.set(note, (stops.get(note) ?? 0) + 1);
  }
  const p99 = percentile(readTimes, 99);
  const idleP99 = percentile(idleReads, 99);
  rows.push({
    target: "small read under load p99 < 50 ms",
    what: `${READS} reads of 50 lines sent at once with ${GREPS} greps (p50 ${
      fmt(median(readTimes))
    }); idle: the same reads at once without the greps`,
    linewise: fmt(p99),
    other: `idle p99 ${fmt(idleP99)} (p50 ${fmt(median(idleReads))})`,
    ratio: `${(p99 / idleP99).toFixed(1)}×`,
    goal: "< 50 ms",
    met: p99 < 50,
    agree: "",
  });
  rows.push({
    target: "small read under load p99 < 50 ms",
    what: `${oneByOne.length} reads one at a time while the ${GREPS} greps ran (p50 ${
      fmt(median(oneByOne))
    }; the greps were all answered in ${(wall / 1000).toFixed(1)} s)`,
    linewise: fmt(percentile(oneByOne, 99)),
    other: "",
    ratio: "",
    goal: "< 50 ms",
    met: percentile(oneByOne, 99) < 50,
    agree: "",
  });
  rows.push({
    target: "ping under load p99 < 100 ms",
    what: `a ping every 50 ms while the load ran (${pings.length} pings, max ${
      fmt(Math.max(...pings))
    })`,
    linewise: fmt(percentile(pings, 99)),
    other: "",
    ratio: "",
    goal: "< 100 ms",
    met: percentile(pings, 99) < 100,
    agree: "",
  });
  rows.push({
    target: "server RSS under load < 512 MiB",
    what: `peak (VmHWM) over the load; greps took ${fmt(median(grepAnswers.map((g) => g.ms)))} ` +
      `median, ${fmt(Math.max(...grepAnswers.map((g) => g.ms)))} at most; their notes: ${
        [...stops].map(([note, n]) => `${n}× \`${note}\``).join(", ") || "none"
      }`,
    linewise: memory ? `${memory.peak.toFixed(0)} MiB` : "?",
    other: "",
    ratio: "",
    goal: "< 512 MiB",
    met: memory !== undefined && memory.peak < 512,
    agree: "",
  });
  if (QUICK) process.stderr.write(JSON.stringify(rows.slice(-3), null, 2) + "\n");
}
