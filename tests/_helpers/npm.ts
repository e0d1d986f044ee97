// Shared by the tests of the npm packages: built and packed once per test process, and
// installed into empty folders as a user installs them.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { ensureBinary, PROJECT } from "./binary.ts";

/** Runs a command that must succeed; returns its stdout and stderr. */
export function run(command: string, args: string[], cwd = PROJECT): string {
  const result = spawnSync(command, args, { cwd, encoding: "utf8" });
  assert.equal(result.status, 0, `${command} ${args.join(" ")}:\n${result.stdout}${result.stderr}`);
  return result.stdout + result.stderr;
}

let packed: { main: string; binary: string } | undefined;

/**
 * The tarballs of @linewise/linewise and @linewise/linux-x64 (dist/linewise), built by
 * scripts/build_npm.ts and `npm pack` on first use.
 */
export function packedPackages(): { main: string; binary: string } {
  if (packed !== undefined) return packed;
  ensureBinary();
  run(path.join(PROJECT, "node_modules/.bin/deno"), ["run", "-A", "scripts/build_npm.ts"]);
  const out = fs.mkdtempSync(path.join(os.tmpdir(), "linewise-packed-"));
  for (const name of ["linewise", "linux-x64"]) {
    run("npm", ["pack", path.join(PROJECT, "dist/npm", name), "--pack-destination", out], out);
  }
  packed = {
    main: path.join(out, "linewise-linewise-0.1.0.tgz"),
    binary: path.join(out, "linewise-linux-x64-0.1.0.tgz"),
  };
  return packed;
}

/**
 * Installs packages into a new folder with a package.json, as `npm install` does for a user.
 *
 * @param dir the folder (made here)
 * @param specs tarballs or package names
 * @returns the folder
 */
export function installInto(dir: string, specs: string[]): string {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "package.json"), '{"name":"user","private":true}\n');
  run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", ...specs], dir);
  return dir;
}
