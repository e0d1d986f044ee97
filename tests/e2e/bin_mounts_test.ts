// End to end: a file system mounted over a directory of the root while a server runs, or
// unmounted from it, is heard by no inotify watch. The server must still answer as the
// command line does, and so must a new server that takes the index the first one saved.
// Root only: the servers run in a mount namespace of their own (`unshare`, `nsenter`), so
// the bind mount is seen by nothing else on the machine.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import type { Buffer } from "node:buffer";
import * as fs from "node:fs";
import { join } from "node:path";
import process from "node:process";
// @ts-types="../../node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.d.ts"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ensureBinary, tempRoot } from "../_helpers/binary.ts";
import { sdkSession } from "../_helpers/sdk.ts";

const hasTools = ["unshare", "nsenter", "mount", "umount"].every((tool) =>
  spawnSync("sh", ["-c", `command -v ${tool}`]).status === 0
);
const WHY_SKIPPED = process.getuid?.() !== 0
  ? "mounting needs root"
  : !hasTools
  ? "needs unshare, nsenter, mount and umount"
  : false;

describe("the binary's search index and mounts inside the root", {
  skip: WHY_SKIPPED,
}, () => {
  const root = tempRoot();
  const outside = tempRoot();
  const cacheHome = tempRoot();
  const cacheDir = join(cacheHome.dir, "linewise");
  const at = (name: string) => join(root.dir, name);
  /** A process holding the mount namespace the servers and the mount run in. */
  let holder: ChildProcess;

  before(async () => {
    fs.mkdirSync(at("sub"));
    fs.writeFileSync(at("top.txt"), "MARK at the top\n");
    fs.writeFileSync(at("sub/before.txt"), "MARK in the directory as it was\n");
    fs.writeFileSync(join(outside.dir, "mounted.txt"), "MARK in the file system mounted there\n");
    holder = spawn("unshare", ["--mount", "--propagation", "private", "sleep", "600"], {
      stdio: "ignore",
    });
    // (Through readlink: Deno reads /proc/…/ns only with --allow-all.)
    const namespace = (pid: string) =>
      spawnSync("readlink", [`/proc/${pid}/ns/mnt`], { encoding: "utf8" }).stdout.trim();
    const own = namespace("self");
    for (let i = 0; i < 500 && [own, ""].includes(namespace(String(holder.pid))); i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // Past the racy window: what the first server reads is kept and saved.
    await new Promise((resolve) => setTimeout(resolve, 2_100));
  });
  after(() => {
    holder?.kill();
    root.remove();
    outside.remove();
    cacheHome.remove();
  });

  /** Runs a program in the namespace. */
  function inNamespace(program: string, args: string[]): string {
    const run = spawnSync("nsenter", ["-t", String(holder.pid), "-m", "--", program, ...args], {
      encoding: "utf8",
      env: { ...process.env, XDG_CACHE_HOME: cacheHome.dir },
    });
    assert.equal(run.status, 0, `${program} ${args.join(" ")}: ${run.stderr}`);
    return run.stdout;
  }

  async function session(stderr: string[]): Promise<Client> {
    const args = [
      "-t",
      String(holder.pid),
      "-m",
      "--",
      ensureBinary(),
      "serve",
      "--root",
      root.dir,
    ];
    const { client } = await sdkSession(args, {
      command: "nsenter",
      env: { ...process.env, XDG_CACHE_HOME: cacheHome.dir } as Record<string, string>,
      onStderr: (chunk) => stderr.push(chunk),
    });
    return client;
  }

  const grep = async (client: Client) =>
    (await client.callTool({ name: "grep", arguments: { pattern: "MARK", literal: true } }))
      .structuredContent;
  const oneShot = () =>
    JSON.parse(
      inNamespace(ensureBinary(), ["grep", "MARK", ".", "-F", "--root", root.dir, "--json"]),
    );
  const files = (answer: unknown) => JSON.stringify(answer).match(/\w+\.txt/g);

  /** Waits until the cache file is (re)written after `since` (its mtime in ms). */
  async function savedAfter(since: number): Promise<void> {
    for (let i = 0; i < 1500; i++) {
      const names = fs.existsSync(cacheDir) ? fs.readdirSync(cacheDir) : [];
      const file = names.find((name) => name.endsWith(".index"));
      if (file !== undefined && fs.statSync(join(cacheDir, file)).mtimeMs > since) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error("the cache file was not written");
  }

  test("a mount and an unmount the watcher cannot hear change no answer", {
    timeout: 90_000,
  }, async () => {
    const said: string[] = [];
    let savedBeforeMount: Buffer | undefined;
    const first = await session(said);
    try {
      assert.deepEqual(files(await grep(first)), ["before.txt", "top.txt"]);
      await savedAfter(0);
      // Its walk is kept once the index is made, and saved with it.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      assert.deepEqual(await grep(first), oneShot(), "before the mount");
      const cacheFile = join(
        cacheDir,
        fs.readdirSync(cacheDir).find((name) => name.endsWith(".index"))!,
      );
      savedBeforeMount = fs.readFileSync(cacheFile);
      inNamespace("mount", ["--bind", outside.dir, at("sub")]);
      assert.deepEqual(files(oneShot()), ["mounted.txt", "top.txt"]);
      assert.deepEqual(await grep(first), oneShot(), "the server that did not hear the mount");
      assert.match(said.join(""), /mounted or unmounted inside the roots/);
      // Its index starts again 2 s later, with the mount as it is now, and hears what
      // changes in the file system mounted there.
      await new Promise((resolve) => setTimeout(resolve, 2_100));
      const restarted = Date.now();
      assert.deepEqual(await grep(first), oneShot(), "the grep that starts the index again");
      assert.match(said.join(""), /the search index starts again/);
      await savedAfter(restarted);
      assert.deepEqual(await grep(first), oneShot(), "the index started again");
      fs.writeFileSync(join(outside.dir, "later.txt"), "MARK written in the mount later\n");
      assert.deepEqual(files(oneShot()), ["later.txt", "mounted.txt", "top.txt"]);
      assert.deepEqual(await grep(first), oneShot(), "a change in the mount, heard");
      fs.rmSync(join(outside.dir, "later.txt"));
    } finally {
      await first.close();
    }
    // A new server takes the index saved before the mount (the first server's index, started
    // again, saved itself since); then the mount goes.
    for (const name of fs.readdirSync(cacheDir)) {
      if (name.endsWith(".index")) fs.writeFileSync(join(cacheDir, name), savedBeforeMount!);
    }
    const quiet: string[] = [];
    const second = await session(quiet);
    try {
      assert.deepEqual(await grep(second), oneShot(), "a new server, with the mount");
      inNamespace("umount", [at("sub")]);
      assert.deepEqual(files(oneShot()), ["before.txt", "top.txt"]);
      assert.deepEqual(await grep(second), oneShot(), "the server that did not hear the unmount");
    } finally {
      await second.close();
    }
    const third = await session([]);
    try {
      assert.deepEqual(await grep(third), oneShot(), "a new server, after the unmount");
    } finally {
      await third.close();
    }
  });
});
