// End to end: the binary's server keeps a search index between greps (see
// src/store/_search_index.ts). Driven by the official MCP SDK client, every grep must match
// what the one-shot command line (which keeps no index) answers, whatever changed on disk
// just before it.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import { join } from "node:path";
// @ts-types="../../node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.d.ts"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="../../node_modules/@modelcontextprotocol/sdk/dist/esm/client/stdio.d.ts"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ensureBinary, tempRoot } from "../_helpers/binary.ts";
import { memoryTools } from "../_helpers/tools.ts";

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
    const transport = new StdioClientTransport({
      command: ensureBinary(),
      args: ["serve", "--root", root.dir],
      stderr: "pipe",
    });
    client = new Client({ name: "linewise-index-e2e", version: "1.0.0" });
    await client.connect(transport);
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
      const files: Record<string, string> = {};
      for (const name of fs.readdirSync(root.dir, { recursive: true }) as string[]) {
        const full = at(name);
        if (fs.statSync(full).isFile()) files[name] = fs.readFileSync(full, "utf8");
      }
      const memory = memoryTools(files);
      const greps = [
        { pattern: "createElement\\(|n1\\d" },
        { pattern: "TODO|FIXME", ignore_case: true },
        { pattern: "createElement\\(", ignore_case: true },
        { pattern: "useState", ignore_case: true },
        { pattern: "key", ignore_case: true },
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

  test("every grep sees what changed on disk just before it", { timeout: 120_000 }, async () => {
    assert.deepEqual(await served(), oneShot());
    let seed = 3;
    const pick = (n: number) => (seed = (seed * 16807) % 2147483647) % n;
    for (let round = 0; round < 60; round++) {
      const i = pick(400);
      const name = `src${i % 9}/m${i}.js`;
      switch (pick(6)) {
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
      }
      assert.deepEqual(await served(), oneShot(), `round ${round}`);
    }
  });
});
