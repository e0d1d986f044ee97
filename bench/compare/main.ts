// Side-by-side comparison of the linewise binary with ripgrep, tail | head, sed and the
// reference MCP filesystem server, in one run, on corpora built locally:
//
//   deno task bench:compare            (= deno run -A bench/compare/main.ts)
//   deno run -A bench/compare/main.ts --quick   fewer runs, for a smoke test
//
// Corpora go to bench/.corpus/ (gitignored): a tree of real JavaScript/TypeScript packages
// installed from npm plus a copy of this repository's node_modules (about 260 MB, 27,000
// files), a generated log of about 1.3 GB, a 5 MB single-line file, a 1 MB source file and a
// file for a catastrophic pattern. Every measurement runs with a warm cache (one untimed run
// first), several times; the table shows medians and ratios and is written to
// bench/RESULTS.md. Outputs are checked to agree (the same matching lines as ripgrep, the
// same lines as tail | head); a disagreement is printed and marked in the table.
import process from "node:process";
import { buildFiles, buildTree, ensureTools } from "./corpus.ts";
import { grepBench } from "./grep.ts";
import { kernelBench } from "./kernel.ts";
import { loadBench } from "./load.ts";
import { boundedBench, deepReadBench, smallWorkBench } from "./reads.ts";
import { writeResults } from "./report.ts";
import { versionsBench } from "./versions.ts";

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
  kernel: kernelBench,
  versions: versionsBench,
};
for (const [name, bench] of Object.entries(benches)) {
  if (only.length === 0 || only.includes(name)) await bench();
}
writeResults();
