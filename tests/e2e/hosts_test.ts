// The host recipes of docs/hosts.md, as written: each block is parsed (JSON, TOML, or the
// `claude mcp add` line), and the command it names is started with the MCP SDK client in a
// folder where the packed package is installed (npx then runs it without the registry), as
// the host would start it; the server must answer a read of a file in its root.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parse as parseToml } from "smol-toml";
import { PROJECT, unversioned } from "../_helpers/binary.ts";
import { installInto, packedPackages } from "../_helpers/npm.ts";
import { sdkSession } from "../_helpers/sdk.ts";

interface Recipe {
  host: string;
  command: string;
  args: string[];
}

type Servers = Record<string, { command: string; args: string[] }>;

/** The recipes of docs/hosts.md: each block under its host's heading. */
function recipes(): Recipe[] {
  const text = fs.readFileSync(path.join(PROJECT, "docs/hosts.md"), "utf8");
  const found: Recipe[] = [];
  let host = "";
  for (const part of text.split(/^## /m).slice(1)) {
    host = part.split("\n")[0];
    for (const [, lang, body] of part.matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)) {
      let server: { command: string; args: string[] };
      if (lang === "sh") {
        const line = body.trim();
        assert.match(line, /^claude mcp add linewise -- /, host);
        const [command, ...args] = line.split(" -- ")[1].split(" ");
        server = { command, args };
      } else if (lang === "toml") {
        server = (parseToml(body) as { mcp_servers: Servers }).mcp_servers.linewise;
      } else {
        assert.equal(lang, "json", host);
        const config = JSON.parse(body) as Record<string, Servers>;
        server = (config.mcpServers ?? config.servers ?? config.context_servers).linewise;
      }
      found.push({ host, ...server });
    }
  }
  return found;
}

test("every host recipe starts a server that answers", { timeout: 180_000 }, async () => {
  const list = recipes();
  assert.deepEqual([...new Set(list.map((r) => r.host))], [
    "Claude Code",
    "Claude Desktop",
    "Codex CLI",
    "VS Code",
    "Cursor",
    "Zed",
  ]);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "linewise-hosts-"));
  try {
    const project = await installInto(path.join(work, "project"), [packedPackages().main]);
    fs.writeFileSync(path.join(project, "hello.txt"), "hello\n");
    // (Recipes that start the same command line, once their folders are this one, run once.)
    const started = new Set<string>();
    for (const recipe of list) {
      const args = recipe.args.map((arg) =>
        arg === "${workspaceFolder}" || arg.startsWith("/Users/") ? project : arg
      );
      const line = JSON.stringify([recipe.command, ...args]);
      if (started.has(line)) continue;
      started.add(line);
      const { client } = await sdkSession(args, {
        name: recipe.host,
        command: recipe.command,
        cwd: project,
      });
      try {
        const read = await client.callTool({ name: "read", arguments: { path: "hello.txt" } });
        assert.equal(
          unversioned((read as { content: { text: string }[] }).content[0].text),
          "1\thello\n",
          recipe.host,
        );
      } finally {
        await client.close();
      }
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
});
