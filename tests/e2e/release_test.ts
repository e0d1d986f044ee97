// End to end: scripts/release.ts cross-compiles the binary for each platform, and each file
// has the format and architecture its name says (read from its header), and a SHA-256 sum.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import process from "node:process";
import { PROJECT } from "../_helpers/binary.ts";

/** What a binary's header says: its format and machine. */
function formatOf(file: string): string {
  const fd = fs.openSync(file, "r");
  const head = new Uint8Array(4096);
  fs.readSync(fd, head, 0, head.length, 0);
  fs.closeSync(fd);
  const view = new DataView(head.buffer);
  if (head[0] === 0x7f && head[1] === 0x45 && head[2] === 0x4c && head[3] === 0x46) {
    const machine = view.getUint16(18, true); // e_machine
    return `ELF ${({ 0x3e: "x64", 0xb7: "arm64" } as Record<number, string>)[machine] ?? machine}`;
  }
  if (view.getUint32(0, true) === 0xfeedfacf) {
    const cpu = view.getUint32(4, true);
    return `Mach-O ${
      ({ 0x01000007: "x64", 0x0100000c: "arm64" } as Record<number, string>)[cpu] ?? cpu
    }`;
  }
  if (head[0] === 0x4d && head[1] === 0x5a) {
    const pe = view.getUint32(0x3c, true);
    const machine = view.getUint16(pe + 4, true);
    return `PE ${machine === 0x8664 ? "x64" : machine}`;
  }
  return "unknown";
}

test("release.ts builds each platform's binary in its own format, with SHA-256 sums", {
  timeout: 300_000,
}, () => {
  const deno = path.join(PROJECT, "node_modules/.bin/deno");
  const built = spawnSync(deno, ["run", "-A", "scripts/release.ts", "--binaries-only"], {
    cwd: PROJECT,
    encoding: "utf8",
  });
  assert.equal(built.status, 0, built.stderr);
  const out = path.join(PROJECT, "dist/release");
  const expected: Record<string, string> = {
    "linewise-linux-x64": "ELF x64",
    "linewise-linux-arm64": "ELF arm64",
    "linewise-darwin-x64": "Mach-O x64",
    "linewise-darwin-arm64": "Mach-O arm64",
    "linewise-win32-x64.exe": "PE x64",
  };
  const formats = Object.fromEntries(
    fs.readdirSync(path.join(out, "bin")).map((
      name,
    ) => [name, formatOf(path.join(out, "bin", name))]),
  );
  assert.deepEqual(formats, expected);
  const sums = fs.readFileSync(path.join(out, "SHA256SUMS"), "utf8").trim().split("\n");
  assert.equal(sums.length, 5);
  for (const line of sums) {
    const [hash, name] = line.split("  ");
    const actual = createHash("sha256").update(fs.readFileSync(path.join(out, name))).digest("hex");
    assert.equal(actual, hash, name);
  }
  // The binary for this machine runs.
  if (process.platform === "linux" && process.arch === "x64") {
    const version = spawnSync(path.join(out, "bin/linewise-linux-x64"), ["--version"], {
      encoding: "utf8",
    });
    assert.match(version.stdout, /^linewise \d+\.\d+\.\d+ \(bun [\d.]+, compiled\)\n$/);
  }
  fs.rmSync(out, { recursive: true, force: true });
});
