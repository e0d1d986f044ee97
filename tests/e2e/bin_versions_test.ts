// End to end: numbered edits checked against the version the agent saw, through the
// compiled binary and the SDK client, with files changed by another process between calls.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
// @ts-types="../../node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.d.ts"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { createPatch } from "diff";
import { ensureBinary, tempRoot } from "../_helpers/binary.ts";
import { sdkSession } from "../_helpers/sdk.ts";

type Result = { content: Array<{ text: string }>; isError?: boolean };

/** Another process writes the file (as an editor or a formatter would). */
function otherProcessWrites(file: string, content: string): void {
  const out = spawnSync("sh", ["-c", 'printf "%s" "$1" > "$2"', "sh", content, file]);
  assert.equal(out.status, 0, String(out.stderr));
}

async function serve(dir: string, shell?: string): Promise<Client> {
  const session = shell
    ? sdkSession(["-c", shell, "sh", ensureBinary(), dir], { name: "versions-test", command: "sh" })
    : sdkSession(["serve", "--root", dir], { name: "versions-test" });
  return (await session).client;
}

describe("the binary's version guard", () => {
  const root = tempRoot();
  const at = (name: string) => join(root.dir, name);
  let client: Client;
  const call = async (name: string, args: Record<string, unknown>) =>
    await client.callTool({ name, arguments: args }) as Result;
  const text = (result: Result) => result.content.map((c) => c.text).join("");

  before(async () => {
    client = await serve(root.dir);
  });
  after(async () => {
    await client.close();
    root.remove();
  });

  test("an edit after lines were inserted above is carried to the line the agent meant", async () => {
    writeFileSync(at("a.ts"), "one\ntwo\nthree\n");
    const read = await call("read", { path: "a.ts" });
    assert.match(text(read), /^\[version [0-9a-f]{8}\]\n1\tone\n2\ttwo\n3\tthree\n$/);
    otherProcessWrites(at("a.ts"), "// header\n// more\none\ntwo\nthree\n");
    const edit = await call("replace_lines", {
      path: "a.ts",
      edits: [{ start_line: 2, new_text: "TWO" }],
    });
    assert.equal(edit.isError, undefined, text(edit));
    assert.match(text(edit), /the edit went where they are now: line 2 is now 4/);
    assert.equal(readFileSync(at("a.ts"), "utf8"), "// header\n// more\none\nTWO\nthree\n");
  });

  // A host sends the tool calls of one turn of the model together: each edit's numbers are
  // those of what the agent had seen, not of the result of an edit sent with it.
  test("two edits sent together from one read both land where the agent meant", async () => {
    const lines = Array.from({ length: 10 }, (_, i) => `line ${i + 1}\n`).join("");
    writeFileSync(at("b.ts"), lines);
    await call("read", { path: "b.ts" });
    const [split, renamed] = await Promise.all([
      call("replace_lines", {
        path: "b.ts",
        edits: [{ start_line: 2, new_text: "line 2a\nline 2b\nline 2c\n" }],
      }),
      call("replace_lines", { path: "b.ts", edits: [{ start_line: 8, new_text: "LINE 8\n" }] }),
    ]);
    assert.ok(!split.isError && !renamed.isError, text(split) + text(renamed));
    assert.equal(
      readFileSync(at("b.ts"), "utf8"),
      lines.replace("line 2\n", "line 2a\nline 2b\nline 2c\n").replace("line 8\n", "LINE 8\n"),
    );
  });

  // More calls than the server runs at once (16), and than a file's shows it remembers (64):
  // those that wait for a slot start after the first ones have shown their results, and still
  // number lines as the agent saw them.
  test("seventy edits sent together from one read all land where the agent meant", async () => {
    const line = (k: number) => `L${String(k).padStart(3, "0")}\n`;
    const lines = Array.from({ length: 220 }, (_, i) => line(i + 1)).join("");
    writeFileSync(at("many.ts"), lines);
    await call("read", { path: "many.ts", end_line: 220 });
    const after = Array.from({ length: 70 }, (_, i) => 3 * (i + 1));
    const edits = await Promise.all([
      call("replace_lines", { path: "many.ts", edits: [{ start_line: 215, new_text: "X215" }] }),
      ...after.map((k) =>
        call("insert_lines", { path: "many.ts", after_line: k, text: `after ${k}` })
      ),
    ]);
    for (const edit of edits) assert.equal(edit.isError, undefined, text(edit));
    let expected = lines.replace(line(215), "X215\n");
    for (const k of after) expected = expected.replace(line(k), `${line(k)}after ${k}\n`);
    assert.equal(readFileSync(at("many.ts"), "utf8"), expected);
  });

  test("an edit of a line another process changed is refused, showing the rows now", async () => {
    writeFileSync(at("b.ts"), "one\ntwo\nthree\n");
    await call("read", { path: "b.ts" });
    otherProcessWrites(at("b.ts"), "one\n2!\nthree\n");
    const edit = await call("replace_lines", {
      path: "b.ts",
      edits: [{ start_line: 2, new_text: "TWO" }],
    });
    assert.equal(edit.isError, true);
    assert.match(
      text(edit),
      /^b\.ts: the file changed since this session showed it, and so did line 2 .*nothing was written\. The lines there now \(version [0-9a-f]{8}\):\n1\tone\n2\t2!\n3\tthree\n$/,
    );
    assert.equal(readFileSync(at("b.ts"), "utf8"), "one\n2!\nthree\n");
  });

  test("a numbered edit of a file the session never showed is refused without a guard", async () => {
    writeFileSync(at("c.ts"), "one\ntwo\n");
    const edit = await call("insert_lines", { path: "c.ts", after_line: 1, text: "x" });
    assert.equal(edit.isError, true);
    assert.match(text(edit), /has not shown this file.*Read the lines first/);
    assert.equal(readFileSync(at("c.ts"), "utf8"), "one\ntwo\n");
  });

  test("undo restores the file byte for byte", async () => {
    const original = "\uFEFFone\r\ntwo\r\nthree";
    writeFileSync(at("d.ts"), original);
    await call("read", { path: "d.ts" });
    await call("replace_lines", { path: "d.ts", edits: [{ start_line: 3, new_text: "3\n4" }] });
    await call("insert_lines", { path: "d.ts", after_line: 0, text: "zero" });
    const undo = await call("undo", { path: "d.ts", steps: 2 });
    assert.equal(undo.isError, undefined, text(undo));
    assert.deepEqual(readFileSync(at("d.ts")), Buffer.from(original));
  });

  test("a patch with one bad hunk among three files writes nothing", async () => {
    const files = { "p1.txt": "a\nb\nc\n", "p2.txt": "d\ne\nf\n", "p3.txt": "g\nh\ni\n" };
    for (const [name, content] of Object.entries(files)) writeFileSync(at(name), content);
    const patch = createPatch("p1.txt", files["p1.txt"], "a\nB\nc\n") +
      createPatch("p2.txt", "d\nX\nf\n", "d\nE\nf\n") +
      createPatch("p3.txt", files["p3.txt"], "g\nH\ni\n");
    const result = await call("patch", { patch });
    assert.equal(result.isError, true);
    assert.match(text(result), /^hunk 1 of p2\.txt .* does not match the file/);
    for (const [name, content] of Object.entries(files)) {
      assert.equal(readFileSync(at(name), "utf8"), content, name);
    }
  });
});

test("a write that fails during a patch's second file leaves every file as it was", {
  timeout: 60_000,
}, async () => {
  const root = tempRoot();
  const at = (name: string) => join(root.dir, name);
  // The server may write files of at most a few KiB (and ignores the signal that limit sends):
  // a real failure of the second file's write, after the first was written.
  const client = await serve(root.dir, `trap '' XFSZ; ulimit -f 8; exec "$1" serve --root "$2"`);
  try {
    const big = Array.from({ length: 2000 }, (_, i) => `line ${i}\n`).join("");
    writeFileSync(at("small.txt"), "a\nb\n");
    writeFileSync(at("big.txt"), "x\n");
    writeFileSync(at("third.txt"), "c\n");
    const patch = createPatch("small.txt", "a\nb\n", "A\nb\n") +
      createPatch("big.txt", "x\n", big) + createPatch("third.txt", "c\n", "C\n");
    const result = await client.callTool({ name: "patch", arguments: { patch } }) as Result;
    assert.equal(result.isError, true);
    assert.match(
      result.content[0].text,
      /^patch stopped at big\.txt: .*; the files written before it were put back \(small\.txt\)$/,
    );
    assert.equal(readFileSync(at("small.txt"), "utf8"), "a\nb\n");
    assert.equal(readFileSync(at("big.txt"), "utf8"), "x\n");
    assert.equal(readFileSync(at("third.txt"), "utf8"), "c\n");
  } finally {
    await client.close();
    root.remove();
  }
});
