// Greps in a session while the tree changes between them, on the Linux tree, against ripgrep
// after the same kind of change: a build writing into an ignored folder (the kernel's
// `include/generated/`, which its `.gitignore` leaves out), and a new source file in a folder
// every walk lists. The server's index is built first; each turn makes a new file and greps at
// once. The files are removed at the end.
import * as fs from "node:fs";
import * as path from "node:path";
import { McpClient } from "./client.ts";
import { compareKeys, linewiseKeys, RG_ARGS, rgKeys } from "./agree.ts";
import { KERNEL } from "./load.ts";
import { BINARY, fmt, inTurns, rows, run } from "./support.ts";

const PATTERN = "EXPORT_SYMBOL_GPL(";
const CHANGES = [
  { name: "a file written in the ignored `include/generated/`", dir: "include/generated" },
  { name: "a new file in `drivers/gpu/`, a folder every walk lists", dir: "drivers/gpu" },
];

/** A row per kind of change: the grep after it, against ripgrep's after the same. */
export async function changingTreeRows(): Promise<void> {
  const args = { pattern: PATTERN, literal: true, max_matches: 1_000_000 };
  const rg = [...RG_ARGS, "-F", PATTERN, "."];
  for (const change of CHANGES) {
    const dir = path.join(KERNEL, change.dir);
    const madeDir = !fs.existsSync(dir);
    fs.mkdirSync(dir, { recursive: true });
    const written: string[] = [];
    const write = () => {
      const file = path.join(dir, `linewise_bench_${written.length}.c`);
      fs.writeFileSync(file, `EXPORT_SYMBOL_GPL(linewise_bench_${written.length});\n`);
      written.push(file);
    };
    const { client } = await McpClient.start(BINARY, [
      "serve",
      "--root",
      KERNEL,
      "--no-cache",
      "--max-lines",
      "1000000",
      "--max-chars",
      "100000000",
    ]);
    try {
      await client.call("grep", args);
      const indexing = await client.idle();
      await client.call("grep", args);
      const timed = await inTurns({
        rg: () => {
          write();
          return run("rg", rg, { cwd: KERNEL }).ms;
        },
        ours: async () => {
          write();
          return (await client.call("grep", args)).ms;
        },
      });
      const ours = await client.call("grep", args);
      const theirs = run("rg", rg, { cwd: KERNEL });
      rows.push({
        target: "changing tree: a grep repeated after a change",
        what: `kernel, literal \`${PATTERN}\`, after ${change.name} (a new one each time), ` +
          `in a session whose index was built (${(indexing / 1000).toFixed(1)} s)`,
        linewise: fmt(timed.ours),
        other: `rg ${fmt(timed.rg)}`,
        ratio: `${(timed.rg / timed.ours).toFixed(2)}× faster`,
        goal: "report",
        met: undefined,
        agree: compareKeys(linewiseKeys(ours.result.structuredContent), rgKeys(theirs.stdout), {
          root: KERNEL,
          rg: ["-F", PATTERN],
        }),
      });
    } finally {
      await client.close();
      for (const file of written) fs.rmSync(file, { force: true });
      if (madeDir) fs.rmSync(dir, { recursive: true, force: true });
    }
  }
}
