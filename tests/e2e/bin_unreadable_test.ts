// End to end: a server that keeps its walks and results, run as a user who may not read
// everything (root only: the server and the command line run as nobody through `setpriv`).
// A directory made unreadable, where the walk listed or where one of its symlinks leads, is
// heard as a change of mode only: the server must answer as the one-shot command line does,
// unreadable directories counted, the same grep repeated and a new one alike.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import { join } from "node:path";
import process from "node:process";
// @ts-types="../../node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.d.ts"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ensureBinary, tempRoot } from "../_helpers/binary.ts";
import { sdkSession } from "../_helpers/sdk.ts";

const NOBODY = ["--reuid=65534", "--regid=65534", "--clear-groups"];
const WHY_SKIPPED = process.getuid?.() !== 0
  ? "running as another user needs root"
  : spawnSync("sh", ["-c", "command -v setpriv"]).status !== 0
  ? "needs setpriv"
  : false;

describe("the binary's kept walks, for a user who may not read everything", {
  skip: WHY_SKIPPED,
}, () => {
  const root = tempRoot();
  const cacheHome = tempRoot();
  const at = (name: string) => join(root.dir, name);
  before(() => {
    fs.mkdirSync(at("gen/x"), { recursive: true });
    fs.mkdirSync(at("src/deep"), { recursive: true });
    fs.writeFileSync(at(".gitignore"), "gen/\n");
    fs.writeFileSync(at("gen/x/f.txt"), "alpha in the link's target\n");
    fs.writeFileSync(at("src/a.txt"), "alpha\n");
    fs.writeFileSync(at("src/deep/b.txt"), "alpha deep\n");
    fs.symlinkSync("../gen/x/f.txt", at("src/l1"));
    fs.chmodSync(root.dir, 0o755);
    fs.chownSync(cacheHome.dir, 65534, 65534);
  });
  after(() => {
    root.remove();
    cacheHome.remove();
  });

  const env = { ...process.env, XDG_CACHE_HOME: cacheHome.dir } as Record<string, string>;

  /** The command line's answer, as nobody. */
  function oneShot(args: Record<string, unknown>): unknown {
    const run = spawnSync(
      "setpriv",
      [
        ...NOBODY,
        ensureBinary(),
        "call",
        "grep",
        JSON.stringify(args),
        "--json",
        "--root",
        root.dir,
      ],
      { encoding: "utf8", env },
    );
    assert.equal(run.status, 0, run.stderr);
    return JSON.parse(run.stdout);
  }

  async function grep(client: Client, args: Record<string, unknown>): Promise<unknown> {
    return (await client.callTool({ name: "grep", arguments: args })).structuredContent;
  }

  test("a directory made unreadable where a walk listed, or where its symlink leads", {
    timeout: 60_000,
  }, async () => {
    const { client } = await sdkSession(
      [...NOBODY, ensureBinary(), "serve", "--root", root.dir],
      { command: "setpriv", env },
    );
    try {
      /** The same grep twice, and a grep of a pattern new to the server twice. */
      const agree = async (what: string, fresh: string) => {
        for (const pattern of ["alpha", "alpha", fresh, fresh]) {
          assert.deepEqual(await grep(client, { pattern }), oneShot({ pattern }), what);
        }
      };
      await agree("at first", "alph");
      // (The index learns the files, then keeps the walk and the results.)
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await agree("with the walk kept", "lpha");
      const steps: Array<[string, number, string]> = [
        ["gen/x", 0o000, "alp"],
        ["gen/x", 0o755, "pha"],
        ["src/deep", 0o000, "lph"],
      ];
      for (const [dir, mode, fresh] of steps) {
        fs.chmodSync(at(dir), mode);
        await agree(`${dir} made ${mode.toString(8)}`, fresh);
        if (dir === "gen/x" && mode === 0) {
          // (The symlink whose way is closed is left out and counted; its directory is read.)
          const found = oneShot({ pattern: "alpha" }) as {
            files: Array<{ path: string }>;
            skipped?: { links: number };
            unreadable?: number;
          };
          assert.deepEqual(found.files.map((file) => file.path), ["src/a.txt", "src/deep/b.txt"]);
          assert.deepEqual([found.skipped?.links, found.unreadable], [1, undefined]);
        }
      }
      assert.match(JSON.stringify(oneShot({ pattern: "alpha" })), /"unreadable":1/);
    } finally {
      fs.chmodSync(at("src/deep"), 0o755);
      await client.close();
    }
  });
});
