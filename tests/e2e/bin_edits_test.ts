// End to end: two linewise servers (two processes, each driven by the MCP SDK client) edit
// one file at once. Their edits are serialised by the lock every linewise process takes
// from reading a file to renaming its new content into place: none is lost.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
// @ts-types="../../node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.d.ts"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="../../node_modules/@modelcontextprotocol/sdk/dist/esm/client/stdio.d.ts"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ensureBinary, tempRoot } from "../_helpers/binary.ts";

type Result = { content: Array<{ text: string }>; isError?: boolean };

const text = (result: Result) => result.content.map((c) => c.text).join("");

describe("two servers editing one file at once", () => {
  const root = tempRoot();
  const servers: Client[] = [];

  before(async () => {
    for (const name of ["A", "B"]) {
      const transport = new StdioClientTransport({
        command: ensureBinary(),
        args: ["serve", "--root", root.dir],
        stderr: "pipe",
      });
      const client = new Client({ name: `editor-${name}`, version: "1.0.0" });
      await client.connect(transport);
      servers.push(client);
    }
  });

  after(async () => {
    for (const client of servers) await client.close();
    root.remove();
  });

  const call = async (client: Client, name: string, args: Record<string, unknown>) =>
    await client.callTool({ name, arguments: args }) as Result;

  // (By text, not by number: a numbered insert at a point the other server just changed is
  // refused, as it should be; versions_test.ts and bin_versions_test.ts test that.)
  test("1,000 edits from each server all land", { timeout: 120_000 }, async () => {
    writeFileSync(join(root.dir, "log.txt"), "end\n");
    const PER_SERVER = 1000;
    const LANES = 4;
    let failures = 0;
    await Promise.all(
      servers.flatMap((client, s) =>
        Array.from({ length: LANES }, async (_, lane) => {
          for (let i = lane; i < PER_SERVER; i += LANES) {
            const result = await call(client, "replace", {
              path: "log.txt",
              old_text: "end\n",
              new_text: `${"AB"[s]}${i}\nend\n`,
            });
            if (result.isError) failures++;
          }
        })
      ),
    );
    assert.equal(failures, 0);
    const lines = readFileSync(join(root.dir, "log.txt"), "utf8").split("\n").slice(0, -1);
    assert.equal(lines.length, 2 * PER_SERVER + 1, "no edit was lost");
    for (const s of "AB") {
      for (let i = 0; i < PER_SERVER; i++) assert.ok(lines.includes(`${s}${i}`), `${s}${i}`);
    }
  });

  test("a counter raised with expected_text counts every reported success", {
    timeout: 120_000,
  }, async () => {
    writeFileSync(join(root.dir, "counter.txt"), "0\n");
    const PER_SERVER = 300;
    let successes = 0;
    await Promise.all(servers.flatMap((client) =>
      Array.from({ length: 2 }, async () => {
        for (let mine = 0; mine < PER_SERVER / 2;) {
          const read = await call(client, "read", { path: "counter.txt" });
          const value = Number(text(read).split("\t")[1]);
          const raised = await call(client, "replace_lines", {
            path: "counter.txt",
            edits: [{ start_line: 1, new_text: `${value + 1}\n`, expected_text: `${value}` }],
          });
          if (!raised.isError) {
            successes++;
            mine++;
          } else assert.match(text(raised), /expected|changed/, text(raised));
        }
      })
    ));
    assert.equal(successes, 2 * PER_SERVER);
    assert.equal(readFileSync(join(root.dir, "counter.txt"), "utf8"), `${successes}\n`);
  });
});
