// End to end: two linewise servers (two processes, each driven by the MCP SDK client) edit
// one file at once. Their edits are serialised by the lock every linewise process takes
// from reading a file to renaming its new content into place: none is lost.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { spawn } from "node:child_process";
import { join } from "node:path";
// @ts-types="../../node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.d.ts"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { tempRoot } from "../_helpers/binary.ts";
import { sdkSession } from "../_helpers/sdk.ts";

type Result = {
  content: Array<{ text: string }>;
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
};

const text = (result: Result) => result.content.map((c) => c.text).join("");
const versionOf = (result: Result) => result.structuredContent?.version as string;

describe("two servers editing one file at once", () => {
  const root = tempRoot();
  const servers: Client[] = [];

  before(async () => {
    for (const name of ["A", "B"]) {
      const { client } = await sdkSession(["serve", "--root", root.dir], {
        name: `editor-${name}`,
      });
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

  // A move over a file takes that file's lock too: an edit of it under way in the other
  // server cannot rename its result over what was moved there (without the lock, about one
  // move in forty lost what it moved; here one of the first 50-150 did, in each of five runs).
  test("a move over a file the other server edits keeps what was moved", {
    timeout: 120_000,
  }, async () => {
    const target = join(root.dir, "dst.txt");
    writeFileSync(target, "moved 0\nline 2\n");
    let stop = false;
    const editing = (async () => {
      for (let k = 0; !stop; k++) {
        const read = await call(servers[1], "read", { path: "dst.txt" });
        if (read.isError) continue;
        await call(servers[1], "replace_lines", {
          path: "dst.txt",
          version: versionOf(read),
          edits: [{ start_line: 2, new_text: `edited ${k}\n` }],
        });
      }
    })();
    const lost: string[] = [];
    let moves = 0;
    try {
      for (let j = 1; j <= 300 && lost.length === 0; j++) {
        writeFileSync(join(root.dir, "src.txt"), `moved ${j}\nline 2\n`);
        const moved = await call(servers[0], "move", {
          from: "src.txt",
          to: "dst.txt",
          overwrite: true,
        });
        if (moved.isError) continue;
        moves++;
        await new Promise((resolve) => setTimeout(resolve, 5));
        const now = readFileSync(target, "utf8");
        if (!now.startsWith(`moved ${j}\n`)) lost.push(`move ${j}: ${JSON.stringify(now)}`);
      }
    } finally {
      stop = true;
      await editing;
    }
    assert.deepEqual(lost, []);
    assert.ok(moves >= 200, `${moves} moves went through`);
  });

  // A patch deletes a file only while it holds the text the patch removes, checked under the
  // file's lock: an edit the other server made after the patch read the file keeps it (the
  // check once came before the lock, and 36 edits in 200 were deleted with the file).
  test("a patch deleting a file the other server edits never deletes that edit", {
    timeout: 120_000,
  }, async () => {
    const path = join(root.dir, "d.txt");
    const count = 4000;
    const body = Array.from({ length: count }, (_, i) => `line ${i + 1}\n`).join("");
    const patch = `--- a/d.txt\n+++ /dev/null\n@@ -1,${count} +0,0 @@\n` +
      body.replace(/^/gm, "-").slice(0, -1);
    let both = 0;
    for (let k = 0; k < 100; k++) {
      writeFileSync(path, body);
      const read = await call(servers[1], "read", { path: "d.txt", start_line: 1, end_line: 1 });
      const patching = call(servers[0], "patch", { patch });
      await new Promise((resolve) => setTimeout(resolve, (k % 20) / 2));
      const edited = await call(servers[1], "replace_lines", {
        path: "d.txt",
        version: versionOf(read),
        edits: [{ start_line: 1, new_text: "edited\n" }],
      });
      // Both told they succeeded: the edit was renamed in, then deleted with the file.
      if (!(await patching).isError && !edited.isError) both++;
      rmSync(path, { force: true });
    }
    assert.equal(both, 0);
  });

  // A writer that takes no lock (a formatter, an editor) raises its own counter in the file,
  // by renaming a new file in or by rewriting it in place, every millisecond or so, while a
  // server raises another. Each of its writes reads the file first, so one that the server
  // overwrote makes its count fall behind. The server checks the file's stat and bytes just
  // before its rename, so only a write that falls within those few system calls can be lost:
  // a fraction of a percent here, against a third of them without the check.
  test("a writer that takes no lock is caught, not overwritten", { timeout: 120_000 }, async () => {
    const path = join(root.dir, "shared.txt");
    writeFileSync(path, "linewise 0\nother 0\n");
    const stop = join(root.dir, "stop");
    const writer = spawn("python3", ["-c", LOCKLESS_WRITER, path, stop]);
    let out = "";
    writer.stdout.on("data", (chunk) => out += chunk);
    const ended = new Promise((resolve) => writer.on("close", resolve));
    let applied = 0;
    let refused = 0;
    // (Until the writer's count has been seen at 100 and 20 edits were refused: on a busy
    // machine the writer's turns come slower than the server's.)
    let seen = 0;
    try {
      for (let i = 0; i < 10_000 && (applied < 200 || seen < 100 || refused <= 20); i++) {
        const read = text(await call(servers[0], "read", { path: "shared.txt" }));
        seen = Number(/^2\tother (\d+)$/m.exec(read)?.[1] ?? seen);
        const value = /^1\tlinewise (\d+)$/m.exec(read);
        if (value === null) continue; // (a rewrite in place was half done)
        const raised = await call(servers[0], "replace", {
          path: "shared.txt",
          old_text: `linewise ${value[1]}\n`,
          new_text: `linewise ${Number(value[1]) + 1}\n`,
        });
        if (raised.isError) refused++;
        else applied++;
      }
    } finally {
      writeFileSync(stop, "");
      await ended;
    }
    const writes = Number(out.trim());
    const counted = Number(/^other (\d+)$/m.exec(readFileSync(path, "utf8"))?.[1]);
    const said = `${writes} writes, ${applied} edits, ${refused} refused, ${writes - counted} lost`;
    // (The writer only has to have run throughout: on a busy machine it wrote 102 times while
    // the server made its 200 edits. Without the check, 33-39% of its writes were lost; with
    // it, 0-0.6%, also beside four busy loops.)
    assert.ok(writes >= 100 && applied >= 200 && refused > 20, said);
    assert.ok(writes - counted <= writes * 0.1, said);
  });

  // A writer that renames its file into place just after the server's last check, and before
  // its rename, was overwritten: the server now swaps its file in (RENAME_EXCHANGE) and checks
  // the one it set aside. (Without the swap, 122 of 2,190 edits in 20 s overwrote such a
  // write; with it, none of 1,972. A rewrite in place into the file the server replaces is
  // the writer's own loss, as with any atomic write: the test above.)
  test("a writer that renames its file into place loses a write only in the swap's instant", {
    timeout: 120_000,
  }, async () => {
    const path = join(root.dir, "renamed.txt");
    writeFileSync(path, "linewise 0\nother 0\n");
    const stop = join(root.dir, "stop-renames");
    const writer = spawn("python3", ["-c", LOCKLESS_WRITER, path, stop, "renames"]);
    let out = "";
    writer.stdout.on("data", (chunk) => out += chunk);
    const ended = new Promise((resolve) => writer.on("close", resolve));
    let applied = 0;
    try {
      for (let i = 0; i < 10_000 && applied < 300; i++) {
        const value = /^linewise (\d+)$/m.exec(readFileSync(path, "utf8"))![1];
        const raised = await call(servers[0], "replace", {
          path: "renamed.txt",
          old_text: `linewise ${value}\n`,
          new_text: `linewise ${Number(value) + 1}\n`,
        });
        if (!raised.isError) applied++;
      }
    } finally {
      writeFileSync(stop, "");
      await ended;
    }
    const writes = Number(out.trim());
    const counted = Number(/^other (\d+)$/m.exec(readFileSync(path, "utf8"))?.[1]);
    const lost = writes - counted;
    const said = `${writes} writes, ${applied} edits, ${lost} lost`;
    assert.ok(writes >= 100 && applied >= 300, said);
    // (Without the swap, 20-26 of about 1,000 were lost. With it, a loss needs the writer to
    // read in the instant the swapped-in content of an edit that is then refused is in place,
    // and to rename what it made of it before the edit puts its write back: 1 of 1,043 in one
    // CI run, under load. No rename can rule that instant out; see docs/decisions.md.)
    assert.ok(lost <= Math.floor(writes / 200), said);
    // (No temporary file is left of the swaps.)
    assert.deepEqual(readdirSync(root.dir).filter((name) => name.includes("linewise-tmp")), []);
  });
});

/**
 * Raises `other N` in the file until the stop file exists: renames, then rewrites in place (a
 * third argument: renames alone).
 */
const LOCKLESS_WRITER = `
import os, random, re, sys, time
path, stop = sys.argv[1], sys.argv[2]
renames_only = len(sys.argv) > 3
writes = 0
while not os.path.exists(stop):
    with open(path) as f:
        text = f.read()
    found = re.search(r"^other (\\d+)$", text, re.M)
    if found is None:
        continue
    text = text.replace(found.group(0), "other %d" % (int(found.group(1)) + 1))
    if renames_only or writes % 2 == 0:
        temp = path + ".w"
        with open(temp, "w") as f:
            f.write(text)
        os.rename(temp, path)
    else:
        with open(path, "w") as f:
            f.write(text)
    writes += 1
    time.sleep(random.random() * 0.002)
print(writes)
`;
