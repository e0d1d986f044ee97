// End to end, as a host drives the server (the official SDK client, the compiled binary): the
// server's walks are SPEC §3's, not the command line's. ripgrep's `.ignore` and `.rgignore`,
// git's global excludes file and a `!` rule naming a hidden file change nothing there, while
// `linewise grep` on the same tree follows ripgrep.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { runCli, tempRoot } from "../_helpers/binary.ts";
import { sdkSession } from "../_helpers/sdk.ts";

test("the server reads neither ripgrep's ignore files nor git's global one", {
  timeout: 60_000,
}, async () => {
  const top = tempRoot();
  const root = join(top.dir, "root");
  const home = join(top.dir, "home");
  mkdirSync(join(home, ".config", "git"), { recursive: true });
  mkdirSync(join(root, "sub"), { recursive: true });
  writeFileSync(join(home, ".config", "git", "ignore"), "*.swp\n");
  writeFileSync(join(root, ".ignore"), "a.txt\n");
  writeFileSync(join(root, ".rgignore"), "b.txt\n");
  writeFileSync(join(root, ".gitignore"), "c.txt\n!.hid\n");
  for (const name of ["a.txt", "b.txt", "c.txt", "d.swp", ".hid", "sub/e.txt"]) {
    writeFileSync(join(root, name), "needle\n");
  }
  const { client } = await sdkSession(["serve", "--root", root], {
    name: "ignores-test",
    env: { HOME: home, PATH: process.env.PATH ?? "" },
  });
  try {
    const grep = await client.callTool({ name: "grep", arguments: { pattern: "needle" } });
    const found = (grep.structuredContent as { files: Array<{ path: string }> }).files;
    assert.deepEqual(found.map((file) => file.path), ["a.txt", "b.txt", "d.swp", "sub/e.txt"]);
    const glob = await client.callTool({ name: "glob", arguments: { pattern: "**" } });
    const listed = (glob.structuredContent as { paths: string[] }).paths;
    assert.deepEqual(listed, ["a.txt", "b.txt", "d.swp", "sub/e.txt"]);
  } finally {
    await client.close();
  }
  // (The command line, on the same tree: as ripgrep, with that home.)
  const out = runCli(["grep", "-l", "needle"], root, { HOME: home });
  assert.deepEqual(out.stdout.split("\n").filter(Boolean).sort(), [".hid", "sub/e.txt"]);
  top.remove();
});
