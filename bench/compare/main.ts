// Side-by-side comparison of the linewise binary with ripgrep, tail | head, sed and the
// reference MCP filesystem server, in one run, on corpora built locally:
//
//   deno task bench:compare            (= deno run -A bench/compare/main.ts)
//   deno run -A bench/compare/main.ts --quick   fewer runs, for a smoke test
//   deno run -A bench/compare/main.ts huge load   only those groups (see BENCHES below)
//
// Corpora go to bench/.corpus/ (gitignored): a tree of real JavaScript/TypeScript packages
// installed from npm plus a copy of this repository's node_modules (about 260 MB, 27,000
// files), the node_modules of next, react-dom and eight other packages (333 MB, 16,771
// files; see corpus.ts), a generated log of about 1.3 GB, a 5 MB single-line file, a 1 MB
// source file, a file for a catastrophic pattern and a single line of 2,000,000,000 bytes,
// and the Linux kernel's source (from Debian's linux-source-6.1); each is built
// when a group that needs it first runs. Every measurement runs with a warm cache (one
// untimed run first), several times; the table shows medians and ratios and is written to
// bench/RESULTS.md. A run of some groups only prints its rows and leaves RESULTS.md as it
// is (its table is one whole run). Outputs are checked to agree (the same matching lines as
// ripgrep, the same lines as tail | head); a disagreement is printed and marked in the table.
import process from "node:process";
import { buildFiles, buildHugeLine, buildModules, buildTree, ensureTools } from "./corpus.ts";
import { commandLineBench } from "./command_line.ts";
import { largeFileBench } from "./edits.ts";
import { grepBench } from "./grep.ts";
import { kernelBench } from "./kernel.ts";
import { loadBench } from "./load.ts";
import { modulesBench } from "./modules.ts";
import { boundedBench, deepReadBench, hugeLineBench, smallWorkBench } from "./reads.ts";
import { writeResults } from "./report.ts";
import { versionsBench } from "./versions.ts";

/** The groups, in the order of the table, each with the corpora it needs. */
const BENCHES: Record<string, { corpora: Array<() => void>; run: () => Promise<void> }> = {
  small: { corpora: [buildFiles], run: smallWorkBench },
  read: { corpora: [buildFiles], run: deepReadBench },
  huge: { corpora: [buildHugeLine], run: hugeLineBench },
  grep: { corpora: [buildTree], run: grepBench },
  modules: { corpora: [buildModules], run: modulesBench },
  bounded: { corpora: [buildFiles], run: boundedBench },
  large: { corpora: [], run: largeFileBench },
  cli: { corpora: [], run: commandLineBench },
  load: { corpora: [], run: loadBench },
  kernel: { corpora: [], run: kernelBench },
  versions: { corpora: [], run: versionsBench },
};

const only = process.argv.slice(2).filter((a) => !a.startsWith("--"));
const unknown = only.filter((name) => !(name in BENCHES));
if (unknown.length > 0) {
  console.error(
    `no such group: ${unknown.join(", ")} (groups: ${Object.keys(BENCHES).join(", ")})`,
  );
  process.exit(2);
}
const chosen = Object.entries(BENCHES).filter(([name]) => only.length === 0 || only.includes(name));
ensureTools();
const built = new Set<() => void>();
for (const [, bench] of chosen) {
  for (const build of bench.corpora) {
    if (!built.has(build)) build();
    built.add(build);
  }
  await bench.run();
}
writeResults({ write: only.length === 0 });
