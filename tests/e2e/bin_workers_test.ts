// End to end: grep in the binary really runs off the thread that answers, on the search
// thread and the worker that reads beside it (a worker that did not start would leave the
// answers right and only slower, so nothing else would notice). Linux: threads are read
// from /proc (through `cat`, which Deno may run without --allow-all).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { Buffer } from "node:buffer";
import {
  closeSync,
  constants,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import process from "node:process";
import {
  callsWhilePinging,
  cliEnv,
  ensureBinary,
  INITIALIZE,
  initialized,
  tempRoot,
} from "../_helpers/binary.ts";
import { SEARCH_NICENESS } from "../../src/io/thread_priority.ts";

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

/** Whether strace runs here (Linux, installed: `.ci/run` installs it). */
const STRACE = process.platform === "linux" &&
  spawnSync("strace", ["-V"], { encoding: "utf8" }).status === 0;

/** 10,000 files of 201 lines in 100 folders, `needle` the last line of each, or of the first. */
function manyFiles(dir: string, needles: "each" | "first"): void {
  for (let d = 0; d < 100; d++) {
    mkdirSync(join(dir, `d${d}`));
    for (let f = 0; f < 100; f++) {
      const last = needles === "each" || d + f === 0 ? "needle\n" : "";
      writeFileSync(join(dir, `d${d}`, `f${f}.txt`), `line ${f}\n`.repeat(200) + last);
    }
  }
}

/**
 * A pipe for a process's output that no one reads until the end (its bytes wait unread
 * there, as when the reader waits for a core), and strace recording the process's yields.
 */
function traced(dir: string) {
  const output = `${dir}.out`;
  assert.equal(spawnSync("mkfifo", [output]).status, 0);
  const fifo = openSync(output, constants.O_RDWR | constants.O_NONBLOCK);
  const file = `${dir}.strace`;
  return {
    fifo,
    // (strace follows every thread, stopping each at sched_yield alone.)
    strace: ["-f", "--seccomp-bpf", "-qq", "-e", "trace=sched_yield", "-o", file],
    /** The threads that yielded so far, once per yield. */
    yielded: () =>
      (existsSync(file) ? readFileSync(file, "utf8") : "").split("\n")
        .filter((line) => line.includes("sched_yield")).map((line) => line.split(" ")[0]),
    /** What the pipe holds now. */
    read: () => {
      const chunk = Buffer.alloc(1 << 20);
      try {
        return chunk.subarray(0, readSync(fifo, chunk)).toString();
      } catch {
        return ""; // (nothing: EAGAIN)
      }
    },
    remove: () => {
      closeSync(fifo);
      rmSync(output, { force: true });
      rmSync(file, { force: true });
    },
  };
}

test("the server's search threads offer their cores while an answer waits unread, and only they", {
  skip: !STRACE,
  timeout: 120_000,
}, async () => {
  const root = tempRoot();
  manyFiles(root.dir, "each");
  const trace = traced(root.dir);
  // (The search thread and two workers it starts.)
  const serve = [ensureBinary(), "serve", "--root", root.dir, "--threads", "3"];
  const child = spawn("strace", [...trace.strace, ...serve], {
    stdio: ["pipe", trace.fifo, "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (chunk) => stderr += chunk);
  const send = (request: Record<string, unknown>) =>
    child.stdin!.write(JSON.stringify({ jsonrpc: "2.0", ...request }) + "\n");
  const read = (id: string) => ({
    id,
    method: "tools/call",
    params: { name: "read", arguments: { path: "d0/f0.txt", end_line: 1 } },
  });
  let server = "";
  try {
    send(INITIALIZE);
    send({ method: "notifications/initialized" });
    send({
      id: 1,
      method: "tools/call",
      params: { name: "grep", arguments: { pattern: "need+le", max_matches: 10_000 } },
    });
    server = await until(() =>
      readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, "utf8").trim()
    );
    const task = (tid: string) =>
      readFileSync(`/proc/${server}/task/${tid}/stat`, "utf8").split(") ")[1].split(" ");
    // A yield each 0.5 ms of each search thread's work while the answers wait: the search
    // thread's, and its workers'. (The runtime yields too, a few times a second, on any thread
    // while it spins on a lock.)
    const lowered = new Set<string>();
    await until(() => {
      for (const tid of readdirSync(`/proc/${server}/task`)) {
        if (task(tid)[16] === String(SEARCH_NICENESS)) lowered.add(tid);
      }
      const yields = trace.yielded().filter((tid) => lowered.has(tid));
      return [...lowered].filter((tid) => yields.filter((one) => one === tid).length >= 20)
        .length >= 2;
    });
    // The thread that answers opens a file for each of 200 reads while their answers wait
    // unread: it never offers its core.
    for (let i = 0; i < 200; i++) send(read(`r${i}`));
    let cpu = "";
    await until(() => {
      const now = task(server).slice(11, 13).join(" "); // (utime and stime: idle once still)
      const still = now === cpu;
      cpu = now;
      return still;
    }, 300);
    const answering = trace.yielded().filter((tid) => tid === server).length;
    assert.ok(answering < 20, `the thread that answers yielded ${answering} times`);
    // The answers were all given (read to the end: the server ends once they are out).
    child.stdin!.end();
    let text = "";
    await until(() => (text += trace.read(), child.exitCode !== null));
    assert.equal(child.exitCode, 0, stderr);
    assert.ok(text.includes('"id":"r199"') && text.includes('"id":1'), text.slice(-500));
  } finally {
    // (strace killed leaves the server running: it goes first.)
    if (server !== "") spawnSync("kill", ["-9", server]);
    child.kill("SIGKILL");
    trace.remove();
    root.remove();
  }
});

test("on the command line the search threads keep their cores: no request waits there", {
  skip: !STRACE,
  timeout: 120_000,
}, async () => {
  const root = tempRoot();
  manyFiles(root.dir, "first");
  const trace = traced(root.dir);
  // Standard input holds bytes grep never reads (`echo x | linewise grep needle .`): offered
  // while they wait, the cores were, hundreds of times in the search of the 10,000 files.
  const input = traced(`${root.dir}-in`);
  writeSync(input.fifo, "x\n");
  try {
    const child = spawn("strace", [...trace.strace, ensureBinary(), "grep", "needle", "."], {
      cwd: root.dir,
      env: cliEnv(),
      stdio: [input.fifo, trace.fifo, "inherit"],
    });
    assert.equal(await new Promise((done) => child.on("exit", done)), 0);
    assert.equal(trace.read(), "d0/f0.txt:201:needle\n");
    assert.ok(trace.yielded().length < 100, `${trace.yielded().length} yields`);
  } finally {
    input.remove();
    trace.remove();
    root.remove();
  }
});

/**
 * Polls `check` every `everyMs` until it gives a truthy value (60 s at the most), and returns
 * that.
 */
async function until<T>(check: () => T, everyMs = 50): Promise<T> {
  for (const deadline = Date.now() + 60_000; Date.now() < deadline;) {
    try {
      const value = check();
      if (value) return value;
    } catch { /* (not there yet) */ }
    await new Promise((wake) => setTimeout(wake, everyMs));
  }
  throw new Error(`not so after 60 s: ${check}`);
}
