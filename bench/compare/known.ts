// The first grep of a new server on a tree a server saw before: the index it saved in the
// cache folder (bench/.corpus/cache, as $XDG_CACHE_HOME) is loaded and checked against the
// tree before the grep is answered. Timed sent at once after initialize, and sent 1 s after
// it, as a host's first tool call comes after the model's first turn. Every other server of
// the bench runs with --no-cache, as on a tree never seen.
import * as fs from "node:fs";
import * as path from "node:path";
import process from "node:process";
import type { McpClient } from "./client.ts";
import { agreeWithRg } from "./agree.ts";
import { CORPUS, fmt, log, median, type Row, rows, RUNS } from "./support.ts";

/** The cache folder of every server of the bench. */
export const CACHE_HOME = path.join(CORPUS, "cache");
process.env.XDG_CACHE_HOME = CACHE_HOME;
const CACHE_DIR = path.join(CACHE_HOME, "linewise");

/** How long a new server is left alone before its first grep, in the later of the timings. */
export const SETTLE_MS = 1000;

type Start = (cache: boolean) => Promise<{ client: McpClient }>;
type Call = Awaited<ReturnType<McpClient["call"]>>;

/**
 * Makes a server build and save the index of its tree: a grep, the index built, and the
 * cache file written (and left alone for a while after).
 *
 * @param start starts a server, with or without the cache
 * @param args a grep to make
 * @returns how long until the cache file was written, in ms
 */
async function saveIndexOf(start: Start, args: Record<string, unknown>): Promise<number> {
  fs.rmSync(CACHE_DIR, { recursive: true, force: true });
  const started = performance.now();
  const { client } = await start(true);
  try {
    await client.call("grep", args);
    await client.idle();
    const cacheFile = () => fs.existsSync(CACHE_DIR) && fs.readdirSync(CACHE_DIR).length > 0;
    while (!cacheFile()) {
      if (performance.now() - started > 120_000) throw new Error("no cache file was written");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const saved = performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const bytes = fs.readdirSync(CACHE_DIR).map((name) =>
      fs.statSync(path.join(CACHE_DIR, name)).size
    );
    log(
      `  index saved after ${(saved / 1000).toFixed(1)} s: ${
        bytes.map((b) => `${(b / 1e6).toFixed(1)} MB`)
      }`,
    );
    return saved;
  } finally {
    await client.close();
  }
}

/** The bytes of the cache file(s) written. */
function cacheBytes(): number {
  return fs.readdirSync(CACHE_DIR).reduce(
    (sum, name) => sum + fs.statSync(path.join(CACHE_DIR, name)).size,
    0,
  );
}

/**
 * Median first grep of new servers that start from the saved index, sent at once and sent
 * {@linkcode SETTLE_MS} after initialize (after one untimed pair).
 *
 * @param start starts a server, with or without the cache
 * @param args the grep
 * @returns both medians, and the last answer of each
 */
async function knownTreeGreps(
  start: Start,
  args: Record<string, unknown>,
): Promise<
  { atOnce: number; settled: number; atOnceResult: Call["result"]; settledResult: Call["result"] }
> {
  const atOnce: number[] = [];
  const settled: number[] = [];
  let atOnceResult: Call["result"] | undefined;
  let settledResult: Call["result"] | undefined;
  for (let i = 0; i <= RUNS; i++) {
    for (const wait of [0, SETTLE_MS]) {
      const { client } = await start(true);
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const call = await client.call("grep", args);
      await client.close();
      if (i === 0) continue;
      (wait > 0 ? settled : atOnce).push(call.ms);
      if (wait > 0) settledResult = call.result;
      else atOnceResult = call.result;
    }
  }
  return {
    atOnce: median(atOnce),
    settled: median(settled),
    atOnceResult: atOnceResult!,
    settledResult: settledResult!,
  };
}

/**
 * The row of a known tree's first grep: the grep sent {@linkcode SETTLE_MS} after initialize
 * against ripgrep, with the grep sent at once beside it.
 *
 * @param name what was grepped
 * @param known the timings ({@linkcode knownTreeGreps})
 * @param rg ripgrep's time
 * @param agree how an answer compares with ripgrep's
 * @param saved how long the first server took to save the index
 * @param bytes the cache file's size
 * @returns the row
 */
function knownRow(
  name: string,
  known: Awaited<ReturnType<typeof knownTreeGreps>>,
  rg: { ms: number },
  agree: (result: Call["result"]) => string,
  saved: number,
  bytes: number,
): Row {
  const atOnce = agree(known.atOnceResult);
  const settled = agree(known.settledResult);
  return {
    target: "known tree: first grep ≤ 0.7× rg",
    what:
      `${name}, a new server on a tree a server saw (its index saved after ${
        (saved / 1000).toFixed(1)
      } s, ${(bytes / 1e6).toFixed(1)} MB), grep sent ${SETTLE_MS / 1000} s after initialize; ` +
      `sent at once: ${fmt(known.atOnce)} (${(known.atOnce / rg.ms).toFixed(2)}×)`,
    linewise: fmt(known.settled),
    other: `rg ${fmt(rg.ms)}`,
    ratio: `${(known.settled / rg.ms).toFixed(2)}×`,
    goal: "≤ 0.7×",
    met: known.settled / rg.ms <= 0.7,
    agree: atOnce === settled ? settled : `${settled}; at once: ${atOnce}`,
  };
}

/**
 * The known-tree rows of grep cases: a server saves the index (with the first case's grep),
 * then new servers make each grep, against ripgrep's time and output.
 *
 * @param label what the rows' text starts with
 * @param start starts a server, with or without the cache
 * @param root the tree, where ripgrep ran
 * @param cases the greps
 * @param rg ripgrep's run of each
 */
export async function knownTreeRows(
  label: string,
  start: Start,
  root: string,
  cases: readonly { name: string; args: Record<string, unknown>; rg: readonly string[] }[],
  rg: readonly { ms: number; stdout: Buffer }[],
): Promise<void> {
  const args = (i: number) => ({ ...cases[i].args, max_matches: 1_000_000 });
  const saved = await saveIndexOf(start, args(0));
  const bytes = cacheBytes();
  for (const [i, grepCase] of cases.entries()) {
    const known = await knownTreeGreps(start, args(i));
    const agreeing = (result: Call["result"]) =>
      agreeWithRg(result.structuredContent, rg[i].stdout, { root, rg: grepCase.rg });
    rows.push(knownRow(label + grepCase.name, known, rg[i], agreeing, saved, bytes));
  }
}
