// What the build scripts share: where the project is, and running a tool that must succeed.
import { spawnSync } from "node:child_process";
import * as path from "node:path";

/** The project's folder. */
export const REPO = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");

/**
 * Runs a command to its end; throws with its output when it fails.
 *
 * @param command the program
 * @param args its arguments
 * @param cwd where it runs (default: the project)
 */
export function run(command: string, args: string[], cwd = REPO): void {
  const result = spawnSync(command, args, { cwd, encoding: "utf8" });
  if (result.status !== 0) {
    const why = result.error?.message ?? `exit ${result.status}`;
    throw new Error(
      `${command} ${args.join(" ")} failed (${why}):\n${result.stdout}${result.stderr}`,
    );
  }
}
