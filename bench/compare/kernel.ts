// Greps on the Linux kernel source (the tree ripgrep's own benchmarks use), against ripgrep:
// the first grep of a fresh server, the same grep again once the index is built, a small
// read's wait while a long grep runs in the same server, a grep repeated after the tree
// changed (changes.ts), and how both scale from one core (taskset -c 0) to all of this
// machine's; and the command line printing hundreds of megabytes of rows to a pipe, beside
// ripgrep.
import { availableParallelism } from "node:os";
import { McpClient } from "./client.ts";
import { compareKeys, linewiseKeys, RG_ARGS, rgKeys } from "./agree.ts";
import { ensureKernel, KERNEL } from "./load.ts";
import {
  BINARY,
  fmt,
  inTurns,
  log,
  median,
  peakRssMiB,
  percentile,
  rows,
  run,
  RUNS,
  type timeCommand,
} from "./support.ts";
import { knownTreeRows } from "./known.ts";
import { type FirstGreps, firstGrepSeries } from "./grep.ts";
import { changingTreeRows } from "./changes.ts";

const CASES: { name: string; args: Record<string, unknown>; rg: string[] }[] = [
  {
    name: "literal `spin_lock_irqsave` ignoring case",
    args: { pattern: "spin_lock_irqsave", literal: true, ignore_case: true },
    rg: ["-i", "-F", "spin_lock_irqsave"],
  },
  {
    name: "regex `\\bkmalloc_array\\s*\\(`",
    args: { pattern: "\\bkmalloc_array\\s*\\(" },
    rg: ["\\bkmalloc_array\\s*\\("],
  },
  {
    name: "literal `EXPORT_SYMBOL_GPL(`",
    args: { pattern: "EXPORT_SYMBOL_GPL(", literal: true },
    rg: ["-F", "EXPORT_SYMBOL_GPL("],
  },
  {
    // (A group of alternatives, as ripgrep users write them, and as `-w` and `-e` make.)
    name: "regex `\\b(?:kmalloc|kzalloc)\\(`",
    args: { pattern: "\\b(?:kmalloc|kzalloc)\\(" },
    rg: ["\\b(?:kmalloc|kzalloc)\\("],
  },
];

/**
 * Shapes of pattern whose literal is easy to misread, each timed as a first grep only: a small
 * class (`k[mz]alloc`: `kmalloc(` or `kzalloc(`, not `k`), and a required literal shorter
 * than the alternatives beside it (`u` of `\bu(8|16|32|64)\b`).
 */
const SHAPES: typeof CASES = [
  {
    name: "regex `\\bk[mz]alloc\\(` (a class)",
    args: { pattern: "\\bk[mz]alloc\\(" },
    rg: ["\\bk[mz]alloc\\("],
  },
  {
    name: "regex `[Ss]pin_lock_irqsave\\(` (a class)",
    args: { pattern: "[Ss]pin_lock_irqsave\\(" },
    rg: ["[Ss]pin_lock_irqsave\\("],
  },
  {
    name: "regex `\\bu(8|16|32|64)\\b` (584,165 lines)",
    args: { pattern: "\\bu(8|16|32|64)\\b" },
    rg: ["\\bu(8|16|32|64)\\b"],
  },
];

/** A server on the kernel tree, with budgets large enough for any of these answers. */
function serve(prefix: string[] = [], cache = false) {
  const args = ["serve", "--root", KERNEL, "--timeout", "60"];
  args.push("--max-lines", "1000000", "--max-chars", "100000000");
  return prefix.length === 0
    ? McpClient.start(BINARY, args, { cache })
    : McpClient.start(prefix[0], [...prefix.slice(1), BINARY, ...args], { cache });
}

/** The first-grep series of a kernel case (under `prefix`: taskset). */
function kernelSeries(
  grepCase: (typeof CASES)[number],
  seen: Partial<FirstGreps>,
  prefix: string[] = [],
) {
  const rg = [...prefix, "rg", ...RG_ARGS, ...grepCase.rg, "."];
  const args = { ...grepCase.args, max_matches: 1_000_000 };
  return firstGrepSeries(() => serve(prefix), rg, KERNEL, args, seen);
}

export async function kernelBench(): Promise<void> {
  if (!ensureKernel()) return;
  log("kernel: first and repeated greps against ripgrep on the Linux tree");
  const rgTimes: Array<ReturnType<typeof timeCommand>> = [];
  for (const grepCase of CASES) {
    const args = { ...grepCase.args, max_matches: 1_000_000 };
    const { rg, first, expected } = await firstGrepRow(grepCase, "kernel: first grep ≤ 1.3× rg");
    rgTimes.push(rg);
    const run = { root: KERNEL, rg: grepCase.rg };
    const { client } = await serve();
    await client.call("grep", args);
    const indexing = await client.idle();
    const repeated: number[] = [];
    let last = first.result;
    for (let i = 0; i < RUNS; i++) {
      const call = await client.call("grep", args);
      repeated.push(call.ms);
      last = call.result;
    }
    const memory = client.memory();
    await client.close();
    const r = median(repeated);
    rows.push({
      target: "kernel: repeated grep ≥ 10× faster than rg",
      what: `${grepCase.name}, same session after the index was built (${
        (indexing / 1000).toFixed(1)
      } s); server RSS ${memory?.now.toFixed(0)} MiB, peak ${memory?.peak.toFixed(0)} MiB`,
      linewise: fmt(r),
      other: `rg ${fmt(rg.ms)}`,
      ratio: `${(rg.ms / r).toFixed(2)}× faster`,
      goal: "≥ 10× faster",
      met: rg.ms / r >= 10,
      agree: compareKeys(linewiseKeys(last.structuredContent), expected, run),
    });
  }
  for (const grepCase of SHAPES) {
    await firstGrepRow(grepCase, "kernel: first grep ≤ 1.3× rg, pattern shapes");
  }
  await knownTreeRows("kernel: ", (cache) => serve([], cache), KERNEL, CASES, rgTimes);
  await readsBesideAGrep();
  await changingTreeRows();
  await scaling(CASES[1]);
  await commandLineRow();
}

/**
 * `linewise grep` printing every row of a large output to a pipe (`wc -c` reads it), as
 * `… | less` or `… > file` would, in turns with ripgrep printing the same rows; and the peak
 * memory of each (GNU time, output to /dev/null).
 */
async function commandLineRow(): Promise<void> {
  const search = "grep e drivers/gpu";
  const ours = `"${BINARY}" ${search}`;
  const theirs =
    `rg -n --no-heading --with-filename --no-require-git --no-ignore-parent e drivers/gpu`;
  const bytes: Record<string, string> = {};
  const piped = (name: string, command: string) => () => {
    const ran = run("sh", ["-c", `${command} | wc -c`], { cwd: KERNEL });
    bytes[name] = ran.stdout.toString().trim();
    return ran.ms;
  };
  const { rg, ours: linewise } = await inTurns({
    rg: piped("rg", theirs),
    ours: piped("ours", ours),
  });
  const peak = (command: string) => peakRssMiB(`cd ${KERNEL} && ${command}`)?.toFixed(0) ?? "?";
  rows.push({
    target: "command line: a large output to a pipe",
    what: `kernel, \`linewise ${search} | wc -c\` against \`rg -n … e drivers/gpu | wc -c\`; ` +
      `peak RSS, output to /dev/null: ${peak(ours)} MiB against ${peak(theirs)} MiB`,
    linewise: fmt(linewise),
    other: `rg ${fmt(rg)}`,
    ratio: `${(linewise / rg).toFixed(2)}×`,
    goal: "report",
    met: undefined,
    agree: bytes.rg === bytes.ours
      ? `same ${bytes.rg} bytes`
      : `DIFFER: ${bytes.ours} bytes against rg's ${bytes.rg}`,
  });
}

/**
 * A case's first grep by fresh servers, in turns with ripgrep, as a row under `target`.
 *
 * @returns ripgrep's time and output, the last fresh server's time and result, and the lines
 *   ripgrep found
 */
async function firstGrepRow(grepCase: (typeof CASES)[number], target: string) {
  const seen: Partial<FirstGreps> = {};
  const timed = await inTurns(kernelSeries(grepCase, seen));
  const rg = { ms: timed.rg, stdout: seen.stdout! };
  const first = { ms: timed.ours, result: seen.result! };
  const expected = rgKeys(rg.stdout);
  rows.push({
    target,
    what: `${grepCase.name}, fresh server`,
    linewise: fmt(first.ms),
    other: `rg ${fmt(rg.ms)}`,
    ratio: `${(first.ms / rg.ms).toFixed(2)}×`,
    goal: "≤ 1.3×",
    met: first.ms / rg.ms <= 1.3,
    agree: compareKeys(linewiseKeys(first.result.structuredContent), expected, {
      root: KERNEL,
      rg: grepCase.rg,
    }),
  });
  return { rg, first, expected };
}

/** Small reads, one at a time, while one long grep runs in the same server. */
async function readsBesideAGrep(): Promise<void> {
  const { client } = await serve();
  const path = "kernel/sched/core.c";
  await client.call("read", { path, start_line: 1, end_line: 50 }); // warm-up
  let running = true;
  const grep = client.call("grep", {
    pattern: "\\w+_(un)?lock\\w*\\(",
    max_matches: 1_000_000,
  }).finally(() => running = false);
  const reads: number[] = [];
  while (running) {
    const start = 1 + (reads.length * 50) % 10_000;
    reads.push((await client.call("read", { path, start_line: start, end_line: start + 49 })).ms);
  }
  const { ms } = await grep;
  await client.close();
  const p99 = percentile(reads, 99);
  rows.push({
    target: "kernel: small read p99 < 5 ms beside a long grep",
    what:
      `${reads.length} reads of 50 lines, one at a time, while a grep of \`\\w+_(un)?lock\\w*\\(\` ` +
      `ran (${fmt(ms)}; p50 ${fmt(median(reads))})`,
    linewise: fmt(p99),
    other: "",
    ratio: "",
    goal: "< 5 ms",
    met: p99 < 5,
    agree: "",
  });
}

/** The same first grep on one core and on all, for linewise and ripgrep. */
async function scaling(grepCase: (typeof CASES)[number]): Promise<void> {
  const cores = availableParallelism();
  const one = ["taskset", "-c", "0"];
  const all = kernelSeries(grepCase, {});
  const single = kernelSeries(grepCase, {}, one);
  // (All four in turns: a speed-up is a ratio of two of them.)
  const { rgAll, rgOne, oursAll, oursOne } = await inTurns({
    rgAll: all.rg,
    rgOne: single.rg,
    oursAll: all.ours,
    oursOne: single.ours,
  });
  const ours = oursOne / oursAll;
  const theirs = rgOne / rgAll;
  rows.push({
    target: `every core: speed-up from 1 to ${cores} cores ≥ rg's`,
    what: `kernel, ${grepCase.name}, fresh server: linewise ${fmt(oursOne)} on one core ` +
      `(taskset -c 0), ${fmt(oursAll)} on ${cores}; rg ${fmt(rgOne)} and ${fmt(rgAll)}`,
    linewise: `${ours.toFixed(2)}×`,
    other: `rg ${theirs.toFixed(2)}×`,
    ratio: `${(ours / theirs).toFixed(2)}`,
    goal: "≥ rg's",
    met: ours >= theirs,
    agree: "",
  });
}
