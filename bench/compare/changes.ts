// Greps in a session while the tree changes between them, on the Linux tree, against ripgrep
// after the same kind of change: a build writing into an ignored folder (the kernel's
// `include/generated/`, which its `.gitignore` leaves out), a new source file in a folder every
// walk lists, and an edit of a source file through the server's `replace` tool (ripgrep's turn
// writes the same edit). The server's index is built first; each turn changes the tree and
// greps at once. The tree is put back at the end.
import * as fs from "node:fs";
import * as path from "node:path";
import { McpClient } from "./client.ts";
import { compareKeys, linewiseKeys, RG_ARGS, rgKeys } from "./agree.ts";
import { KERNEL } from "./load.ts";
import { BINARY, fmt, inTurns, rows, run } from "./support.ts";

const PATTERN = "EXPORT_SYMBOL_GPL(";

/** A kind of change: made before linewise's grep (through its client) and before ripgrep's. */
interface Change {
  name: string;
  ours(client: McpClient): Promise<void>;
  theirs(): void;
  /** Puts the tree back. */
  undo(): void;
}

/** New files, one a turn, in a folder of the tree (made if missing, and removed after). */
function newFiles(dir: string, name: string): Change {
  const at = path.join(KERNEL, dir);
  const madeDir = !fs.existsSync(at);
  fs.mkdirSync(at, { recursive: true });
  const written: string[] = [];
  const write = () => {
    const file = path.join(at, `linewise_bench_${written.length}.c`);
    fs.writeFileSync(file, `EXPORT_SYMBOL_GPL(linewise_bench_${written.length});\n`);
    written.push(file);
  };
  return {
    name,
    ours: () => Promise.resolve(write()),
    theirs: write,
    undo: () => {
      for (const file of written) fs.rmSync(file, { force: true });
      if (madeDir) fs.rmSync(at, { recursive: true, force: true });
    },
  };
}

/** An edit of a line of a source file, and back, in turns. */
function edits(file: string, line: string): Change {
  const at = path.join(KERNEL, file);
  const original = fs.readFileSync(at);
  const { atime, mtime } = fs.statSync(at);
  let edited = false;
  const next = () => {
    const from = edited ? `${line} /* edited */` : line;
    edited = !edited;
    return { from, to: edited ? `${line} /* edited */` : line };
  };
  return {
    name: `an edit of \`${file}\` (\`replace\`; ripgrep's turn writes it)`,
    ours: async (client) => {
      const { from, to } = next();
      const { result } = await client.call("replace", { path: file, old_text: from, new_text: to });
      if (result.isError) throw new Error(`the edit failed: ${JSON.stringify(result.content)}`);
    },
    theirs: () => {
      const { from, to } = next();
      fs.writeFileSync(at, fs.readFileSync(at, "utf8").replace(from, to));
    },
    undo: () => {
      fs.writeFileSync(at, original);
      fs.utimesSync(at, atime, mtime);
    },
  };
}

/** A row per kind of change: the grep after it, against ripgrep's after the same. */
export async function changingTreeRows(): Promise<void> {
  const changes = [
    () => newFiles("include/generated", "a file written in the ignored `include/generated/`"),
    () => newFiles("drivers/gpu", "a new file in `drivers/gpu/`, a folder every walk lists"),
    () => edits("drivers/gpu/drm/drm_file.c", "EXPORT_SYMBOL(drm_open);"),
  ];
  for (const make of changes) await changeRow(make());
}

async function changeRow(change: Change): Promise<void> {
  const args = { pattern: PATTERN, literal: true, max_matches: 1_000_000 };
  const rg = [...RG_ARGS, "-F", PATTERN, "."];
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
        change.theirs();
        return run("rg", rg, { cwd: KERNEL }).ms;
      },
      ours: async () => {
        await change.ours(client);
        return (await client.call("grep", args)).ms;
      },
    });
    const ours = await client.call("grep", args);
    const theirs = run("rg", rg, { cwd: KERNEL });
    rows.push({
      target: "changing tree: a grep repeated after a change",
      what: `kernel, literal \`${PATTERN}\`, after ${change.name} each time, ` +
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
    change.undo();
  }
}
