// End to end: what the binary says when the world runs out. A full disk is a plain sentence,
// with nothing written and nothing left behind; a tree too deep to open whole is searched,
// globbed and listed as far as it can be opened, and the rest is counted.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { spawnSync } from "node:child_process";
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
// @ts-types="../../node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.d.ts"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { unversioned } from "../_helpers/binary.ts";
import { dropPages } from "../_helpers/page_cache.ts";
import { sdkSession } from "../_helpers/sdk.ts";

type Result = { content: Array<{ text: string }>; isError?: boolean };

const text = (result: Result) => result.content.map((c) => c.text).join("");
const isRoot = spawnSync("id", ["-u"], { encoding: "utf8" }).stdout.trim() === "0";

async function serve(root: string): Promise<Client> {
  return (await sdkSession(["serve", "--root", root], { name: "limits-test" })).client;
}

async function call(client: Client, name: string, args: Record<string, unknown>) {
  return await client.callTool({ name, arguments: args }) as Result;
}

/** Removes a directory of any depth (node's rm walks by path and fails past PATH_MAX). */
function removeTree(dir: string): void {
  spawnSync("rm", ["-rf", dir]);
}

describe("a full disk", () => {
  test("a write is refused as 'no space left on device', leaving nothing behind", {
    skip: isRoot ? false : "skipped: needs root (to mount a small tmpfs)",
    timeout: 60_000,
  }, async () => {
    const root = mkdtempSync(join(tmpdir(), "linewise-full-"));
    const mounted = spawnSync("mount", ["-t", "tmpfs", "-o", "size=256k", "tmpfs", root]);
    assert.equal(mounted.status, 0, `mount failed: ${mounted.stderr}`);
    try {
      writeFileSync(join(root, "small.txt"), "keep\n");
      const client = await serve(root);
      const big = "x".repeat(1024 * 1024);
      try {
        const created = await call(client, "write", { path: "new/deep/big.txt", content: big });
        assert.equal(created.isError, true);
        assert.match(
          text(created),
          /^no space left on device while writing "new\/deep\/big\.txt"; nothing was written/,
        );
        assert.doesNotMatch(text(created), /internal error|ENOSPC/);
        const replaced = await call(client, "write", {
          path: "small.txt",
          content: big,
          overwrite: true,
        });
        assert.match(text(replaced), /^no space left on device/);
        await call(client, "read", { path: "small.txt" }); // (an edit by number needs it seen)
        const edited = await call(client, "replace_lines", {
          path: "small.txt",
          edits: [{ start_line: 1, new_text: big + "\n" }],
        });
        assert.match(text(edited), /^no space left on device while writing "small\.txt"/);
      } finally {
        await client.close();
      }
      assert.equal(existsSync(join(root, "new")), false, "the directories it made are gone");
      assert.deepEqual(readdirSync(root), ["small.txt"], "no temporary file is left");
      assert.equal(readFileSync(join(root, "small.txt"), "utf8"), "keep\n");
    } finally {
      spawnSync("umount", [root]);
      removeTree(root);
    }
  });
});

describe("a tree 5,000 directories deep", () => {
  test("grep, glob and list answer with what can be opened and count the rest", {
    timeout: 120_000,
  }, async () => {
    const root = mkdtempSync(join(tmpdir(), "linewise-deep-"));
    try {
      writeFileSync(join(root, "top.txt"), "needle at the top\n");
      mkdirSync(join(root, "a"));
      // Made one level at a time from the directory above (the full path is about 10 KB).
      const made = spawnSync("python3", [
        "-c",
        `
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY)
for level in range(5000):
    if level == 100:
        with open(os.open("shallow.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd), "w") as f:
            f.write("needle 100 levels down\\n")
    os.mkdir("a", dir_fd=fd)
    nxt = os.open("a", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
    os.close(fd)
    fd = nxt
with open(os.open("bottom.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd), "w") as f:
    f.write("needle at the bottom\\n")
`,
        join(root, "a"),
      ], { encoding: "utf8" });
      assert.equal(made.status, 0, made.stderr);
      const client = await serve(root);
      try {
        const grep = await call(client, "grep", { pattern: "needle" });
        assert.equal(grep.isError, undefined, text(grep));
        assert.match(unversioned(text(grep)), /^top\.txt\n1\tneedle at the top\n/m);
        assert.match(unversioned(text(grep)), /shallow\.txt\n1\tneedle 100 levels down/);
        assert.match(text(grep), /\[1 directory or file could not be read .* skipped\]/);
        // (The deepest path shown is shallow.txt's, 101 directories down: no longer one is echoed.)
        assert.doesNotMatch(text(grep), /(a\/){102}/, "no path of the depth that failed");
        const glob = await call(client, "glob", { pattern: "*.txt" });
        assert.equal(glob.isError, undefined, text(glob));
        assert.match(text(glob), /^top\.txt$/m);
        assert.match(text(glob), /could not be read/);
        assert.doesNotMatch(text(glob), /(a\/){102}/);
        const list = await call(client, "list", { path: ".", depth: 6000 });
        assert.equal(list.isError, undefined, text(list).slice(0, 500));
        assert.match(text(list), /\[showing entries 1-\d+ of \d+; continue with offset=\d+\]/);
        assert.match(text(list), /\[1 directory or file could not be read .* skipped\]/);
        assert.doesNotMatch(text(list).split("\n").slice(-3).join("\n"), /(a\/){102}/);
        const top = await call(client, "list", { path: "." });
        assert.equal(text(top), "dir\t-\ta/\nfile\t18\ttop.txt\n");
      } finally {
        await client.close();
      }
    } finally {
      removeTree(root);
    }
  });
});

describe("a file of 300,000 lines (24 MB)", () => {
  test("is read deep by line number, from memory and from disk, as the lines are", {
    timeout: 60_000,
  }, async () => {
    const root = mkdtempSync(join(tmpdir(), "linewise-deep-"));
    const lines = Array.from({ length: 300_000 }, (_, i) => `line ${i + 1} ${"x".repeat(i % 150)}`);
    const file = join(root, "big.log");
    writeFileSync(file, lines.join("\n") + "\n");
    // (A file over the edit cap is read by streaming it, by the line index: the log's 24 MB
    // are over a cap of 1 MiB, as the bench's 1.15 GB log is over the default 64 MiB.)
    const { client } = await sdkSession(["serve", "--root", root, "--max-edit-bytes", "1048576"], {
      name: "deep-read-test",
    });
    const rows = (from: number) =>
      [0, 1, 2].map((i) => `${from + i}\t${lines[from + i - 1]}\n`).join("");
    try {
      // In the page cache (just written): read at once into the memory that counts lines.
      const deep = await call(client, "read", {
        path: "big.log",
        start_line: 250_000,
        end_line: 250_002,
      });
      assert.equal(unversioned(text(deep)), rows(250_000));
      // Out of it (its pages dropped with posix_fadvise, through python3): read off the thread.
      assert.ok(dropPages(file));
      const other = join(root, "other.log"); // (a file the index has not counted yet)
      writeFileSync(other, lines.join("\n") + "\n");
      assert.ok(dropPages(other));
      const cold = await call(client, "read", {
        path: "other.log",
        start_line: 299_998,
        end_line: 300_000,
      });
      assert.equal(unversioned(text(cold)), rows(299_998));
    } finally {
      await client.close();
      removeTree(root);
    }
  });
});

describe("a line of 64 MB", () => {
  // Line 2: 32 MiB of "ab", "é" (two bytes, one code point), "NEEDLE", then more "ab".
  const half = 16 * 1024 * 1024;
  const line = "ab".repeat(half) + "é" + "NEEDLE" + "ab".repeat(half);
  const codePoints = line.length;
  const needleColumn = 2 * half + 2;

  test("is read in part, from any column, and grepped, never held whole", {
    timeout: 120_000,
  }, async () => {
    const root = mkdtempSync(join(tmpdir(), "linewise-long-"));
    writeFileSync(join(root, "big.txt"), `head\n${line}\r\ntail\n`);
    // (A budget a search thread at nice 4 beside busy processes keeps: this test is not of
    // the budget, which the 10 s default was not on a loaded machine.)
    const { client, transport } = await sdkSession(
      ["serve", "--root", root, "--timeout", "60"],
      { name: "long-line-test" },
    );
    try {
      const first = text(
        await call(client, "read", { path: "big.txt", start_line: 2, end_line: 3 }),
      );
      assert.equal(
        first,
        `2\t${
          "ab".repeat(1000)
        } … [line cut: ${codePoints} code points; column=2001 shows more]\r\n` +
          "3\ttail\n",
      );
      const middle = text(
        await call(client, "read", { path: "big.txt", start_line: 2, column: needleColumn - 1 }),
      );
      assert.ok(
        middle.startsWith(`2\t[from column ${needleColumn - 1}] éNEEDLEabab`),
        middle.slice(0, 80),
      );
      const past = await call(client, "read", {
        path: "big.txt",
        start_line: 2,
        column: codePoints + 2,
      });
      assert.equal(past.isError, true);
      assert.match(text(past), new RegExp(`which has ${codePoints} code points`));

      const found = text(await call(client, "grep", { pattern: "NEED+LE", path: "big.txt" }));
      assert.match(
        found,
        new RegExp(`^2\\t\\[from column ${needleColumn - 200}\\] b(ab)+éNEEDLE`, "m"),
      );
      assert.match(found, new RegExp(`line cut: ${codePoints} code points`));
      const tail = text(await call(client, "grep", { pattern: "^(tail|head)$", path: "big.txt" }));
      assert.equal(tail, "big.txt\n1\thead\n3\ttail\n");
      // ^ and $ hold at the line's ends only, not where a window of it ends.
      const start = text(await call(client, "grep", { pattern: "^abab", path: "big.txt" }));
      assert.match(start, /^2\tabab/m);
      const end = text(await call(client, "grep", { pattern: "abab$", path: "big.txt" }));
      assert.match(end, new RegExp(`^2\\t\\[from column ${codePoints - 203}\\] (ab)+$`, "m"));
      const inside = text(await call(client, "grep", { pattern: "NEEDLEab$", path: "big.txt" }));
      assert.match(inside, /^\[no match/);

      // (Read by cat: Deno lets only --allow-all read /proc.)
      const status =
        spawnSync("cat", [`/proc/${transport.pid}/status`], { encoding: "utf8" }).stdout;
      const peakKiB = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1]);
      assert.ok(peakKiB < 256 * 1024, `the server peaked at ${peakKiB} KiB`);
    } finally {
      await client.close();
      removeTree(root);
    }
  });
});

describe("a line of 200 MB", () => {
  /** The server's resident memory now and at its peak, in MiB (Linux; read by cat). */
  function memoryMiB(pid: number): { now: number; peak: number } {
    const status = spawnSync("cat", [`/proc/${pid}/status`], { encoding: "utf8" }).stdout;
    const kib = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1]);
    return { now: kib("VmRSS") / 1024, peak: kib("VmHWM") / 1024 };
  }

  test("is read in little memory, and grepped within the time budget, also by the helper", {
    skip: process.platform !== "linux",
    timeout: 120_000,
  }, async () => {
    const root = mkdtempSync(join(tmpdir(), "linewise-huge-"));
    const BUDGET_MS = 2000;
    const MB = 1_000_000;
    try {
      // 200 MB of a's, then NEEDLE at the end: one line, written a megabyte at a time. (A `c`
      // after it, not after an a: the stuck pattern below requires one, and a file without it
      // is passed over before any pattern runs.)
      const fd = openSync(join(root, "huge.txt"), "w");
      const block = Buffer.alloc(MB, "a");
      for (let i = 0; i < 199; i++) writeSync(fd, block);
      writeSync(fd, Buffer.concat([block.subarray(0, MB - 9), Buffer.from("NEEDLE c\n")]));
      closeSync(fd);
      /** A server with a time budget, and a call to it timed. */
      const serve = async (budgetMs: number) => {
        const { client, transport } = await sdkSession(
          ["serve", "--root", root, "--timeout", String(budgetMs / 1000)],
          { name: "huge-line-test" },
        );
        const timed = async (name: string, args: Record<string, unknown>) => {
          const started = Date.now();
          const result = text(await call(client, name, args));
          return { result, ms: Date.now() - started };
        };
        return { client, pid: transport.pid!, timed };
      };
      // (The search takes 0.7 s of a core. At nice 10 (now 4), beside two busy
      // processes it got a tenth of a core and took more than 10 s. It is given 60 s, and a
      // pattern that never ends the 2 s budget.)
      const roomy = await serve(60_000);
      try {
        await new Promise((wake) => setTimeout(wake, 300)); // (the search thread starts)
        const idle = memoryMiB(roomy.pid).now;
        const read = await roomy.timed("read", { path: "huge.txt" });
        assert.match(read.result, /line cut: 199999999 code points/);
        // (A copy of each block it passed took 41-45 MiB more: about 11 MiB now.)
        const { peak } = memoryMiB(roomy.pid);
        assert.ok(peak - idle < 32, `the read took the server from ${idle} to ${peak} MiB`);
        assert.ok(peak < 100, `the read took the server to ${peak} MiB`);
        const found = await roomy.timed("grep", { pattern: "NEED+LE", path: "huge.txt" });
        assert.match(found.result, /^1\t\[from column \d+\] a+NEEDLE/m);
      } finally {
        await roomy.client.close();
      }
      const tight = await serve(BUDGET_MS);
      try {
        // A pattern only the helper runs, stuck on the first window: stopped at the budget.
        const stuck = await tight.timed("grep", { pattern: "(?=a)a*a*a*a*c", path: "huge.txt" });
        // (Beside busy processes the budget may end before the file is reached: said so too.)
        assert.match(
          stuck.result,
          /^\[stopped by the time budget: (the pattern was still matching.*from the 0 files searched to the end; 1 file not searched|showing 0 matching lines in 0 files)/,
        );
        assert.ok(
          // (The budget, and at most the 750 ms a late search thread is given.)
          stuck.ms <= BUDGET_MS + 1000,
          `the stuck grep answered in ${stuck.ms} ms against a 2 s budget`,
        );
      } finally {
        await tight.client.close();
      }
    } finally {
      removeTree(root);
    }
  });
});

describe("a message larger than 4 MiB", () => {
  test("a write of 6 MB lands; one past the line cap is refused for its own id, not left waiting", {
    timeout: 60_000,
  }, async () => {
    const root = mkdtempSync(join(tmpdir(), "linewise-big-message-"));
    try {
      // (The default edit cap is 64 MiB: the server reads lines long enough to carry it.)
      const client = await serve(root);
      const content = "line of text\n".repeat(500_000); // 6.5 MB
      try {
        const written = await call(client, "write", { path: "big.txt", content });
        assert.equal(written.isError, undefined, text(written));
        assert.equal(readFileSync(join(root, "big.txt"), "utf8"), content);
      } finally {
        await client.close();
      }
      // With a 1 MB edit cap the line cap is 5,694,304 bytes: a 6.5 MB write is answered at once with
      // an error for its request (the SDK writes the id after the params), not a timeout.
      const { client: small } = await sdkSession(
        ["serve", "--root", root, "--max-edit-bytes", "1000000"],
        { name: "limits-test" },
      );
      try {
        const refused = small.callTool({ name: "write", arguments: { path: "b.txt", content } });
        await assert.rejects(refused, (error: Error & { code?: number }) => {
          assert.equal(error.code, -32600);
          assert.match(error.message, /line was too long .* the limit is 5694304/);
          return true;
        });
        assert.equal(existsSync(join(root, "b.txt")), false);
        assert.deepEqual(await small.ping(), {}, "and the server goes on");
      } finally {
        await small.close();
      }
    } finally {
      removeTree(root);
    }
  });
});
