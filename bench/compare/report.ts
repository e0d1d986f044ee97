// bench/RESULTS.md, written from the rows of one run.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { BINARY, log, notes, REPO, rows, RUNS } from "./support.ts";

/**
 * Prints the table, and writes it to bench/RESULTS.md unless told not to (a run of some
 * groups only: the file holds one whole run).
 */
export function writeResults({ write }: { write: boolean }): void {
  const version = (cmd: string, args: string[]) =>
    spawnSync(cmd, args, { encoding: "utf8" }).stdout.split("\n")[0].trim();
  const lines = [
    "# linewise side by side",
    "",
    "Written by `deno task bench:compare` (bench/compare/main.ts) in one run; do not edit by hand.",
    `Medians of ${RUNS} runs after one untimed run (warm cache) on ${
      spawnSync("nproc", [], { encoding: "utf8" }).stdout.trim()
    } cores; ${new Date().toISOString().slice(0, 10)}.`,
    "",
    `- linewise: \`dist/linewise\` (${
      version(BINARY, ["--version"])
    }, built with bun build --compile)`,
    `- ripgrep: ${
      version("rg", ["--version"])
    }; reference: @modelcontextprotocol/server-filesystem on node ${
      version("node", ["--version"])
    }`,
    "- MCP timings are round trips through a raw JSON-lines client (no SDK).",
    ...notes.map((n) => `- ${n}`),
    "",
    "| target | measurement | linewise | compared with | ratio | goal | met | outputs |",
    "|---|---|---|---|---|---|---|---|",
    ...rows.map((r) =>
      `| ${cell(r.target)} | ${cell(r.what)} | ${cell(r.linewise)} | ${cell(r.other)} | ${
        cell(r.ratio)
      } | ${cell(r.goal)} | ${r.met === undefined ? "–" : r.met ? "yes" : "**no**"} | ${
        cell(r.agree)
      } |`
    ),
    "",
  ];
  if (write) fs.writeFileSync(path.join(REPO, "bench/RESULTS.md"), lines.join("\n"));
  log(lines.join("\n"));
  if (!write) log("(some groups only: bench/RESULTS.md is left as it was)");
}

/** A table cell's text: a `|` in it (`TODO|FIXME`, even in backticks) would end the cell. */
function cell(text: string): string {
  return text.replace(/(?<!\\)\|/g, "\\|");
}
