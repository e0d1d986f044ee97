// End to end: the npm packages as a user gets them. scripts/build_npm.ts builds them, `npm pack`
// packs them, and `npm install` puts them into empty folders, once with the linux-x64 binary
// package and once without; then the official MCP SDK client drives `linewise serve` through
// the installed launcher under Node 20 and Node 22 (the PATH's node when it is of that version,
// else node@20 or node@22 from npm, installed into folders of their own), and a Node script
// imports the library by its package name.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import process from "node:process";
import { PROJECT, unversioned } from "../_helpers/binary.ts";
import { installInto, packedPackages, run } from "../_helpers/npm.ts";
import { sdkSession } from "../_helpers/sdk.ts";

/** The Node versions the package is tried under (each installed from npm by the first test). */
const NODES: Record<string, string> = { "Node 20": "", "Node 22": "" };
const onLinuxX64 = process.platform === "linux" && process.arch === "x64";

type Text = { content: { type: string; text: string }[] };

/** The `node` on the PATH when it is of the major version asked for. */
function systemNode(major: string): string | undefined {
  const found = spawnSync("node", ["-p", "process.version + ' ' + process.execPath"], {
    encoding: "utf8",
  });
  const [version, execPath] = found.status === 0 ? found.stdout.trim().split(" ") : [];
  return version?.startsWith(`v${major}.`) ? execPath : undefined;
}

describe("the npm packages, installed", { skip: !onLinuxX64, timeout: 240_000 }, () => {
  let work: string;
  let root: string;
  const installs: Record<string, string> = {};

  // (Set up by the first test: Bun's hooks keep a 5 s timeout of their own.)
  let installed: Promise<void> | undefined;
  function install(): Promise<void> {
    installed ??= (async () => {
      work = fs.mkdtempSync(path.join(os.tmpdir(), "linewise-npm-"));
      root = path.join(work, "root");
      fs.mkdirSync(root);
      const { main, binary } = packedPackages();
      // (One after another they took 19 s, at once 12 s. A Node that is on the PATH in the
      // version wanted is used as it is: installing one from npm costs 8 s of CPU.)
      const names = Object.keys(NODES);
      const [withoutBinary, withBinary, ...nodes] = await Promise.all([
        installInto(path.join(work, "node"), [main]),
        installInto(path.join(work, "binary"), [main, binary]),
        ...names.map((name) => {
          const major = name.split(" ")[1];
          return systemNode(major) ??
            installInto(path.join(work, name.replace(" ", "")), [`node@${major}`]).then((dir) =>
              path.join(dir, "node_modules/node/bin/node")
            );
        }),
      ]);
      installs.node = withoutBinary;
      installs.binary = withBinary;
      names.forEach((name, i) => NODES[name] = nodes[i]);
    })();
    return installed;
  }

  after(() => {
    if (work !== undefined) fs.rmSync(work, { recursive: true, force: true });
  });

  test("what is installed is this build (not a tarball packed before it)", {
    timeout: 180_000,
  }, async () => {
    await install();
    const built = path.join(PROJECT, "dist/npm/linewise");
    const installed = path.join(installs.node, "node_modules/@linewise/linewise");
    const modules = fs.readdirSync(built, { recursive: true, encoding: "utf8" })
      .filter((file) => file.endsWith(".js"));
    assert.ok(modules.length > 50, String(modules.length));
    for (const file of modules) {
      const same = fs.readFileSync(path.join(built, file))
        .equals(fs.readFileSync(path.join(installed, file)));
      assert.ok(same, `${file} differs from the build`);
    }
  });

  for (const nodeName of Object.keys(NODES)) {
    for (const kind of ["node", "binary"] as const) {
      test(
        `${nodeName}, ${
          kind === "binary" ? "with" : "without"
        } the binary package: serve answers the SDK client`,
        {
          timeout: 180_000,
        },
        async () => {
          await install();
          const node = NODES[nodeName];
          const launcher = path.join(installs[kind], "node_modules/.bin/linewise");
          const version = run(node, [launcher, "--version"], root);
          if (kind === "binary") {
            assert.match(version, /^linewise 0\.1\.0 \(bun [\d.]+, compiled\)\n$/);
          } else {
            const expected = nodeName === "Node 20"
              ? /^linewise 0\.1\.0 \(node 20\./
              : /\(node 22\./;
            assert.match(version, expected);
          }
          fs.writeFileSync(path.join(root, "a.txt"), "one\ntwo\nthree\n");
          fs.writeFileSync(path.join(root, "slow.txt"), "c" + "a".repeat(500) + "\n");
          const { client } = await sdkSession(
            [launcher, "serve", "--root", root, "--timeout", "1"],
            { name: "npm-test", command: node },
          );
          try {
            const tools = (await client.listTools()).tools.map((t) => t.name).sort();
            assert.ok(tools.includes("replace_lines") && tools.includes("grep"), String(tools));
            const read = await client.callTool({ name: "read", arguments: { path: "a.txt" } });
            assert.equal(unversioned((read as Text).content[0].text), "1\tone\n2\ttwo\n3\tthree\n");
            const grep = await client.callTool({ name: "grep", arguments: { pattern: "t(?=h)" } });
            assert.equal(unversioned((grep as Text).content[0].text), "a.txt\n3\tthree\n");
            // A pattern with no linear-time form is stopped at the budget on Node too.
            const started = Date.now();
            const slow = await client.callTool({
              name: "grep",
              arguments: { pattern: "(a)a*a*a*\\1c", path: "slow.txt" },
            });
            assert.match((slow as Text).content[0].text, /stopped by the time budget: the pattern/);
            assert.ok(Date.now() - started < 2000 + 1000, `${Date.now() - started} ms`);
            const edit = await client.callTool({
              name: "replace_lines",
              arguments: {
                path: "a.txt",
                edits: [{ start_line: 2, new_text: "TWO\n", expected_text: "two" }],
              },
            });
            assert.equal(edit.isError, undefined, (edit as Text).content[0].text);
            assert.equal(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "one\nTWO\nthree\n");
          } finally {
            await client.close();
          }
        },
      );
    }

    test(
      `${nodeName}: the command passes a signal's end on, and runs on Node when the binary cannot start`,
      {
        timeout: 180_000,
        skip: nodeName !== "Node 20", // (the launcher is the same on every Node)
      },
      async () => {
        await install();
        const node = NODES[nodeName];
        const launcher = path.join(installs.binary, "node_modules/.bin/linewise");
        for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
          const child = spawn(node, [launcher, "serve", "--root", root], { stdio: "pipe" });
          await new Promise((resolve) => child.on("spawn", resolve));
          await new Promise((resolve) => setTimeout(resolve, 500)); // (the binary runs)
          child.kill(signal);
          const [code, ended] = await new Promise<[number | null, string | null]>((resolve) =>
            child.on("exit", (code, signal) => resolve([code, signal]))
          );
          assert.deepEqual([code, ended], [null, signal]);
        }
        const binary = path.join(installs.binary, "node_modules/@linewise/linux-x64/bin/linewise");
        fs.chmodSync(binary, 0o644); // (as on a noexec mount)
        try {
          const ran = spawnSync(node, [launcher, "--version"], { encoding: "utf8" });
          assert.equal(ran.status, 0, ran.stderr);
          assert.match(ran.stdout, /^linewise 0\.1\.0 \(node 20\./);
          assert.match(
            ran.stderr,
            /^linewise: the binary could not be started \(EACCES\); running on Node\n/,
          );
        } finally {
          fs.chmodSync(binary, 0o755);
        }
      },
    );

    test(`${nodeName}: a server killed mid-scan takes its pattern helper with it`, {
      timeout: 180_000,
    }, async () => {
      await install();
      fs.writeFileSync(path.join(root, "slower.txt"), "c" + "a".repeat(5000) + "\n");
      const launcher = path.join(installs.node, "node_modules/.bin/linewise");
      const { client, transport } = await sdkSession([launcher, "serve", "--root", root], {
        name: "orphan-test",
        command: NODES[nodeName],
      });
      const server = transport.pid!;
      const helpers = () =>
        spawnSync("pgrep", ["-P", String(server)], { encoding: "utf8" }).stdout.split("\n")
          .filter(Boolean).map(Number);
      try {
        // (Without end within the test: the helper matches until it is told to stop.)
        client.callTool({
          name: "grep",
          arguments: { pattern: "(a)a*a*a*\\1c", path: "slower.txt" },
        }).catch(() => {});
        let helper: number | undefined;
        for (let i = 0; i < 100 && helper === undefined; i++) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          helper = helpers()[0];
        }
        assert.ok(helper !== undefined, "a helper process runs the scan");
        // (Killed as it starts, and killed once it is deep in the match.)
        await new Promise((resolve) => setTimeout(resolve, nodeName === "Node 20" ? 0 : 1000));
        process.kill(server, "SIGKILL");
        for (let i = 0; i < 100 && fs.existsSync(`/proc/${helper}`); i++) {
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        // (It polls for its parent four times a second; without that it ran on for minutes.)
        assert.equal(fs.existsSync(`/proc/${helper}`), false, "the helper ended with the server");
      } finally {
        await client.close().catch(() => {});
      }
    });

    test(`${nodeName}: a server on Node and the binary edit one file at once, none lost`, {
      timeout: 180_000,
      skip: nodeName !== "Node 20", // (the lock does not depend on Node's version)
    }, async () => {
      await install();
      const shared = path.join(root, "shared.txt");
      fs.writeFileSync(shared, "a 0\nb 0\n");
      const servers = await Promise.all([
        sdkSession([
          path.join(installs.node, "node_modules/.bin/linewise"),
          "serve",
          "--root",
          root,
        ], {
          name: "on-node",
          command: NODES[nodeName],
        }),
        sdkSession(["serve", "--root", root], { name: "binary" }),
      ]);
      /** Raises one line's counter `times` times, each read then replaced (a stale one retried). */
      const raise = async (client: (typeof servers)[0]["client"], line: string, times: number) => {
        for (let done = 0; done < times;) {
          const read = await client.callTool({ name: "read", arguments: { path: "shared.txt" } });
          const value = new RegExp(`^\\d+\\t${line} (\\d+)$`, "m").exec(
            (read as Text).content[0].text,
          );
          if (value === null) continue;
          const edit = await client.callTool({
            name: "replace",
            arguments: {
              path: "shared.txt",
              old_text: `${line} ${value[1]}\n`,
              new_text: `${line} ${Number(value[1]) + 1}\n`,
            },
          });
          if (!edit.isError) done++;
        }
      };
      try {
        await Promise.all([raise(servers[0].client, "a", 150), raise(servers[1].client, "b", 150)]);
      } finally {
        for (const { client } of servers) await client.close();
      }
      // (Without the lock files, which Node takes in place of flock, one was lost 1 run in 1.)
      assert.equal(fs.readFileSync(shared, "utf8"), "a 150\nb 150\n");
    });

    test(`${nodeName}: the library imports by its package name, with its types`, {
      timeout: 180_000,
    }, async () => {
      await install();
      const node = NODES[nodeName];
      const dir = installs.node;
      const script = `import { createTools, MemoryStore } from "@linewise/linewise";
        import { splitLines } from "@linewise/linewise/core";
        const [read] = createTools(new MemoryStore({ "a.txt": "x\\r\\ny\\n" }));
        const result = await read.call({ path: "a.txt" });
        console.log(JSON.stringify([result.content[0].text, splitLines("a\\nb").length]));`;
      const out = run(node, ["--input-type=module", "-e", script], dir);
      const [shown, count] = JSON.parse(out);
      assert.deepEqual([unversioned(shown), count], ["1\tx\r\n2\ty\n", 2]);
      const types = fs.readFileSync(
        path.join(dir, "node_modules/@linewise/linewise/mod.d.ts"),
        "utf8",
      );
      assert.match(types, /export \* from "\.\/src\/tools\/mod\.js"/);
      if (nodeName !== "Node 20") return; // (the declarations do not depend on Node's version)
      // A TypeScript user's project type-checks against the declarations.
      fs.writeFileSync(
        path.join(dir, "user.mts"),
        `import { createTools, DirectoryStore, type ToolDefinition } from "@linewise/linewise";
        import { splitLines } from "@linewise/linewise/core";
        const store = await DirectoryStore.create({ roots: ["."] });
        const tools: ToolDefinition[] = createTools(store);
        const lines: number = splitLines("a\\nb").length;
        console.log(tools.length, lines);\n`,
      );
      const options = {
        module: "nodenext",
        strict: true,
        noEmit: true,
        types: ["node"],
        typeRoots: [path.join(PROJECT, "node_modules/@types")],
      };
      fs.writeFileSync(
        path.join(dir, "tsconfig.json"),
        JSON.stringify({ compilerOptions: options, files: ["user.mts"] }),
      );
      run(node, [path.join(PROJECT, "node_modules/typescript/bin/tsc"), "-p", dir], dir);
    });
  }
});
