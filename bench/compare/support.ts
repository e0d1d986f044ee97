// What every bench script shares: where things are, timing and statistics, and the table
// of results that bench/compare/main.ts writes to bench/RESULTS.md.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import process from "node:process";

export const REPO = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../..");
export const CORPUS = path.join(REPO, "bench/.corpus");
export const BINARY = path.join(REPO, "dist/linewise");
export const QUICK = process.argv.includes("--quick");
export const RUNS = QUICK ? 3 : 7;

export function log(message: string): void {
  process.stderr.write(message + "\n");
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export function run(command: string, args: string[], options: { cwd?: string } = {}) {
  const started = performance.now();
  const result = spawnSync(command, args, {
    cwd: options.cwd,
    maxBuffer: 1024 * 1024 * 1024,
    encoding: "buffer",
  });
  const ms = performance.now() - started;
  if (result.error) throw result.error;
  return { ms, stdout: result.stdout as Buffer, status: result.status };
}

/**
 * Times several things in turns: a turn runs each once, the first turn untimed (warm cache),
 * then {@linkcode RUNS} timed turns. On a shared machine the speed drifts over minutes:
 * medians taken one after the other compare different minutes, taken in turns the same.
 *
 * @param series what to time: each call runs it once and gives its milliseconds
 * @returns each one's median
 */
export async function inTurns<K extends string>(
  series: Record<K, () => number | Promise<number>>,
): Promise<Record<K, number>> {
  const names = Object.keys(series) as K[];
  const times = new Map<K, number[]>(names.map((name) => [name, []]));
  for (let turn = 0; turn <= RUNS; turn++) {
    for (const name of names) {
      const ms = await series[name]();
      if (turn > 0) times.get(name)!.push(ms);
    }
  }
  return Object.fromEntries(names.map((name) => [name, median(times.get(name)!)])) as Record<
    K,
    number
  >;
}

/** Runs a command once untimed (warm cache), then `runs` times; returns the median and last output. */
export function timeCommand(command: string, args: string[], cwd?: string) {
  run(command, args, { cwd });
  const times: number[] = [];
  let stdout: Buffer = Buffer.alloc(0);
  for (let i = 0; i < RUNS; i++) {
    const result = run(command, args, { cwd });
    times.push(result.ms);
    stdout = result.stdout;
  }
  return { ms: median(times), stdout };
}

/** Peak resident memory of a command, in MiB, by GNU time. */
export function peakRssMiB(command: string): number | undefined {
  if (!fs.existsSync("/usr/bin/time")) return undefined;
  const result = spawnSync("/usr/bin/time", ["-f", "%M", "sh", "-c", command + " >/dev/null"], {
    encoding: "utf8",
  });
  const kb = Number(result.stderr.trim().split("\n").pop());
  return Number.isFinite(kb) ? kb / 1024 : undefined;
}

// ---------------------------------------------------------------------------------------
// The table

export interface Row {
  target: string;
  what: string;
  linewise: string;
  other: string;
  ratio: string;
  goal: string;
  met: boolean | undefined;
  agree: string;
}

export const rows: Row[] = [];
export const notes: string[] = [];

export function fmt(ms: number): string {
  return ms < 10 ? `${ms.toFixed(2)} ms` : `${ms.toFixed(0)} ms`;
}
