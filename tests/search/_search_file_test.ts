import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, it } from "node:test";
import fc from "fast-check";
import { literalMatcher, type Matcher, regexMatcher } from "../../src/core/mod.ts";
import { FileReader } from "../../src/io/_file_reader.ts";
import { identityText } from "../../src/io/file_identity.ts";
import {
  examineBytes,
  examineFile,
  indexFile,
  type KeptText,
  lineStartNeedle,
  LOOK_THROUGH_BYTES,
  lookThrough,
  type Prefilter,
  prefilterOf as prefilterFor,
  scannedChunks,
  sharedRun,
} from "../../src/search/_search_file.ts";
import { CASELESS_FROM_BYTES } from "../../src/search/_caseless_scan.ts";
import { SearchCollector } from "../../src/store/_search_collector.ts";
import type { SearchResult } from "../../src/store/file_store.ts";
import { MemoryStore } from "../../src/store/memory_store.ts";
import { filesOf } from "../_helpers/files.ts";
import { needlePiece } from "../_helpers/arbitraries.ts";

const encoder = new TextEncoder();

/** The bytes a search looks for with a matcher, as the search works them out. */
function prefilterOf(matcher: Matcher): Prefilter {
  const { requiredLiteral, alternativeLiterals, foldedLiterals, requiredLiterals } = matcher;
  const lineStart = lineStartNeedle(matcher.lineStart);
  const prefilter = prefilterFor(
    requiredLiteral,
    alternativeLiterals,
    foldedLiterals,
    requiredLiterals,
  );
  return lineStart === undefined ? prefilter : { ...prefilter, lineStart };
}

/** The file system of `dir`, counting the bytes its reads return. */
function countingReads(dir: string) {
  const counted = { files: filesOf(dir), bytes: 0 };
  const read = counted.files.read.bind(counted.files);
  counted.files.read = (...args) => {
    const got = read(...args);
    counted.bytes += got;
    return got;
  };
  return counted;
}

/**
 * What a search of one file shows when it goes through examineBytes, taking at most
 * `perFile` matching lines of it (the lines decoded end there when a line holding a needle
 * matches, as the directory search asks).
 */
async function examined(
  bytes: Uint8Array,
  matcher: Matcher,
  context: number,
  maxMatches: number,
  perFile?: number,
  countOnly = false,
  join = false,
) {
  const query = { matcher, context, maxMatches, maxMatchesPerFile: perFile, countOnly };
  const collector = new SearchCollector(query);
  const prefilter = prefilterOf(matcher);
  const exactly = prefilter.needle !== undefined
    ? matcher.exactLiteral === matcher.requiredLiteral
    : prefilter.anyOf !== undefined && prefilter.folded === undefined &&
      matcher.exactAlternatives !== undefined;
  const linesAtMost = exactly ? perFile : undefined;
  const countLines = exactly && countOnly;
  // (Runs joined where the bytes are read, as a search without context asks: see joinRuns.)
  const joinRuns = join && context === 0 && matcher.stoppable === undefined;
  const outcome = examineBytes(bytes, { ...prefilter, linesAtMost, countLines, joinRuns }, context);
  if (outcome.kind === "counted") collector.countedFile("f", outcome.lines, outcome.invalid);
  else if (outcome.kind === "text") {
    const { text, invalid, linesBefore } = outcome;
    await collector.scanFile("f", scannedChunks(text), () => invalid, linesBefore);
  } else if (outcome.kind === "none") collector.searchedWithoutMatch("f");
  else if (outcome.kind === "binary") collector.binary();
  return collector.result();
}

/** Runs `work` in a new temporary directory, removed after. */
function inTempDir(work: (dir: string) => void): void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "linewise-examine-"));
  try {
    work(dir);
  } finally {
    fs.rmSync(dir, { recursive: true });
  }
}

/** The lines an examination kept, without the counts of those it left out. */
function kept(text: KeptText): string {
  if (typeof text === "string") return text;
  if (!Array.isArray(text)) return text.joined;
  return text.filter((part) => typeof part === "string").join("");
}

describe("examineBytes()", () => {
  it("joins runs of more than the kept scratch, and the next file's in the scratch", async () => {
    // (80,000 matching lines of 210 bytes, each after a line of 100 that does not match: 16.8
    // MB of runs, past the 16 MiB scratch kept from one file to the next.)
    const matching = (i: number) => `needle ${String(i).padStart(202, "0")}\n`;
    const other = "x".repeat(99) + "\n";
    const count = 80_000;
    const parts: string[] = [];
    for (let i = 0; i < count; i++) parts.push(other, matching(i));
    const matcher = regexMatcher("needle \\d");
    const examination = { ...prefilterOf(matcher), joinRuns: true };
    for (const text of [parts.join(""), other + matching(1) + other + matching(2)]) {
      const outcome = examineBytes(encoder.encode(text), examination, 0);
      assert.ok(outcome.kind === "text" && !Array.isArray(outcome.text), "runs joined");
      const { joined, starts, lines } = outcome.text as Extract<KeptText, { joined: string }>;
      const runs = lines.length;
      assert.equal(joined.length, 1 + runs * matching(0).length);
      assert.deepEqual([starts[runs - 1], lines[runs - 1]], [1 + runs, 2 * runs]);
      const got = await examined(
        encoder.encode(text),
        matcher,
        0,
        Infinity,
        undefined,
        false,
        true,
      );
      const rows = got.files[0].rows;
      assert.equal(rows.length, runs);
      assert.deepEqual(rows.at(-1), {
        line: 2 * runs,
        text: text.slice(text.lastIndexOf("needle")),
        match: { start: 0, end: 8 },
      });
    }
  });

  it("joins a file's kept runs where asked as the scan would join them, a U+FEFF kept apart", async () => {
    // (Runs apart, the second line's U+FEFF is no BOM: the joined text starts with an empty
    // line, as the scan's own join starts it.)
    const filler = "x".repeat(100) + "\n";
    const text = `x\n\uFEFFneedle 1\n${filler}${filler}needle 2\n${filler}\uFEFFneedle 3`;
    const bytes = encoder.encode(text);
    const kept = {
      "^\uFEFFneedle": ["\n\uFEFFneedle 1\n\uFEFFneedle 3", [2, 3], [2, 7]],
      "needle \\d": ["\n\uFEFFneedle 1\nneedle 2\n\uFEFFneedle 3", [2, 3, 4], [2, 5, 7]],
    };
    for (const [pattern, [joined, starts, lines]] of Object.entries(kept)) {
      const matcher = regexMatcher(pattern);
      const outcome = examineBytes(bytes, { ...prefilterOf(matcher), joinRuns: true }, 0);
      assert.ok(outcome.kind === "text" && !Array.isArray(outcome.text), "runs joined");
      assert.deepEqual(outcome.text, { joined, starts, lines });
      const want = await new MemoryStore({ f: bytes }).search({ matcher, maxMatches: 10 });
      const got = await examined(bytes, matcher, 0, 10, undefined, false, true);
      assert.deepEqual([got.files, got.matchedLines], [want.files, lines.length]);
    }
  });

  it("lets a search show what the in-memory store shows, whatever the lines", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(needlePiece, { maxLength: 40 }),
        fc.constantFrom(
          "needle",
          "needle \\d",
          "^needle",
          "needle$",
          "ne+dle",
          "needle|x", // alternatives: any of their literals
          "^need|le\\d",
          "dle$|é",
          "needles", // ignoring case: needleſ matches too
          "kNeed",
          "need|dle 7", // ignoring case: each alternative confirmed by its own literal
          "(needle|x)", // a group around the whole pattern
          "(?:needle|lex)x?", // a group of alternatives every match goes through
          "(ne)e(dle)", // groups without alternatives
          "nee\\w*dle", // two literals: a file without the other is not searched
          "(need|x)les", // ignoring case: a stretch of each joined alternative
          "^needle \\d", // a file none of whose lines starts with "needle " is passed over
          "^ne+dle",
          "^\uFEFFneedle", // a U+FEFF starting a line, not the file's BOM
          "^\\d|^needle", // (alternatives: no line start)
          "[nN]eedle \\d", // alternatives that share a run (`eedle `): files without it pass
        ),
        fc.integer({ min: 0, max: 3 }),
        fc.constantFrom(1, 2, 5, 200),
        fc.constantFrom(undefined, 1, 2, 3),
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        // (Lines before them, so that a file ignoring case is long enough to be scanned for
        // its caseless parts: see _caseless_scan.ts.)
        fc.constantFrom("", "x\n".repeat(300)),
        fc.boolean(),
        async (
          parts,
          pattern,
          context,
          maxMatches,
          perFile,
          countOnly,
          bad,
          ignoreCase,
          before,
          join,
        ) => {
          const text = before + parts.join("");
          const bytes = bad
            ? new Uint8Array([...encoder.encode(text), 0xff, 10, ...encoder.encode(text)])
            : encoder.encode(text);
          const matcher = regexMatcher(pattern, { ignoreCase });
          const memory = new MemoryStore({ f: bytes });
          const maxMatchesPerFile = perFile;
          const want = await memory.search({ matcher, context, maxMatches, maxMatchesPerFile });
          const got = await examined(bytes, matcher, context, maxMatches, perFile, countOnly, join);
          // (Counting only: each file's count of matching lines, and no rows. A match in the
          // context after a file's last one taken is shown, not counted.)
          const counts = (result: SearchResult) =>
            result.files.map((file) => ({
              path: file.path,
              rows: [],
              invalidUtf8: file.invalidUtf8,
              matchedLines: Math.min(
                file.rows.filter((row) => row.match !== undefined).length,
                perFile ?? Infinity,
              ),
            }));
          assert.deepEqual(got.files, countOnly ? counts(want) : want.files);
          assert.equal(got.matchedLines, want.matchedLines);
          assert.equal(got.stopped, want.stopped);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("passes over a file that holds the needle but not another literal every match holds", () => {
    const prefilter = prefilterOf(regexMatcher("function \\w+Sync\\("));
    assert.equal(new TextDecoder().decode(prefilter.needle), "Sync(");
    assert.equal(examineBytes(encoder.encode("readSync(a)\n"), prefilter, 0).kind, "none");
    assert.equal(examineBytes(encoder.encode("function aSync(\n"), prefilter, 0).kind, "text");
  });

  it("passes over a file none of whose lines starts as every match does", () => {
    const prefilter = prefilterOf(regexMatcher("^from \\w+ import"));
    assert.equal(new TextDecoder().decode(prefilter.lineStart), "\nfrom ");
    const kind = (text: string) => examineBytes(encoder.encode(text), prefilter, 0).kind;
    assert.equal(kind("import a from b\nx from y import z\n"), "none");
    assert.equal(kind("x\nfrom y import z\n"), "text");
    assert.equal(kind("from y import z\n"), "text", "the first line");
    // (The line start and nothing else: Deno's Buffer.compare threw on that.)
    const alone = examineBytes(encoder.encode("needle"), prefilterOf(regexMatcher("^needle")), 0);
    assert.equal(alone.kind, "text", "a file that is the line start alone");
    assert.equal(kind("\uFEFFfrom y import z\n"), "text", "the first line, after a BOM");
    assert.equal(kind("\uFEFF\uFEFFfrom y import z\n"), "none", "a U+FEFF after the BOM");
    // (A file ruled out that holds the needle is no file without it: see holdsNeedle.)
    const none = examineBytes(encoder.encode("import a from b\n"), prefilter, 0);
    assert.deepEqual(none, { kind: "none", holdsNeedle: true });
  });

  it("decodes a short line between two holding the needle with them, and empties a long one", () => {
    const needle = encoder.encode("_");
    const textOf = (text: string) => {
      const outcome = examineBytes(encoder.encode(text), { needle }, 0);
      return outcome.kind === "text" ? outcome.text : outcome.kind;
    };
    // (One piece costs less than three: each is decoded and scanned apart.)
    assert.deepEqual(textOf("a_1\n}\n\nb_2\n"), "a_1\n}\n\nb_2\n");
    assert.deepEqual(textOf(`a_1\n${"x".repeat(70)}\nb_2\n`), ["a_1\n", 1, "b_2\n"]);
  });

  it("decodes the lines up to the last a search takes of a file, with their context", () => {
    const text = "a\nfoo 1\nb\nfoo 2\nfoo 3\nc\nd\nfoo 4\n".repeat(1_000);
    const decoded = (prefilter: Prefilter & { linesAtMost?: number }, context: number) => {
      const outcome = examineBytes(encoder.encode(text), prefilter, context);
      assert.equal(outcome.kind, "text");
      return outcome.kind === "text" ? kept(outcome.text) : "";
    };
    const needle = encoder.encode("foo");
    assert.equal(decoded({ needle, linesAtMost: 1 }, 0), "foo 1\n");
    assert.equal(decoded({ needle, linesAtMost: 2 }, 0), "foo 1\nb\nfoo 2\n");
    assert.equal(decoded({ needle, linesAtMost: 3 }, 2), "a\nfoo 1\nb\nfoo 2\nfoo 3\nc\nd\n");
    // (Alternatives: a line holding either counts once.)
    const anyOf = [encoder.encode("2"), encoder.encode("foo")];
    assert.equal(decoded({ anyOf, linesAtMost: 2 }, 0), "foo 1\nb\nfoo 2\n");
    // Without it, every line holding the needle is decoded.
    assert.equal(decoded({ needle }, 0).split("foo").length - 1, 4_000);
  });

  it("ignoring case, confirms each alternative's spelling by its own literal", () => {
    const matcher = regexMatcher("need|dle 7", { ignoreCase: true });
    for (const line of ["a NeEd", "a dLE 7"]) {
      const outcome = examineBytes(encoder.encode(`x\n${line}\ny\n`), prefilterOf(matcher), 0);
      assert.equal(outcome.kind === "text" && kept(outcome.text).includes(line), true, line);
    }
    const none = examineBytes(encoder.encode("x\nnee\ne 7\n"), prefilterOf(matcher), 0);
    assert.equal(none.kind, "none", "spellings without their literals");
  });

  it("ignoring case, keeps a line whose k or s stands as a Kelvin sign or a long s", () => {
    const cases = [
      ["needles", "a NEEDLEſ here"],
      ["kneed", "\u212ANEED"],
      // (Looked for by "1b2": the Kelvin sign lies a character before it, and after three
      // more, so that its bytes put what lies before them out of line with the literal.)
      ["ka1b2c3", "x \u212AA1B2C3"],
      ["wxyka1b2c3", "WXY\u212AA1B2C3"],
      ["a1b2c3s", "ſ A1B2C3ſ"],
    ];
    for (const [pattern, line] of cases) {
      const matcher = regexMatcher(pattern, { ignoreCase: true });
      assert.ok(matcher.matchLine(line), `${pattern} matches ${line}`);
      const bytes = encoder.encode(`x\n${line}\ny\n`);
      const outcome = examineBytes(bytes, prefilterOf(matcher), 0);
      assert.equal(outcome.kind === "text" && kept(outcome.text).includes(line), true, pattern);
      const plain = encoder.encode(`x\n${line.replace(/[ſ\u212A]/g, "z")}\ny\n`);
      assert.equal(examineBytes(plain, prefilterOf(matcher), 0).kind, "none", "without them");
    }
  });

  it("passes over a file without the run every alternative shares, after one look", () => {
    const prefilter = prefilterOf(regexMatcher("\\bk[mz]alloc\\("));
    assert.equal(new TextDecoder().decode(prefilter.shared), "alloc(");
    assert.equal(examineBytes(encoder.encode("x = vmalloc(4);\n"), prefilter, 0).kind, "none");
    assert.equal(examineBytes(encoder.encode("kzalloc (4);\n"), prefilter, 0).kind, "none");
    const found = examineBytes(encoder.encode("a\nx = kzalloc(4);\n"), prefilter, 0);
    assert.equal(found.kind, "text");
    assert.equal(found.kind === "text" && kept(found.text), "x = kzalloc(4);\n");
    // (The run in every line: each alternative is looked for instead.)
    const dense = "vmalloc(1);\n".repeat(40) + "x = kzalloc(4);\n";
    const looked = examineBytes(encoder.encode(dense), prefilter, 0);
    assert.equal(looked.kind === "text" && kept(looked.text), "x = kzalloc(4);\n");
  });

  it("skips a file without the literal and a binary one", () => {
    const needle = encoder.encode("needle");
    assert.equal(examineBytes(encoder.encode("a\nb\n"), { needle }, 0).kind, "none");
    assert.equal(examineBytes(new Uint8Array([110, 0, 1]), { needle }, 0).kind, "binary");
    assert.equal(literalMatcher("needle").requiredLiteral, "needle");
  });
});

describe("sharedRun()", () => {
  const run = (...needles: string[]) => {
    const found = sharedRun(needles.map((needle) => encoder.encode(needle)));
    return found && new TextDecoder().decode(found);
  };

  it("finds the longest run of three bytes or more that every needle holds", () => {
    assert.equal(run("kmalloc(", "kzalloc("), "alloc(");
    assert.equal(run("Spin_lock(", "spin_lock("), "pin_lock(");
    assert.equal(run("abcXdef", "defYabc", "zzabczz"), "abc");
    assert.equal(run("needle", "needles"), "needle");
  });

  it("finds none for one needle, runs shorter than three bytes, or needles too long", () => {
    assert.equal(run("needle"), undefined);
    assert.equal(run("TODO", "FIXME"), undefined);
    assert.equal(run("u8", "u16", "u32"), undefined);
    assert.equal(run("abcd", "zabcdz", "qqqqq"), undefined, "held by some needles, not all");
    assert.equal(run("x".repeat(300) + "abc", "abc"), "abc");
    assert.equal(run("x".repeat(300) + "abc", "y".repeat(300) + "abc"), undefined);
  });

  it("finds a run as long as the longest every needle holds, and every needle holds it", () => {
    const holds = (needle: Uint8Array, run: Uint8Array) => Buffer.from(needle).indexOf(run) !== -1;
    fc.assert(
      fc.property(
        // (Two letters: long shared runs are common.)
        fc.array(fc.uint8Array({ min: 97, max: 98, maxLength: 16 }), {
          minLength: 2,
          maxLength: 4,
        }),
        (needles) => {
          let longest = 0;
          const first = needles[0];
          for (let from = 0; from < first.length; from++) {
            for (let to = from + 1; to <= first.length; to++) {
              const run = first.subarray(from, to);
              if (needles.every((needle) => holds(needle, run))) {
                longest = Math.max(longest, run.length);
              }
            }
          }
          const found = sharedRun(needles);
          assert.equal(found?.length ?? 0, longest >= 3 ? longest : 0);
          for (const needle of needles) if (found) assert.ok(holds(needle, found));
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe("context lines", () => {
  it("are walked once each, however many occurrences lie near them", () => {
    // (Every line holds the needle: each occurrence's context overlaps the run kept already.)
    const lines = 2000;
    const context = 500;
    const bytes = new TextEncoder().encode("x needle\n".repeat(lines));
    const walks = { lastIndexOf: 0, indexOf: 0 };
    const originals = {
      lastIndexOf: Buffer.prototype.lastIndexOf,
      indexOf: Buffer.prototype.indexOf,
    };
    for (const name of ["lastIndexOf", "indexOf"] as const) {
      Buffer.prototype[name] = function (this: Buffer, ...args: unknown[]) {
        walks[name]++;
        return (originals[name] as (...a: unknown[]) => number).apply(this, args);
      } as typeof Buffer.prototype.indexOf;
    }
    let outcome;
    try {
      outcome = examineBytes(bytes, { needle: new TextEncoder().encode("needle") }, context);
    } finally {
      Object.assign(Buffer.prototype, originals);
    }
    assert.equal(outcome.kind, "text");
    // (Once per occurrence and once per line walked: lines x context walks before.)
    assert.ok(walks.lastIndexOf + walks.indexOf < 10 * (lines + context), JSON.stringify(walks));
  });
});

describe("examineFile()", () => {
  it("gives the digest of the bytes it read only with an identity that vouches for them", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "linewise-examine-"));
    try {
      const file = path.join(fs.realpathSync(dir), "a");
      fs.writeFileSync(file, "a needle\n");
      // (An identity needs a ctime a second old: see identityText.)
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const files = filesOf(dir);
      const examination = {
        needle: encoder.encode("needle"),
        context: 0,
        links: false,
        digests: { files: 0, maxBytes: 1 << 20, more: 10 },
      };
      const given = new Int32Array(3);
      const examine = () =>
        examineFile(new FileReader(files, 1024), file, examination, undefined, 5, given);
      const text = { kind: "text", text: "a needle\n", invalid: false, linesBefore: 0 };
      const stat = files.lstat(file);
      assert.deepEqual(examine(), {
        ...text,
        sha1: createHash("sha1").update("a needle\n").digest("hex"),
        identity: identityText(stat),
      });
      assert.equal(given[2], 1);
      // A write after the read, and a stat of the open file more than a second later (a stall,
      // a slow machine): the identity is of the new bytes, so the old bytes get no digest.
      const fstat = files.fstat.bind(files);
      files.fstat = (fd) => {
        fs.writeFileSync(file, "a NEEDLE\n");
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1100);
        return fstat(fd);
      };
      assert.deepEqual(examine(), text);
      assert.equal(given[2], 1, "a digest refused is not counted");
    } finally {
      fs.rmSync(dir, { recursive: true });
    }
  });

  it("tells a file with other names only when asked to (it costs a stat)", () => {
    inTempDir((dir) => {
      fs.writeFileSync(path.join(dir, "a"), "a needle\n");
      fs.writeFileSync(path.join(dir, "plain"), "a needle\n");
      fs.writeFileSync(path.join(dir, "none"), "nothing\n");
      fs.linkSync(path.join(dir, "a"), path.join(dir, "b"));
      fs.linkSync(path.join(dir, "none"), path.join(dir, "none2"));
      const reader = new FileReader(filesOf(dir), 1024, 16);
      const examine = (name: string, links: boolean) =>
        examineFile(reader, path.join(dir, name), {
          needle: encoder.encode("needle"),
          context: 0,
          links,
        });
      const text = { kind: "text", text: "a needle\n", invalid: false, linesBefore: 0 };
      const linkedStat = (name: string) =>
        filesOf(dir).lstat(fs.realpathSync(path.join(dir, name)));
      assert.deepEqual(examine("a", true), { ...text, linked: linkedStat("a") });
      assert.deepEqual(examine("a", false), text);
      assert.deepEqual(examine("plain", true), text);
      assert.deepEqual(examine("none", true), { kind: "none", linked: linkedStat("none") });
      assert.deepEqual(examine("none", false), { kind: "none" });
      assert.deepEqual(examine(".", false), { kind: "redo" }, "a directory is left to the caller");
      assert.deepEqual(examine("missing", false), { kind: "redo" });
    });
  });
  it("gives the first files with lines to scan their digest and identity, when asked", async () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "linewise-examine-")));
    try {
      const write = (name: string, content: string | Uint8Array) =>
        fs.writeFileSync(path.join(dir, name), content);
      write("a", "a needle\n");
      write("short", "a needle\nxx\n");
      write("big", "x\n".repeat(20) + "a needle\n");
      write("none", "nothing\n");
      write("invalid", Uint8Array.of(0xff, 0x20, ...encoder.encode("needle\n")));
      fs.linkSync(path.join(dir, "a"), path.join(dir, "b"));
      // (A file changed within the last second has no identity yet: "recent" is one.)
      await new Promise((resolve) => setTimeout(resolve, 1100));
      write("recent", "a needle\n");
      const reader = new FileReader(filesOf(dir), 1024, 16);
      const examine = (name: string, at: number, links = false) =>
        examineFile(
          reader,
          path.join(dir, name),
          {
            needle: encoder.encode("needle"),
            context: 0,
            links,
            digests: { files: 2, maxBytes: 32 },
          },
          undefined,
          at,
        );
      const stat = (name: string) => filesOf(dir).lstat(path.join(dir, name));
      const version = (name: string) => ({
        sha1: createHash("sha1").update(fs.readFileSync(path.join(dir, name))).digest("hex"),
        identity: identityText(stat(name)),
      });
      const text = { kind: "text", text: "a needle\n", invalid: false, linesBefore: 0 };
      assert.notEqual(version("a").identity, undefined);
      assert.deepEqual(examine("a", 0), { ...text, ...version("a") });
      assert.deepEqual(examine("a", 1, true), { ...text, ...version("a"), linked: stat("a") });
      assert.deepEqual(examine("a", 2), text, "past the first files: none");
      assert.deepEqual(examine("a", 2, true), { ...text, linked: stat("a") });
      assert.equal(examine("big", 0).kind, "text");
      assert.equal("sha1" in examine("big", 0), false, "larger than maxBytes: none");
      assert.deepEqual(examine("none", 0), { kind: "none" });
      const invalid = examine("invalid", 0);
      assert.deepEqual([invalid.kind, "sha1" in invalid], ["text", false], "invalid UTF-8");
      assert.deepEqual(examine("recent", 0), text, "changed just now: no identity, no digest");
      // A file cut short while it was read (its last 2 bytes gone after the stat): no digest.
      const files = filesOf(dir);
      const read = files.read.bind(files);
      const size = fs.statSync(path.join(dir, "short")).size;
      files.read = (fd, buffer, offset, length, position) =>
        Math.max(0, Math.min(read(fd, buffer, offset, length, position), size - 2 - position));
      const cut = examineFile(
        new FileReader(files, 1024, 16),
        path.join(dir, "short"),
        {
          needle: encoder.encode("needle"),
          context: 0,
          links: false,
          digests: { files: 2, maxBytes: 32 },
        },
        undefined,
        0,
      );
      assert.deepEqual([cut.kind, "sha1" in cut], ["text", false], "read short of its size");
      assert.equal("sha1" in examine("short", 0), true, "read whole: a digest");
    } finally {
      fs.rmSync(dir, { recursive: true });
    }
  });
  it("grows its reader's buffer, when telling other names, only for a file with the literal", () => {
    inTempDir((dir) => {
      const without = path.join(dir, "without");
      const holding = path.join(dir, "holding");
      const probe = path.join(dir, "probe"); // (it fills a buffer of 16 bytes or 32)
      fs.writeFileSync(without, "x\n".repeat(30));
      fs.writeFileSync(probe, "x\n".repeat(16));
      const held = encoder.encode("x\n".repeat(50) + "a needle\n");
      fs.writeFileSync(holding, held);
      fs.linkSync(holding, path.join(dir, "other"));
      const reader = new FileReader(filesOf(dir), 1024, 16);
      const examination = { needle: encoder.encode("needle"), context: 0, links: true };
      assert.deepEqual(examineFile(reader, without, examination), { kind: "none" });
      // (The buffer did not grow: a file of twice its size still fills it.)
      assert.equal(reader.readUnstated(probe), undefined);
      const linked = filesOf(dir).lstat(fs.realpathSync(holding));
      assert.deepEqual(examineFile(reader, holding, examination), {
        ...examineBytes(held, examination, 0),
        linked,
      });
      assert.notEqual(reader.readUnstated(probe), undefined, "grown to the file read whole");
    });
  });
  it("leaves a large file gone between its stat and its look to the caller, to read again", () => {
    inTempDir((dir) => {
      const file = path.join(dir, "big");
      fs.writeFileSync(file, "x\n".repeat(100) + "a needle\n");
      const reader = new FileReader(filesOf(dir), 64, 16); // (whole up to 64 bytes)
      const read = reader.read.bind(reader);
      // (Renamed away by another process right after its stat: the look opens it again.)
      reader.read = (...args) => {
        const outcome = read(...args);
        fs.renameSync(file, `${file}.moved`);
        return outcome;
      };
      const examination = { needle: encoder.encode("needle"), context: 0, links: true };
      assert.deepEqual(examineFile(reader, file, examination), { kind: "redo" });
    });
  });

  it("looks through a file larger than its reader reads whole, until the search must stop", () => {
    inTempDir((dir) => {
      const file = path.join(dir, "big");
      fs.writeFileSync(file, "x\n".repeat(100) + "a needle\n");
      const reader = new FileReader(filesOf(dir), 64, 16); // (whole up to 64 bytes)
      const size = fs.statSync(file).size;
      const look = (needle: string, until: { deadline?: number; signal?: AbortSignal }) =>
        lookThrough(reader, file, { needle: encoder.encode(needle) }, until, size);
      assert.equal(look("needle", {}), "found");
      assert.equal(look("absent", {}), "absent");
      assert.equal(look("absent", { deadline: Date.now() + 60_000 }), "absent");
      // Stopped: the stream that takes over says the search stopped there.
      assert.equal(look("absent", { deadline: Date.now() - 1 }), "found");
      assert.equal(look("absent", { signal: AbortSignal.abort() }), "found");
      assert.equal(lookThrough(reader, file, {}, {}, size), "found", "no needles: streamed");
      const over = LOOK_THROUGH_BYTES + 1;
      const needle = encoder.encode("absent");
      assert.equal(lookThrough(reader, file, { needle }, {}, over), "found", "too large to look");
      fs.writeFileSync(file, "\0" + "x\n".repeat(100));
      assert.equal(look("absent", {}), "binary");
    });
  });
  it("tells a large binary file from its head, and reads no more of it", () => {
    inTempDir((dir) => {
      // (A 24 MB executable in node_modules was read 4 MiB at a time, by every search.)
      const file = path.join(dir, "tsc");
      fs.writeFileSync(file, "\x7fELF\0" + "needle".repeat(400_000));
      const counted = countingReads(dir);
      const reader = new FileReader(counted.files, 4 << 20, 1 << 20); // (chunks of 1 MiB)
      const needle = encoder.encode("needle");
      const size = fs.statSync(file).size;
      assert.equal(lookThrough(reader, file, { needle }, {}, size), "binary");
      assert.equal(counted.bytes, 8192, "the bytes that tell a binary file");
    });
  });
  it("indexes a file too large to read whole as binary from its head alone", () => {
    inTempDir((dir) => {
      const file = path.join(dir, "tsc");
      const counted = countingReads(dir);
      const reader = new FileReader(counted.files, 64 << 10); // (whole up to 64 KiB)
      const learn = (text: string) => {
        fs.writeFileSync(file, text);
        counted.bytes = 0;
        return indexFile(reader, file);
      };
      assert.equal(learn("\x7fELF\0" + "needle".repeat(100_000)).binary, true);
      assert.equal(counted.bytes, 8192, "the bytes that tell a binary file");
      const text = learn("needle".repeat(100_000) + "\0");
      assert.deepEqual(text, { key: file }, "a NUL after its head: neither binary nor filtered");
      assert.equal(learn("\0needle").binary, true, "a small file, read whole");
    });
  });
  it("looks through a large file ignoring case for its literal, not a spelling of part of it", () => {
    // (Chunks of 256 bytes are looked through with indexOf, of 2,048 with the caseless scan.)
    for (const chunk of [256, 4 * CASELESS_FROM_BYTES]) {
      inTempDir((dir) => {
        const file = path.join(dir, "big");
        const reader = new FileReader(filesOf(dir), 1 << 20, chunk);
        const prefilter = prefilterOf(regexMatcher("maskable", { ignoreCase: true }));
        assert.ok(prefilter.folded !== undefined, "spellings, with the literal to confirm them");
        const look = (text: string) => {
          fs.writeFileSync(file, text);
          return lookThrough(reader, file, prefilter, {}, fs.statSync(file).size);
        };
        // The spellings (of part of "able") stand everywhere; the literal in no case.
        const filler = "a table, cable or fable\n".repeat(400);
        assert.equal(look(filler), "absent", `chunks of ${chunk}`);
        for (const spelled of ["MASKABLE", "mas\u212Aable", "maſkable"]) {
          assert.equal(look(filler + spelled + "\n" + filler), "found", spelled);
        }
        // Across the seam of two chunks, at every place.
        for (let at = chunk - 16; at < chunk + 4; at++) {
          assert.equal(look("x".repeat(at) + "MasKable" + filler), "found", `at ${at} of ${chunk}`);
        }
      });
    }
  });
  it("finds in a file larger than its reader's buffer what examineBytes finds in it whole", () => {
    // Chunks of 1 to 9 bytes put occurrences of the literal and NULs across every seam.
    inTempDir((dir) => {
      const file = path.join(dir, "f");
      const chunkPiece = fc.constantFrom(
        "needle",
        "nee",
        "dle",
        "x",
        "\n",
        "\0",
        "é",
        "NeeDLE",
        "DLe",
      );
      fc.assert(
        fc.property(
          fc.array(chunkPiece, { maxLength: 30 }),
          fc.integer({ min: 1, max: 9 }),
          // One required literal, or (comma-separated) alternatives one of which is needed, or
          // (-i) the spellings of part of a literal ignoring case, with the literal.
          fc.constantFrom("needle", "e", "le\nx", "needle,x", "dle,é,nee", "-i"),
          fc.integer({ min: 0, max: 2 }),
          fc.boolean(),
          (parts, chunk, literals, context, links) => {
            const bytes = encoder.encode(parts.join(""));
            fs.writeFileSync(file, bytes);
            const encoded = literals.split(",").map((one) => encoder.encode(one));
            const prefilter = literals === "-i"
              ? prefilterOf(regexMatcher("needle", { ignoreCase: true }))
              : encoded.length === 1
              ? { needle: encoded[0] }
              : { anyOf: encoded };
            const examination = { ...prefilter, context, links };
            const got = examineFile(
              new FileReader(filesOf(dir), 1 << 20, chunk),
              file,
              examination,
            );
            assert.deepEqual(got, examineBytes(bytes, prefilter, context));
          },
        ),
        { numRuns: 1000 },
      );
    });
  });
});
