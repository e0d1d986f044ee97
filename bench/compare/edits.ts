// Large files within the edit cap: what an edit and a first read cost, against sed and the
// reference server, and how long a ping waits meanwhile in the same server (the thread that
// answers requests must not be held by one file's work). The first turn of each is untimed.
import * as fs from "node:fs";
import * as path from "node:path";
import { McpClient } from "./client.ts";
import { REFERENCE } from "./corpus.ts";
import { BINARY, CORPUS, fmt, inTurns, log, median, rows, run } from "./support.ts";

const DIR = path.join(CORPUS, "large");
const FILE = path.join(DIR, "big.txt");
/** 8 MB of `abc def` lines: 1,048,576 of them. */
const LINES = 1 << 20;
const TEXT = "abc def\n".repeat(LINES);

/** A call, with the longest wait of pings sent every 10 ms while it ran. */
async function withPings(client: McpClient, name: string, args: unknown) {
  const started = performance.now();
  let done = false;
  const calling = client.call(name, args).finally(() => done = true);
  const pings: number[] = [];
  while (!done) {
    const sent = performance.now();
    await client.request("ping", {});
    pings.push(performance.now() - sent);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const { result } = await calling;
  return { ms: performance.now() - started, longest: Math.max(...pings), result };
}

export async function largeFileBench(): Promise<void> {
  log("large files: an edit of 8 MB against sed -i, a first read against the reference server");
  fs.mkdirSync(DIR, { recursive: true });
  const waits: number[] = [];
  let agree = "";
  const timed = await inTurns({
    sed: () => {
      fs.writeFileSync(FILE, TEXT);
      return run("sed", ["-i", "s/def/xyz/g", FILE]).ms;
    },
    ours: async () => {
      fs.writeFileSync(FILE, TEXT);
      const { client } = await McpClient.start(BINARY, ["serve", "--root", DIR]);
      const edit = await withPings(client, "replace", {
        path: "big.txt",
        old_text: "def",
        new_text: "xyz",
        replace_all: true,
      });
      await client.close();
      waits.push(edit.longest);
      // (Any run that differs says so.)
      const same = fs.readFileSync(FILE, "utf8") === "abc xyz\n".repeat(LINES);
      if (agree !== "DIFFER") agree = same ? "same text as sed's" : "DIFFER";
      return edit.ms;
    },
  });
  rows.push({
    target: "large file: replace_all in 8 MB",
    what: `1,048,576 places; a ping every 10 ms waited at most ${
      fmt(median(waits.slice(1)))
    } (median of the runs' longest waits)`,
    linewise: fmt(timed.ours),
    other: `sed -i ${fmt(timed.sed)}`,
    ratio: `${(timed.ours / timed.sed).toFixed(2)}×`,
    goal: "report",
    met: undefined,
    agree,
  });

  fs.writeFileSync(FILE, TEXT);
  const reads = { ours: [] as number[], reference: [] as number[] };
  const pings = { ours: [] as number[], reference: [] as number[] };
  await inTurns({
    ours: async () => {
      const { client } = await McpClient.start(BINARY, ["serve", "--root", DIR]);
      const read = await withPings(client, "read", { path: "big.txt", start_line: 1, end_line: 2 });
      await client.close();
      reads.ours.push(read.ms);
      pings.ours.push(read.longest);
      return read.ms;
    },
    reference: async () => {
      const { client } = await McpClient.start("node", [REFERENCE, DIR]);
      const read = await withPings(client, "read_text_file", { path: FILE, head: 2 });
      await client.close();
      reads.reference.push(read.ms);
      pings.reference.push(read.longest);
      return read.ms;
    },
  });
  rows.push({
    target: "large file: first read of 2 lines of 8 MB",
    what: "a fresh server; linewise reads the file whole for its version, the reference server " +
      `its head; longest ping ${fmt(median(pings.ours.slice(1)))} against ${
        fmt(median(pings.reference.slice(1)))
      }`,
    linewise: fmt(median(reads.ours.slice(1))),
    other: `reference ${fmt(median(reads.reference.slice(1)))}`,
    ratio: `${(median(reads.ours.slice(1)) / median(reads.reference.slice(1))).toFixed(2)}×`,
    goal: "report",
    met: undefined,
    agree: "",
  });
  fs.rmSync(DIR, { recursive: true, force: true });
}
