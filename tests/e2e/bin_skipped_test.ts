// End to end: a grep says what its walk left out, on the search thread, and again when a
// repeated grep is answered from the index's kept walk, and after a symlink is made.
import { test } from "node:test";
import { spawnSync } from "node:child_process";
import assert from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { initialized, tempRoot } from "../_helpers/binary.ts";

test(
  "every grep of a session counts the hidden and .gitignore'd entries, the symlinks and the FIFO it left out",
  {
    timeout: 60_000,
  },
  async () => {
    const root = tempRoot();
    writeFileSync(join(root.dir, ".gitignore"), "build/\n");
    mkdirSync(join(root.dir, "build"));
    writeFileSync(join(root.dir, "build/out.txt"), "needle\n");
    writeFileSync(join(root.dir, ".hidden.txt"), "needle\n");
    writeFileSync(join(root.dir, "a.txt"), "needle\n");
    // Symlinks that cannot be followed: one leads nowhere, one out of the root.
    symlinkSync("gone.txt", join(root.dir, "dangling.txt"));
    symlinkSync(tmpdir(), join(root.dir, "outside"));
    // A FIFO: no text to read, passed over and counted.
    assert.equal(spawnSync("mkfifo", [join(root.dir, "pipe.txt")]).status, 0);
    const session = await initialized(["serve", "--root", root.dir]);
    try {
      const grep = async (id: string, pattern: string) => {
        session.sendJson({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name: "grep", arguments: { pattern } },
        });
        const lines = await session.receivedUntil(`"${id}"`) as Array<
          { id: unknown; result: { structuredContent: Record<string, unknown> } }
        >;
        return lines.find((line) => line.id === id)!.result.structuredContent;
      };
      // The second is answered from the kept result, the third (a new pattern) from the kept walk,
      // the fourth after a symlink made since (a walk is made again for a new symlink).
      const greps = [["first", "needle"], ["second", "needle"], ["third", "need"], [
        "fourth",
        "ne",
      ]];
      for (const [id, pattern] of greps) {
        if (id === "fourth") symlinkSync("/", join(root.dir, "slash.txt"));
        const found = await grep(id, pattern);
        const links = id === "fourth" ? 3 : 2;
        assert.deepEqual(found.skipped, { hidden: 2, ignored: 1, links, special: 1 }, id);
        assert.equal(found.matched_lines, 1, id);
        await new Promise((wake) => setTimeout(wake, 1500)); // (the index learns meanwhile)
      }
      assert.equal(await session.close(), 0);
    } finally {
      session.child.kill();
      root.remove();
    }
  },
);
