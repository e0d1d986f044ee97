// End to end: grep in the binary really runs off the thread that answers, on the search
// thread and the worker that reads beside it (a worker that did not start would leave the
// answers right and only slower, so nothing else would notice). Linux: threads are read
// from /proc (through `cat`, which Deno may run without --allow-all).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { callsWhilePinging, initialized, tempRoot } from "../_helpers/binary.ts";
import { SEARCH_NICENESS } from "../../src/io/libc.ts";

/** CPU time (clock ticks) and nice value of each thread of a process, with its name, by id. */
function threadTimes(pid: number): Map<string, { name: string; ticks: number; nice: number }> {
  const script = `for t in /proc/${pid}/task/*; do
    echo "\${t##*/}|$(cat $t/comm)|$(cut -d')' -f2 $t/stat)"; done`;
  const tasks = spawnSync("sh", ["-c", script], { encoding: "utf8" }).stdout;
  return new Map(
    tasks.trim().split("\n").map((line) => {
      const [tid, name, stat] = line.split("|");
      const fields = stat.trim().split(" ");
      // (Fields 14, 15 and 19 of stat: utime, stime and nice.)
      const ticks = Number(fields[11]) + Number(fields[12]);
      return [tid, { name, ticks, nice: Number(fields[16]) }];
    }),
  );
}

for (
  const { threads, reading } of [{ threads: undefined, reading: 2 }, { threads: 4, reading: 4 }]
) {
  const asked = threads === undefined ? "" : ` with --threads ${threads}`;
  test(
    `grep${asked} runs on the search thread and ${
      reading - 1
    } worker(s) beside it, not on the thread that answers`,
    {
      skip: process.platform !== "linux",
      timeout: 60_000,
    },
    async () => {
      const root = tempRoot();
      // (Enough files that each of 4 threads on 2 cores works for more than a 10 ms tick.)
      for (let d = 0; d < 100; d++) {
        mkdirSync(join(root.dir, `d${d}`));
        for (let f = 0; f < 100; f++) {
          writeFileSync(
            join(root.dir, `d${d}`, `f${f}.txt`),
            `line ${f}\n`.repeat(200) + "needle\n",
          );
        }
      }
      const flags = threads === undefined ? [] : ["--threads", String(threads)];
      const session = await initialized(["serve", "--root", root.dir, ...flags]);
      try {
        const before = threadTimes(session.child.pid!);
        const { answers } = await callsWhilePinging(session, [{
          id: "grep",
          method: "tools/call",
          params: { name: "grep", arguments: { pattern: "need+le", max_matches: 10_000 } },
        }]);
        const after = threadTimes(session.child.pid!);
        const grep = answers.get("grep")!.message.result!;
        assert.ok((grep.structuredContent as { matched_lines: number }).matched_lines > 0);
        const used = [...after].map(([tid, t]) => ({
          ...t,
          ticks: t.ticks - (before.get(tid)?.ticks ?? 0),
        }));
        const workers = used.filter((t) => t.name === "Worker" && t.ticks > 0);
        assert.ok(workers.length >= reading, `threads that worked: ${JSON.stringify(used)}`);
        // They run behind the thread that answers, which keeps the process's priority.
        for (const worker of workers) {
          assert.equal(worker.nice, SEARCH_NICENESS, JSON.stringify(used));
        }
        assert.equal(after.get(String(session.child.pid))?.nice, 0, JSON.stringify(used));
        assert.equal(session.stderr, "", "no worker failed to start");
        assert.equal(await session.close(), 0);
      } finally {
        session.child.kill("SIGKILL");
        root.remove();
      }
    },
  );
}

test("grep --threads 1 reads on the search thread alone", {
  skip: process.platform !== "linux",
  timeout: 60_000,
}, async () => {
  const root = tempRoot();
  for (let f = 0; f < 2000; f++) writeFileSync(join(root.dir, `f${f}.txt`), "needle\n".repeat(500));
  const session = await initialized(["serve", "--root", root.dir, "--threads", "1"]);
  try {
    const { answers } = await callsWhilePinging(session, [{
      id: "grep",
      method: "tools/call",
      params: { name: "grep", arguments: { pattern: "need+le", max_matches: 10 } },
    }]);
    assert.ok(answers.get("grep")!.message.result);
    // Right after the answer (the index's own worker starts 100 ms later), the one worker
    // thread is the search thread: no reading worker was started beside it.
    const workers = [...threadTimes(session.child.pid!).values()].filter((t) =>
      t.name === "Worker"
    );
    assert.equal(workers.length, 1, JSON.stringify(workers));
    assert.equal(await session.close(), 0);
  } finally {
    session.child.kill("SIGKILL");
    root.remove();
  }
});
