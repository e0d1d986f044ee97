// Builds the MCP bundle dist/release/linewise-<version>.mcpb (MCP Bundle manifest 0.3) for
// Claude Desktop and other hosts that install bundles: the npm build under server/, with the
// npm packages it imports, run by the host's Node, and a list of directories the user picks,
// passed as the server's roots.
//
//   deno run -A scripts/build_mcpb.ts        (scripts/release.ts runs it too)
import * as fs from "node:fs";
import * as path from "node:path";
import { REPO, run } from "./_project.ts";
import { VERSION } from "../src/version.ts";

/** The bundle's manifest. */
export const MANIFEST = {
  manifest_version: "0.3",
  name: "linewise",
  display_name: "linewise file tools",
  version: VERSION,
  description:
    "File tools that agree on what a line is: numbered reads, grep with the same numbers, edits that refuse the wrong line.",
  author: { name: "The linewise authors" },
  license: "MIT",
  keywords: ["files", "grep", "edit", "lines"],
  server: {
    type: "node",
    entry_point: "server/bin/linewise.js",
    mcp_config: {
      command: "node",
      args: ["${__dirname}/server/bin/linewise.js", "serve", "${user_config.allowed_directories}"],
    },
  },
  user_config: {
    allowed_directories: {
      type: "directory",
      title: "Directories",
      description: "The folders linewise may read and edit (its roots).",
      multiple: true,
      required: true,
    },
  },
  compatibility: { platforms: ["darwin", "win32", "linux"], runtimes: { node: ">=20.0.0" } },
};

/**
 * Builds the bundle from dist/npm/linewise (scripts/build_npm.ts must have run).
 *
 * @param out the folder the bundle goes to
 * @returns the bundle's path
 */
export function buildMcpb(out: string): string {
  const stage = path.join(out, "mcpb");
  fs.rmSync(stage, { recursive: true, force: true });
  fs.cpSync(path.join(REPO, "dist/npm/linewise"), path.join(stage, "server"), { recursive: true });
  // The packages the modules import, as npm installed them here (they import nothing else).
  const own = JSON.parse(
    fs.readFileSync(path.join(REPO, "dist/npm/linewise/package.json"), "utf8"),
  );
  for (const name of Object.keys(own.dependencies)) {
    fs.cpSync(
      path.join(REPO, "node_modules", name),
      path.join(stage, "server/node_modules", name),
      { recursive: true },
    );
  }
  fs.writeFileSync(path.join(stage, "manifest.json"), JSON.stringify(MANIFEST, null, 2) + "\n");
  const mcpb = path.join(REPO, "node_modules/.bin/mcpb");
  run(mcpb, ["validate", path.join(stage, "manifest.json")]);
  const file = path.join(out, `linewise-${VERSION}.mcpb`);
  run(mcpb, ["pack", stage, file]);
  fs.rmSync(stage, { recursive: true, force: true });
  return file;
}

if (import.meta.main) {
  const out = path.join(REPO, "dist/release");
  fs.mkdirSync(out, { recursive: true });
  console.error(`built ${path.relative(REPO, buildMcpb(out))}`);
}
