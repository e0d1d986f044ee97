import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import process from "node:process";
import { describe, test } from "node:test";
import { PatternStoppedError, regexMatcher, type ScanRow, scanText } from "../../src/core/mod.ts";
import { stoppableScan } from "../../src/match/stoppable_scan.ts";
import { moduleProcess, PROCESS_MODULES, RUNTIME } from "../../src/io/runtime.ts";

/**
 * Runs a module of the test's in a new process of this runtime (under Deno with `denoFlags`);
 * returns its output.
 */
function runModule(source: string, denoFlags: string[]): { stdout: string; stderr: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "linewise-run-"));
  const file = path.join(dir, "module.ts");
  fs.writeFileSync(file, source);
  try {
    const args = RUNTIME === "deno" ? ["run", "--no-prompt", ...denoFlags, file] : [file];
    // (A worker left matching keeps a Deno process from ending: it is killed at the timeout.)
    return spawnSync(process.execPath, args, { encoding: "utf8", timeout: 20_000 });
  } finally {
    fs.rmSync(dir, { recursive: true });
  }
}

const src = (module: string) => JSON.stringify(import.meta.resolve(`../../src/${module}`));

function localRows(source: string, text: string, context: number, maxMatches: number) {
  const rows: ScanRow[] = [];
  scanText(text, regexMatcher(source), (row) => void rows.push(row), { context, maxMatches });
  return rows;
}

describe("stoppableScan()", () => {
  const text = "one\nok two\nfoo bar\nfoofoo\n\r\nlast ok";
  for (const source of ["(?<=o)k", "(fo)\\1", "o(?!o)", "^(?=.*o).*$"]) {
    test(`scans ${source} in a helper as the core scanner does here`, async () => {
      for (const [context, maxMatches] of [[0, 100], [1, 100], [0, 1]]) {
        const rows = await stoppableScan(source, false).scan(text, { context, maxMatches }, {});
        assert.deepEqual(rows, localRows(source, text, context, maxMatches));
      }
    });
  }

  test("a pattern that would run for hours is stopped at the deadline", async () => {
    const line = "c" + "a".repeat(3000) + "\n";
    const scan = stoppableScan("(?=a)a*a*a*a*c", false);
    await assert.rejects(
      scan.scan(line, { context: 0, maxMatches: 10 }, { deadline: Date.now() + 300 }),
      PatternStoppedError,
    );
    // The helper was killed with it; a new one answers the next scan.
    assert.deepEqual(await scan.scan("ac\n", { context: 0, maxMatches: 10 }, {}), [
      { line: 1, text: "ac\n", match: { start: 0, end: 2 } },
    ]);
  });

  test("a scan stopped at the deadline leaves nothing matching", {
    skip: process.platform !== "linux" && "processor times are read from /proc",
  }, () => {
    // (In a process of its own: Deno runs test files as threads of one process.)
    const { stdout, stderr } = runModule(
      `import * as fs from "node:fs";
      import process from "node:process";
      import { stoppableScan } from ${src("match/stoppable_scan.ts")};
      /** Processor time (ms) of this process's threads and of its child processes. */
      function cpuMs() {
        let ms = 0;
        for (const pid of fs.readdirSync("/proc").filter((name) => /^\\d+$/.test(name))) {
          try {
            const stat = fs.readFileSync("/proc/" + pid + "/stat", "utf8");
            const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
            if (Number(pid) !== process.pid && Number(fields[1]) !== process.pid) continue;
            ms += (Number(fields[11]) + Number(fields[12])) * 10;
          } catch { /* (ended meanwhile) */ }
        }
        return ms;
      }
      const line = "c" + "a".repeat(3000) + "\\n";
      for (const source of ["(?=a)a*a*a*a*c", "a*a*a*a*(?<=a)c"]) {
        const scan = stoppableScan(source, false).scan(line, { context: 0, maxMatches: 10 }, {
          deadline: Date.now() + 300,
        });
        await scan.then(() => console.log("answered"), (error) => console.log(error.name));
      }
      const before = cpuMs();
      await new Promise((resolve) => setTimeout(resolve, 1000));
      console.log(cpuMs() - before);`,
      ["--allow-all"],
    );
    const [first, second, spent] = stdout.trim().split("\n");
    assert.deepEqual([first, second], ["PatternStoppedError", "PatternStoppedError"], stderr);
    // (A match left running would spend up to a core each: 1,000 ms here.)
    assert.ok(Number(spent) < 400, `${spent} ms spent in the second after the scans stopped`);
  });

  test("the helper is a process of this runtime, under Deno only with --allow-run", () => {
    const run = moduleProcess(PROCESS_MODULES.patternHelper);
    assert.ok(run !== undefined);
    const [command, args] = run;
    assert.equal(command, process.execPath);
    assert.match(args.at(-1)!, /src\/match\/_pattern_helper_main\.ts$/);
    if (RUNTIME !== "deno") return assert.equal(args.length, 1);
    const ask = `import { moduleProcess } from ${src("io/runtime.ts")};
      console.log(JSON.stringify(moduleProcess("match/_pattern_helper_main.ts") ?? null));`;
    const allowed = runModule(ask, ["--allow-read", "--allow-run"]);
    assert.match(allowed.stdout, /"run","--quiet","--no-prompt","--allow-ffi"/, allowed.stderr);
    const without = runModule(ask, ["--allow-read"]);
    assert.equal(without.stdout, "null\n", without.stderr);
  });

  test("a cancelled scan rejects with the signal's reason and stops its helper", async () => {
    const controller = new AbortController();
    const line = "c" + "a".repeat(3000) + "\n";
    const running = stoppableScan("a*a*a*a*(?<=a)c", false).scan(
      line,
      { context: 0, maxMatches: 10 },
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(new Error("cancelled by the client")), 200);
    await assert.rejects(running, /cancelled by the client/);
  });
});
