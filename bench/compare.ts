// Side-by-side comparison of the linewise binary with ripgrep, tail | head, sed and the
// reference MCP filesystem server, in one run, on corpora built locally:
//
//   deno task bench:compare            (= deno run -A bench/compare.ts)
//   deno run -A bench/compare.ts --quick   fewer runs, for a smoke test
//
// Corpora go to bench/.corpus/ (gitignored): a tree of real JavaScript/TypeScript packages
// installed from npm plus a copy of this repository's node_modules (about 260 MB, 27,000
// files), a generated log of about 1.3 GB, a 5 MB single-line file, a 1 MB source file and a
// file for a catastrophic pattern. Every measurement runs with a warm cache (one untimed run
// first), several times; the table shows medians and ratios and is written to
// bench/RESULTS.md. Outputs are checked to agree (the same matching lines as ripgrep, the
// same lines as tail | head); a disagreement is printed and marked in the table.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import process from "node:process";
import { loadBench } from "./_load.ts";
import { linewise, McpClient } from "./_mcp_client.ts";
import {
  BINARY,
  CORPUS,
  fmt,
  log,
  median,
  notes,
  peakRssMiB,
  percentile,
  QUICK,
  REPO,
  rows,
  RUNS,
  timeCommand,
} from "./_support.ts";

const TREE = path.join(CORPUS, "tree");
const FILES = path.join(CORPUS, "files");
const LOG = path.join(FILES, "big.log");
const REFERENCE = path.join(
  REPO,
  "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js",
);

/** Packages installed into the tree (the versions npm resolves on the day of the build). */
const NPM_PACKAGES = [
  "typescript@5",
  "rxjs",
  "lodash",
  "date-fns",
  "three",
  "@babel/core",
  "@babel/preset-env",
  "eslint",
  "webpack",
  "prettier",
  "@mui/material",
  "react-dom",
];
/** Native binaries in this repository's node_modules are not source code; left out of the tree. */
const NOT_SOURCE = new Set(["bun", "@deno", "@oven", "deno", ".bin"]);

const LOG_LINES = 5_200_000;
const DEEP_START = 5_000_001;
const DEEP_END = 5_000_050;

// ---------------------------------------------------------------------------------------
// Helpers

// ---------------------------------------------------------------------------------------
// Corpora

function ensureTools(): void {
  const rg = spawnSync("rg", ["--version"], { encoding: "utf8" });
  if (rg.error || rg.status !== 0) {
    log(
      "ripgrep (rg) is not installed. Install it with:\n  apt-get install ripgrep\n" +
        "(or `brew install ripgrep`, or `cargo install ripgrep`), then run this script again.",
    );
    process.exit(1);
  }
  if (!fs.existsSync(REFERENCE)) {
    log(`the reference server is missing at ${REFERENCE}; run \`npm install\` first`);
    process.exit(1);
  }
  log("building dist/linewise");
  const deno = path.join(REPO, "node_modules/.bin/deno");
  const built = spawnSync(deno, ["run", "-A", "scripts/compile.ts"], {
    cwd: REPO,
    stdio: "inherit",
    env: { ...process.env, PATH: `${path.join(REPO, "node_modules/.bin")}:${process.env.PATH}` },
  });
  if (built.status !== 0) process.exit(1);
}

function buildTree(): void {
  const ready = path.join(TREE, ".ready");
  if (fs.existsSync(ready)) return;
  log("building the tree: npm install into bench/.corpus/npm, then copying");
  const npm = path.join(CORPUS, "npm");
  fs.mkdirSync(npm, { recursive: true });
  if (!fs.existsSync(path.join(npm, "package.json"))) {
    fs.writeFileSync(path.join(npm, "package.json"), '{"name":"corpus","private":true}\n');
  }
  const installed = spawnSync(
    "npm",
    ["install", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error", ...NPM_PACKAGES],
    { cwd: npm, stdio: "inherit" },
  );
  if (installed.status !== 0) throw new Error("npm install failed");
  fs.rmSync(TREE, { recursive: true, force: true });
  fs.cpSync(path.join(npm, "node_modules"), path.join(TREE, "npm"), { recursive: true });
  for (const name of fs.readdirSync(path.join(REPO, "node_modules"))) {
    if (NOT_SOURCE.has(name) || name.startsWith(".")) continue;
    fs.cpSync(path.join(REPO, "node_modules", name), path.join(TREE, "repo", name), {
      recursive: true,
      verbatimSymlinks: true,
    });
  }
  fs.writeFileSync(ready, "");
}

function buildFiles(): void {
  fs.mkdirSync(FILES, { recursive: true });
  if (!fs.existsSync(LOG) || fs.statSync(LOG).size < 1_000_000_000) {
    log(`generating ${LOG} (${LOG_LINES} lines)`);
    const fd = fs.openSync(LOG + ".tmp", "w");
    const levels = ["INFO", "DEBUG", "WARN", "INFO", "ERROR"];
    const padding = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod ";
    let chunk = "";
    for (let n = 1; n <= LOG_LINES; n++) {
      const ms = 1_767_225_600_000 + n * 37;
      chunk += `${new Date(ms).toISOString()} ${levels[n % 5]} seq=${n} worker=${n % 17} ` +
        `request=${(n * 2654435761) % 4294967296} path=/api/v1/items/${n % 9973} ` +
        `${padding.slice(0, 40 + (n % 31))}${padding}\n`;
      if (chunk.length > 4_000_000) {
        fs.writeSync(fd, chunk);
        chunk = "";
      }
    }
    fs.writeSync(fd, chunk);
    fs.closeSync(fd);
    fs.renameSync(LOG + ".tmp", LOG);
  }
  const minified = path.join(FILES, "minified.js");
  if (!fs.existsSync(minified)) {
    let text = "";
    for (let i = 0; text.length < 5_000_000; i++) {
      text += `var a${i}=function(b){return b*${i}+1};`;
      if (i === 70_000) text += "window.__NEEDLE__=1;";
    }
    fs.writeFileSync(minified, text + "\n");
  }
  const medium = path.join(FILES, "medium.ts");
  if (!fs.existsSync(medium)) {
    let text = "";
    for (let i = 1; text.length < 1_000_000; i++) {
      text += `export function item${i}(value: number): number {\n  return value * ${i};\n}\n`;
    }
    fs.writeFileSync(medium, text);
  }
  const catastrophic = path.join(FILES, "catastrophic.txt");
  if (!fs.existsSync(catastrophic)) {
    fs.writeFileSync(catastrophic, "header\n" + "a".repeat(50_000) + "b\nfooter aaa\n");
  }
}

// ---------------------------------------------------------------------------------------
// Measurements

/** Parses `rg -n --null` output into "path:line" keys. */
function rgKeys(stdout: Buffer): Set<string> {
  const keys = new Set<string>();
  for (const line of stdout.toString("utf8").split("\n")) {
    const nul = line.indexOf("\0");
    if (nul === -1) continue;
    const file = line.slice(0, nul).replace(/^\.\//, "");
    keys.add(`${file}:${Number.parseInt(line.slice(nul + 1), 10)}`);
  }
  return keys;
}

function linewiseKeys(structured: Record<string, unknown> | undefined): Set<string> {
  const keys = new Set<string>();
  const files = (structured?.files ?? []) as { path: string; lines: number[] }[];
  for (const file of files) for (const line of file.lines) keys.add(`${file.path}:${line}`);
  return keys;
}

function compareKeys(a: Set<string>, b: Set<string>): string {
  const onlyA = [...a].filter((k) => !b.has(k));
  const onlyB = [...b].filter((k) => !a.has(k));
  if (onlyA.length === 0 && onlyB.length === 0) return `same ${a.size} lines`;
  return `DIFFER: ${onlyA.length} only linewise (${onlyA.slice(0, 3).join(", ")}), ` +
    `${onlyB.length} only rg (${onlyB.slice(0, 3).join(", ")})`;
}

const RG_ARGS = [
  "-n",
  "--null",
  "--no-heading",
  "--with-filename",
  "--no-require-git",
  "--no-ignore-parent",
];

interface GrepCase {
  name: string;
  args: Record<string, unknown>;
  rg: string[];
}

const GREP_CASES: GrepCase[] = [
  {
    name: "regex `createElement\\(`",
    args: { pattern: "createElement\\(" },
    rg: ["createElement\\("],
  },
  {
    name: "literal `hasOwnProperty.call(`",
    args: { pattern: "hasOwnProperty.call(", literal: true },
    rg: ["-F", "hasOwnProperty.call("],
  },
  {
    name: "regex `function \\w+Sync\\(` ",
    args: { pattern: "function \\w+Sync\\(" },
    rg: ["function \\w+Sync\\("],
  },
  {
    name: "alternatives `TODO|FIXME`",
    args: { pattern: "TODO|FIXME" },
    rg: ["TODO|FIXME"],
  },
  {
    name: "regex `createElement\\(` ignoring case",
    args: { pattern: "createElement\\(", ignore_case: true },
    rg: ["-i", "createElement\\("],
  },
];

async function grepBench(): Promise<void> {
  log("grep: ripgrep vs linewise over the tree");
  const tree = spawnSync("du", ["-sm", TREE], { encoding: "utf8" }).stdout.split("\t")[0];
  const files = spawnSync("sh", ["-c", `find ${TREE} -type f | wc -l`], { encoding: "utf8" })
    .stdout.trim();
  notes.push(
    `Tree: ${tree} MB in ${files} files (${NPM_PACKAGES.length} npm packages with their ` +
      "dependencies, plus this repository's node_modules without native binaries).",
  );
  for (const grepCase of GREP_CASES) {
    const rg = timeCommand("rg", [...RG_ARGS, ...grepCase.rg, "."], TREE);
    const rg1 = timeCommand("rg", [...RG_ARGS, "-j1", ...grepCase.rg, "."], TREE);
    const expected = rgKeys(rg.stdout);
    const args = { ...grepCase.args, max_matches: 1_000_000 };
    // First search: a fresh server each time.
    const first: number[] = [];
    const repeated: number[] = [];
    let agree = "";
    let agreeRepeated = "";
    let memory = { peak: 0, now: 0 };
    let indexing = 0;
    for (let i = 0; i <= RUNS; i++) {
      const { client } = await linewise(TREE);
      const { result, ms } = await client.call("grep", args);
      if (i > 0) first.push(ms); // the first session only warms the cache
      if (i === RUNS) {
        agree = compareKeys(linewiseKeys(result.structuredContent), expected);
        indexing = await client.idle(); // the index is built in the background
        let last = result;
        for (let j = 0; j < RUNS; j++) {
          const call = await client.call("grep", args);
          repeated.push(call.ms);
          last = call.result;
        }
        agreeRepeated = compareKeys(linewiseKeys(last.structuredContent), expected);
        memory = client.memory() ?? memory;
      }
      await client.close();
    }
    const f = median(first);
    const r = median(repeated);
    rows.push({
      target: "first grep ≤ 1.5× rg",
      what: `${grepCase.name}, fresh server (rg -j1: ${fmt(rg1.ms)})`,
      linewise: fmt(f),
      other: `rg ${fmt(rg.ms)}`,
      ratio: `${(f / rg.ms).toFixed(2)}×`,
      goal: "≤ 1.5×",
      met: f / rg.ms <= 1.5,
      agree,
    });
    rows.push({
      target: "repeated grep ≥ 5× faster than rg",
      what: `${grepCase.name}, same session after the index was built in the background (${
        (indexing / 1000).toFixed(1)
      } s); server RSS ${memory.now.toFixed(0)} MiB, peak ${memory.peak.toFixed(0)} MiB`,
      linewise: fmt(r),
      other: `rg ${fmt(rg.ms)}`,
      ratio: `${(rg.ms / r).toFixed(2)}× faster`,
      goal: "≥ 5× faster",
      met: rg.ms / r >= 5,
      agree: agreeRepeated,
    });
  }
  // New patterns in a warm session: the cache must not depend on the pattern.
  {
    const { client } = await linewise(TREE);
    await client.call("grep", { pattern: "warm-up: a pattern nothing matches", literal: true });
    await client.idle(); // the index is built in the background
    const ours: number[] = [];
    const theirs: number[] = [];
    let agree = 0;
    for (const pattern of NEW_PATTERNS) {
      const rg = timeCommand("rg", [...RG_ARGS, pattern, "."], TREE);
      const { result, ms } = await client.call("grep", { pattern, max_matches: 1_000_000 });
      ours.push(ms);
      theirs.push(rg.ms);
      if (
        compareKeys(linewiseKeys(result.structuredContent), rgKeys(rg.stdout)).startsWith("same")
      ) {
        agree++;
      }
    }
    await client.close();
    const m = median(ours);
    const r = median(theirs);
    rows.push({
      target: "repeated grep ≥ 5× faster than rg",
      what: `${NEW_PATTERNS.length} new regexes in one warm session, index built (${
        NEW_PATTERNS.map((p) => "`" + p + "`").join(", ")
      })`,
      linewise: fmt(m),
      other: `rg ${fmt(r)}`,
      ratio: `${(r / m).toFixed(2)}× faster`,
      goal: "≥ 5× faster",
      met: r / m >= 5,
      agree: `${agree} of ${NEW_PATTERNS.length} same as rg`,
    });
  }
}

const NEW_PATTERNS = [
  "Symbol\\.asyncIterator",
  "new Promise\\(",
  "Object\\.defineProperty\\(exports",
  "console\\.warn\\(",
  "throw new TypeError\\(",
];

async function deepReadBench(): Promise<void> {
  log("deep read: tail | head and sed vs linewise on the log");
  const count = DEEP_END - DEEP_START + 1;
  const tail = timeCommand("sh", ["-c", `tail -n +${DEEP_START} ${LOG} | head -n ${count}`]);
  const sed = timeCommand("sed", ["-n", `${DEEP_START},${DEEP_END}p;${DEEP_END}q`, LOG]);
  const tailRss = peakRssMiB(`tail -n +${DEEP_START} ${LOG} | head -n ${count}`);
  const expected = tail.stdout.toString("utf8");
  const first: number[] = [];
  const second: number[] = [];
  let peak = 0;
  let agree = "";
  for (let i = 0; i <= RUNS; i++) {
    const { client } = await linewise(FILES);
    const read = await client.call("read", {
      path: "big.log",
      start_line: DEEP_START,
      end_line: DEEP_END,
    });
    const again = await client.call("read", {
      path: "big.log",
      start_line: DEEP_START + 12_345,
      end_line: DEEP_START + 12_345 + count - 1,
    });
    if (i > 0) {
      first.push(read.ms);
      second.push(again.ms);
    }
    peak = Math.max(peak, client.memory()?.peak ?? 0);
    if (i === RUNS) {
      const text = read.result.content[0].text.split("\n").slice(0, count)
        .map((row) => row.slice(row.indexOf("\t") + 1)).join("\n") + "\n";
      agree = text === expected ? `same ${count} lines` : "DIFFER";
    }
    await client.close();
  }
  const f = median(first);
  rows.push({
    target: "deep read ≤ 1.0× tail \\| head",
    what: `lines ${DEEP_START}-${DEEP_END} of ${(fs.statSync(LOG).size / 1e9).toFixed(2)} GB ` +
      `(sed ${fmt(sed.ms)}, ${(sed.ms / tail.ms).toFixed(2)}× tail \\| head)`,
    linewise: fmt(f),
    other: `tail \\| head ${fmt(tail.ms)}`,
    ratio: `${(f / tail.ms).toFixed(2)}×`,
    goal: "≤ 1.0×",
    met: f / tail.ms <= 1.0,
    agree,
  });
  rows.push({
    target: "deep read peak RSS < 64 MB",
    what: "server process VmHWM after both reads",
    linewise: `${peak.toFixed(0)} MiB`,
    other: tailRss === undefined ? "" : `tail \\| head ${tailRss.toFixed(0)} MiB`,
    ratio: "",
    goal: "< 64 MB",
    met: peak * 1.048576 < 64,
    agree: "",
  });
  const s = median(second);
  rows.push({
    target: "second deep read < 5 ms",
    what: `lines ${DEEP_START + 12_345}-… in the same session`,
    linewise: fmt(s),
    other: "",
    ratio: "",
    goal: "< 5 ms",
    met: s < 5,
    agree: "",
  });
}

async function smallWorkBench(): Promise<void> {
  log("small work: cold start and per-call latency vs the reference server");
  const starts = { linewise: [] as number[], reference: [] as number[] };
  for (let i = 0; i <= RUNS; i++) {
    const a = await McpClient.start(BINARY, ["serve", "--root", FILES]);
    const b = await McpClient.start("node", [REFERENCE, FILES]);
    if (i > 0) {
      starts.linewise.push(a.ms);
      starts.reference.push(b.ms);
    }
    await a.client.close();
    await b.client.close();
  }
  const ls = median(starts.linewise);
  const rs = median(starts.reference);
  rows.push({
    target: "cold start (spawn → initialize response)",
    what: "median of fresh processes",
    linewise: fmt(ls),
    other: `reference ${fmt(rs)}`,
    ratio: `${(ls / rs).toFixed(2)}×`,
    goal: "report",
    met: undefined,
    agree: "",
  });
  const CALLS = QUICK ? 100 : 500;
  const a = (await McpClient.start(BINARY, ["serve", "--root", FILES])).client;
  const b = (await McpClient.start("node", [REFERENCE, FILES])).client;
  const ours: number[] = [];
  const theirs: number[] = [];
  let agree = "";
  const medium = path.join(FILES, "medium.ts");
  for (let i = 0; i < CALLS + 20; i++) {
    const x = await a.call("read", { path: "medium.ts", start_line: 1, end_line: 50 });
    const y = await b.call("read_text_file", { path: medium, head: 50 });
    if (i >= 20) {
      ours.push(x.ms);
      theirs.push(y.ms);
    }
    if (i === 0) {
      const text = x.result.content[0].text.split("\n").slice(0, 50)
        .map((row) => row.slice(row.indexOf("\t") + 1)).join("\n");
      agree = text.trimEnd() === y.result.content[0].text.trimEnd() ? "same 50 lines" : "DIFFER";
    }
  }
  const deep: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    deep.push(
      (await a.call("read", { path: "medium.ts", start_line: 20_000, end_line: 20_049 })).ms,
    );
  }
  await a.close();
  await b.close();
  const p50 = median(ours);
  rows.push({
    target: "small read p50 ≤ 0.3 ms",
    what: `50 lines of a 1 MB file over MCP, ${CALLS} calls (p99 ${fmt(percentile(ours, 99))}; ` +
      `reference p99 ${fmt(percentile(theirs, 99))})`,
    linewise: fmt(p50),
    other: `reference ${fmt(median(theirs))}`,
    ratio: `${(p50 / median(theirs)).toFixed(2)}×`,
    goal: "≤ 0.3 ms",
    met: p50 <= 0.3,
    agree,
  });
  rows.push({
    target: "small read p50 ≤ 0.3 ms",
    what: `lines 20000-20049 of the same 1 MB file (p99 ${fmt(percentile(deep, 99))})`,
    linewise: fmt(median(deep)),
    other: "",
    ratio: "",
    goal: "≤ 0.3 ms",
    met: median(deep) <= 0.3,
    agree: "",
  });
}

async function boundedBench(): Promise<void> {
  log("bounded output and catastrophic patterns");
  const { client } = await linewise(FILES);
  // A match on a 5 MB minified line shows a window, not the line.
  const rg = timeCommand("rg", [...RG_ARGS, "__NEEDLE__", "minified.js"], FILES);
  const times: number[] = [];
  let size = 0;
  for (let i = 0; i < RUNS; i++) {
    const { result, ms } = await client.call("grep", {
      pattern: "__NEEDLE__",
      path: "minified.js",
    });
    times.push(ms);
    size = result.content[0].text.length;
  }
  rows.push({
    target: "bounded output",
    what: "match on a 5 MB single-line file: characters of output",
    linewise: `${size.toLocaleString("en")} chars, ${fmt(median(times))}`,
    other: `rg ${rg.stdout.length.toLocaleString("en")} bytes, ${fmt(rg.ms)}`,
    ratio: `${(size / rg.stdout.length).toFixed(4)}×`,
    goal: "a window",
    met: size < 10_000,
    agree: "",
  });
  // (a+)+$ on 50,000 a's then b: no match, answered by the linear engine, quickly.
  const bad = timeCommand("rg", [...RG_ARGS, "(a+)+$", "catastrophic.txt"], FILES);
  const started = performance.now();
  const { result } = await client.call("grep", { pattern: "(a+)+$", path: "catastrophic.txt" });
  const ms = performance.now() - started;
  const text = result.content[0].text;
  const rgLines = [...rgKeys(bad.stdout)].map((k) => k.split(":").pop()).join(",");
  const ourLines = ((result.structuredContent?.files ?? []) as { lines: number[] }[])
    .flatMap((f) => f.lines).join(",");
  rows.push({
    target: "catastrophic regex never hangs",
    what: "`(a+)+$` on 50,000 a + b (engine: " +
      `${result.structuredContent?.engine}; lines: ${ourLines || "none"})`,
    linewise: fmt(ms),
    other: `rg ${fmt(bad.ms)}`,
    ratio: `${(ms / bad.ms).toFixed(2)}×`,
    goal: "correct, < time budget",
    met: ourLines === rgLines && ms < 10_000,
    agree: ourLines === rgLines
      ? `same lines (${rgLines || "none"})`
      : `DIFFER: ${text.slice(0, 80)}`,
  });
  await client.close();
}

function writeResults(): void {
  const version = (cmd: string, args: string[]) =>
    spawnSync(cmd, args, { encoding: "utf8" }).stdout.split("\n")[0].trim();
  const lines = [
    "# linewise side by side",
    "",
    "Written by `deno task bench:compare` (bench/compare.ts) in one run; do not edit by hand.",
    `Medians of ${RUNS} runs after one untimed run (warm cache) on ${
      spawnSync("nproc", [], { encoding: "utf8" }).stdout.trim()
    } cores; ${new Date().toISOString().slice(0, 10)}.`,
    "",
    `- linewise: \`dist/linewise\` (${
      version(BINARY, ["--version"])
    }, built with bun build --compile)`,
    `- ripgrep: ${
      version("rg", ["--version"])
    }; reference: @modelcontextprotocol/server-filesystem on node ${
      version("node", ["--version"])
    }`,
    "- MCP timings are round trips through a raw JSON-lines client (no SDK).",
    ...notes.map((n) => `- ${n}`),
    "",
    "| target | measurement | linewise | compared with | ratio | goal | met | outputs |",
    "|---|---|---|---|---|---|---|---|",
    ...rows.map((r) =>
      `| ${r.target} | ${r.what} | ${r.linewise} | ${r.other} | ${r.ratio} | ${r.goal} | ${
        r.met === undefined ? "–" : r.met ? "yes" : "**no**"
      } | ${r.agree} |`
    ),
    "",
  ];
  fs.writeFileSync(path.join(REPO, "bench/RESULTS.md"), lines.join("\n"));
  log(lines.join("\n"));
}

ensureTools();
buildTree();
buildFiles();
const only = process.argv.slice(2).filter((a) => !a.startsWith("--"));
const benches: Record<string, () => Promise<void>> = {
  small: smallWorkBench,
  read: deepReadBench,
  grep: grepBench,
  bounded: boundedBench,
  load: loadBench,
};
for (const [name, bench] of Object.entries(benches)) {
  if (only.length === 0 || only.includes(name)) await bench();
}
writeResults();
