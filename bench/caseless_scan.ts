// The examination of files for a literal ignoring case, with its caseless parts scanned in
// WebAssembly against one indexOf pass per spelling, side by side in one run, and the same
// literal with its case kept. Files under 1 MiB of a folder, read into memory first.
//   bun bench/caseless_scan.ts [folder] [literal]     (or deno run -A bench/caseless_scan.ts)
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { regexMatcher } from "../src/core/mod.ts";
import { examineBytes, type Prefilter, prefilterOf } from "../src/search/_search_file.ts";

const folder = process.argv[2] ?? "bench/.corpus/linux-source-6.1/drivers";
const literal = process.argv[3] ?? "spin_lock_irqsave";
const MAX_BYTES = 300_000_000;

const files: Uint8Array[] = [];
let total = 0;
function walk(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (total >= MAX_BYTES) return;
    const full = join(dir, entry.name);
    if (entry.isDirectory()) walk(full);
    else if (entry.isFile()) {
      const bytes = readFileSync(full);
      if (bytes.length < 1 << 20) files.push(new Uint8Array(bytes)), total += bytes.length;
    }
  }
}
walk(folder);

function prefilter(ignoreCase: boolean): Prefilter {
  const m = regexMatcher(literal.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), { ignoreCase });
  return prefilterOf(m.requiredLiteral, m.alternativeLiterals, m.foldedLiterals);
}
const ignoring = prefilter(true);
const { caseless: _, ...spelled } = ignoring;
const kinds: [string, Prefilter][] = [
  ["ignoring case, caseless parts", ignoring],
  ["ignoring case, a pass per spelling", spelled],
  ["case kept", prefilter(false)],
];

const times = new Map<string, number[]>(kinds.map(([name]) => [name, []]));
for (let round = 0; round < 7; round++) {
  for (const [name, filter] of kinds) {
    const start = performance.now();
    for (const bytes of files) examineBytes(bytes, filter, 0);
    times.get(name)!.push(performance.now() - start);
  }
}
const median = (v: number[]) => [...v].sort((a, b) => a - b)[v.length >> 1];
const base = median(times.get(kinds[1][0])!);
console.log(`${files.length} files, ${(total / 1e6).toFixed(0)} MB of ${folder}; \`${literal}\``);
for (const [name, v] of times) {
  console.log(`${name}: ${median(v).toFixed(1)} ms (${(median(v) / base).toFixed(2)}×)`);
}
