// The server from this checkout under Deno (which keeps no search index), as `npm start --
// serve` runs it (without FFI: node:fs by path) and with `--allow-ffi` (the system calls
// beneath the root): each new server's first grep and the greps after it on the bench tree,
// each just after ripgrep's of the same pattern. Not a row of
// RESULTS.md, which times the compiled binary that hosts run; this is the runtime of the
// library and of a source checkout.
//   deno run -A bench/deno_server.ts [servers]     (the tree comes from `deno task bench:compare`)
import process from "node:process";
import { McpClient } from "./compare/client.ts";
import { TREE } from "./compare/corpus.ts";
import { RG_ARGS } from "./compare/agree.ts";
import { median, REPO, run } from "./compare/support.ts";

const SERVERS = Number(process.argv[2] ?? 3);
const PATTERNS = [
  "createElement\\(",
  "TODO|FIXME",
  "function \\w+Sync\\(",
  "hasOwnProperty\\.call\\(",
  "useEffect",
  "Symbol\\.asyncIterator",
  "new Promise\\(",
];
const DENO = `${REPO}/node_modules/.bin/deno`;
const WAYS: Record<string, string[]> = {
  "as npm start runs it": ["--allow-read=.", "--allow-write=."],
  "with --allow-ffi": ["--allow-read=.", "--allow-write=.", "--allow-ffi"],
};

type Times = { first: number[]; later: number[] };
const times = (): Times => ({ first: [], later: [] });
const ours: Record<string, Times> = {};
const theirs: Record<string, Times> = {};
process.chdir(REPO); // (the permissions are the checkout's)
for (let server = 0; server < SERVERS; server++) {
  for (const [way, flags] of Object.entries(WAYS)) {
    const args = ["run", ...flags, "src/cli/bin.ts", "serve", "--root", TREE, "--no-cache"];
    const { client } = await McpClient.start(DENO, args);
    for (const [i, pattern] of PATTERNS.entries()) {
      const rg = run("rg", [...RG_ARGS, pattern, "."], { cwd: TREE });
      const { ms } = await client.call("grep", { pattern, max_matches: 1_000_000 });
      (ours[way] ??= times())[i === 0 ? "first" : "later"].push(ms);
      (theirs[way] ??= times())[i === 0 ? "first" : "later"].push(rg.ms);
    }
    await client.close();
  }
}
for (const way of Object.keys(WAYS)) {
  for (const when of ["first", "later"] as const) {
    const [a, b] = [median(ours[way][when]), median(theirs[way][when])];
    console.log(
      `${way}, ${when === "first" ? "a new server's first grep" : "the greps after it"}: ` +
        `${a.toFixed(0)} ms, ripgrep ${b.toFixed(0)} ms (${(a / b).toFixed(2)}×; medians of ` +
        `${ours[way][when].length})`,
    );
  }
}
process.exit(0);
