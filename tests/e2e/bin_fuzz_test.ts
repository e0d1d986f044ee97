// End to end: random regexes and globs, built from the shapes that make backtracking engines
// blow up (nested and repeated quantifiers, lookarounds, backreferences, stars in globs), sent
// a few at a time against random files with long runs of one letter. Every call answers
// within its time budget and a second, and pings sent every 50 ms meanwhile are answered
// within 600 ms: a scan that held the loop would hold it for the budget (a second), while a
// shared machine's scheduler delayed one ping of a round to 115-329 ms in 3 of some 50 CI
// runs, each with other processes busy beside the suite. The first grep of each round is a
// lookaround or backreference before a run of stars, which only the stoppable helper runs
// and which never ends on a long run of a's: some of them must really be stopped there (a
// fuzz whose random patterns all ended at once would prove little). The seed is in every
// failure message; LINEWISE_FUZZ_SEED replays one.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { callsWhilePinging, initialized, tempRoot } from "../_helpers/binary.ts";

const REGEX_PIECES = [
  "a",
  "a*",
  "a+",
  "(a)",
  "(a*)",
  "\\1",
  "(?=a)",
  "(?<=a)",
  "(?!b)",
  "(?<!b)",
  ".*",
  "(.*)",
  "[ab]+",
  "(a|aa)+",
  "(a+)+",
  "a{2,}",
  "\\b",
  "b",
  "c$",
  "^",
  "(?:a|b)*",
  "\\w+",
  "x",
];
/** The shapes that hung the server before (issue 11), each sent once in the first rounds. */
const KNOWN = [
  "(?=a)a*a*a*a*c",
  "a*a*a*a*(?<=a)c",
  "(a)a*a*a*\\1c",
  "(.*)(.*)(.*)\\3x",
  "*a*a*a*a*b",
  "*a*a*a*a*a*a*a*b",
];
const GLOB_PIECES = ["*", "a", "**/", "?", "[ab]", "{a,b}", "*a*", "b", "[!", ".txt"];
/** Runs of a's the backtracking engine tries every way to share out (none nested: that is refused). */
const RUNS = ["a*", "a+", "a*?", "[ab]*", "\\w*", ".*", "(?:a)*"];
const LOOKAHEADS = ["(?=a)", "(?!b)", "(?=\\w)"];
const ENDS = ["c", "x", "(?<=a)c", "(?<!b)x"];

/** A seeded generator (the same seed makes the same run). */
function generator(seed: number): (below: number) => number {
  let state = seed % 2147483647 || 1;
  return (below) => (state = (state * 48271) % 2147483647) % below;
}

function pick<T>(random: (below: number) => number, from: readonly T[], count: number): T[] {
  return Array.from({ length: count }, () => from[random(from.length)]);
}

/**
 * A pattern with no linear-time form (a lookaround or a backreference) and three to five runs
 * of a's that fail at the end: on a line of thousands of a's the runtime's engine would
 * take longer than anyone waits.
 */
function slowRegex(random: (below: number) => number): string {
  const runs = pick(random, RUNS, 3 + random(3)).join("");
  switch (random(3)) {
    case 0:
      return pick(random, LOOKAHEADS, 1)[0] + runs + pick(random, ENDS, 1)[0];
    case 1:
      return "(a)" + runs + "\\1" + pick(random, ["c", "x"], 1)[0];
    default:
      return runs + pick(random, ENDS.slice(2), 1)[0];
  }
}

const BUDGET_S = 1;
const ROUNDS = 8;
const AT_ONCE = 4;

test("random catastrophic regexes and globs each answer within budget + 1 s, pings within 600 ms", {
  timeout: 120_000,
}, async () => {
  const seed = Number(process.env.LINEWISE_FUZZ_SEED ?? Date.now() % 1_000_000);
  const random = generator(seed);
  const root = tempRoot();
  for (let f = 0; f < 6; f++) {
    const dir = join(root.dir, "a".repeat(1 + random(40)), "b".repeat(1 + random(3)));
    mkdirSync(dir, { recursive: true });
    const lines = Array.from(
      { length: 1 + random(50) },
      () => pick(random, ["a".repeat(1 + random(3000)), "ab", "b", "c", "x a"], 3).join(""),
    );
    writeFileSync(join(dir, "a".repeat(1 + random(200)) + "b.txt"), lines.join("\n") + "\n");
  }
  writeFileSync(join(root.dir, "c.txt"), "c" + "a".repeat(3000) + "\n");
  writeFileSync(join(root.dir, "q.txt"), ("q".repeat(120) + "\n").repeat(2000));
  writeFileSync(join(root.dir, "a".repeat(250)), "name\n");
  const known = [...KNOWN];
  let stopped = 0;
  /** The random slow patterns sent, by id, and how many of them the helper was stopped on. */
  const slow = new Set<string>();
  let helperStops = 0;
  const session = await initialized(["serve", "--root", root.dir, "--timeout", String(BUDGET_S)]);
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const requests = Array.from({ length: AT_ONCE }, (_, i) => {
        const id = `r${round}-${i}`;
        const shape = known.shift();
        if (shape !== undefined) {
          const name = shape.startsWith("*") ? "glob" : "grep";
          return { id, method: "tools/call", params: { name, arguments: { pattern: shape } } };
        }
        if (i === 0) {
          slow.add(id);
          const pattern = slowRegex(random);
          return { id, method: "tools/call", params: { name: "grep", arguments: { pattern } } };
        }
        const regex = pick(random, REGEX_PIECES, 2 + random(6)).join("");
        const glob = pick(random, GLOB_PIECES, 1 + random(6)).join("");
        const args = random(3) === 0
          ? { name: "glob", arguments: { pattern: glob } }
          : { name: "grep", arguments: random(2) ? { pattern: regex } : { pattern: regex, glob } };
        return { id, method: "tools/call", params: args };
      });
      const { answers, pings } = await callsWhilePinging(session, requests);
      for (const request of requests) {
        const { message, ms } = answers.get(request.id)!;
        const what = `seed ${seed}: ${JSON.stringify(request.params)}`;
        assert.ok(ms < (BUDGET_S + 1) * 1000, `${what} answered in ${ms} ms`);
        assert.ok(message.result !== undefined, `${what}: ${JSON.stringify(message)}`);
        const text = (message.result.content as { text: string }[])[0].text;
        assert.doesNotMatch(text, /internal error/, what);
        if (/stopped by the time budget/.test(text)) stopped++;
        if (slow.has(request.id) && /the pattern was still matching/.test(text)) helperStops++;
      }
      assert.ok(Math.max(0, ...pings) < 600, `seed ${seed}: pings ${pings.join(" ")} ms`);
    }
    assert.ok(stopped >= 4, `seed ${seed}: ${stopped} calls stopped by the budget`);
    assert.ok(
      helperStops >= 3,
      `seed ${seed}: ${helperStops} of ${slow.size} random slow patterns stopped on the helper`,
    );
    assert.equal(await session.close(), 0);
  } finally {
    session.child.kill("SIGKILL");
    root.remove();
  }
});
