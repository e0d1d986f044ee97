// End to end: the server's search index is given up when its watcher can no longer vouch for
// what it heard, here because a cleaner of the temporary folder removed the watcher's private
// directory, and starts again 2 s later. Driven by the official MCP SDK client, every grep
// must match what the one-shot command line (which keeps no index) answers, and the index
// started again must hear what changes from then on: it saves itself to the cache folder
// only after a barrier of its new watcher came back.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import process from "node:process";
// @ts-types="../../node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.d.ts"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ensureBinary, tempRoot } from "../_helpers/binary.ts";
import { sdkSession } from "../_helpers/sdk.ts";

describe("the binary's search index given up", () => {
  const root = tempRoot();
  const tmp = tempRoot(); // (the server's TMPDIR, where its watcher's directory is)
  const cacheHome = tempRoot();
  const cacheDir = join(cacheHome.dir, "linewise");
  const at = (name: string) => join(root.dir, name);
  const env = { ...process.env, TMPDIR: tmp.dir, XDG_CACHE_HOME: cacheHome.dir } as Record<
    string,
    string
  >;

  before(async () => {
    for (let i = 0; i < 200; i++) {
      fs.mkdirSync(at(`src${i % 5}`), { recursive: true });
      const body = i % 3 === 0 ? "MARK here" : `nothing ${i}`;
      fs.writeFileSync(at(`src${i % 5}/m${i}.txt`), `${body}\n`);
    }
    // Past the racy window: what the server reads is kept and saved.
    await new Promise((resolve) => setTimeout(resolve, 2_100));
  });
  after(() => {
    root.remove();
    tmp.remove();
    cacheHome.remove();
  });

  const grep = async (client: Client) =>
    (await client.callTool({ name: "grep", arguments: { pattern: "MARK", literal: true } }))
      .structuredContent;
  const oneShot = () => {
    const run = spawnSync(
      ensureBinary(),
      ["grep", "MARK", ".", "-F", "--root", root.dir, "--json"],
      {
        encoding: "utf8",
        env,
      },
    );
    assert.equal(run.status, 0, run.stderr);
    return JSON.parse(run.stdout);
  };
  const watchDirs = () =>
    fs.readdirSync(tmp.dir).filter((name) => name.startsWith("linewise-watch-"));
  const savedAt = () => {
    const names = fs.existsSync(cacheDir) ? fs.readdirSync(cacheDir) : [];
    const file = names.find((name) => name.endsWith(".index"));
    return file === undefined ? 0 : fs.statSync(join(cacheDir, file)).mtimeMs;
  };
  /** Waits until the cache file is (re)written after `since` (its mtime in ms). */
  async function savedAfter(since: number): Promise<void> {
    for (let i = 0; i < 1500 && savedAt() <= since; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.ok(savedAt() > since, "the cache file was not written");
  }

  test("starts again, and answers as the command line through every change", {
    timeout: 90_000,
  }, async () => {
    const said: string[] = [];
    const { client } = await sdkSession(["serve", "--root", root.dir], {
      env,
      onStderr: (chunk) => said.push(chunk),
    });
    try {
      assert.deepEqual(await grep(client), oneShot(), "the first grep");
      await savedAfter(0);
      assert.deepEqual(await grep(client), oneShot(), "with the index");
      assert.equal(watchDirs().length, 1);
      for (const name of watchDirs()) fs.rmSync(join(tmp.dir, name), { recursive: true });
      fs.writeFileSync(at("src0/new.txt"), "MARK new\n");
      assert.deepEqual(await grep(client), oneShot(), "the grep that found the watcher broken");
      assert.match(said.join(""), /the file watcher stopped \(its check file could not be/);
      await new Promise((resolve) => setTimeout(resolve, 2_100));
      fs.writeFileSync(at("src1/m1.txt"), "MARK between\n");
      const restarted = Date.now();
      assert.deepEqual(await grep(client), oneShot(), "the grep that started it again");
      assert.match(said.join(""), /the search index starts again \(given up \d+\.\d s ago\)/);
      assert.equal(watchDirs().length, 1, "its watcher has a directory again");
      // Saved only once a barrier of the new watcher came back.
      await savedAfter(restarted);
      assert.deepEqual(await grep(client), oneShot(), "with the index started again");
      fs.writeFileSync(at("src2/m2.txt"), "MARK after\n");
      fs.rmSync(at("src0/m0.txt"));
      assert.deepEqual(await grep(client), oneShot(), "after changes the new watcher heard");
      assert.equal(said.join("").match(/watcher stopped/g)?.length, 1, said.join(""));
    } finally {
      await client.close();
    }
  });
});
