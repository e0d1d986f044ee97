// Builds the single-file executable dist/linewise from src/cli/bin.ts.
//
//   deno run -A scripts/compile.ts             build with `bun build --compile` (works offline)
//   deno run -A scripts/compile.ts --if-stale  only when a source is newer than the binary
//   deno run -A scripts/compile.ts --deno      build with `deno compile` (needs internet once)
import { spawnSync } from "node:child_process";
import { readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { WORKER_MODULES } from "../src/io/runtime.ts";

const OUT = "dist/linewise";
// Built beside it and renamed over it once done: a failed build leaves the working binary.
const BUILDING = "dist/linewise.building";
const ENTRY = "src/cli/bin.ts";
// The modules started as workers (named once, in src/io/runtime.ts): bun build --compile
// embeds a worker only when it is an entry point of its own.
const WORKERS = Object.values(WORKER_MODULES).map((path) => `src/${path}`);
const args = process.argv.slice(2);

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const mtime = entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs;
    newest = Math.max(newest, mtime);
  }
  return newest;
}

function builtAt(): number {
  try {
    return statSync(OUT).mtimeMs;
  } catch {
    return 0; // not built yet
  }
}

const sources = Math.max(newestSource("src"), statSync("package-lock.json").mtimeMs);
if (args.includes("--if-stale") && builtAt() > sources) {
  console.error(`${OUT} is up to date`);
  process.exit(0);
}

const command = args.includes("--deno")
  ? ["deno", "compile", "--allow-read", "--allow-write", "--allow-env"]
    .concat(WORKERS.flatMap((worker) => ["--include", worker]), ["--output", BUILDING, ENTRY])
  : [
    "bun",
    "build",
    "--compile",
    "--minify",
    "--bytecode",
    ENTRY,
    ...WORKERS,
    "--outfile",
    BUILDING,
  ];
const started = performance.now();
const result = spawnSync(command[0], command.slice(1), { stdio: "inherit" });
if (result.status !== 0) {
  rmSync(BUILDING, { force: true });
  console.error(
    `building ${OUT} failed: ${command.join(" ")} exited with ${result.status ?? result.error}`,
  );
  process.exit(1);
}
renameSync(BUILDING, OUT);
console.error(`built ${OUT} in ${Math.round(performance.now() - started)} ms`);
