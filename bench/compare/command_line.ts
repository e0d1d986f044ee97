// The command line's grep on what a terminal pipes through it: a log whose every line
// matches (its rows are printed as each run of it is scanned, not held), and the same log
// as standard input (searched as it comes), against ripgrep, side by side in turns, with
// each one's peak memory.
import * as fs from "node:fs";
import * as path from "node:path";
import { BINARY, CORPUS, fmt, inTurns, log, peakRssMiB, rows, run } from "./support.ts";

const DIR = path.join(CORPUS, "log");
const FILE = path.join(DIR, "app.log");
/** 4,000,000 lines, about 230 MB: over the 16 MiB a search reads whole. */
const LINES = 4_000_000;
/** The most memory the command line may take on it (its peak resident set). */
const PEAK_MIB = 256;

function buildLog(): void {
  if (fs.existsSync(FILE) && fs.statSync(FILE).size > 0) return;
  fs.mkdirSync(DIR, { recursive: true });
  const fd = fs.openSync(FILE, "w");
  for (let i = 0; i < LINES / 1000; i++) {
    const block = Array.from(
      { length: 1000 },
      (_, j) => `2026-12-07T10:00:00Z INFO request ${i * 1000 + j} served in ${j % 97} ms\n`,
    );
    fs.writeSync(fd, block.join(""));
  }
  fs.closeSync(fd);
}

export async function commandLineBench(): Promise<void> {
  log("command line: a log whose every line matches, as a file and as standard input, against rg");
  buildLog();
  const mb = Math.round(fs.statSync(FILE).size / 1e6);
  const cases = [
    {
      target: "command line: every line of a log printed",
      what: `\`linewise grep served app.log | wc -c\` against \`rg -n\`'s, ${
        LINES.toLocaleString("en")
      } lines (${mb} MB)`,
      ours: `"${BINARY}" grep served app.log`,
      theirs: "rg -n served app.log",
    },
    {
      target: "command line: a log piped in, counted",
      what:
        `\`cat app.log | linewise grep -c served\` against \`rg -c\`'s (standard input, ${mb} MB)`,
      ours: `cat app.log | "${BINARY}" grep -c served`,
      theirs: "cat app.log | rg -c served",
    },
  ];
  for (const c of cases) {
    const outputs: Record<string, string> = {};
    const piped = (name: string, command: string) => () => {
      const ran = run("sh", ["-c", `${command} | wc -c`], { cwd: DIR });
      outputs[name] = ran.stdout.toString().trim();
      return ran.ms;
    };
    const timed = await inTurns({ rg: piped("rg", c.theirs), ours: piped("ours", c.ours) });
    const peak = (command: string) => peakRssMiB(`cd ${DIR} && ${command}`);
    const ours = peak(c.ours);
    const theirs = peak(c.theirs);
    rows.push({
      target: `${c.target}, peak RSS < ${PEAK_MIB} MiB`,
      what: `${c.what}; peak RSS ${ours?.toFixed(0) ?? "?"} MiB against ${
        theirs?.toFixed(0) ?? "?"
      } MiB`,
      linewise: fmt(timed.ours),
      other: `rg ${fmt(timed.rg)}`,
      ratio: `${(timed.ours / timed.rg).toFixed(2)}×`,
      goal: `< ${PEAK_MIB} MiB`,
      met: ours === undefined ? undefined : ours < PEAK_MIB,
      agree: outputs.rg === outputs.ours
        ? `same ${outputs.rg} bytes`
        : `DIFFER: ${outputs.ours} bytes against rg's ${outputs.rg}`,
    });
  }
}
