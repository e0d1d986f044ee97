// End to end: the MCP bundle. scripts/build_mcpb.ts builds it; the official `mcpb` tool
// validates its manifest and reads the bundle; unpacked, it is started as a host starts it
// (its mcp_config, with ${__dirname} and the user's directories filled in) under Node 20,
// and the MCP SDK client reads a file from each directory.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { PROJECT, unversioned } from "../_helpers/binary.ts";
import { buildOnce, run } from "../_helpers/npm.ts";
import { sdkSession } from "../_helpers/sdk.ts";

test(
  "the .mcpb bundle validates, and runs as a host runs it, with the user's directories as roots",
  {
    timeout: 120_000,
  },
  async () => {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), "linewise-mcpb-"));
    try {
      buildOnce(); // (dist/npm/linewise, which the bundle holds)
      const { buildMcpb } = await import("../../scripts/build_mcpb.ts");
      const bundle = buildMcpb(work);
      const mcpb = path.join(PROJECT, "node_modules/.bin/mcpb");
      assert.match(run(mcpb, ["info", bundle]), /linewise/);
      const unpacked = path.join(work, "unpacked");
      run(mcpb, ["unpack", bundle, unpacked]);
      run(mcpb, ["validate", path.join(unpacked, "manifest.json")]);
      const manifest = JSON.parse(fs.readFileSync(path.join(unpacked, "manifest.json"), "utf8"));
      assert.equal(manifest.manifest_version, "0.3");
      assert.equal(manifest.user_config.allowed_directories.type, "directory");
      const dirs = [path.join(work, "one"), path.join(work, "two")];
      dirs.forEach((dir, i) => {
        fs.mkdirSync(dir);
        fs.writeFileSync(path.join(dir, `f${i}.txt`), `in ${i}\n`);
      });
      // As a host fills the config in: a list of directories becomes one argument each.
      const { command, args } = manifest.server.mcp_config as { command: string; args: string[] };
      const filled = args.flatMap((arg) =>
        arg === "${user_config.allowed_directories}"
          ? dirs
          : [arg.replace("${__dirname}", unpacked)]
      );
      const { client } = await sdkSession(filled, { name: "host", command });
      try {
        for (const [i, dir] of dirs.entries()) {
          const read = await client.callTool({
            name: "read",
            arguments: { path: path.join(dir, `f${i}.txt`) },
          });
          assert.equal(
            unversioned((read as { content: { text: string }[] }).content[0].text),
            `1\tin ${i}\n`,
          );
        }
      } finally {
        await client.close();
      }
    } finally {
      fs.rmSync(work, { recursive: true, force: true });
    }
  },
);
