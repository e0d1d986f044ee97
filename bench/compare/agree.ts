// How linewise's matching lines compare with ripgrep's, for the outputs column of the table.
import type { Buffer } from "node:buffer";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

/** Parses `rg -n --null` output into "path:line" keys. */
export function rgKeys(stdout: Buffer): Set<string> {
  const keys = new Set<string>();
  for (const line of stdout.toString("utf8").split("\n")) {
    const nul = line.indexOf("\0");
    if (nul === -1) continue;
    const file = line.slice(0, nul).replace(/^\.\//, "");
    keys.add(`${file}:${Number.parseInt(line.slice(nul + 1), 10)}`);
  }
  return keys;
}

export function linewiseKeys(structured: Record<string, unknown> | undefined): Set<string> {
  const keys = new Set<string>();
  const files = (structured?.files ?? []) as { path: string; lines: number[] }[];
  for (const file of files) for (const line of file.lines) keys.add(`${file.path}:${line}`);
  return keys;
}

/** Where ripgrep ran and with what pattern, so that a line only linewise finds can be explained. */
export interface RgRun {
  root: string;
  /** ripgrep's arguments for the pattern (no paths). */
  rg: readonly string[];
}

/**
 * How linewise's matching lines compare with ripgrep's. With `run`, a line only linewise
 * finds is explained where linewise's rules differ from ripgrep's defaults: it lies in a
 * symlinked file (ripgrep without `-L` skips those; linewise searches the ones inside its
 * roots), or ripgrep finds it too once `\w` and `\b` are ASCII, as in JavaScript
 * (`--no-unicode`). Anything else is a difference.
 */
export function compareKeys(a: Set<string>, b: Set<string>, run?: RgRun): string {
  const onlyA = [...a].filter((k) => !b.has(k));
  const onlyB = [...b].filter((k) => !a.has(k));
  if (onlyA.length === 0 && onlyB.length === 0) return `same ${a.size} lines`;
  const reasons = run === undefined ? [] : explain(onlyA, run);
  const unexplained = onlyA.filter((_, i) => reasons[i] === undefined);
  if (unexplained.length === 0 && onlyB.length === 0) {
    const counts = new Map<string, number>();
    for (const reason of reasons) counts.set(reason!, (counts.get(reason!) ?? 0) + 1);
    const told = [...counts].map(([reason, n]) => `${n} ${reason}`).join(", ");
    return `same ${b.size} lines, and ${onlyA.length} only linewise by its rules: ${told} (${
      onlyA.slice(0, 2).join(", ")
    })`;
  }
  return `DIFFER: ${unexplained.length} only linewise (${unexplained.slice(0, 3).join(", ")}), ` +
    `${onlyB.length} only rg (${onlyB.slice(0, 3).join(", ")})`;
}

/** Per key ("path:line"), why linewise rightly finds it and ripgrep does not, or undefined. */
function explain(keys: string[], run: RgRun): (string | undefined)[] {
  const ascii = new Map<string, Set<string>>(); // by file: keys rg --no-unicode finds
  return keys.map((key) => {
    const colon = key.lastIndexOf(":");
    const file = key.slice(0, colon);
    if (fs.lstatSync(path.join(run.root, file)).isSymbolicLink()) return "in symlinked files";
    let found = ascii.get(file);
    if (found === undefined) {
      const out = spawnSync("rg", [...RG_ARGS, "--no-unicode", ...run.rg, "--", file], {
        cwd: run.root,
        maxBuffer: 1 << 30,
      });
      ascii.set(file, found = rgKeys(out.stdout));
    }
    return found.has(key) ? "by ASCII \\b and \\w (rg --no-unicode finds them)" : undefined;
  });
}

/** How linewise's answer (its structured content) compares with ripgrep's output. */
export function agreeWithRg(
  structured: Record<string, unknown> | undefined,
  rgOut: Buffer,
  run?: RgRun,
): string {
  return compareKeys(linewiseKeys(structured), rgKeys(rgOut), run);
}

export const RG_ARGS = [
  "-n",
  "--null",
  "--no-heading",
  "--with-filename",
  "--no-require-git",
  "--no-ignore-parent",
];
