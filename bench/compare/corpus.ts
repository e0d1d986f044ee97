// The corpora of the comparison, built in bench/.corpus/ (gitignored) on the first run.
import { Buffer } from "node:buffer";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import process from "node:process";
import { CORPUS, log, REPO } from "./support.ts";

export const TREE = path.join(CORPUS, "tree");
export const FILES = path.join(CORPUS, "files");
export const LOG = path.join(FILES, "big.log");
export const REFERENCE = path.join(
  REPO,
  "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js",
);

/** Packages installed into the tree (the versions npm resolves on the day of the build). */
export const NPM_PACKAGES = [
  "typescript@5",
  "rxjs",
  "lodash",
  "date-fns",
  "three",
  "@babel/core",
  "@babel/preset-env",
  "eslint",
  "webpack",
  "prettier",
  "@mui/material",
  "react-dom",
];
/**
 * The `node_modules` of these packages is a second tree, the one users reported the index
 * did not engage on (333 MB in 16,771 files: next's bundles and source maps are lines of
 * megabytes), searched at `node_modules/`. It keeps next's native binaries of other
 * packages (sharp's libvips, the TypeScript compiler's), as a user's tree does.
 */
export const MODULES_PACKAGES = [
  "typescript",
  "@types/node",
  "next",
  "react-dom",
  "eslint",
  "webpack",
  "@babel/core",
  "rxjs",
  "lodash",
  "@angular/core",
];
export const MODULES = path.join(CORPUS, "modules", "node_modules");

/** Native binaries in this repository's node_modules are not source code; left out of the tree. */
const NOT_SOURCE = new Set(["bun", "@deno", "@oven", "deno", ".bin"]);

/** A directory holding one file of a single line of {@linkcode HUGE_LINE_BYTES}. */
export const HUGE = path.join(CORPUS, "huge");
export const HUGE_LINE = path.join(HUGE, "line.txt");
export const HUGE_LINE_BYTES = 2_000_000_000;
/** What the huge line ends with (before its "\n"), for a grep that must pass all of it. */
export const HUGE_NEEDLE = "__NEEDLE__";

export const LOG_LINES = 5_200_000;
export const DEEP_START = 5_000_001;
export const DEEP_END = 5_000_050;

// ---------------------------------------------------------------------------------------
// Helpers

// ---------------------------------------------------------------------------------------
// Corpora

export function ensureTools(): void {
  const rg = spawnSync("rg", ["--version"], { encoding: "utf8" });
  if (rg.error || rg.status !== 0) {
    log(
      "ripgrep (rg) is not installed. Install it with:\n  apt-get install ripgrep\n" +
        "(or `brew install ripgrep`, or `cargo install ripgrep`), then run this script again.",
    );
    process.exit(1);
  }
  if (!fs.existsSync(REFERENCE)) {
    log(`the reference server is missing at ${REFERENCE}; run \`npm install\` first`);
    process.exit(1);
  }
  log("building dist/linewise");
  const deno = path.join(REPO, "node_modules/.bin/deno");
  const built = spawnSync(deno, ["run", "-A", "scripts/compile.ts"], {
    cwd: REPO,
    stdio: "inherit",
    env: { ...process.env, PATH: `${path.join(REPO, "node_modules/.bin")}:${process.env.PATH}` },
  });
  if (built.status !== 0) process.exit(1);
}

export function buildTree(): void {
  const ready = path.join(TREE, ".ready");
  if (fs.existsSync(ready)) return;
  log("building the tree: npm install into bench/.corpus/npm, then copying");
  const npm = path.join(CORPUS, "npm");
  fs.mkdirSync(npm, { recursive: true });
  if (!fs.existsSync(path.join(npm, "package.json"))) {
    fs.writeFileSync(path.join(npm, "package.json"), '{"name":"corpus","private":true}\n');
  }
  const installed = spawnSync(
    "npm",
    ["install", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error", ...NPM_PACKAGES],
    { cwd: npm, stdio: "inherit" },
  );
  if (installed.status !== 0) throw new Error("npm install failed");
  fs.rmSync(TREE, { recursive: true, force: true });
  fs.cpSync(path.join(npm, "node_modules"), path.join(TREE, "npm"), { recursive: true });
  for (const name of fs.readdirSync(path.join(REPO, "node_modules"))) {
    if (NOT_SOURCE.has(name) || name.startsWith(".")) continue;
    fs.cpSync(path.join(REPO, "node_modules", name), path.join(TREE, "repo", name), {
      recursive: true,
      verbatimSymlinks: true,
    });
  }
  fs.writeFileSync(ready, "");
}

/** The `node_modules` tree: installed as users reported it, less next's ESM copy and SWC. */
export function buildModules(): void {
  const top = path.dirname(MODULES);
  const ready = path.join(top, ".ready");
  if (fs.existsSync(ready)) return;
  log(`building the node_modules tree: npm install into ${top}`);
  fs.mkdirSync(top, { recursive: true });
  fs.writeFileSync(path.join(top, "package.json"), '{"name":"modules","private":true}\n');
  const installed = spawnSync(
    "npm",
    [
      "install",
      "--ignore-scripts",
      "--no-audit",
      "--no-fund",
      "--loglevel=error",
      ...MODULES_PACKAGES,
    ],
    { cwd: top, stdio: "inherit" },
  );
  if (installed.status !== 0) throw new Error("npm install failed");
  fs.rmSync(path.join(MODULES, "next/dist/esm"), { recursive: true, force: true });
  for (const name of fs.readdirSync(path.join(MODULES, "@next"))) {
    if (name.startsWith("swc-")) fs.rmSync(path.join(MODULES, "@next", name), { recursive: true });
  }
  fs.writeFileSync(ready, "");
}

export function buildFiles(): void {
  fs.mkdirSync(FILES, { recursive: true });
  if (!fs.existsSync(LOG) || fs.statSync(LOG).size < 1_000_000_000) {
    log(`generating ${LOG} (${LOG_LINES} lines)`);
    const fd = fs.openSync(LOG + ".tmp", "w");
    const levels = ["INFO", "DEBUG", "WARN", "INFO", "ERROR"];
    const padding = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod ";
    let chunk = "";
    for (let n = 1; n <= LOG_LINES; n++) {
      const ms = 1_767_225_600_000 + n * 37;
      chunk += `${new Date(ms).toISOString()} ${levels[n % 5]} seq=${n} worker=${n % 17} ` +
        `request=${(n * 2654435761) % 4294967296} path=/api/v1/items/${n % 9973} ` +
        `${padding.slice(0, 40 + (n % 31))}${padding}\n`;
      if (chunk.length > 4_000_000) {
        fs.writeSync(fd, chunk);
        chunk = "";
      }
    }
    fs.writeSync(fd, chunk);
    fs.closeSync(fd);
    fs.renameSync(LOG + ".tmp", LOG);
  }
  const minified = path.join(FILES, "minified.js");
  if (!fs.existsSync(minified)) {
    let text = "";
    for (let i = 0; text.length < 5_000_000; i++) {
      text += `var a${i}=function(b){return b*${i}+1};`;
      if (i === 70_000) text += "window.__NEEDLE__=1;";
    }
    fs.writeFileSync(minified, text + "\n");
  }
  const medium = path.join(FILES, "medium.ts");
  if (!fs.existsSync(medium)) {
    let text = "";
    for (let i = 1; text.length < 1_000_000; i++) {
      text += `export function item${i}(value: number): number {\n  return value * ${i};\n}\n`;
    }
    fs.writeFileSync(medium, text);
  }
  const catastrophic = path.join(FILES, "catastrophic.txt");
  if (!fs.existsSync(catastrophic)) {
    fs.writeFileSync(catastrophic, "header\n" + "a".repeat(50_000) + "b\nfooter aaa\n");
  }
}

/** One line of 2,000,000,000 bytes (words, no newline but the last byte), the needle at its end. */
export function buildHugeLine(): void {
  if (fs.existsSync(HUGE_LINE) && fs.statSync(HUGE_LINE).size === HUGE_LINE_BYTES) return;
  log(`generating ${HUGE_LINE} (${HUGE_LINE_BYTES.toLocaleString("en")} bytes, one line)`);
  fs.mkdirSync(HUGE, { recursive: true });
  const words = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor ";
  const CHUNK = 1_000_000;
  const chunk = Buffer.from(words.repeat(Math.ceil(CHUNK / words.length)).slice(0, CHUNK));
  const fd = fs.openSync(HUGE_LINE + ".tmp", "w");
  for (let i = 0; i < HUGE_LINE_BYTES / CHUNK - 1; i++) fs.writeSync(fd, chunk);
  const end = ` ${HUGE_NEEDLE}\n`;
  fs.writeSync(fd, Buffer.concat([chunk.subarray(0, CHUNK - end.length), Buffer.from(end)]));
  fs.closeSync(fd);
  fs.renameSync(HUGE_LINE + ".tmp", HUGE_LINE);
}
