// End to end: a grep ignoring case looks through files larger than it reads whole (over the
// reader's buffer, and over 16 MiB, which are streamed) for its literal in any spelling, not
// for the short stretch of it whose spellings it searches the bytes for. Driven by the
// official MCP SDK client, through the compiled binary.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import { join } from "node:path";
// @ts-types="../../node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.d.ts"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { tempRoot, unversioned } from "../_helpers/binary.ts";
import { sdkSession } from "../_helpers/sdk.ts";

/** Lines that hold the spellings of part of `maskable` ("abl", "ble") and never the word. */
const FILLER = "a table, cable or fable\n";

describe("the binary's grep ignoring case, over large files", () => {
  const root = tempRoot();
  let client: Client;
  before(async () => {
    const filler = (bytes: number) => FILLER.repeat(Math.ceil(bytes / FILLER.length));
    const MB = 1024 * 1024;
    // (A Kelvin sign stands for the k in one, a long s for the s in another.)
    fs.writeFileSync(join(root.dir, "two.txt"), filler(MB) + "MasKable\n" + filler(MB));
    fs.writeFileSync(join(root.dir, "kelvin.txt"), filler(3 * MB) + "mas\u212Aable\n");
    fs.writeFileSync(join(root.dir, "huge.txt"), filler(17 * MB) + "ma\u017Fkable\n" + filler(MB));
    fs.writeFileSync(join(root.dir, "without.txt"), filler(17 * MB));
    ({ client } = await sdkSession(
      ["serve", "--root", root.dir, "--no-cache", "--timeout", "60"],
      { name: "linewise-large-ignore-case" },
    ));
  });
  after(async () => {
    await client.close();
    root.remove();
  });

  test("finds the literal in any spelling, and nothing where only its parts are", {
    timeout: 120_000,
  }, async () => {
    const line = (mb: number) => Math.ceil(mb * 1024 * 1024 / FILLER.length) + 1;
    // (The second round again, the third in a group, whose literal is read inside it.)
    for (const pattern of ["maskable", "maskable", "(?:mas)(kable)"]) {
      const result = await client.callTool({
        name: "grep",
        arguments: { pattern, ignore_case: true },
      });
      assert.ok(!result.isError, JSON.stringify(result.content));
      assert.equal(
        unversioned((result.content as { text: string }[])[0].text),
        `huge.txt\n${line(17)}\tma\u017Fkable\n\n` +
          `kelvin.txt\n${line(3)}\tmas\u212Aable\n\n` +
          `two.txt\n${line(1)}\tMasKable\n`,
        pattern,
      );
    }
  });
});
