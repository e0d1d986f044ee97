// End to end: the binary's server keeps a search index between greps (see
// src/search/index/). Driven by the official MCP SDK client, every grep must match what the
// one-shot command line (which keeps no index) or the in-memory store answers, whatever
// changed on disk just before it.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import { join } from "node:path";
// @ts-types="../../node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.d.ts"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ensureBinary, initialized, tempRoot, unversioned } from "../_helpers/binary.ts";
import { memoryTools } from "../_helpers/tools.ts";
import { sdkSession } from "../_helpers/sdk.ts";
import { versionOf } from "../../src/versions/versions.ts";

describe("the binary's repeated grep", () => {
  const root = tempRoot();
  const at = (name: string) => join(root.dir, name);
  let client: Client;
  before(async () => {
    for (let i = 0; i < 400; i++) {
      fs.mkdirSync(at(`src${i % 9}`), { recursive: true });
      const body = i % 4 === 0 ? `render(createElement("p", ${i}));` : `const n${i} = ${i};`;
      fs.writeFileSync(at(`src${i % 9}/m${i}.js`), `// module ${i}\n${body}\n`);
    }
    ({ client } = await sdkSession(["serve", "--root", root.dir], { name: "linewise-index-e2e" }));
  });
  after(async () => {
    await client.close();
    root.remove();
  });

  const ARGS = { pattern: "createElement\\(", path: ".", max_matches: 10_000 };

  async function served(): Promise<unknown> {
    const result = await client.callTool({ name: "grep", arguments: ARGS });
    return result.structuredContent;
  }

  /** The tree's files as they are on disk now, by path. */
  function filesOnDisk(): Record<string, string> {
    const files: Record<string, string> = {};
    for (const name of fs.readdirSync(root.dir, { recursive: true }) as string[]) {
      const full = at(name);
      if (fs.statSync(full).isFile()) files[name] = fs.readFileSync(full, "utf8");
    }
    return files;
  }

  /**
   * What the in-memory store answers over the tree as it is on disk now (the files read
   * afresh): in-process, where a one-shot grep of the binary costs a process each time.
   */
  async function inMemory(): Promise<unknown> {
    return (await memoryTools(filesOnDisk()).call("grep", ARGS)).structuredContent;
  }

  function oneShot(): unknown {
    const run = spawnSync(
      ensureBinary(),
      ["grep", ARGS.pattern, ".", "--max-matches", "10000", "--root", root.dir, "--json"],
      { encoding: "utf8" },
    );
    assert.equal(run.status, 0, run.stderr);
    return JSON.parse(run.stdout);
  }

  test(
    "greps of alternatives and ignoring case find what the in-memory store finds, before and after the index learns",
    { timeout: 60_000 },
    async () => {
      // Spellings the prefilters must neither miss nor invent: other cases, the long s and
      // the Kelvin sign (Unicode case folding matches them with s and k), and near misses.
      fs.writeFileSync(
        at("spellings.js"),
        "CREATEELEMENT(a)\nCreateElemen(b)\n// TODO one\n// fixme two\nUSEſTATE\n" +
          "a \u212Aey\nkey\nuseStat\n",
      );
      // (`Sync(` is looked for, as the rarer literal; this file holds it, and every trigram
      // of `function ` but not the literal: it must not be taken for one without `Sync(`.)
      fs.writeFileSync(at("sync.js"), "readSync(a)\nfunc unct ction on \n");
      fs.writeFileSync(at("helpers.js"), "function a() {}\n");
      const memory = memoryTools(filesOnDisk());
      const greps = [
        { pattern: "createElement\\(|n1\\d" },
        { pattern: "TODO|FIXME", ignore_case: true },
        { pattern: "createElement\\(", ignore_case: true },
        { pattern: "useState", ignore_case: true },
        // (A group of alternatives with what is around it: a stretch of each joined one.)
        { pattern: "use(state|ref)", ignore_case: true },
        { pattern: "(create|render)Element\\(", ignore_case: true },
        { pattern: "key", ignore_case: true },
        { pattern: "function \\w+Sync\\(" },
        { pattern: "Sync\\(" },
        // (Files none of whose lines starts with `n1` are passed over in their bytes.)
        { pattern: "^const n1\\d" },
        { pattern: "^(?:render|const)\\(" },
      ];
      for (const round of ["before", "after"]) {
        for (const grep of greps) {
          const args = { ...grep, path: ".", max_matches: 10_000 };
          const result = await client.callTool({ name: "grep", arguments: args });
          const expected = (await memory.call("grep", args)).structuredContent;
          assert.deepEqual(result.structuredContent, expected, `${grep.pattern} ${round}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 500)); // the index learns
      }
    },
  );

  test("a grep repeated gets the answer it got, versions and all, until a file changes", async () => {
    const grep = () => client.callTool({ name: "grep", arguments: ARGS });
    const first = await grep();
    assert.deepEqual(first.structuredContent, oneShot());
    for (let i = 0; i < 4; i++) {
      // (Once the index watches the tree it keeps the result, and the server what it gave.)
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.deepEqual(await grep(), first, `repeat ${i + 1}`);
    }
    fs.appendFileSync(at("src0/m0.js"), 'createElement("later")\n');
    const changed = await grep();
    assert.deepEqual(changed.structuredContent, oneShot());
    assert.notDeepEqual(changed.content, first.content);
    assert.match(JSON.stringify(changed.content), /createElement\(\\"later\\"\)/);
  });

  test("every grep sees what changed on disk just before it", { timeout: 120_000 }, async () => {
    assert.deepEqual(await served(), oneShot());
    let seed = 3;
    const pick = (n: number) => (seed = (seed * 16807) % 2147483647) % n;
    for (let round = 0; round < 60; round++) {
      const i = pick(400);
      const name = `src${i % 9}/m${i}.js`;
      switch (pick(9)) {
        case 0:
          fs.writeFileSync(at(name), `createElement(${round})\n`);
          break;
        case 1:
          fs.writeFileSync(at(name), `gone ${round}\n`);
          break;
        case 2:
          fs.writeFileSync(at(`added${round}.js`), "x\ncreateElement(1)\n");
          break;
        case 3:
          fs.rmSync(at(name), { force: true });
          break;
        case 4:
          fs.appendFileSync(at(name), `createElement("appended ${round}")\n`);
          break;
        case 5: // through the server's own edit tool
          if (fs.existsSync(at(name))) {
            // (Read first: the insert's line number refers to what the session saw.)
            await client.callTool({ name: "read", arguments: { path: name, end_line: 1 } });
            const result = await client.callTool({
              name: "insert_lines",
              arguments: { path: name, after_line: 0, text: `createElement("tool ${round}")` },
            });
            assert.ok(!result.isError, JSON.stringify(result.content));
          }
          break;
        case 6: // as an editor saves: a temporary file renamed over it
          fs.writeFileSync(at(`${name}.swp`), `createElement("saved ${round}")\n`);
          fs.renameSync(at(`${name}.swp`), at(name));
          break;
        case 7: // where no grep looks: a hidden folder, written as a build writes
          fs.mkdirSync(at(".cache"), { recursive: true });
          fs.writeFileSync(at(`.cache/out${round}.js`), "createElement(0)\n");
          break;
        case 8: // a hidden file where the grep looks: left out, and counted so
          fs.writeFileSync(at(`src${i % 9}/.h${round}.js`), "createElement(0)\n");
          break;
      }
      assert.deepEqual(await served(), await inMemory(), `round ${round}`);
    }
  });

  test("a write through a hard link made since a file was read changes the file for grep", {
    timeout: 60_000,
  }, async () => {
    assert.deepEqual(await served(), oneShot());
    await new Promise((resolve) => setTimeout(resolve, 3_000)); // (the index has read them)
    fs.mkdirSync(at(".links"), { recursive: true });
    const targets = ["src1/m1.js", "src2/m2.js"].filter((name) => fs.existsSync(at(name)));
    for (const [i, name] of targets.entries()) {
      // (Where no grep looks, and written in place: inotify tells of the link's name only.)
      fs.linkSync(at(name), at(`.links/l${i}.js`));
      const fd = fs.openSync(at(`.links/l${i}.js`), "r+");
      fs.writeSync(fd, `createElement(${i})\n`, 0);
      fs.closeSync(fd);
    }
    assert.equal(targets.length, 2);
    assert.deepEqual(await served(), await inMemory());
  });
});

describe("the binary's grep of large files in a warm session", () => {
  const root = tempRoot();
  const at = (name: string) => join(root.dir, name);
  let client: Client;
  const lines = (n: number, every: number, eol = "\n") =>
    Array.from(
      { length: n },
      (_, i) => i % every === 7 ? `x = fetchData(${i});${eol}` : `v${i};${eol}`,
    );
  before(async () => {
    fs.writeFileSync(at("bundle.js"), lines(60_000, 9_000).join("")); // 500 kB
    const long = lines(40_000, 15_000);
    long[20_000] = `${"a".repeat(200_000)} fetchData(long) ${"b".repeat(100_000)}\n`;
    fs.writeFileSync(at("long.js"), long.join(""));
    fs.writeFileSync(at("crlf.js"), lines(50_000, 20_000, "\r\n").join(""));
    fs.writeFileSync(at("small.js"), "fetchData(small)\n");
    // A literal across the seam between two 64 KiB blocks (5 bytes before it), and nowhere
    // else: neither block's filter holds all of it.
    const filler = (bytes: number) => ("y".repeat(39) + "\n").repeat(bytes / 40);
    fs.writeFileSync(
      at("seam.js"),
      filler(2 * 65_520) + "y".repeat(27) + "fetchData(seam)\n" + filler(160_000),
    );
    // (A file changed less than 2 s before it is indexed is read whole until it changes.)
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    ({ client } = await sdkSession(["serve", "--root", root.dir], { name: "linewise-blocks-e2e" }));
  });
  after(async () => {
    await client.close();
    root.remove();
  });

  async function both(args: Record<string, unknown>, label: string): Promise<void> {
    const served = await client.callTool({ name: "grep", arguments: { path: ".", ...args } });
    const flags = [
      ...args.ignore_case ? ["--ignore-case"] : [],
      ...args.context ? ["-C", String(args.context)] : [],
    ];
    const run = spawnSync(
      ensureBinary(),
      ["grep", String(args.pattern), ".", ...flags, "--root", root.dir, "--json"],
      { encoding: "utf8" },
    );
    assert.ok(run.status === 0 || run.status === 1, run.stderr); // (1: nothing found)
    assert.deepEqual(served.structuredContent, JSON.parse(run.stdout), label);
  }

  test(
    "finds what a grep without an index finds, as the files change",
    { timeout: 60_000 },
    async () => {
      await both({ pattern: "nothing at all" }, "learning");
      await new Promise((resolve) => setTimeout(resolve, 1_500)); // the index learns
      const patterns = [
        { pattern: "fetchData\\(\\d+\\)" },
        { pattern: "FETCHDATA\\(L", ignore_case: true },
        { pattern: "fetchData\\(long|v39999;" },
        { pattern: "v49999;" },
        { pattern: "fetchData\\(\\d+\\)", context: 2 },
        { pattern: "walrus" },
        { pattern: "fetchData\\(seam\\)" },
        // Regexes more than their literal, in the long line read around its blocks: a match in
        // a stretch within the part read, and one whose stretch runs past it (100,000 b's).
        { pattern: "fetchData\\(\\s*long\\)" },
        { pattern: "a fetchData\\(long\\) b+" },
      ];
      for (const args of patterns) await both(args, `${args.pattern}, warm`);
      // A line far from every match changed through the server's edit tool, then by a write.
      await client.callTool({
        name: "read",
        arguments: { path: "bundle.js", start_line: 30_001, end_line: 30_001 },
      });
      const edit = await client.callTool({
        name: "replace_lines",
        arguments: {
          path: "bundle.js",
          edits: [{
            start_line: 30_001,
            new_text: "fetchData(edited);\n",
            expected_text: "v30000;",
          }],
        },
      });
      assert.ok(!edit.isError, JSON.stringify(edit.content));
      await both({ pattern: "fetchData\\(" }, "after the edit");
      const crlf = fs.readFileSync(at("crlf.js"), "utf8").replace("v40000;", "fetchData(written);");
      fs.writeFileSync(at("crlf.js"), crlf);
      await both({ pattern: "fetchData\\(" }, "after the write");
    },
  );
  test(
    "shows one whole version of a large file another process keeps replacing",
    { timeout: 60_000 },
    async () => {
      // Two versions with their line breaks in other places, replaced by a rename every
      // 2.5 s (as a formatter does): a search that read the new bytes at the old version's
      // line numbers (a plan made before the change) would show rows that are lines of
      // neither. (Between changes the index learns the file again, with block filters.)
      const a = Array.from(
        { length: 60_000 },
        (_, i) => i % 20_000 === 99 ? `needle(a${i});\n` : `a${i};\n`,
      );
      const b = Array.from(
        { length: 45_000 },
        (_, i) => i % 15_000 === 4_000 ? `x = needle(b${i});\n` : `bb${i} = ${i};\n`,
      );
      fs.writeFileSync(at("swapped.js"), a.join(""));
      const writer = join(root.dir, "..", `writer-${process.pid}.mjs`);
      fs.writeFileSync(
        writer,
        `import fs from "node:fs"; import process from "node:process";
        const [file, ...versions] = process.argv.slice(2);
        let n = 0;
        setInterval(() => {
          fs.writeFileSync(file + ".tmp", fs.readFileSync(versions[++n % 2]));
          fs.renameSync(file + ".tmp", file);
        }, 2500);`,
      );
      const versions = [a, b].map((lines, i) => {
        const file = join(root.dir, "..", `version-${process.pid}-${i}`);
        fs.writeFileSync(file, lines.join(""));
        return file;
      });
      const runner = process.execPath.includes("deno") ? ["run", "-A", writer] : [writer];
      const child = spawn(process.execPath, [...runner, at("swapped.js"), ...versions], {
        stdio: "ignore",
      });
      const expected = [a, b].map((lines) =>
        lines.flatMap((line, i) => line.includes("needle(") ? [i + 1] : [])
      );
      const digests = [a, b].map((lines) => versionOf(lines.join("")));
      let versioned = 0;
      try {
        const seen = new Set<number>();
        // (A pause between greps keeps the test from taking a core from the tests that run
        // beside it and time their pings.)
        for (let i = 0, until = Date.now() + 6_500; Date.now() < until; i++) {
          await new Promise((resolve) => setTimeout(resolve, 20));
          const result = await client.callTool({
            name: "grep",
            arguments: { pattern: "needle\\(", path: "swapped.js", max_matches: 1_000 + i },
          });
          const files = (result.structuredContent as {
            files: { lines: number[]; version?: string }[];
          }).files;
          const lines = files[0]?.lines ?? [];
          const version = expected.findIndex((want) => want.join() === lines.join());
          assert.notEqual(version, -1, `rows of neither version: ${lines.join()}`);
          seen.add(version);
          // The version shown is that of the bytes the rows came from (none for a file
          // changed within the last second).
          if (files[0].version !== undefined) {
            assert.equal(files[0].version, digests[version]);
            versioned++;
          }
          const rows = unversioned((result.content as { text: string }[])[0].text).split("\n");
          for (const line of lines) {
            const shown = rows.find((row) => row.startsWith(`${line}\t`));
            assert.equal(`${shown?.slice(`${line}\t`.length)}\n`, [a, b][version][line - 1]);
          }
        }
        assert.equal(seen.size, 2, "both versions were seen");
        assert.ok(versioned > 0, "some greps showed a version");
      } finally {
        child.kill();
        for (const file of [writer, ...versions]) fs.rmSync(file, { force: true });
      }
    },
  );
});

// The watcher's private directory goes in the temporary folder, which is anyone's: where one
// cannot be made there, the server greps without it (every grep reads the files), and
// answers (it once stopped at start, answering nothing, and outlived its stdin).
test("a server whose temporary folder refuses the watcher's directory still answers", {
  timeout: 60_000,
}, async () => {
  const root = tempRoot();
  const notAFolder = join(root.dir, "tmp-is-a-file");
  fs.writeFileSync(notAFolder, "");
  fs.writeFileSync(join(root.dir, "a.txt"), "needle\n");
  const session = await initialized(["serve", "--root", root.dir, "--no-cache"], {
    TMPDIR: notAFolder,
  });
  try {
    for (let id = 1; id <= 2; id++) {
      session.sendJson({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: "grep", arguments: { pattern: "needle" } },
      });
      const lines = await session.received(id + 1);
      const answer = lines[id] as { result: { content: { text: string }[]; isError?: boolean } };
      assert.equal(answer.result.isError, undefined, session.stderr);
      assert.match(answer.result.content[0].text, /^a\.txt.*\n1\tneedle/s);
    }
    assert.equal(await session.close(), 0, "it ends with its stdin");
  } finally {
    session.child.kill();
    root.remove();
  }
});

// The search runs on a thread of its own, which rebuilds the roots: a nested root once came
// first there, and "." and every relative path meant it (a grep of the first root found only
// the nested one's files, and a.txt "no file").
test("a server with a nested root greps the first root for relative paths", {
  timeout: 60_000,
}, async () => {
  const root = tempRoot();
  fs.mkdirSync(join(root.dir, "sub"));
  fs.writeFileSync(join(root.dir, "a.txt"), "hello\n");
  fs.writeFileSync(join(root.dir, "sub", "k.txt"), "hello\n");
  const { client } = await sdkSession(
    ["serve", "--root", root.dir, "--root", join(root.dir, "sub"), "--no-cache"],
    { name: "nested-roots" },
  );
  try {
    const grep = async (args: Record<string, unknown>) =>
      unversioned(
        ((await client.callTool({ name: "grep", arguments: { pattern: "hello", ...args } }))
          .content as { text: string }[])[0].text,
      );
    assert.equal(await grep({}), "a.txt\n1\thello\n\nsub/k.txt\n1\thello\n");
    assert.equal(await grep({ path: "a.txt" }), "a.txt\n1\thello\n");
  } finally {
    await client.close();
    root.remove();
  }
});

// Deny rules hold by identity: a name made or removed in a denied folder, which no walk
// lists, makes another name of its file denied or not. The kept walk decided by identity.
test("a hard link made or removed in a denied folder changes what a kept walk shows", {
  timeout: 60_000,
}, async () => {
  const root = tempRoot();
  const at = (name: string) => join(root.dir, name);
  fs.mkdirSync(at("secret"));
  fs.writeFileSync(at("a.txt"), "x a\n");
  fs.writeFileSync(at("b.txt"), "x b\n");
  fs.symlinkSync("a.txt", at("la"));
  const deny = ["--deny", "secret"];
  const { client } = await sdkSession(["serve", "--root", root.dir, ...deny, "--no-cache"], {
    name: "denied-links",
  });
  /** A grep's files and what it left out, as the server and the command line answer. */
  const both = async () => {
    const args = { pattern: "x", output: "files" };
    const served = (await client.callTool({ name: "grep", arguments: args })).structuredContent;
    const run = spawnSync(ensureBinary(), [
      "call",
      "grep",
      JSON.stringify(args),
      "--json",
      "--root",
      root.dir,
      ...deny,
    ], { encoding: "utf8" });
    const shown = (result: unknown) => {
      const { files, skipped } = result as { files: Array<{ path: string }>; skipped?: unknown };
      return { files: files.map((file) => file.path), skipped };
    };
    return { served: shown(served), fresh: shown(JSON.parse(run.stdout)) };
  };
  try {
    const all = { files: ["a.txt", "b.txt", "la"], skipped: undefined };
    for (let i = 0; i < 2; i++) {
      assert.deepEqual(await both(), { served: all, fresh: all });
      await new Promise((resolve) => setTimeout(resolve, 1_500)); // (the walk is kept)
    }
    fs.linkSync(at("a.txt"), at("secret/a2"));
    await new Promise((resolve) => setTimeout(resolve, 500));
    const denied = { files: ["b.txt"], skipped: { hidden: 0, ignored: 0, links: 1, special: 0 } };
    for (let i = 0; i < 2; i++) assert.deepEqual(await both(), { served: denied, fresh: denied });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    fs.rmSync(at("secret/a2"));
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (let i = 0; i < 2; i++) assert.deepEqual(await both(), { served: all, fresh: all });
  } finally {
    await client.close();
    root.remove();
  }
});

// A folder reached by two names has one real path: the index once kept its file list and its
// answers by that path alone, and a grep of one name answered with the other's paths.
test("a folder reached through two symlinks is shown under the name each grep gives", {
  timeout: 60_000,
}, async () => {
  const root = tempRoot();
  fs.mkdirSync(join(root.dir, "lib"));
  fs.mkdirSync(join(root.dir, "src"));
  fs.writeFileSync(join(root.dir, "lib", "l.txt"), "hello\n");
  fs.symlinkSync("../lib", join(root.dir, "src", "dlink"));
  fs.symlinkSync("lib", join(root.dir, "libl"));
  const { client } = await sdkSession(["serve", "--root", root.dir, "--no-cache"], {
    name: "two-names",
  });
  try {
    const grep = async (path: string) =>
      unversioned(
        ((await client.callTool({ name: "grep", arguments: { pattern: "hello", path } }))
          .content as { text: string }[])[0].text,
      );
    for (let round = 0; round < 2; round++) { // (the second round meets kept walks and answers)
      for (const path of ["src/dlink", "libl", "lib"]) {
        assert.equal(await grep(path), `${path}/l.txt\n1\thello\n`, `${path}, round ${round}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  } finally {
    await client.close();
    root.remove();
  }
});

/** A raw session's grep of `pattern`: the text of its answer. */
async function rawGrep(
  session: Awaited<ReturnType<typeof initialized>>,
  id: number,
  pattern: string,
) {
  session.sendJson({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "grep", arguments: { pattern } },
  });
  const lines = await session.receivedUntil(`"id":${id}`) as Array<
    { id?: number; result?: { content: { text: string }[] } }
  >;
  return lines.find((line) => line.id === id)!.result!.content[0].text;
}

// (Bun's watcher reads a backslash in a path as a separator: it watched proj/x, outside the
// root, and the index trusted a watcher that never heard the root.)
test("a root whose path holds a backslash is not watched in the wrong place", {
  timeout: 60_000,
}, async () => {
  const base = tempRoot();
  const root = join(base.dir, "proj\\x");
  fs.mkdirSync(join(root, "src"), { recursive: true });
  fs.mkdirSync(join(base.dir, "proj", "x", "deep"), { recursive: true });
  fs.writeFileSync(join(root, "src", "f.txt"), "alpha\n");
  const session = await initialized(["serve", "--root", root, "--no-cache"]);
  try {
    assert.match(await rawGrep(session, 1, "alpha"), /^src\/f\.txt/);
    await new Promise((resolve) => setTimeout(resolve, 1_500)); // (the index has read it)
    fs.writeFileSync(join(root, "src", "f.txt"), "alpha\nbravo\n");
    assert.match(await rawGrep(session, 2, "bravo"), /^src\/f\.txt.*\n2\tbravo\n/s);
    assert.match(session.stderr, /holds a backslash, which Bun's watcher misreads/);
  } finally {
    session.child.kill();
    base.remove();
  }
});

test("a root renamed away while the server runs stops the watcher without a failure", {
  timeout: 60_000,
}, async () => {
  const base = tempRoot();
  const root = join(base.dir, "r");
  fs.mkdirSync(join(root, "sub"), { recursive: true });
  fs.writeFileSync(join(root, "sub", "a.txt"), "alpha\n");
  const session = await initialized(["serve", "--root", root, "--no-cache"]);
  try {
    assert.match(await rawGrep(session, 1, "alpha"), /a\.txt/);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    fs.renameSync(root, join(base.dir, "r.old"));
    await rawGrep(session, 2, "alpha");
    assert.doesNotMatch(session.stderr, /failed|TypeError/);
  } finally {
    session.child.kill();
    base.remove();
  }
});
