// End to end: the compiled binary, driven by the MCP SDK client, while another process keeps
// exchanging a directory inside the root with a symlink to a directory outside it
// (renameat2 RENAME_EXCHANGE, hundreds of thousands of times a second). Every operation may
// succeed or be refused, but none may read, write, delete or show anything outside.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
// @ts-types="../../node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.d.ts"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ensureBinary, tempRoot, unversioned } from "../_helpers/binary.ts";
import { startSwapping, type Swapper, withoutOpenat2 } from "../_helpers/swapper.ts";
import { sdkSession } from "../_helpers/sdk.ts";

/**
 * How the binary is run, and the tries per operation: as it is (openat2 beneath each root;
 * the bar is 5,000 with no escape), and with openat2 refused by a seccomp filter, as
 * on a kernel before 5.6 or in some containers (one openat per component).
 */
const WAYS: { name: string; command: () => string[]; tries: number }[] = [
  { name: "with openat2", command: () => [ensureBinary()], tries: 5000 },
  { name: "without openat2", command: () => [withoutOpenat2(), ensureBinary()], tries: 1000 },
];
/** Calls in flight at once. */
const LANES = 16;
const SECRET = "OUTSIDE-SECRET";

type Result = { content: Array<{ text: string }>; isError?: boolean };

/** The text of a result, without the versions it names (bin_versions_test.ts tests those). */
function text(result: Result): string {
  return unversioned(result.content.map((c) => c.text).join(""));
}

/** Runs `one(i)` for i in 0..count-1, `LANES` at a time. */
async function inLanes(count: number, one: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < count) await one(next++);
  };
  await Promise.all(Array.from({ length: LANES }, lane));
}

/** What a directory holds: each name with its content. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir).sort()) out[name] = readFileSync(join(dir, name), "utf8");
  return out;
}

for (const { name: way, command, tries: TRIES } of WAYS) {
  describe(`the binary ${way}, while a directory is swapped with a symlink to outside the root`, () => {
    const base = tempRoot();
    const root = join(realpathSync(base.dir), "root");
    const outside = join(realpathSync(base.dir), "outside");
    let client: Client;
    let swapper: Swapper | undefined;
    let before_: Record<string, string>;
    const counts = { ok: 0, refused: 0 };
    let serverLog = "";
    const reasons = new Map<string, number>();

    async function call(name: string, args: Record<string, unknown>): Promise<Result> {
      // (A stall is a failure too: the server must stay responsive while it is attacked.)
      const result = await client.callTool({ name, arguments: args }, undefined, {
        timeout: 10_000,
      }) as Result;
      if (result.isError) {
        counts.refused++;
        const reason = text(result).replace(/\d+/g, "N");
        reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
      } else counts.ok++;
      // A refusal is fine; an internal error is a bug even under a race.
      assert.doesNotMatch(text(result), /internal error|failed unexpectedly/, text(result));
      // Nor does an answer name where the root is on disk: paths are the caller's.
      assert.ok(!text(result).includes(root), text(result));
      return result;
    }

    /**
     * Runs a phase with `a` and `b` being swapped, checks that calls still got through (an
     * edit takes a dozen steps, each refused when it meets the symlink, so under this loop
     * few complete) and that nothing outside changed, then that the same calls succeed once
     * the swapping stops.
     */
    async function racing(
      one: (i: number) => Promise<void>,
      [a, b] = ["d", "dlink"],
    ): Promise<void> {
      counts.ok = counts.refused = 0;
      reasons.clear();
      swapper = startSwapping(join(root, a), join(root, b));
      let swaps: number;
      try {
        await inLanes(TRIES, one);
      } finally {
        swaps = await swapper.stop();
        swapper = undefined;
      }
      assert.ok(swaps > TRIES, `the swapper kept going (${swaps} exchanges)`);
      const summary = `${JSON.stringify(counts)}; refusals: ${JSON.stringify([...reasons])}`;
      assert.ok(counts.ok > 0, `calls still get through the race: ${summary}`);
      assert.deepEqual(snapshot(outside), before_, "nothing outside the root changed");
      counts.ok = counts.refused = 0;
      await one(TRIES);
      assert.equal(counts.refused, 0, `without the swapping: ${JSON.stringify([...reasons])}`);
    }

    before(async () => {
      mkdirSync(join(root, "d"), { recursive: true });
      mkdirSync(join(root, "secret"));
      mkdirSync(join(root, "pub"));
      mkdirSync(outside);
      writeFileSync(join(root, "d", "f.txt"), "inside\n");
      writeFileSync(join(root, "secret", "f.txt"), "DENIED-CONTENT\n");
      writeFileSync(join(root, "pub", "f.txt"), "public\n");
      writeFileSync(join(outside, "f.txt"), `${SECRET}\n`);
      writeFileSync(join(outside, "only-outside.txt"), `${SECRET}\n`);
      for (let i = 0; i < TRIES; i++) writeFileSync(join(outside, `x${i}.txt`), `${SECRET}\n`);
      symlinkSync(outside, join(root, "dlink"));
      symlinkSync("secret", join(root, "publink"));
      before_ = snapshot(outside);
      const [program, ...first] = command();
      // (A budget of half the client's wait: a call that waits its turn behind 15 others on a
      // machine busy with other work is answered within it, stopped if need be; a stall, no
      // answer at all, still fails the call.)
      ({ client } = await sdkSession(
        [...first, "serve", "--root", root, "--deny", "secret/", "--timeout", "5"],
        { name: "linewise-race", command: program, onStderr: (chunk) => serverLog += chunk },
      ));
    });

    after(async () => {
      if (serverLog !== "") console.error(`the server's stderr:\n${serverLog}`);
      await swapper?.stop();
      await client?.close();
      base.remove();
    });

    test("read never returns outside content", { timeout: 300_000 }, async () => {
      await racing(async () => {
        const result = await call("read", { path: "d/f.txt" });
        assert.doesNotMatch(text(result), new RegExp(SECRET));
      });
    });

    const walks: [string, Record<string, unknown>][] = [
      ["grep", { pattern: SECRET, literal: true }],
      ["glob", { pattern: "*.txt" }],
      ["list", { path: ".", depth: 3 }],
    ];
    for (const [tool, args] of walks) {
      test(`${tool} of the root never shows an outside file`, { timeout: 300_000 }, async () => {
        await racing(async () => {
          const shown = text(await call(tool, args));
          assert.doesNotMatch(shown, new RegExp(`only-outside|x\\d+\\.txt|\\t.*${SECRET}`));
        });
      });
    }

    for (const tool of ["read", "grep"]) {
      test(`${tool} of a denied directory swapped the same way never shows it`, {
        timeout: 300_000,
      }, async () => {
        await racing(async () => {
          const result = tool === "read"
            ? await call("read", { path: "pub/f.txt" })
            : await call("grep", { pattern: "DENIED", path: "pub" });
          assert.doesNotMatch(text(result), /DENIED-CONTENT/);
        }, ["pub", "publink"]);
      });
    }

    test("write of new files never creates one outside", { timeout: 300_000 }, async () => {
      await racing(async (i) => {
        await call("write", { path: `d/w${i}.txt`, content: `written ${i}\n` });
      });
    });

    test("write with overwrite never changes an outside file", { timeout: 300_000 }, async () => {
      await racing(async (i) => {
        await call("write", { path: "d/f.txt", content: `inside ${i}\n`, overwrite: true });
      });
    });

    test("replace_lines never changes an outside file", { timeout: 300_000 }, async () => {
      await racing(async (i) => {
        await call("replace_lines", {
          path: "d/f.txt",
          edits: [{ start_line: 1, new_text: `edited ${i}\n` }],
        });
      });
    });

    test("delete never removes an outside file", { timeout: 300_000 }, async () => {
      for (let i = 0; i <= TRIES; i++) writeFileSync(join(root, "d", `x${i}.txt`), "inside\n");
      await racing(async (i) => {
        await call("delete", { path: `d/x${i}.txt` });
      });
    });
  });
}
