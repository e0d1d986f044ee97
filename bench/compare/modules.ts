// Greps over the node_modules tree users reported the index did not engage on (see
// corpus.ts): first and repeated greps and new patterns as on the bench tree, and the
// users' own measure, the same grep six times in one new server, 1.5 s apart.
import { MODULES, MODULES_PACKAGES } from "./corpus.ts";
import { linewise } from "./client.ts";
import {
  firstAndRepeatedRows,
  type GrepCase,
  NEW_REGEXES,
  newPatternsRow,
  sizeOf,
} from "./grep.ts";
import { agreeWithRg } from "./agree.ts";
import { fmt, log, median, notes, rows } from "./support.ts";

const CASES: GrepCase[] = [
  { name: "regex `useEffect`", args: { pattern: "useEffect" }, rg: ["useEffect"] },
  {
    name: "regex `createElement\\(`",
    args: { pattern: "createElement\\(" },
    rg: ["createElement\\("],
  },
];

/** Greps of the same pattern in one new server, and the pause between them. */
const SPACED_GREPS = 6;
const SPACED_MS = 1500;

export async function modulesBench(): Promise<void> {
  log("modules: ripgrep vs linewise over the node_modules tree");
  notes.push(
    `node_modules tree: ${sizeOf(MODULES)} (\`npm install --ignore-scripts\` of ${
      MODULES_PACKAGES.join(" ")
    }, less next/dist/esm and @next/swc-*), searched at node_modules/.`,
  );
  const rgTimes = await firstAndRepeatedRows(MODULES, CASES, "node_modules: ");
  for (const [i, grepCase] of CASES.entries()) {
    const args = { ...grepCase.args, max_matches: 1_000_000 };
    const { client } = await linewise(MODULES);
    const times: number[] = [];
    let agree = "";
    for (let n = 0; n < SPACED_GREPS; n++) {
      if (n > 0) await new Promise((resolve) => setTimeout(resolve, SPACED_MS));
      const { result, ms } = await client.call("grep", args);
      times.push(ms);
      agree = agreeWithRg(result.structuredContent, rgTimes[i].stdout, {
        root: MODULES,
        rg: grepCase.rg,
      });
    }
    await client.close();
    // (From the third on: the index is built in the background after the first.)
    const later = median(times.slice(2));
    const rg = rgTimes[i].ms;
    rows.push({
      target: "node_modules: the same grep 1.5 s apart ≥ 5× faster than rg from the 3rd",
      what: `${grepCase.name}, ${SPACED_GREPS} greps in one new server: ${
        times.map((ms) => fmt(ms)).join(", ")
      }; median of the 3rd on`,
      linewise: fmt(later),
      other: `rg ${fmt(rg)}`,
      ratio: `${(rg / later).toFixed(2)}× faster`,
      goal: "≥ 5× faster",
      met: rg / later >= 5,
      agree,
    });
  }
  await newPatternsRow(MODULES, "node_modules: ");
  await newPatternsRow(MODULES, "node_modules: ", true);
  await newPatternsRow(MODULES, "node_modules: regexes around the literals: ", false, NEW_REGEXES);
}
