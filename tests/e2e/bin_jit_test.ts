// End to end: a server (and a grep) of the binary runs again at once as the same process with
// the JIT settings of a search (SEARCH_JIT_ENV), keeps a value the user set, and answers as
// before.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { SEARCH_JIT_ENV } from "../../src/io/runtime.ts";
import { initialized, type RawSession, runCli, tempRoot } from "../_helpers/binary.ts";

const [NAME] = Object.keys(SEARCH_JIT_ENV);

/** The environment of a running process, by name. */
function environmentOf(pid: number): Map<string, string> {
  const entries = fs.readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").filter(Boolean);
  return new Map(entries.map((entry) => {
    const at = entry.indexOf("=");
    return [entry.slice(0, at), entry.slice(at + 1)];
  }));
}

/** Greps `needle` in a session and gives the answer's text. */
async function grepText(session: RawSession): Promise<string> {
  session.sendJson({
    jsonrpc: "2.0",
    id: 7,
    method: "tools/call",
    params: { name: "grep", arguments: { pattern: "needle" } },
  });
  type Answer = { id?: number; result: { content: { text: string }[] } };
  const lines = await session.receivedUntil('"id":7') as Answer[];
  return lines.find((line) => line.id === 7)!.result.content[0].text;
}

describe("the binary's JIT settings", () => {
  test(
    "a server runs with them, as the process its host started",
    { timeout: 60_000 },
    async () => {
      const { dir, remove } = tempRoot();
      fs.writeFileSync(join(dir, "a.txt"), "one\nthe needle\n");
      const session = await initialized(["serve", "--root", dir]);
      try {
        const environment = environmentOf(session.child.pid!);
        for (const [name, value] of Object.entries(SEARCH_JIT_ENV)) {
          assert.equal(environment.get(name), value, name);
        }
        assert.match(await grepText(session), /a\.txt[\s\S]*2.*the needle/);
      } finally {
        await session.close();
        remove();
      }
    },
  );

  test("a value the user set is kept", { timeout: 60_000 }, async () => {
    const { dir, remove } = tempRoot();
    fs.writeFileSync(join(dir, "a.txt"), "the needle\n");
    const session = await initialized(["serve", "--root", dir], { [NAME]: "200000" });
    try {
      assert.equal(environmentOf(session.child.pid!).get(NAME), "200000");
      assert.match(await grepText(session), /the needle/);
    } finally {
      await session.close();
      remove();
    }
  });

  test("the command line's grep prints what it found through the relaunch", () => {
    const { dir, remove } = tempRoot();
    try {
      fs.writeFileSync(join(dir, "a.txt"), "one\nthe needle\n");
      const { status, stdout, stderr } = runCli(["grep", "needle", "."], dir);
      assert.equal(status, 0, stderr);
      assert.match(stdout, /a\.txt:2:the needle/);
    } finally {
      remove();
    }
  });
});
