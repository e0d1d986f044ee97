// Block filters and the plans made from them, through real files: a search that reads only
// what a plan names must show what a search of the whole file shows.
import assert from "node:assert/strict";
import { isUtf8 } from "node:buffer";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import { type Matcher, regexMatcher } from "../../../src/core/mod.ts";
import { FileReader } from "../../../src/io/_file_reader.ts";
import { examineFile, prefilterOf, scannedChunks } from "../../../src/search/_search_file.ts";
import {
  blockFilters,
  plannedNeedles,
  type PlanShape,
  type ReadPlan,
  readPlan,
  SEAM_BYTES,
} from "../../../src/search/index/_block_filters.ts";
import { SearchCollector } from "../../../src/store/_search_collector.ts";
import { MemoryStore } from "../../../src/store/memory_store.ts";
import { filesOf } from "../../_helpers/files.ts";
import { needlePiece } from "../../_helpers/arbitraries.ts";
import { shownRows } from "../../_helpers/rows.ts";

const encoder = new TextEncoder();

const LATER = 10_000_000_000n; // (indexed 10 s after the last change: past the racy rule)

describe("block filters", () => {
  let dir: string;
  let file: string;
  before(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "linewise-blocks-")));
    file = path.join(dir, "f");
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** Writes the bytes, and makes the file's block filters and its plan for the matcher. */
  function planFor(bytes: Uint8Array, matcher: Matcher, block: number, shape: PlanShape = {}) {
    fs.writeFileSync(file, bytes);
    const stat = filesOf(dir).lstat(file);
    const blocks = blockFilters(bytes, stat, !isUtf8(bytes), stat.ctimeNs + LATER, block)!;
    const prefilter = prefilterOf(
      matcher.requiredLiteral,
      matcher.alternativeLiterals,
      matcher.foldedLiterals,
    );
    const needles = plannedNeedles(prefilter, matcher.foldedLiterals);
    const plan = needles === undefined
      ? undefined
      : readPlan(blocks, needles, { most: 1, ...shape });
    return { plan, prefilter };
  }

  /** What a search of the file shows when it reads what the plan names. */
  async function searched(
    matcher: Matcher,
    plan: ReadPlan | undefined,
    prefilter: object,
    invalid = false,
    context = 0,
    rowCut?: number,
  ) {
    const collector = new SearchCollector({ matcher, maxMatches: 1000, context, rowCut });
    const reader = new FileReader(filesOf(dir), 1 << 20, 64);
    const examination = { ...prefilter, context, links: false, rowCut };
    const outcome = examineFile(
      reader,
      file,
      examination,
      plan === undefined ? undefined : { ...plan, invalid },
    );
    if (outcome.kind === "text") {
      const chunks = scannedChunks(outcome.text);
      await collector.scanFile("f", chunks, () => outcome.invalid, outcome.linesBefore);
    } else if (outcome.kind === "none") collector.searchedWithoutMatch("f");
    return { outcome, result: collector.result() };
  }

  it("let a search read only some lines and show what a whole read shows", async () => {
    let planned = 0;
    let ruledOut = 0;
    let withContext = 0; // searches with context lines that the plan served
    let whole = 0; // plans of the whole file (one that would read most of it)
    await fc.assert(
      fc.asyncProperty(
        fc.array(needlePiece, { maxLength: 80 }),
        fc.constantFrom(
          "needle",
          "needle \\d",
          "^needle",
          "needle$",
          "needle|x",
          "^need|le\\d",
          "dle$|é",
          "needles",
          "kNeed",
          "need|dle 7",
        ),
        fc.integer({ min: 3, max: 40 }),
        fc.boolean(),
        fc.boolean(),
        fc.constantFrom(0, 0, 1, 2, 3),
        fc.boolean(),
        fc.constantFrom(1, 1, 0.75, 0),
        async (parts, pattern, block, bad, ignoreCase, context, wide, most) => {
          const text = parts.join("");
          const bytes = bad
            ? new Uint8Array([...encoder.encode(text), 0xff, 10, ...encoder.encode(text)])
            : encoder.encode(text);
          const matcher = regexMatcher(pattern, { ignoreCase });
          const query = { matcher, maxMatches: 1000, context };
          const want = await new MemoryStore({ f: bytes }).search(query);
          const { plan, prefilter } = planFor(bytes, matcher, block, { most, wide });
          if (plan === undefined) return; // (a needle too long for the block)
          if (plan === "none") {
            ruledOut++;
            assert.equal(want.matchedLines, 0, "no block may hold it, and no line does");
            return;
          }
          planned++;
          if (plan.ranges.length === 2 && plan.ranges[1] - plan.ranges[0] === bytes.length) whole++;
          const { outcome, result } = await searched(matcher, plan, prefilter, bad, context);
          if (context > 0 && "sha1" in outcome) withContext++; // (read as planned)
          assert.deepEqual(result.files.map(({ sha1: _, ...file }) => file), want.files);
          assert.equal(result.matchedLines, want.matchedLines);
        },
      ),
      { numRuns: 1500 },
    );
    // The counts vary with the random runs: the floors, far below them, only show each path is taken.
    assert.ok(
      planned > 200 && ruledOut > 100 && withContext > 20 && whole > 100,
      `planned ${planned}, ruled out ${ruledOut}, with context ${withContext}, whole ${whole}`,
    );
  });

  it("show a long line's row from the blocks around its match, as a whole read does", async () => {
    let cut = 0; // plans that read part of a long line
    let served = 0; // searches such a plan served (without reading the file whole)
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.tuple(
            fc.constantFrom("a", "é", "日", "😀", "x\r"),
            fc.constantFrom(0, 1, 50, 5000, 20000),
            needlePiece,
          ),
          { minLength: 1, maxLength: 10 },
        ),
        fc.boolean(),
        fc.constantFrom("needle", "needle|NEEDLE", "le 7"),
        fc.constantFrom(1024, 4096, 16384),
        fc.constantFrom(1, 3, 50, 2000),
        async (segments, bom, pattern, block, rowCut) => {
          const text = (bom ? "\uFEFF" : "") +
            segments.map(([unit, count, piece]) => unit.repeat(count) + piece).join("");
          const bytes = encoder.encode(text);
          const matcher = regexMatcher(pattern);
          const { plan, prefilter } = planFor(bytes, matcher, block, { cut: rowCut });
          const want = (await searched(matcher, undefined, prefilter, false, 0, rowCut)).result;
          if (plan === undefined) return;
          if (plan === "none") {
            assert.equal(want.matchedLines, 0, "no block may hold it, and no line does");
            return;
          }
          if (plan.cuts !== undefined) cut++;
          const { outcome, result } = await searched(matcher, plan, prefilter, false, 0, rowCut);
          if (plan.cuts !== undefined && "sha1" in outcome) served++;
          assert.deepEqual(result.files.map(({ sha1: _, ...file }) => file), want.files);
          assert.equal(result.matchedLines, want.matchedLines);
        },
      ),
      { numRuns: 400 },
    );
    assert.ok(cut > 25 && served > 20, `cut ${cut}, served ${served}`);
  });

  it("show a regex's long line from its stretches when a plan names it, as grep shows it", async () => {
    let served = 0; // searches a plan served with a long line's row from its stretches
    let cutServed = 0; // of them, by a plan that read only part of a long line
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.tuple(
            fc.constantFrom("a", "é;", "日 ", "😀", "x\r", "7("),
            fc.constantFrom(0, 1, 50, 20000),
            fc.oneof(
              needlePiece,
              fc.constantFrom("needle 7", "(needle  7)", " needle;", "NeeDLE 7", "x_1"),
            ),
          ),
          { minLength: 1, maxLength: 8 },
        ),
        fc.constantFrom<[string, boolean]>(
          ["needle\\s*7", false],
          ["\\bneedle\\b", false],
          ["ne+dle \\d", false],
          ["\\w*needle", false],
          ["needle\\s*7|x_\\d", false],
          ["NEEDLE\\s*7", true],
          ["\\bneeDle\\b", true],
        ),
        fc.constantFrom(1024, 16384),
        fc.constantFrom(3, 2000),
        fc.boolean(),
        async (segments, [pattern, ignoreCase], block, cut, windows) => {
          const text = segments.map(([unit, count, piece]) => unit.repeat(count) + piece).join("");
          const bytes = encoder.encode(text);
          const matcher = regexMatcher(pattern, { ignoreCase });
          const want = await new MemoryStore({ f: bytes }).search({ matcher, maxMatches: 1000 });
          // (With windows, a long line is read only around the blocks that may hold a needle.)
          const { plan, prefilter } = planFor(bytes, matcher, block, windows ? { cut } : {});
          if (plan === undefined || plan === "none") return;
          const stretch = { ...matcher.stretch!, cut };
          const { outcome, result } = await searched(matcher, plan, { ...prefilter, stretch });
          // (Read as planned, with a long line's row made from its stretches.)
          const passed = outcome.kind === "text" && Array.isArray(outcome.text) &&
            outcome.text.some((part) => typeof part === "object");
          if ("sha1" in outcome && passed) served++;
          if ("sha1" in outcome && passed && plan.cuts !== undefined) cutServed++;
          assert.deepEqual(shownRows(result, cut), shownRows(want, cut));
          assert.equal(result.matchedLines, want.matchedLines);
        },
      ),
      { numRuns: 400 },
    );
    assert.ok(served > 20 && cutServed > 10, `served ${served}, by a cut plan ${cutServed}`);
  });

  it("read of a long line only the blocks around its match, and count the rest", async () => {
    // A source map's one line of 2 MB, a needle in one place: the row is shown from
    // the blocks around it, with the column and length of the whole line.
    const head = "é".repeat(600_000) + "x".repeat(123);
    const text = head + "needle" + "日".repeat(300_000) + "\r\n";
    const bytes = encoder.encode(text);
    const matcher = regexMatcher("needle");
    const { plan, prefilter } = planFor(bytes, matcher, 64 * 1024, { cut: 2000, most: 0.75 });
    assert.ok(plan !== undefined && plan !== "none" && plan.cuts !== undefined);
    const read = plan.ranges.reduce((sum, at, i) => sum + (i % 2 === 0 ? -at : at), 0);
    assert.ok(read <= 3 * 64 * 1024, `${read} bytes of ${bytes.length}`);
    const { outcome, result } = await searched(matcher, plan, prefilter, false, 0, 2000);
    assert.ok("sha1" in outcome, "read as planned");
    const [row] = result.files[0].rows;
    assert.equal(row.line, 1);
    assert.ok(row.piece !== undefined);
    assert.equal(row.piece.from, [...head].length + 1 - 200);
    assert.equal(row.piece.codePoints, [...text].length - 2);
    assert.equal(row.piece.terminator, "\r\n");
    const shown = "x".repeat(123).padStart(200, "é") + "needle" + "日".repeat(1794);
    assert.equal(row.text, shown + "\r\n");
    // A search that shows rows whole (no cut) reads the file whole instead.
    const whole = await searched(matcher, plan, prefilter, false, 0, undefined);
    assert.ok(!("sha1" in whole.outcome), "not read as planned");
    assert.deepEqual(whole.result, (await searched(matcher, undefined, prefilter)).result);
    // So does one with context lines, or one ignoring case (their rows are not windows).
    const near = await searched(matcher, plan, prefilter, false, 1, 2000);
    assert.ok(!("sha1" in near.outcome), "with context: not read as planned");
    const wanted = await searched(matcher, undefined, prefilter, false, 1, 2000);
    assert.deepEqual(near.result, wanted.result);
    const caseless = regexMatcher("needle", { ignoreCase: true });
    const folded = planFor(bytes, caseless, 64 * 1024, { cut: 2000, most: 0.75 });
    assert.ok(folded.plan !== undefined && folded.plan !== "none" && folded.plan.cuts);
    const any = await searched(caseless, folded.plan, folded.prefilter, false, 0, 2000);
    assert.ok(!("sha1" in any.outcome), "ignoring case: not read as planned");
    const anyWhole = await searched(caseless, undefined, folded.prefilter, false, 0, 2000);
    assert.deepEqual(any.result, anyWhole.result);
  });

  it("name whole lines, and leave out the blocks that cannot hold the needle", () => {
    const lines = Array.from({ length: 400 }, (_, i) => i === 300 ? "a needle here\n" : `${i}\n`);
    const bytes = encoder.encode(lines.join(""));
    const { plan } = planFor(bytes, regexMatcher("needle"), 64);
    assert.ok(plan !== undefined && plan !== "none");
    assert.equal(plan.ranges.length, 2, "one range");
    const [start, end] = plan.ranges;
    assert.ok(end - start <= 3 * 64, `${end - start} bytes of ${bytes.length}`);
    assert.equal(start === 0 || bytes[start - 1] === 10, true, "starts a line");
    assert.equal(bytes[end - 1], 10, "ends one");
    const before = new TextDecoder().decode(bytes.subarray(0, start)).split("\n").length - 1;
    assert.equal(plan.linesBefore[0], before);
    assert.equal(planFor(bytes, regexMatcher("walrus and carpenter"), 64).plan, "none");
  });

  it("plan for a literal without case where it may stand, not where a spelling of part does", () => {
    // (Every line holds "able", whose spellings the search looks for: only the literal's
    // folded trigrams tell the block holding it.)
    for (const spelled of ["MaSkAbLe", "mas\u212Aable", "ma\u017Fkable"]) {
      const lines = Array.from({ length: 400 }, (_, i) => i === 300 ? `${spelled}\n` : "table\n");
      const bytes = encoder.encode(lines.join(""));
      const { plan } = planFor(bytes, regexMatcher("maskable", { ignoreCase: true }), 64);
      assert.ok(plan !== undefined && plan !== "none", spelled);
      assert.equal(plan.ranges.length, 2, `one range for ${spelled}`);
      const [start, end] = plan.ranges;
      assert.ok(end - start <= 3 * 64, `${end - start} bytes of ${bytes.length}`);
      const held = new TextDecoder().decode(bytes.subarray(start, end));
      assert.ok(held.includes(spelled), spelled);
    }
  });

  it("leave out a block that holds a needle's last trigrams before one holding its first", () => {
    // Every trigram of "walrus" is in block 0 or block 1, but no occurrence can start in
    // either: block 0 holds the trigrams of its end ("lrus"), block 1 of its start ("walr").
    const block = 32;
    const bytes = encoder.encode(
      "lrus\n".padStart(block, "-") + "walr\n".padStart(block, "-") + "\n".padStart(block, "-"),
    );
    assert.equal(planFor(bytes, regexMatcher("walrus"), block).plan, "none");
    const crossing = encoder.encode("walr".padStart(block, "-") + "us\n".padEnd(block, "-"));
    const { plan } = planFor(crossing, regexMatcher("walrus"), block);
    assert.ok(plan !== undefined && plan !== "none", "one that crosses into the next block");
  });

  it("name the block an occurrence starts in, wherever it crosses the seam after it", () => {
    // Needles of a seam's bytes and one more (found there exactly), and of one byte more
    // (known only by their trigrams), at every offset around each seam.
    for (const length of [6, SEAM_BYTES + 1, SEAM_BYTES + 2]) {
      const needle = "needle".padEnd(length, "z");
      const block = 2 * length;
      for (const seam of [block, 2 * block]) {
        for (let at = seam - length - 2; at <= seam + 2; at++) {
          const bytes = encoder.encode(
            "-".repeat(at) + needle + "-".repeat(4 * block - at - length) + "\n",
          );
          const { plan } = planFor(bytes, regexMatcher(needle), block);
          assert.ok(plan !== undefined && plan !== "none", `${length} bytes at ${at}`);
          const covered = plan.ranges.some((start, i) =>
            i % 2 === 0 && start <= at && at + length <= plan.ranges[i + 1]
          );
          assert.ok(covered, `${length} bytes at ${at}: ${plan.ranges}`);
        }
      }
    }
  });

  it("leave out the block before one holding the needle, though it holds its first trigrams", () => {
    // Block 0 holds "nee", block 1 "needle": every trigram of an occurrence that starts in
    // block 0 and crosses into block 1 is in one of them, but the bytes around the seam
    // show there is none.
    const block = 64;
    const lines = ["nee----\n", ...Array(14).fill("-------\n"), "needle-\n"];
    const bytes = encoder.encode([...lines, ...Array(16).fill("-------\n")].join(""));
    const { plan } = planFor(bytes, regexMatcher("needle"), block);
    assert.ok(plan !== undefined && plan !== "none");
    assert.deepEqual(plan.ranges, [block, 2 * block + 8]);
  });

  it("read a file whole when a plan would read most of it, as one range, or cannot be made", () => {
    const bytes = encoder.encode("needle\n".repeat(100));
    const most = planFor(bytes, regexMatcher("needle"), 64, { most: 0.75 }).plan;
    assert.ok(most !== undefined && most !== "none");
    assert.deepEqual([most.ranges, most.linesBefore, most.linesAfter], [[0, 700], [0], [100]]);
    assert.equal(planFor(bytes, regexMatcher("ne"), 64).plan, undefined, "under three bytes");
    const long = regexMatcher("needle\n".repeat(10).trimEnd().replaceAll("\n", " "));
    assert.equal(planFor(bytes, long, 16).plan, undefined, "a needle longer than a block");
  });

  it("are not made for a file changed just before it was read (the racy rule)", () => {
    const bytes = encoder.encode("x\n".repeat(100));
    fs.writeFileSync(file, bytes);
    const stat = filesOf(dir).lstat(file);
    assert.equal(blockFilters(bytes, stat, false, stat.ctimeNs + 1_000_000n, 64), undefined);
    assert.notEqual(blockFilters(bytes, stat, false, stat.ctimeNs + LATER, 64), undefined);
  });

  it("are not trusted for a file changed since: it is read whole", async () => {
    const lines = Array.from({ length: 400 }, (_, i) => i === 300 ? "a needle here\n" : `${i}\n`);
    const matcher = regexMatcher("needle");
    const { plan, prefilter } = planFor(encoder.encode(lines.join("")), matcher, 64);
    assert.ok(plan !== undefined && plan !== "none");
    // The same size, another needle in a block the plan leaves out, and a new mtime.
    lines[10] = "needle\n";
    lines[300] = "a walrus here\n";
    fs.writeFileSync(file, lines.join(""));
    const { result } = await searched(matcher, plan, prefilter);
    assert.deepEqual(result.files.map((found) => found.rows.map((row) => row.line)), [[11]]);
  });
});
