// Builds the npm packages into dist/npm/ (nothing is published from here):
//
//   dist/npm/linewise/     @linewise/linewise: the modules as JavaScript with .d.ts (tsc, one
//                          file per module, so that the workers and the pattern helper stay
//                          beside the modules that start them), and bin/linewise.js, which runs
//                          the platform's binary where its package is installed, else Node.
//   dist/npm/linux-x64/    @linewise/linux-x64: dist/linewise, when it was built for this
//                          platform (scripts/compile.ts).
//
//   deno run -A scripts/build_npm.ts
import * as fs from "node:fs";
import * as path from "node:path";
import { REPO, run } from "./_project.ts";
import process from "node:process";
import { PROCESS_MODULES, WORKER_MODULES } from "../src/io/runtime.ts";
import { VERSION } from "../src/version.ts";

const OUT = path.join(REPO, "dist/npm");
const MAIN = path.join(OUT, "linewise");

/** The platforms a binary package is named for (`@linewise/<platform>-<arch>`). */
export const PLATFORMS = ["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64", "win32-x64"];

/** The npm packages the modules import (their versions as this project pins them). */
function dependencies(): Record<string, string> {
  const own = JSON.parse(fs.readFileSync(path.join(REPO, "package.json"), "utf8"));
  return { diff: own.dependencies.diff, re2js: own.dependencies.re2js };
}

function compileModules(): void {
  const entries = [
    "mod.ts",
    "src/core/mod.ts",
    "src/testing/mod.ts",
    "src/cli/bin.ts",
    // (named once, in src/io/runtime.ts: the entries that run as processes and as workers)
    ...Object.values(PROCESS_MODULES).map((module) => `src/${module}`),
    ...Object.values(WORKER_MODULES).map((module) => `src/${module}`),
  ];
  const config = {
    compilerOptions: {
      target: "ES2022",
      module: "NodeNext",
      moduleResolution: "NodeNext",
      declaration: true,
      noCheck: true, // (deno check has checked it; tsc would lack Deno's and Bun's globals)
      rewriteRelativeImportExtensions: true,
      outDir: MAIN,
      rootDir: REPO,
      skipLibCheck: true,
      strict: true,
      types: [],
    },
    files: entries.map((entry) => path.join(REPO, entry)),
  };
  const file = path.join(OUT, "tsconfig.json");
  fs.writeFileSync(file, JSON.stringify(config, null, 2));
  try {
    run(path.join(REPO, "node_modules/.bin/tsc"), ["-p", file]);
  } finally {
    fs.rmSync(file);
  }
  // tsc rewrites .ts specifiers in the JavaScript but not in the declarations.
  for (const declarations of filesEndingIn(MAIN, ".d.ts")) {
    const text = fs.readFileSync(declarations, "utf8");
    fs.writeFileSync(declarations, text.replace(/(["'])(\.{1,2}\/[^"']*)\.ts\1/g, "$1$2.js$1"));
  }
}

function filesEndingIn(dir: string, end: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(end))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/** The launcher: the platform's binary when its package is installed, else the Node build. */
const LAUNCHER = `#!/usr/bin/env node
// Runs linewise: the prebuilt binary of @linewise/<platform>-<arch> where it is installed
// (an optional dependency) and starts, else the JavaScript build on this Node.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { constants } from "node:os";
import process from "node:process";

const require = createRequire(import.meta.url);
const name = \`@linewise/\${process.platform}-\${process.arch}\`;
const file = process.platform === "win32" ? "bin/linewise.exe" : "bin/linewise";
let binary;
try {
  binary = require.resolve(\`\${name}/\${file}\`);
} catch {
  binary = undefined; // not installed for this platform
}
const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"];
if (binary !== undefined && process.env.LINEWISE_NO_BINARY !== "1") {
  const child = spawn(binary, process.argv.slice(2), { stdio: "inherit" });
  let started = false;
  child.on("spawn", () => started = true);
  const pass = (signal) => child.kill(signal);
  for (const signal of SIGNALS) process.on(signal, pass);
  // (A binary that cannot be started, on a noexec mount or without its loader, say: the
  // JavaScript build does the same work.)
  child.on("error", async (error) => {
    if (started) return; // (a kill that failed, say: the binary runs on)
    for (const signal of SIGNALS) process.off(signal, pass);
    process.stderr.write(\`linewise: the binary could not be started (\${error.code ?? error.message}); running on Node\n\`);
    await import("../src/cli/bin.js");
  });
  child.on("exit", (code, signal) => {
    if (!started) return; // (said by the error)
    if (signal === null) process.exit(code ?? 1);
    // Ended by a signal: end by it too (without the handler that passed it on), or, for one
    // Node ignores, with the status a shell gives it.
    for (const each of SIGNALS) process.off(each, pass);
    process.kill(process.pid, signal);
    setImmediate(() => process.exit(128 + (constants.signals[signal] ?? 0)));
  });
} else {
  await import("../src/cli/bin.js");
}
`;

function mainPackage(): void {
  const optional = Object.fromEntries(PLATFORMS.map((p) => [`@linewise/${p}`, VERSION]));
  const manifest = {
    name: "@linewise/linewise",
    version: VERSION,
    description:
      "Line-precise file tools for AI agents: numbered reads, grep with the same numbers, edits that refuse the wrong line. An MCP server, a command line and a library.",
    license: "MIT",
    type: "module",
    bin: { linewise: "bin/linewise.js" },
    exports: {
      ".": { types: "./mod.d.ts", default: "./mod.js" },
      "./core": { types: "./src/core/mod.d.ts", default: "./src/core/mod.js" },
      "./testing": { types: "./src/testing/mod.d.ts", default: "./src/testing/mod.js" },
    },
    types: "./mod.d.ts",
    engines: { node: ">=20" },
    dependencies: dependencies(),
    optionalDependencies: optional,
    keywords: ["mcp", "model-context-protocol", "ai", "agent", "grep", "files", "edit"],
  };
  fs.writeFileSync(path.join(MAIN, "package.json"), JSON.stringify(manifest, null, 2) + "\n");
  fs.mkdirSync(path.join(MAIN, "bin"), { recursive: true });
  fs.writeFileSync(path.join(MAIN, "bin/linewise.js"), LAUNCHER, { mode: 0o755 });
  for (const file of ["README.md", "LICENSE"]) {
    fs.copyFileSync(path.join(REPO, file), path.join(MAIN, file));
  }
}

/**
 * The package of one platform's binary.
 *
 * @param platform as `process.platform-process.arch`
 * @param binary the binary's file
 * @param out where the package goes
 */
export function binaryPackage(platform: string, binary: string, out: string): void {
  const [os, cpu] = platform.split("-");
  const file = os === "win32" ? "bin/linewise.exe" : "bin/linewise";
  fs.mkdirSync(path.join(out, "bin"), { recursive: true });
  fs.copyFileSync(binary, path.join(out, file));
  fs.chmodSync(path.join(out, file), 0o755);
  const manifest = {
    name: `@linewise/${platform}`,
    version: VERSION,
    description: `The linewise binary for ${platform} (installed by @linewise/linewise).`,
    license: "MIT",
    os: [os],
    cpu: [cpu],
    files: [file],
    preferUnplugged: true,
  };
  fs.writeFileSync(path.join(out, "package.json"), JSON.stringify(manifest, null, 2) + "\n");
}

if (import.meta.main) {
  fs.rmSync(OUT, { recursive: true, force: true });
  fs.mkdirSync(MAIN, { recursive: true });
  compileModules();
  mainPackage();
  const here = `${process.platform}-${process.arch}`;
  const binary = path.join(REPO, "dist/linewise");
  if (fs.existsSync(binary)) binaryPackage(here, binary, path.join(OUT, here));
  console.error(`built ${path.relative(REPO, OUT)}/ (linewise ${VERSION})`);
}
