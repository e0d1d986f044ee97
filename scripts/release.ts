// Builds everything a release needs into dist/release/ (nothing is published from here):
//
//   bin/linewise-<platform>[.exe]   the binary for linux-x64, linux-arm64, darwin-x64,
//                                   darwin-arm64 and win32-x64 (bun build --compile --target)
//   npm/*.tgz                       @linewise/linewise and one @linewise/<platform> per binary
//   linewise-<version>.mcpb         the MCP bundle (scripts/build_mcpb.ts)
//   SHA256SUMS                      of every file above, as sha256sum -c reads them
//
//   deno run -A scripts/release.ts [--binaries-only]
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { REPO, run } from "./_project.ts";
import process from "node:process";
import { WORKER_MODULES } from "../src/io/runtime.ts";
import { buildMcpb } from "./build_mcpb.ts";
import { binaryPackage, PLATFORMS } from "./build_npm.ts";

const OUT = path.join(REPO, "dist/release");

/** Bun's name of each platform's target. */
const BUN_TARGET: Record<string, string> = {
  "linux-x64": "bun-linux-x64",
  "linux-arm64": "bun-linux-arm64",
  "darwin-x64": "bun-darwin-x64",
  "darwin-arm64": "bun-darwin-arm64",
  "win32-x64": "bun-windows-x64",
};

/**
 * The binary's file name for a platform.
 *
 * @param platform as `process.platform-process.arch`
 * @returns the name below dist/release/bin/
 */
export function binaryName(platform: string): string {
  return `linewise-${platform}${platform.startsWith("win32") ? ".exe" : ""}`;
}

function buildBinaries(): string[] {
  const bun = path.join(REPO, "node_modules/.bin/bun");
  const workers = Object.values(WORKER_MODULES).map((module) => `src/${module}`);
  fs.mkdirSync(path.join(OUT, "bin"), { recursive: true });
  return PLATFORMS.map((platform) => {
    const file = path.join(OUT, "bin", binaryName(platform));
    run(bun, [
      "build",
      "--compile",
      "--minify",
      `--target=${BUN_TARGET[platform]}`,
      "src/cli/bin.ts",
      ...workers,
      "--outfile",
      file,
    ]);
    return file;
  });
}

function buildPackages(binaries: string[]): string[] {
  const deno = path.join(REPO, "node_modules/.bin/deno");
  run(deno, ["run", "-A", "scripts/build_npm.ts"]);
  const npm = path.join(OUT, "npm");
  fs.mkdirSync(npm, { recursive: true });
  const dirs = [path.join(REPO, "dist/npm/linewise")];
  PLATFORMS.forEach((platform, i) => {
    const dir = path.join(OUT, "packages", platform);
    binaryPackage(platform, binaries[i], dir);
    dirs.push(dir);
  });
  for (const dir of dirs) run("npm", ["pack", dir, "--pack-destination", npm]);
  fs.rmSync(path.join(OUT, "packages"), { recursive: true, force: true });
  return [...fs.readdirSync(npm).map((name) => path.join(npm, name)), buildMcpb(OUT)];
}

function writeSums(files: string[]): void {
  const lines = files.map((file) => {
    const hash = createHash("sha256").update(fs.readFileSync(file)).digest("hex");
    return `${hash}  ${path.relative(OUT, file)}`;
  });
  fs.writeFileSync(path.join(OUT, "SHA256SUMS"), lines.join("\n") + "\n");
}

if (import.meta.main) {
  fs.rmSync(OUT, { recursive: true, force: true });
  const binaries = buildBinaries();
  const packages = process.argv.includes("--binaries-only") ? [] : buildPackages(binaries);
  writeSums([...binaries, ...packages]);
  console.error(
    `built ${
      path.relative(REPO, OUT)
    }/: ${binaries.length} binaries, ${packages.length} npm tarballs and bundles, SHA256SUMS`,
  );
}
