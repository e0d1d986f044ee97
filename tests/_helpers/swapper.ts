// Shared by the race tests: a process that keeps exchanging two paths (tests/_helpers/swap.c,
// compiled once per run with the system's C compiler).
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PROJECT } from "./binary.ts";

let built: string | undefined;

/** The swap helper's executable, compiled when first asked for. */
export function swapHelper(): string {
  if (built !== undefined && existsSync(built)) return built;
  const out = join(mkdtempSync(join(tmpdir(), "linewise-swap-")), "swap");
  const source = join(PROJECT, "tests", "_helpers", "swap.c");
  const result = spawnSync("cc", ["-O2", "-o", out, source], { encoding: "utf8" });
  if (result.status !== 0) {
    throw new Error(
      `compiling the swap helper failed (a C compiler is needed: apt-get install gcc):\n` +
        `${result.stderr ?? result.error}`,
    );
  }
  built = out;
  return out;
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
