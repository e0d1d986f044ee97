// Shared by the race tests: a process that keeps exchanging two paths (tests/_helpers/swap.c),
// and a wrapper that runs a command with openat2 refused (tests/_helpers/no_openat2.c), each
// compiled once per run with the system's C compiler.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PROJECT } from "./binary.ts";

const built = new Map<string, string>();

/** A helper's executable, compiled from tests/_helpers/<name>.c when first asked for. */
function compiled(name: string): string {
  const known = built.get(name);
  if (known !== undefined && existsSync(known)) return known;
  const out = join(mkdtempSync(join(tmpdir(), `linewise-${name}-`)), name);
  const source = join(PROJECT, "tests", "_helpers", `${name}.c`);
  const result = spawnSync("cc", ["-O2", "-o", out, source], { encoding: "utf8" });
  if (result.status !== 0) {
    throw new Error(
      `compiling ${name}.c failed (a C compiler is needed: apt-get install gcc):\n` +
        `${result.stderr ?? result.error}`,
    );
  }
  built.set(name, out);
  return out;
}

/** The swap helper's executable. */
export function swapHelper(): string {
  return compiled("swap");
}

/**
 * The wrapper that runs its arguments as a command under a seccomp filter answering
 * `openat2` with ENOSYS (as a kernel before 5.6 would).
 */
export function withoutOpenat2(): string {
  return compiled("no_openat2");
}

/** A running swapper; `stop()` ends it and resolves with the number of exchanges made. */
export interface Swapper {
  stop(): Promise<number>;
}

/** Starts exchanging `a` and `b` (for at most `seconds`). */
export function startSwapping(a: string, b: string, seconds = 600): Swapper {
  const child: ChildProcess = spawn(swapHelper(), [a, b, String(seconds)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout!.on("data", (chunk) => out += chunk);
  const ended = new Promise<number>((resolve) => {
    child.on("exit", () => resolve(Number(out.trim()) || 0));
  });
  return {
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      return await ended;
    },
  };
}
