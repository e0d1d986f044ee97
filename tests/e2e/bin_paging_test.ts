// End to end: what a model gets by following each note's continuation, and a patch made by
// diff -u of a CRLF file, through the compiled binary and the SDK client over real files.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
// @ts-types="../../node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.d.ts"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ensureBinary, tempRoot } from "../_helpers/binary.ts";
import { sdkSession } from "../_helpers/sdk.ts";

type Result = { content: Array<{ text: string }>; isError?: boolean };

describe("the binary's pages and patches", () => {
  const root = tempRoot();
  const at = (name: string) => join(root.dir, name);
  let client: Client;
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = await client.callTool({ name, arguments: args }) as Result;
    assert.equal(result.isError, undefined, result.content[0]?.text);
    return result.content.map((c) => c.text).join("");
  };
  /** The continuation a text's last note names, if any. */
  const next = (text: string) => {
    const offset = /continue with offset=(\d+)[^\n]*\]\n$/.exec(text)?.[1];
    return offset === undefined ? undefined : Number(offset);
  };

  before(async () => {
    for (let i = 0; i < 5; i++) writeFileSync(at(`f${i}.txt`), "hit\nx\nhit\n");
    const lines = Array.from(
      { length: 14 },
      (_, i) => [1, 9].includes(i + 1) ? "hit" : `c${i + 1}`,
    );
    writeFileSync(at("ctx.log"), lines.join("\n") + "\n");
    client = (await sdkSession(["serve", "--root", root.dir, "--max-lines", "4"])).client;
  });
  after(async () => {
    await client.close();
    root.remove();
  });

  test("grep's files output pages on with the offset its note names", async () => {
    const listed: string[] = [];
    let offset: number | undefined = 0;
    while (offset !== undefined) {
      const page = await call("grep", { pattern: "hit", glob: "*.txt", output: "files", offset });
      listed.push(...page.split("\n").filter((line) => line.endsWith("\t2")));
      offset = next(page);
    }
    assert.deepEqual(listed, [0, 1, 2, 3, 4].map((i) => `f${i}.txt\t2`));
  });

  test("grep's pages with context neither repeat a row nor leave one out", async () => {
    const rows: string[] = [];
    let offset: number | undefined = 0;
    let page = "";
    while (offset !== undefined) {
      page = await call("grep", { pattern: "^hit", path: "ctx.log", context: 2, offset });
      rows.push(...page.split("\n").filter((line) => /^\d+-?\t/.test(line)));
      offset = next(page);
    }
    // (4 rows a page: the last match's last context row does not fit, and the note says so.)
    const shown = [1, 2, 3, 7, 8, 9, 10].map((n) => `${n}${[1, 9].includes(n) ? "" : "-"}\t`);
    assert.deepEqual(rows.map((row) => row.slice(0, row.indexOf("\t") + 1)), shown);
    assert.match(page, /showing the last 1 matching line in 1 file, but some of their context/);
  });

  test("patch applies diff -ruN of two folders: files changed, created and deleted", async () => {
    const base = tempRoot();
    const [a, b] = [join(base.dir, "a"), join(base.dir, "b")];
    for (const dir of [a, b]) mkdirSync(dir);
    writeFileSync(join(a, "kept.txt"), "one\ntwo\n");
    writeFileSync(join(b, "kept.txt"), "one\nTWO\n");
    writeFileSync(join(a, "gone.txt"), "bye\n");
    writeFileSync(join(b, "new.txt"), "hello\n");
    const diff = spawnSync("diff", ["-ruN", "a", "b"], { cwd: base.dir, encoding: "utf8" });
    assert.match(diff.stdout, /^\+\+\+ b\/gone\.txt\t1970-01-01/m);
    const { client: other } = await sdkSession(["serve", "--root", a]);
    try {
      const result = await other.callTool({
        name: "patch",
        arguments: { patch: diff.stdout },
      }) as Result;
      assert.equal(result.isError, undefined, result.content[0].text);
      assert.deepEqual(readdirSync(a).sort(), ["kept.txt", "new.txt"]);
      assert.equal(readFileSync(join(a, "kept.txt"), "utf8"), "one\nTWO\n");
      assert.equal(readFileSync(join(a, "new.txt"), "utf8"), "hello\n");
    } finally {
      await other.close();
      base.remove();
    }
  });

  test("patch applies diff -u of a CRLF file, keeping its line endings", async () => {
    writeFileSync(at("w.txt"), "alpha\r\nbeta\r\ngamma\r\n");
    writeFileSync(at("w.new"), "alpha\r\nBETA\r\ngamma\r\n");
    const diff = spawnSync("diff", ["-u", "w.txt", "w.new"], { cwd: root.dir, encoding: "utf8" });
    assert.match(diff.stdout, /^-beta\r$/m);
    const patch = diff.stdout.replace(/^\+\+\+ w\.new.*$/m, "+++ w.txt");
    assert.match(await call("patch", { patch }), /^modified w\.txt \(1 hunk, lines \+0\)/);
    assert.equal(readFileSync(at("w.txt"), "utf8"), "alpha\r\nBETA\r\ngamma\r\n");
  });
});

describe("the binary's smallest character budget", () => {
  test("--max-chars 1000 bounds every result, a long line's row and the notes included", () => {
    const root = tempRoot();
    const long = "x".repeat(3000) + "😀".repeat(3000) + " needle\n";
    writeFileSync(join(root.dir, "long.txt"), long + "short\n");
    writeFileSync(join(root.dir, "many.txt"), "needle\n".repeat(400));
    for (let i = 0; i < 60; i++) writeFileSync(join(root.dir, `${"n".repeat(40)}${i}.txt`), "");
    const run = (...args: string[]) =>
      spawnSync(ensureBinary(), ["--max-chars", "1000", ...args], {
        cwd: root.dir,
        encoding: "utf8",
      });
    try {
      // (The first five are cut by the budget, and say how to go on; the others fit.)
      const outputs = [
        run("read", "many.txt"),
        run("call", "grep", '{"pattern":"needle"}'),
        run("call", "grep", '{"pattern":"needle","context":1}'),
        run("call", "glob", '{"pattern":"*.txt"}'),
        run("list"),
        run("read", "long.txt"),
        run("read", "long.txt", "1:1"),
        run("call", "read", '{"path":"long.txt","column":3001}'),
        run("call", "grep", '{"pattern":"needle","output":"files"}'),
      ];
      for (const [i, { status, stdout, stderr }] of outputs.entries()) {
        assert.equal(status, 0, stderr);
        assert.ok(stdout.length <= 1000, `${stdout.length} characters:\n${stdout.slice(0, 300)}`);
        if (i < 5) assert.match(stdout, /continue with [^\n]*\]\n$/);
      }
      assert.match(
        outputs[5].stdout,
        /^\[version \w+\]\n1\tx{260} … \[line cut: 6007 code points; column=261/,
      );
      const refused = run("--max-chars", "999", "read", "many.txt");
      assert.equal(refused.status, 2);
      assert.match(refused.stderr, /--max-chars takes a whole number of 1000 or more, got "999"/);
    } finally {
      root.remove();
    }
  });
});

describe("the binary's edit results", () => {
  test("text with a lone surrogate is refused, not written as U+FFFD", () => {
    const root = tempRoot();
    try {
      const run = spawnSync(ensureBinary(), [
        "call",
        "write",
        '{"path":"s.txt","content":"a\\ud83d"}',
      ], {
        cwd: root.dir,
        encoding: "utf8",
      });
      assert.equal(run.status, 1);
      assert.match(run.stderr, /argument "content" holds a lone surrogate \(U\+D83D\)/);
      assert.equal(existsSync(join(root.dir, "s.txt")), false);
    } finally {
      root.remove();
    }
  });

  test("replace keeps a CRLF terminator whole, and a lone \\r as text", async () => {
    const root = tempRoot();
    writeFileSync(join(root.dir, "crlf.txt"), "a\r\nb\r\n");
    writeFileSync(join(root.dir, "lf.txt"), "a\nb\n");
    const { client } = await sdkSession(["serve", "--root", root.dir]);
    try {
      const replace = async (args: Record<string, unknown>) =>
        await client.callTool({ name: "replace", arguments: args }) as Result;
      const split = await replace({
        path: "crlf.txt",
        old_text: "\r",
        new_text: "",
        replace_all: true,
      });
      assert.equal(split.isError, true);
      assert.match(split.content[0].text, /old_text was not found/);
      const joined = await replace({ path: "lf.txt", old_text: "a", new_text: "a\r" });
      assert.equal(joined.isError, true);
      assert.match(joined.content[0].text, /lone \\r \(text\) right before a line break/);
      assert.equal(readFileSync(join(root.dir, "crlf.txt"), "utf8"), "a\r\nb\r\n");
      assert.equal(readFileSync(join(root.dir, "lf.txt"), "utf8"), "a\nb\n");
    } finally {
      await client.close();
      root.remove();
    }
  });

  test("an edit of 200,000 places answers within the budget, in text and structured content", async () => {
    const root = tempRoot();
    writeFileSync(join(root.dir, "many.txt"), "a\n".repeat(200_000));
    const { client } = await sdkSession(["serve", "--root", root.dir]);
    try {
      const result = await client.callTool({
        name: "replace",
        arguments: { path: "many.txt", old_text: "a", new_text: "b", replace_all: true },
      }) as Result & { structuredContent: Record<string, unknown> };
      assert.equal(result.isError, undefined, result.content[0]?.text);
      assert.ok(JSON.stringify(result).length < 60_000, `${JSON.stringify(result).length} bytes`);
      assert.equal(result.structuredContent.regions_total, 200_000);
      assert.equal(readFileSync(join(root.dir, "many.txt"), "utf8"), "b\n".repeat(200_000));
      const undone = await client.callTool({ name: "undo", arguments: { path: "many.txt" } });
      assert.equal(undone.isError, undefined);
      assert.equal(readFileSync(join(root.dir, "many.txt"), "utf8"), "a\n".repeat(200_000));
    } finally {
      await client.close();
      root.remove();
    }
  });
});
