// What versions cost: the bytes of the grep → read → edit loop, and the memory a session
// holds after 1,000 edits (bench/versions/*.ts, run here so that their numbers land in
// bench/RESULTS.md with the rest).
import { spawnSync } from "node:child_process";
import * as path from "node:path";
import { log, REPO, rows } from "./support.ts";

function script(name: string, args: string[]): Record<string, number> {
  const deno = path.join(REPO, "node_modules/.bin/deno");
  const out = spawnSync(deno, ["run", "-A", "--v8-flags=--expose-gc", name, ...args], {
    cwd: REPO,
    encoding: "utf8",
  });
  if (out.status !== 0) throw new Error(`${name} failed: ${out.stderr}`);
  return JSON.parse(out.stdout.trim().split("\n").pop()!);
}

export function versionsBench(): Promise<void> {
  log("versions: loop bytes and session memory");
  const loop = "bench/versions/loop_bytes.ts";
  const plain = script(loop, [".", "src"]);
  const guarded = script(loop, [".", "src", "--expected-text"]);
  const total = (r: Record<string, number>) => r.sent + r.read;
  rows.push({
    target: "grep → read → edit loop bytes",
    what:
      `a grep, then 3 reads of 21 lines and 3 one-line replace_lines over src/: sent ${plain.sent} + read ${plain.read} bytes (structuredContent ${plain.structured} more); the same edits with expected_text: ${guarded.sent} + ${guarded.read}`,
    linewise: `${total(plain)} B`,
    other: `with expected_text ${total(guarded)} B`,
    ratio: `${(total(plain) / total(guarded)).toFixed(2)}×`,
    goal: "report",
    met: undefined,
    agree: "",
  });
  const memory = script("bench/versions/session_memory.ts", []);
  const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;
  rows.push({
    target: "session memory within its budget",
    what: `${memory.edits} edits (read 20 lines, replace one) over ${memory.files} files of ${
      mib(memory.textBytes)
    } in all: counted ${mib(memory.sessionBytes)} (peak ${
      mib(memory.peakSessionBytes)
    }), heap grew ${mib(memory.heapGrowth)}; ${memory.msPerEdit} ms per read + edit`,
    linewise: mib(memory.peakSessionBytes),
    other: `budget ${mib(memory.budget)}`,
    ratio: "",
    goal: "≤ budget",
    met: memory.peakSessionBytes <= memory.budget,
    agree: "",
  });
  return Promise.resolve();
}
