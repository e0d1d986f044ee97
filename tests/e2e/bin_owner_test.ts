// End to end: an edit keeps the file's owner and group where the server may set them, and
// otherwise drops setuid and setgid (as cp does); a file the server may not write is refused.
// These need root to set up (files of other users, a server run as another user); the tests
// say they are skipped when not run as root.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  chmodSync,
  chownSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
// @ts-types="../../node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.d.ts"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ensureBinary, tempRoot } from "../_helpers/binary.ts";
import { sdkSession } from "../_helpers/sdk.ts";

type Result = { content: Array<{ text: string }>; isError?: boolean };

const text = (result: Result) => result.content.map((c) => c.text).join("");
// (`id -u` rather than process.getuid, which Deno allows only with --allow-sys.)
const isRoot = spawnSync("id", ["-u"], { encoding: "utf8" }).stdout.trim() === "0";
const ROOT_ONLY = {
  skip: isRoot ? false : "skipped: needs root (files of other users)",
  timeout: 60_000,
};

/** A server on `dir`, run as `uid` (through setpriv) when given. */
async function serve(dir: string, uid?: number): Promise<Client> {
  const args = ["serve", "--root", dir];
  const session = uid === undefined ? sdkSession(args, { name: "owner-test" }) : sdkSession(
    [`--reuid=${uid}`, `--regid=${uid}`, "--clear-groups", ensureBinary(), ...args],
    { name: "owner-test", command: "setpriv" },
  );
  return (await session).client;
}

/** Reads the file's first line, as an agent does, then replaces it. */
async function edit(client: Client, path: string): Promise<Result> {
  await client.callTool({ name: "read", arguments: { path, end_line: 1 } });
  return await client.callTool({
    name: "replace_lines",
    arguments: { path, edits: [{ start_line: 1, new_text: "edited\n" }] },
  }) as Result;
}

describe("owner and mode of edited files", () => {
  const root = tempRoot();
  const dir = join(root.dir, "shared");
  before(() => {
    if (ROOT_ONLY.skip) return;
    mkdirSync(dir);
    chmodSync(root.dir, 0o755);
    chmodSync(dir, 0o777); // (no sticky bit: anyone may replace anyone's file here)
  });
  after(() => root.remove());

  test(
    "a server run as root keeps another user's owner, group and setuid bit",
    ROOT_ONLY,
    async () => {
      const file = join(dir, "tool.sh");
      writeFileSync(file, "#!/bin/sh\n");
      chownSync(file, 1000, 1000);
      chmodSync(file, 0o4755);
      const client = await serve(dir);
      try {
        const result = await edit(client, "tool.sh");
        assert.equal(result.isError, undefined, text(result));
        const written = await client.callTool({
          name: "write",
          arguments: { path: "tool.sh", content: "#!/bin/sh\necho 2\n", overwrite: true },
        }) as Result;
        assert.equal(written.isError, undefined, text(written));
      } finally {
        await client.close();
      }
      const stat = statSync(file);
      assert.deepEqual([stat.uid, stat.gid, stat.mode & 0o7777], [1000, 1000, 0o4755]);
      assert.equal(readFileSync(file, "utf8"), "#!/bin/sh\necho 2\n");
    },
  );

  test(
    "a server that may not give the file back to its owner drops setuid and setgid",
    ROOT_ONLY,
    async () => {
      const file = join(dir, "other.sh");
      writeFileSync(file, "#!/bin/sh\n");
      chownSync(file, 1001, 1001);
      chmodSync(file, 0o6777); // anyone may write it, and it runs as 1001
      const client = await serve(dir, 1000);
      try {
        const result = await edit(client, "other.sh");
        assert.equal(result.isError, undefined, text(result));
      } finally {
        await client.close();
      }
      const stat = statSync(file);
      assert.equal(readFileSync(file, "utf8"), "edited\n");
      assert.deepEqual(
        [stat.uid, stat.mode & 0o7777],
        [1000, 0o0777],
        "not a setuid file of 1000's",
      );
    },
  );

  test("a file the server may not write is refused, and nothing changes", ROOT_ONLY, async () => {
    const file = join(dir, "frozen.txt");
    writeFileSync(file, "keep me\n");
    chownSync(file, 1000, 1000);
    chmodSync(file, 0o444);
    const before = readdirSync(dir).sort();
    const client = await serve(dir, 1000);
    try {
      const result = await edit(client, "frozen.txt");
      assert.equal(result.isError, true);
      assert.match(text(result), /"frozen\.txt" is read-only for this server \(mode 0444\)/);
      const written = await client.callTool({
        name: "write",
        arguments: { path: "frozen.txt", content: "x", overwrite: true },
      }) as Result;
      assert.match(text(written), /read-only/);
    } finally {
      await client.close();
    }
    assert.equal(readFileSync(file, "utf8"), "keep me\n");
    assert.equal(statSync(file).mode & 0o7777, 0o444);
    assert.deepEqual(readdirSync(dir).sort(), before, "no temporary file left");
  });
});
