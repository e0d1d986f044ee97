// Shared by the tests of the npm packages: built and packed once for all test processes, and
// installed into empty folders as a user installs them.
import assert from "node:assert/strict";
import { execFile, spawnSync } from "node:child_process";
import { promisify } from "node:util";
import * as fs from "node:fs";
import * as path from "node:path";
import { ensureBinary, PROJECT } from "./binary.ts";

/** Runs a command that must succeed; returns its stdout and stderr. */
export function run(command: string, args: string[], cwd = PROJECT): string {
  const result = spawnSync(command, args, { cwd, encoding: "utf8" });
  assert.equal(result.status, 0, `${command} ${args.join(" ")}:\n${result.stdout}${result.stderr}`);
  return result.stdout + result.stderr;
}

/** Where the npm build says it is complete (it is newer than everything it was built from). */
const BUILT = path.join(PROJECT, "dist/npm/.built");
/** The tarballs `npm pack` made of the build, and where it says they are complete. */
const PACKED_DIR = path.join(PROJECT, "dist/npm-packed");
const PACKED = path.join(PACKED_DIR, ".packed");
/** Held while one test process builds or packs: test files run in parallel processes. */
const LOCK = path.join(PROJECT, "dist/.npm-build.lock");

/** The newest modification time of the files below `dir` (ms). */
function newest(dir: string): number {
  let latest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    latest = Math.max(latest, fs.statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  return latest;
}

/** Whether `marker` is there and newer than `since` (ms). */
function newerThan(marker: string, since: number): boolean {
  return fs.existsSync(marker) && fs.statSync(marker).mtimeMs > since;
}

/** Runs `make` holding the lock, one process at a time. */
function locked(make: () => void): void {
  const wait = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      fs.mkdirSync(LOCK);
      break;
    } catch (error) {
      if ((error as { code?: string }).code !== "EEXIST") throw error;
      // (A lock left by a killed test run is old: builds take seconds.)
      if (Date.now() - fs.statSync(LOCK).mtimeMs > 120_000) {
        fs.rmSync(LOCK, { force: true, recursive: true });
      }
      Atomics.wait(wait, 0, 0, 100);
    }
  }
  try {
    make();
  } finally {
    fs.rmSync(LOCK, { force: true, recursive: true });
  }
}

/**
 * Builds dist/npm with scripts/build_npm.ts unless a build newer than the sources and the
 * binary is there; one process at a time, so that no test packs a build another is making.
 */
export function buildOnce(): void {
  const binary = ensureBinary();
  const sources = Math.max(
    newest(path.join(PROJECT, "src")),
    fs.statSync(path.join(PROJECT, "scripts/build_npm.ts")).mtimeMs,
    fs.statSync(binary).mtimeMs,
  );
  locked(() => {
    if (newerThan(BUILT, sources)) return;
    run(path.join(PROJECT, "node_modules/.bin/deno"), ["run", "-A", "scripts/build_npm.ts"]);
    fs.writeFileSync(BUILT, "");
  });
}

/**
 * The tarballs of @linewise/linewise and @linewise/linux-x64 (dist/linewise), built by
 * scripts/build_npm.ts and packed by `npm pack`, once for all test processes (packing the
 * binary's package compresses 114 MB: 6 s of CPU for each file that packed it).
 */
export function packedPackages(): { main: string; binary: string } {
  buildOnce();
  locked(() => {
    if (newerThan(PACKED, fs.statSync(BUILT).mtimeMs)) return;
    fs.rmSync(PACKED_DIR, { recursive: true, force: true });
    fs.mkdirSync(PACKED_DIR, { recursive: true });
    for (const name of ["linewise", "linux-x64"]) {
      const args = ["pack", path.join(PROJECT, "dist/npm", name), "--pack-destination", PACKED_DIR];
      run("npm", args, PACKED_DIR);
    }
    fs.writeFileSync(PACKED, "");
  });
  return {
    main: path.join(PACKED_DIR, "linewise-linewise-0.1.0.tgz"),
    binary: path.join(PACKED_DIR, "linewise-linux-x64-0.1.0.tgz"),
  };
}

/**
 * Installs packages into a new folder with a package.json, as `npm install` does for a user.
 *
 * @param dir the folder (made here)
 * @param specs tarballs or package names
 * @returns the folder
 */
export async function installInto(dir: string, specs: string[]): Promise<string> {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "package.json"), '{"name":"user","private":true}\n');
  const args = ["install", "--prefer-offline", "--no-audit", "--no-fund", ...specs];
  try {
    await promisify(execFile)("npm", args, { cwd: dir });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    assert.fail(`npm ${args.join(" ")}:\n${stdout}${stderr}`);
  }
  return dir;
}
