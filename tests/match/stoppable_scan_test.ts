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
 * Processor time (ms) spent so far by this process's threads and by its child processes.
 * (`cat` reads /proc for it: Deno lets a program read /proc only with --allow-all.)
 */
function cpuMs(): { own: number; children: number } {
  const { stdout } = spawnSync("sh", ["-c", "cat /proc/[0-9]*/stat 2>/dev/null"], {
    encoding: "utf8",
    maxBuffer: 64 << 20,
  });
  let own = 0;
  let children = 0;
  for (const stat of stdout.split("\n")) {
    const pid = Number(stat.slice(0, stat.indexOf(" ")));
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ms = (Number(fields[11]) + Number(fields[12])) * 10;
    if (pid === process.pid) own = ms;
    else if (Number(fields[1]) === process.pid) children += ms;
  }
  return { own, children };
}

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
  }, async () => {
    const line = "c" + "a".repeat(3000) + "\n";
    for (const source of ["(?=a)a*a*a*a*c", "a*a*a*a*(?<=a)c"]) {
      await assert.rejects(
        stoppableScan(source, false).scan(line, { context: 0, maxMatches: 10 }, {
          deadline: Date.now() + 300,
        }),
        PatternStoppedError,
      );
    }
    const before = cpuMs();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const after = cpuMs();
    // (A match left running would spend up to a core each: 1,000 ms here.)
    const spent = after.own - before.own + Math.max(0, after.children - before.children);
    assert.ok(spent < 400, `${spent} ms spent in the second after the scans stopped`);
  });

  test("the helper is a process of this runtime, under Deno only with --allow-run", () => {
    const run = moduleProcess(PROCESS_MODULES.patternHelper);
    assert.ok(run !== undefined);
    const [command, args] = run;
    assert.equal(command, process.execPath);
    assert.match(args.at(-1)!, /src\/match\/_pattern_helper_main\.ts$/);
    if (RUNTIME !== "deno") return assert.equal(args.length, 1);
    const script = `import { moduleProcess } from ${
      JSON.stringify(import.meta.resolve("../../src/io/runtime.ts"))
    };
      console.log(JSON.stringify(moduleProcess("match/_pattern_helper_main.ts") ?? null));`;
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "linewise-run-")), "ask.ts");
    fs.writeFileSync(file, script);
    const ask = (...allow: string[]) =>
      spawnSync(command, ["run", "--no-prompt", "--allow-read", ...allow, file], {
        encoding: "utf8",
      });
    assert.match(ask("--allow-run").stdout, /"run","--quiet","--no-prompt","--allow-ffi"/);
    const without = ask();
    fs.rmSync(path.dirname(file), { recursive: true });
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
