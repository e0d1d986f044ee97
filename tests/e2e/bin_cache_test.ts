// End to end: `linewise serve` keeps its search index in the user's cache folder
// ($XDG_CACHE_HOME/linewise), and a new server on the same root starts from it. Driven by
// the official MCP SDK client, every grep of a new server must match what the one-shot
// command line (which keeps no index) answers: with the cache as it was saved, after files
// changed between the servers, with the cache corrupted, and with --no-cache (which neither
// loads nor saves it).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import { join } from "node:path";
// @ts-types="../../node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.d.ts"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ensureBinary, initialized, tempRoot } from "../_helpers/binary.ts";
import { sdkSession } from "../_helpers/sdk.ts";

const GREPS = [
  { pattern: "createElement\\(" },
  { pattern: "useState|useEffect", ignore_case: true },
  { pattern: "n1\\d", glob: "src1/**" },
];

describe("the binary's search index kept between servers", () => {
  const root = tempRoot();
  const cacheHome = tempRoot();
  const at = (name: string) => join(root.dir, name);
  const cacheDir = join(cacheHome.dir, "linewise");
  before(async () => {
    for (let i = 0; i < 300; i++) {
      fs.mkdirSync(at(`src${i % 7}`), { recursive: true });
      const body = i % 4 === 0
        ? `render(createElement("p", ${i}));`
        : `const n${i} = useState(${i});`;
      fs.writeFileSync(at(`src${i % 7}/m${i}.js`), `// module ${i}\n${body}\n`);
    }
    fs.mkdirSync(at("empty"));
    // Symlinks the walk leaves out, and counts (the cache must keep the count): one leads
    // nowhere, one out of the root.
    fs.symlinkSync("gone.js", at("src3/dangling.js"));
    fs.symlinkSync("/etc/hostname", at("src3/outside.js"));
    // (And a FIFO, passed over and counted.)
    assert.equal(spawnSync("mkfifo", [at("src3/pipe.js")]).status, 0);
    // Everything an hour old, and its ctimes 2 s old: what changed within the last 2 s when
    // it was indexed is not kept.
    const old = new Date(Date.now() - 3_600_000);
    for (const name of fs.readdirSync(root.dir, { recursive: true }) as string[]) {
      const stat = fs.lstatSync(at(name));
      if (!stat.isSymbolicLink() && !stat.isFIFO()) fs.utimesSync(at(name), old, old);
    }
    fs.utimesSync(root.dir, old, old);
    await new Promise((resolve) => setTimeout(resolve, 2_100));
  });
  after(() => {
    root.remove();
    cacheHome.remove();
  });

  /** The pid of each session's server. */
  const pids = new WeakMap<Client, number>();

  async function session(extra: string[] = []): Promise<Client> {
    const { client, transport } = await sdkSession(["serve", "--root", root.dir, ...extra], {
      name: "linewise-cache-e2e",
      env: { ...process.env, XDG_CACHE_HOME: cacheHome.dir } as Record<string, string>,
    });
    pids.set(client, transport.pid!);
    return client;
  }

  /** How many worker threads (the search thread and its helpers) a session's server runs. */
  function workerThreads(client: Client): number {
    const tasks = `/proc/${pids.get(client)}/task`;
    return fs.readdirSync(tasks).filter((task) =>
      fs.readFileSync(join(tasks, task, "comm"), "utf8").trim() === "Worker"
    ).length;
  }

  async function greps(client: Client): Promise<unknown[]> {
    const out = [];
    for (const args of GREPS) {
      const result = await client.callTool({
        name: "grep",
        arguments: { ...args, max_matches: 10_000 },
      });
      out.push(result.structuredContent);
    }
    return out;
  }

  function oneShot(): unknown[] {
    return GREPS.map((args) => {
      const flags = [
        ...(args.ignore_case ? ["-i"] : []),
        ...(args.glob ? ["--glob", args.glob] : []),
      ];
      const run = spawnSync(
        ensureBinary(),
        [
          "grep",
          args.pattern,
          ".",
          ...flags,
          "--max-matches",
          "10000",
          "--root",
          root.dir,
          "--json",
        ],
        { encoding: "utf8" },
      );
      assert.equal(run.status, 0, run.stderr);
      return JSON.parse(run.stdout);
    });
  }

  const cacheFiles = () =>
    fs.existsSync(cacheDir) ? fs.readdirSync(cacheDir).filter((n) => n.endsWith(".index")) : [];

  /**
   * Waits until the cache file is (re)written after `since` (its mtime in ms): up to 30 s, as
   * a machine busy with the rest of the suite may take 15 s to build and save an index.
   */
  async function savedAfter(since: number): Promise<string> {
    for (let i = 0; i < 3000; i++) {
      const [name] = cacheFiles();
      if (name !== undefined && fs.statSync(join(cacheDir, name)).mtimeMs > since) {
        return join(cacheDir, name);
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error("the cache file was not written");
  }

  /**
   * A new server's greps, checked against the command line's (`what` names the case), and
   * how many symlinks its first grep left out.
   */
  async function newServerGreps(what: string, links = 2): Promise<unknown[]> {
    const client = await session();
    try {
      const got = await greps(client);
      assert.deepEqual(got, oneShot(), what);
      const [{ skipped }] = got as Array<{ skipped?: { links: number; special: number } }>;
      assert.equal(skipped?.links, links, `${what}: the symlinks left out`);
      assert.equal(skipped?.special, 1, `${what}: the FIFO passed over`);
      return got;
    } finally {
      await client.close();
    }
  }

  /**
   * Waits past the racy window (what was just written is then kept), and starts a server
   * without a cache, whose greps must be the command line's.
   */
  async function firstServer(): Promise<Client> {
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    fs.rmSync(cacheDir, { recursive: true, force: true });
    const client = await session();
    try {
      assert.deepEqual(await greps(client), oneShot(), "the first server");
      return client;
    } catch (error) {
      await client.close();
      throw error;
    }
  }

  test("a new server answers from it as the command line does, before and after changes", {
    timeout: 90_000,
  }, async () => {
    const first = await session();
    let file: string;
    try {
      assert.deepEqual(await greps(first), oneShot(), "the first server");
      file = await savedAfter(0);
    } finally {
      await first.close();
    }
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.equal(fs.statSync(cacheDir).mode & 0o777, 0o700);

    await newServerGreps("a new server, nothing changed");

    // Between servers: a file rewritten to the same size with its times put back, one
    // created in a directory without files, one removed.
    const same = at("src1/m1.js");
    const stat = fs.statSync(same);
    const text = fs.readFileSync(same, "utf8");
    const rewritten = text.replace("const n1 = useState(1);", "createElement(1);/*..*/");
    assert.equal(rewritten.length, text.length);
    fs.writeFileSync(same, rewritten);
    fs.utimesSync(same, stat.atime, stat.mtime);
    fs.writeFileSync(at("empty/new.js"), 'createElement("new");\n');
    fs.rmSync(at("src0/m0.js"));
    const changed = JSON.stringify((await newServerGreps("a new server after changes"))[0]);
    assert.match(changed, /"empty\/new\.js"/);
    assert.match(changed, /"src1\/m1\.js"/);
    assert.doesNotMatch(changed, /"src0\/m0\.js"/);

    // Corrupted: ignored, and written anew.
    const bytes = fs.readFileSync(file);
    for (let i = 0; i < 20; i++) bytes[(i * 7919) % bytes.length] ^= 0x5a;
    fs.writeFileSync(file, bytes);
    const corruptedAt = fs.statSync(file).mtimeMs;
    const fourth = await session();
    try {
      assert.deepEqual(await greps(fourth), oneShot(), "a new server, the cache corrupted");
      await savedAfter(corruptedAt);
    } finally {
      await fourth.close();
    }
  });

  test("a new server takes a walk through symlinks only while each leads where it led", {
    timeout: 90_000,
  }, async () => {
    // Targets in a hidden directory, which no walk lists: a target that appears there between
    // servers changes none of the walk's directories.
    const links = [at("src2/kept.js"), at("src3/later.js")];
    fs.mkdirSync(at(".store"));
    fs.writeFileSync(at(".store/kept.js"), 'createElement("kept");\n');
    fs.symlinkSync("../.store/kept.js", links[0]);
    fs.symlinkSync("../.store/later.js", links[1]); // (leads nowhere yet)
    try {
      const first = await firstServer();
      try {
        // (Saved once the walk is in it, with its symlinks.)
        for (let i = 0; i < 1500 && !/later\.js/.test(cacheText()); i++) {
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        assert.match(cacheText(), /later\.js/, "the walk was saved with its symlinks");
      } finally {
        await first.close();
      }
      const kept = await newServerGreps("a new server, nothing changed", 3);
      assert.match(JSON.stringify(kept[0]), /"src2\/kept\.js"/);
      fs.writeFileSync(at(".store/later.js"), 'createElement("later");\n');
      const later = await newServerGreps("a new server after the target appeared");
      assert.match(JSON.stringify(later[0]), /"src3\/later\.js"/);
    } finally {
      for (const link of links) fs.rmSync(link);
      fs.rmSync(at(".store"), { recursive: true });
    }
  });

  /** The cache file's bytes as text (its paths are UTF-8), or "" when there is none. */
  function cacheText(): string {
    const [name] = cacheFiles();
    return name === undefined ? "" : fs.readFileSync(join(cacheDir, name), "latin1");
  }

  test("the search thread starts with the first grep, or at once to take a saved index", {
    timeout: 60_000,
  }, async () => {
    fs.rmSync(cacheDir, { recursive: true, force: true });
    const first = await session();
    try {
      const read = await first.callTool({ name: "read", arguments: { path: "src1/m1.js" } });
      assert.equal(read.isError, undefined);
      assert.equal(workerThreads(first), 0, "no search thread before a search");
      assert.deepEqual((await greps(first))[0], oneShot()[0]);
      assert.ok(workerThreads(first) >= 1, "the grep started the search thread");
      await savedAfter(0);
    } finally {
      await first.close();
    }
    const second = await session();
    try {
      let threads = 0;
      for (let i = 0; i < 500 && threads === 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        threads = workerThreads(second);
      }
      assert.ok(threads >= 1, "with an index saved, the search thread starts before any grep");
      assert.deepEqual(await greps(second), oneShot());
    } finally {
      await second.close();
    }
  });

  test("a .gitignore changed unheard while a server ran: it and a new server answer alike", {
    timeout: 90_000,
  }, async () => {
    // Rewritten through a hard link outside the roots, which the watcher does not hear: the
    // server's walk, made under the old rules, must neither be saved nor be kept.
    const ignore = at(".gitignore");
    const logged = at("src1/trace.log");
    const link = join(cacheHome.dir, "gitignore-link");
    fs.writeFileSync(ignore, "*.log\n");
    fs.writeFileSync(logged, 'createElement("logged");\n');
    /**
     * Rewrites the .gitignore unheard, then makes a change the watcher hears and a grep that
     * reads it again, so that `client`'s index is saved again (that grep's answer may be the
     * walk's, which nothing said was stale), and waits past the racy window and the save.
     */
    async function rewriteUnheard(client: Client, rules: string): Promise<void> {
      fs.linkSync(ignore, link);
      fs.writeFileSync(link, rules);
      fs.rmSync(link);
      const changedAt = Date.now();
      fs.appendFileSync(at("src2/m2.js"), "// more\n");
      await greps(client);
      await savedAfter(changedAt);
      await new Promise((resolve) => setTimeout(resolve, 3_500));
    }
    try {
      // A walk the server made.
      const first = await firstServer();
      try {
        assert.doesNotMatch(JSON.stringify(oneShot()[0]), /trace\.log/, "ignored at first");
        await savedAfter(0);
        await new Promise((resolve) => setTimeout(resolve, 2_000)); // (its walk saved too)
        await rewriteUnheard(first, "# nothing ignored\n");
        assert.match(JSON.stringify(oneShot()[0]), /trace\.log/, "no longer ignored");
        assert.deepEqual(await greps(first), oneShot(), "the server that did not hear it");
      } finally {
        await first.close();
      }
      // A walk taken from the cache on disk: a second server saves one, a third takes it.
      const second = await session();
      try {
        const since = Date.now();
        assert.deepEqual(await greps(second), oneShot(), "a new server");
        await savedAfter(since);
        await new Promise((resolve) => setTimeout(resolve, 2_000));
      } finally {
        await second.close();
      }
      const third = await session();
      try {
        assert.deepEqual(await greps(third), oneShot(), "a server that took the saved walk");
        await rewriteUnheard(third, "*.log\n");
        assert.doesNotMatch(JSON.stringify(oneShot()[0]), /trace\.log/, "ignored again");
        assert.deepEqual(await greps(third), oneShot(), "it did not hear it either");
      } finally {
        await third.close();
      }
      await newServerGreps("a new server after the .gitignore changed unheard");
    } finally {
      fs.rmSync(ignore, { force: true });
      fs.rmSync(logged, { force: true });
      fs.rmSync(link, { force: true });
    }
  });

  test("a FIFO in the cache folder is never opened: the servers answer all the same", {
    timeout: 90_000,
  }, async () => {
    fs.rmSync(cacheDir, { recursive: true, force: true });
    const first = await session();
    let file: string;
    try {
      await greps(first);
      file = await savedAfter(0);
    } finally {
      await first.close();
    }
    // (An open of a FIFO waits for a writer: the cache file made one, and another beside it,
    // which a save looks through for caches of roots that are gone.)
    const other = join(cacheDir, "other.index");
    fs.rmSync(file);
    for (const fifo of [file, other]) {
      const made = spawnSync("mkfifo", ["-m", "600", fifo], { encoding: "utf8" });
      assert.equal(made.status, 0, made.stderr);
    }
    const client = await session();
    try {
      const started = Date.now();
      assert.deepEqual(await greps(client), oneShot(), "a new server, the cache file a FIFO");
      assert.ok(Date.now() - started < 5_000, "answered without waiting on the FIFO");
      // Saved over the FIFO; then a grep still answers (the save did not wait on the other).
      for (let i = 0; i < 1500 && !fs.statSync(file).isFile(); i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      assert.ok(fs.statSync(file).isFile(), "the cache file was written over the FIFO");
      assert.deepEqual(await greps(client), oneShot(), "the same server after it saved");
    } finally {
      await client.close();
    }
    assert.ok(fs.lstatSync(other).isFIFO(), "the other FIFO left alone");
    await newServerGreps("a new server, the cache file saved over the FIFO");
  });

  test("--no-cache neither loads nor saves it", { timeout: 60_000 }, async () => {
    fs.rmSync(cacheDir, { recursive: true, force: true });
    const client = await session(["--no-cache"]);
    try {
      assert.deepEqual(await greps(client), oneShot());
      // (A server that saves does so about a second after its index is built.)
      await new Promise((resolve) => setTimeout(resolve, 4_000));
      assert.deepEqual(cacheFiles(), []);
    } finally {
      await client.close();
    }
  });

  test("a cache folder that is a file is said once, with the system's reason", {
    timeout: 60_000,
  }, async () => {
    const home = tempRoot();
    fs.writeFileSync(join(home.dir, "linewise"), "not a folder\n");
    const session = await initialized(["serve", "--root", root.dir], { XDG_CACHE_HOME: home.dir });
    try {
      session.sendJson({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "grep", arguments: { pattern: "createElement" } },
      });
      await session.receivedUntil('"id":1');
      for (let i = 0; i < 1000 && !session.stderr.includes("could not be saved"); i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      assert.match(
        session.stderr,
        /^linewise: the search index could not be saved \((?:EEXIST|ENOTDIR)[^\n]*\); going on without it\n$/,
      );
      assert.equal(fs.readFileSync(join(home.dir, "linewise"), "utf8"), "not a folder\n");
      // (Saves after more changes fail alike, and are not said again.)
      for (let i = 0; i < 3; i++) {
        fs.writeFileSync(at(`src0/later${i}.js`), "createElement(1)\n");
        session.sendJson({
          jsonrpc: "2.0",
          id: 2 + i,
          method: "tools/call",
          params: { name: "grep", arguments: { pattern: "createElement" } },
        });
        await session.receivedUntil(`"id":${2 + i}`);
        await new Promise((resolve) => setTimeout(resolve, 2_500));
      }
      assert.equal(session.stderr.match(/could not be saved/g)?.length, 1, session.stderr);
    } finally {
      session.child.kill();
      home.remove();
      for (let i = 0; i < 3; i++) fs.rmSync(at(`src0/later${i}.js`), { force: true });
    }
  });

  test("names that are not UTF-8 come back from it as they were", { timeout: 60_000 }, async () => {
    // (Python makes the names: a byte that is not UTF-8, and a real U+FFFD beside one.)
    const made = spawnSync("python3", [
      "-c",
      `
import os, sys
for name in [b"bad\\xff.txt", b"rep\\xef\\xbf\\xbd.txt", b"rep\\xff.txt", b"lat\\xe9.txt"]:
    path = os.path.join(os.fsencode(sys.argv[1]), name)
    with open(path, "w") as f:
        f.write("NEEDLE " + repr(name) + "\\n")
    os.utime(path, (1e9, 1e9))
`,
      root.dir,
    ]);
    assert.equal(made.status, 0, String(made.stderr));
    const needle = async (client: Client) => {
      const result = await client.callTool({ name: "grep", arguments: { pattern: "NEEDLE" } });
      return (result.content as Array<{ text: string }>)[0].text.replace(/ @[0-9a-f]{8}$/gm, "");
    };
    const first = await firstServer();
    let expected: string;
    try {
      const since = Date.now();
      expected = await needle(first);
      await savedAfter(since);
    } finally {
      await first.close();
    }
    assert.equal(expected.match(/^"\S+"$/gm)?.length, 3, expected);
    assert.match(expected, /^rep\uFFFD\.txt$/m);
    const client = await session();
    try {
      assert.equal(await needle(client), expected, "a new server, from the saved index");
    } finally {
      await client.close();
    }
  });
});
