// Reads against tail | head, sed and the reference server; output bounds against ripgrep.
import * as fs from "node:fs";
import * as path from "node:path";
import {
  DEEP_END,
  DEEP_START,
  FILES,
  HUGE,
  HUGE_LINE_BYTES,
  HUGE_NEEDLE,
  LOG,
  REFERENCE,
} from "./corpus.ts";
import { linewise, McpClient } from "./client.ts";
import { RG_ARGS, rgKeys } from "./agree.ts";
import {
  BINARY,
  fmt,
  log,
  median,
  peakRssMiB,
  percentile,
  QUICK,
  rows,
  RUNS,
  timeCommand,
} from "./support.ts";

export async function deepReadBench(): Promise<void> {
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

export async function smallWorkBench(): Promise<void> {
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
  // The two servers take turns in blocks of calls: read for read, each was timed while the
  // other still worked after its own answer, and both took about twice as long.
  const BLOCK = 20;
  for (let i = 0; i < CALLS + BLOCK; i += BLOCK) {
    const x = [];
    for (let j = 0; j < BLOCK; j++) {
      x.push(await a.call("read", { path: "medium.ts", start_line: 1, end_line: 50 }));
    }
    const y = [];
    for (let j = 0; j < BLOCK; j++) {
      y.push(await b.call("read_text_file", { path: medium, head: 50 }));
    }
    if (i >= BLOCK) {
      ours.push(...x.map((call) => call.ms));
      theirs.push(...y.map((call) => call.ms));
    }
    if (i === 0) {
      // (The read's first line names the file's version; the reference server has none.)
      const text = x[0].result.content[0].text.replace(/^\[version [0-9a-f]{8}\]\n/, "")
        .split("\n").slice(0, 50)
        .map((row) => row.slice(row.indexOf("\t") + 1)).join("\n");
      agree = text.trimEnd() === y[0].result.content[0].text.trimEnd() ? "same 50 lines" : "DIFFER";
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

export async function boundedBench(): Promise<void> {
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

/**
 * The 2 GB single line (issue 11: a read took 25.7 s and 6.34 GB, greps ran past their
 * budget): a read of it in a fresh server, its time and the server's peak memory, and a
 * grep for the needle at its end (which passes the whole line), with the default budgets.
 */
export async function hugeLineBench(): Promise<void> {
  log("huge line: read and grep a 2 GB single-line file");
  const serve = async () => (await McpClient.start(BINARY, ["serve", "--root", HUGE])).client;
  const reads: number[] = [];
  const peaks: number[] = [];
  const idle: number[] = [];
  let shown = "";
  for (let i = 0; i <= RUNS; i++) {
    const client = await serve();
    await new Promise((resolve) => setTimeout(resolve, 200)); // (the search thread starts)
    const before = client.memory();
    const { result, ms } = await client.call("read", { path: "line.txt" });
    const after = client.memory();
    await client.close();
    if (i === 0) continue; // a warm cache
    reads.push(ms);
    if (after) peaks.push(after.peak);
    if (before) idle.push(before.now);
    shown = /\[line cut: (\d+) code points/.exec(result.content[0].text)?.[1] ?? "no cut note";
  }
  const gb = (HUGE_LINE_BYTES / 1e9).toFixed(0);
  const read = median(reads);
  rows.push({
    target: "huge line read < 2 s",
    what: `line 1 of a ${gb} GB single-line file (${
      HUGE_LINE_BYTES.toLocaleString("en")
    } bytes), fresh server each run (slowest ${fmt(Math.max(...reads))})`,
    linewise: fmt(read),
    other: "",
    ratio: "",
    goal: "< 2 s",
    met: read < 2000,
    agree: `line cut: ${Number(shown).toLocaleString("en")} code points`,
  });
  const peak = Math.max(...peaks);
  rows.push({
    target: "huge line read peak RSS < 100 MiB",
    what: `server VmHWM after the read, the highest of ${peaks.length} runs (median ${
      median(peaks).toFixed(0)
    } MiB; the idle server ${median(idle).toFixed(0)} MiB)`,
    linewise: `${peak.toFixed(0)} MiB`,
    other: "",
    ratio: "",
    goal: "< 100 MiB",
    met: peak < 100,
    agree: "",
  });
  // Greps take seconds each: fewer runs.
  const greps: number[] = [];
  let grepPeak = 0;
  let outcome = "";
  const GREP_RUNS = QUICK ? 1 : 3;
  for (let i = 0; i < GREP_RUNS; i++) {
    const client = await serve();
    const { result, ms } = await client.call("grep", { pattern: HUGE_NEEDLE, path: "line.txt" });
    grepPeak = Math.max(grepPeak, client.memory()?.peak ?? 0);
    await client.close();
    greps.push(ms);
    const text = result.content[0].text;
    outcome = text.includes(HUGE_NEEDLE)
      ? "found at the end"
      : /stopped by the time budget/.test(text)
      ? "stopped by the time budget"
      : `DIFFER: ${text.slice(0, 80)}`;
  }
  const grep = median(greps);
  rows.push({
    target: "huge line grep within the time budget",
    what: `\`${HUGE_NEEDLE}\` at the end of the ${gb} GB line, default 10 s budget, ${GREP_RUNS} ` +
      `fresh servers (slowest ${fmt(Math.max(...greps))}; server peak ${grepPeak.toFixed(0)} MiB)`,
    linewise: fmt(grep),
    other: "",
    ratio: "",
    goal: "≤ 10 s + 10%",
    met: Math.max(...greps) <= 11_000 && !outcome.startsWith("DIFFER"),
    agree: outcome,
  });
}
