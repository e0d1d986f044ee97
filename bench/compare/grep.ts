// First and repeated greps against ripgrep over the npm tree.
import type { Buffer } from "node:buffer";
import { spawnSync } from "node:child_process";
import { NPM_PACKAGES, TREE } from "./corpus.ts";
import { linewise, type McpClient } from "./client.ts";
import {
  fmt,
  inTurns,
  log,
  median,
  notes,
  rows,
  run as runCommand,
  RUNS,
  timeCommand,
} from "./support.ts";
import { knownTreeRows } from "./known.ts";
import { compareKeys, linewiseKeys, RG_ARGS, rgKeys } from "./agree.ts";
import { settings } from "../../src/tools/options.ts";

/** The output budget a server starts with when its host sets none. */
const DEFAULTS = settings({});

// ---------------------------------------------------------------------------------------
// Measurements

export interface GrepCase {
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

export async function grepBench(): Promise<void> {
  log("grep: ripgrep vs linewise over the tree");
  notes.push(
    `Tree: ${sizeOf(TREE)} (${NPM_PACKAGES.length} npm packages with their ` +
      "dependencies, plus this repository's node_modules without native binaries).",
  );
  const rgTimes = await firstAndRepeatedRows(TREE, GREP_CASES, "");
  await knownTreeRows("", (cache) => linewise(TREE, [], cache), TREE, GREP_CASES, rgTimes);
  await newPatternsRow(TREE, "");
  await newPatternsRow(TREE, "", true);
  await newPatternsRow(TREE, "regexes around the literals: ", false, NEW_REGEXES);
}

/** A tree's size and files, as the notes give them: "261 MB in 26993 files". */
export function sizeOf(root: string): string {
  const megabytes = spawnSync("du", ["-sm", root], { encoding: "utf8" }).stdout.split("\t")[0];
  const files = spawnSync("sh", ["-c", `find ${root} -type f | wc -l`], { encoding: "utf8" })
    .stdout.trim();
  return `${megabytes} MB in ${files} files`;
}

/** What a first grep of a fresh server found, and what ripgrep printed, in the last turn. */
export interface FirstGreps {
  result: Awaited<ReturnType<McpClient["call"]>>["result"];
  stdout: Buffer;
}

/**
 * The two series {@linkcode inTurns} times for a first grep: ripgrep's (`rg`, its whole
 * command line) and a fresh server's, keeping the last outputs in `seen`.
 */
export function firstGrepSeries(
  start: () => Promise<{ client: McpClient }>,
  rg: string[],
  cwd: string,
  args: Record<string, unknown>,
  seen: Partial<FirstGreps>,
): { rg: () => number; ours: () => Promise<number> } {
  return {
    rg: () => {
      const ran = runCommand(rg[0], rg.slice(1), { cwd });
      seen.stdout = ran.stdout;
      return ran.ms;
    },
    ours: async () => {
      const { client } = await start();
      const call = await client.call("grep", args);
      seen.result = call.result;
      await client.close();
      return call.ms;
    },
  };
}

/**
 * The first grep of fresh servers and the same grep repeated once the index is built, each
 * case against ripgrep, as rows (their targets after `label`).
 *
 * @returns ripgrep's times and outputs, by case
 */
export async function firstAndRepeatedRows(
  root: string,
  cases: GrepCase[],
  label: string,
): Promise<Array<ReturnType<typeof timeCommand>>> {
  const rgTimes: Array<ReturnType<typeof timeCommand>> = [];
  for (const grepCase of cases) {
    const rg1 = timeCommand("rg", [...RG_ARGS, "-j1", ...grepCase.rg, "."], root);
    const args = { ...grepCase.args, max_matches: 1_000_000 };
    const run = { root, rg: grepCase.rg };
    // First search: a fresh server each time, in turns with ripgrep.
    const seen: Partial<FirstGreps> = {};
    const rgArgv = ["rg", ...RG_ARGS, ...grepCase.rg, "."];
    const timed = await inTurns(firstGrepSeries(() => linewise(root), rgArgv, root, args, seen));
    const stdout = seen.stdout!;
    const found = seen.result!.structuredContent;
    const rg = { ms: timed.rg, stdout };
    rgTimes.push(rg);
    const expected = rgKeys(stdout);
    const agree = compareKeys(linewiseKeys(found), expected, run);
    // The same grep repeated in one session, once the index is built in the background.
    const { client } = await linewise(root);
    await client.call("grep", args);
    const indexing = await client.idle();
    const repeated: number[] = [];
    let last = found;
    for (let j = 0; j < RUNS; j++) {
      const call = await client.call("grep", args);
      repeated.push(call.ms);
      last = call.result.structuredContent;
    }
    const agreeRepeated = compareKeys(linewiseKeys(last), expected, run);
    const memory = client.memory() ?? { peak: 0, now: 0 };
    await client.close();
    const f = timed.ours;
    const r = median(repeated);
    rows.push({
      target: `${label}first grep ≤ 1.5× rg`,
      what: `${grepCase.name}, fresh server (rg -j1: ${fmt(rg1.ms)})`,
      linewise: fmt(f),
      other: `rg ${fmt(rg.ms)}`,
      ratio: `${(f / rg.ms).toFixed(2)}×`,
      goal: "≤ 1.5×",
      met: f / rg.ms <= 1.5,
      agree,
    });
    rows.push({
      target: `${label}repeated grep ≥ 5× faster than rg`,
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
  return rgTimes;
}

/**
 * New patterns in a warm session, against ripgrep: the index must not depend on the pattern.
 * Each pattern is grepped once per session, in {@linkcode NEW_PATTERN_SESSIONS} sessions: one
 * session's median of five swung by a third from one session to the next. With `defaults`,
 * the server keeps its default output budget (as an agent's host starts it): an answer then
 * shows what fits, and agrees when every line it shows is one of ripgrep's.
 *
 * @param patterns the patterns: {@linkcode NEW_PATTERNS}, each the whole of its matches, or
 *   {@linkcode NEW_REGEXES}, the same literals with more around them
 */
export async function newPatternsRow(
  root: string,
  label: string,
  defaults = false,
  patterns: readonly string[] = NEW_PATTERNS,
): Promise<void> {
  const ours: number[] = [];
  const theirs: number[] = [];
  let agree = 0;
  for (let session = 0; session < NEW_PATTERN_SESSIONS; session++) {
    const budgets = defaults
      ? ["--max-lines", String(DEFAULTS.maxLines), "--max-chars", String(DEFAULTS.maxChars)]
      : [];
    const { client } = await linewise(root, budgets);
    await client.call("grep", { pattern: "warm-up: a pattern nothing matches", literal: true });
    await client.idle(); // the index is built in the background
    for (const pattern of patterns) {
      const rg = timeCommand("rg", [...RG_ARGS, pattern, "."], root);
      const { result, ms } = await client.call("grep", { pattern, max_matches: 1_000_000 });
      ours.push(ms);
      theirs.push(rg.ms);
      const shown = linewiseKeys(result.structuredContent);
      const all = rgKeys(rg.stdout);
      const agrees = defaults
        ? shown.size > 0 && [...shown].every((key) => all.has(key))
        : compareKeys(shown, all).startsWith("same");
      if (session === 0 && agrees) agree++;
    }
    await client.close();
  }
  const m = median(ours);
  const r = median(theirs);
  rows.push({
    target: `${label}repeated grep ≥ 5× faster than rg${defaults ? ", default budgets" : ""}`,
    what: `${patterns.length} new regexes in a warm session, index built${
      defaults
        ? `, answers within the default ${DEFAULTS.maxChars.toLocaleString("en")} characters ` +
          "(rg prints every line)"
        : ""
    } (${
      patterns.map((p) => "`" + p + "`").join(", ")
    }); median of ${ours.length} greps in ${NEW_PATTERN_SESSIONS} sessions (per session: ${
      Array.from(
        { length: NEW_PATTERN_SESSIONS },
        (_, s) => fmt(median(ours.slice(s * patterns.length, (s + 1) * patterns.length))),
      ).join(", ")
    })`,
    linewise: fmt(m),
    other: `rg ${fmt(r)}`,
    ratio: `${(r / m).toFixed(2)}× faster`,
    goal: "≥ 5× faster",
    met: r / m >= 5,
    agree: `${agree} of ${patterns.length} ${defaults ? "show only rg's lines" : "same as rg"}`,
  });
}

const NEW_PATTERN_SESSIONS = 3;
const NEW_PATTERNS = [
  "Symbol\\.asyncIterator",
  "new Promise\\(",
  "Object\\.defineProperty\\(exports",
  "console\\.warn\\(",
  "throw new TypeError\\(",
];

/**
 * Regexes as agents write them, around the literals of {@linkcode NEW_PATTERNS}: a match is
 * more than its literal, so a long line's match is found in the stretch around the literal,
 * where a literal's row is cut from the bytes around it (docs/benchmarks.md).
 */
export const NEW_REGEXES = [
  "Symbol\\.async\\w*",
  "new Promise\\(\\s*",
  "Object\\.defineProperty\\(\\s*exports",
  "console\\.warn\\(\\s*",
  "throw new TypeError\\(\\s*",
];
