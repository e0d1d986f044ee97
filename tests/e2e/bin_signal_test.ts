// End to end: a server that was told to stop by a signal removes the private directory of
// its file watcher, and one that could not (SIGKILL) has it removed by the next server; the
// temporary files of writes a killed process left are removed by the next write there.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { BARRIER_PREFIX } from "../../src/files/_barrier_dir.ts";
import { initialized, patternHelpers, RawSession, runCli, tempRoot } from "../_helpers/binary.ts";

/** A server on `root` whose temporary folder is `tmp`, after one grep started its watcher. */
async function watchingServer(root: string, tmp: string): Promise<RawSession> {
  const session = new RawSession(["serve", "--root", root], { TMPDIR: tmp });
  session.sendJson({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "t", version: "1" },
    },
  });
  session.sendJson({ jsonrpc: "2.0", method: "notifications/initialized" });
  session.sendJson({
    jsonrpc: "2.0",
    id: 2,
    method: "tools/call",
    params: { name: "grep", arguments: { pattern: "needle" } },
  });
  await session.received(2);
  await until(() => barrierDirs(tmp).some((name) => name.includes(`-${session.child.pid}-`)));
  return session;
}

function barrierDirs(tmp: string): string[] {
  return fs.readdirSync(tmp).filter((name) => name.startsWith(BARRIER_PREFIX));
}

async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 300 && !done(); i++) await new Promise((wake) => setTimeout(wake, 20));
  assert.ok(done(), "timed out");
}

/** Sends a signal, and resolves with the signal that ended the process once it exited. */
function kill(session: RawSession, signal: NodeJS.Signals): Promise<NodeJS.Signals | null> {
  const exited = new Promise<NodeJS.Signals | null>((done) =>
    session.child.once("exit", (_code, by) => done(by))
  );
  // The signal alone, as a host sends it: Deno's `ChildProcess.kill` also closes the
  // child's stdin first (the server may then end cleanly before a SIGKILL lands), and sets
  // `signalCode` before the process is gone.
  process.kill(session.child.pid!, signal);
  return exited;
}

describe("the binary's watcher directory", () => {
  test(
    "is removed when SIGTERM, SIGINT or SIGHUP stops the server",
    { timeout: 60_000 },
    async () => {
      const root = tempRoot();
      const tmp = tempRoot();
      try {
        fs.writeFileSync(join(root.dir, "a.txt"), "a needle\n");
        for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
          const server = await watchingServer(root.dir, tmp.dir);
          assert.equal(await kill(server, signal), signal, "the signal still ends the process");
          assert.deepEqual(barrierDirs(tmp.dir), [], signal);
        }
      } finally {
        root.remove();
        tmp.remove();
      }
    },
  );

  test("left by a killed server is removed by the next one", { timeout: 60_000 }, async () => {
    const root = tempRoot();
    const tmp = tempRoot();
    try {
      fs.writeFileSync(join(root.dir, "a.txt"), "a needle\n");
      const killed = await watchingServer(root.dir, tmp.dir);
      await kill(killed, "SIGKILL");
      const [left] = barrierDirs(tmp.dir);
      assert.ok(left?.includes(`-${killed.child.pid}-`), "SIGKILL leaves it behind");
      const next = await watchingServer(root.dir, tmp.dir);
      assert.deepEqual(barrierDirs(tmp.dir).map((name) => name.includes(`-${next.child.pid}-`)), [
        true,
      ]);
      assert.equal(await next.close(), 0);
      assert.deepEqual(barrierDirs(tmp.dir), [], "and a server whose stdin closes removes its own");
    } finally {
      root.remove();
      tmp.remove();
    }
  });
});

describe("the binary's writes", () => {
  test("remove the temporary files killed processes left, once a minute old", () => {
    const root = tempRoot();
    try {
      const ended = spawnSync(process.execPath, ["--version"]).pid!;
      const left = (name: string) => `.${name}.${ended}-0123456789ab.linewise-tmp`;
      const old = Date.now() / 1000 - 120;
      fs.writeFileSync(join(root.dir, left("a.txt")), "half a write");
      fs.utimesSync(join(root.dir, left("a.txt")), old, old);
      fs.writeFileSync(join(root.dir, left("b.txt")), "a write that may still be going on");
      fs.writeFileSync(join(root.dir, ".notes"), "the user's own hidden file");
      const run = runCli(
        ["call", "write", JSON.stringify({ path: "c.txt", content: "c\n" })],
        root.dir,
      );
      assert.equal(run.status, 0, run.stderr);
      assert.deepEqual(
        fs.readdirSync(root.dir).sort(),
        [left("b.txt"), ".notes", "c.txt"].sort(),
      );
    } finally {
      root.remove();
    }
  });
});

describe("the binary's pattern helper", () => {
  /** Whether a process runs (a zombie, killed and not yet reaped, does not). */
  function running(pid: number): boolean {
    const stat = spawnSync("cat", [`/proc/${pid}/stat`], { encoding: "utf8" }).stdout;
    return stat !== "" && stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  }

  test("dies with a server killed while the helper is stuck in a match", {
    skip: process.platform !== "linux",
    timeout: 30_000,
  }, async () => {
    const root = tempRoot();
    // (The helper would match for hours: it never reads that its stdin ended.)
    fs.writeFileSync(join(root.dir, "stuck.txt"), "c" + "a".repeat(3000) + "\n");
    const session = await initialized(["serve", "--root", root.dir, "--timeout", "20"]);
    const helpers: number[] = [];
    try {
      session.sendJson({
        jsonrpc: "2.0",
        id: "stuck",
        method: "tools/call",
        params: { name: "grep", arguments: { pattern: "(?=a)a*a*a*a*c" } },
      });
      await until(() => helpers.push(...patternHelpers(session.child.pid!)) > 0);
      assert.equal(await kill(session, "SIGKILL"), "SIGKILL");
      await until(() => !helpers.some(running)).catch(() => {});
      assert.deepEqual(helpers.filter(running), [], "no helper outlives the server");
    } finally {
      for (const pid of helpers.filter(running)) process.kill(pid, "SIGKILL");
      root.remove();
    }
  });
});
