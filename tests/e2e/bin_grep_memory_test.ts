// End to end: `linewise grep` of a file of millions of matching lines (a log) prints them as
// it scans the file, chunk by chunk, and holds a bounded memory, as ripgrep does; held until
// the file was done, 27 million rows of a 300 MB file took 8.7 GB.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import { join } from "node:path";
import { cliEnv, ensureBinary, tempRoot } from "../_helpers/binary.ts";

/** The most memory the command may take (its peak resident set). */
const MAX_PEAK_MIB = 400;

describe("linewise grep of a large file where every line matches", () => {
  const tree = tempRoot();
  const LINES = 4_000_000;
  before(() => {
    // (60 MB: over the 16 MiB a search reads whole, so it is read in runs of lines.)
    const block = Array.from({ length: 1000 }, (_, i) => `a matching line ${i}\n`).join("");
    const fd = fs.openSync(join(tree.dir, "big.log"), "w");
    for (let i = 0; i < LINES / 1000; i++) fs.writeSync(fd, block);
    fs.closeSync(fd);
  });
  after(() => tree.remove());

  test("prints every row with a bounded memory", { timeout: 120_000 }, async () => {
    const child = spawn(ensureBinary(), ["grep", "-c", "matching", "big.log"], {
      cwd: tree.dir,
      env: cliEnv(),
    });
    // (-c first, for the count; then the rows themselves, counted as they come.)
    let counted = "";
    child.stdout.on("data", (chunk) => counted += chunk);
    await new Promise((resolve) => child.on("exit", resolve));
    assert.equal(counted, `${LINES}\n`);
    const rows = spawn(ensureBinary(), ["grep", "matching", "big.log"], {
      cwd: tree.dir,
      env: cliEnv(),
    });
    let lines = 0;
    let last = "";
    rows.stdout.on("data", (chunk: Buffer) => {
      const text = chunk.toString("latin1");
      for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) lines++;
      last = (last + text).slice(-64);
    });
    let peakKiB = 0;
    const status = `/proc/${rows.pid}/status`;
    const watch = setInterval(() => {
      try {
        const hwm = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(status, "utf8"));
        if (hwm !== null) peakKiB = Math.max(peakKiB, Number(hwm[1]));
      } catch {
        // (It ended between two looks.)
      }
    }, 20);
    const code = await new Promise((resolve) => rows.on("exit", resolve));
    clearInterval(watch);
    assert.equal(code, 0);
    assert.equal(lines, LINES);
    assert.ok(last.endsWith(`${LINES}:a matching line 999\n`), last);
    assert.ok(peakKiB > 0, "its memory was never seen");
    assert.ok(
      peakKiB < MAX_PEAK_MIB * 1024,
      `peak ${Math.round(peakKiB / 1024)} MiB, over ${MAX_PEAK_MIB}`,
    );
  });
});
