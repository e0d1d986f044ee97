// Micro benchmarks of the pure core on a 10 MB text built before timing.
//   deno bench --allow-read bench/core_bench.ts
// Each group compares the core with the obvious alternative (the baseline), so the numbers
// say what the line rule, the whole-text fast path and the edit upkeep cost.
import {
  countLines,
  insertLines,
  literalMatcher,
  type Matcher,
  regexMatcher,
  replaceLines,
  replaceText,
  scanText,
  sliceLines,
  splitLines,
} from "../src/core/mod.ts";

/** About 10 MB of source-like text: LF lines of 0-120 characters, deterministic. */
function buildText(bytes: number): { text: string; lines: number } {
  const words = [
    "const",
    "return",
    "value",
    "if",
    "for",
    "let",
    "await",
    "function",
    "=",
    "{",
    "}",
    "(x)",
    "items.push(item);",
    "// comment",
    "import",
  ];
  let seed = 42;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const parts: string[] = [];
  let size = 0;
  let lines = 0;
  while (size < bytes) {
    const count = random(12);
    const line = "  ".repeat(random(4)) +
      Array.from({ length: count }, () => words[random(words.length)]).join(" ");
    parts.push(line);
    size += line.length + 1;
    lines++;
  }
  // A rare token: 10 lines spread over the text.
  for (let i = 1; i <= 10; i++) parts[Math.floor((lines * i) / 11)] += " NEEDLE_RARE";
  parts[Math.floor(lines / 3)] += " UNIQUE_MARK";
  return { text: parts.join("\n") + "\n", lines };
}

const { text, lines: LINES } = buildText(10 * 1024 * 1024);
const MB = text.length / (1024 * 1024);
console.error(`text: ${MB.toFixed(1)} MB, ${LINES} lines`);

/** The same matcher without its whole-text fast path: the scanner then checks every line. */
function perLine(matcher: Matcher): Matcher {
  return { matchLine: (line) => matcher.matchLine(line) };
}

function countMatches(matcher: Matcher): number {
  let count = 0;
  scanText(text, matcher, (row) => {
    if (row.match) count++;
  });
  return count;
}

function naiveScan(test: (line: string) => boolean): number {
  let count = 0;
  for (const line of text.split("\n")) {
    if (test(line.endsWith("\r") ? line.slice(0, -1) : line)) count++;
  }
  return count;
}

// --- split -------------------------------------------------------------------------------

Deno.bench("splitLines()", { group: "split", baseline: true }, () => {
  splitLines(text);
});

Deno.bench("countLines()", { group: "split" }, () => {
  countLines(text);
});

Deno.bench("String#split('\\n') (no terminators kept)", { group: "split" }, () => {
  text.split("\n");
});

// --- slice -------------------------------------------------------------------------------

Deno.bench("sliceLines() of the last 100 lines", { group: "slice", baseline: true }, () => {
  sliceLines(text, LINES - 99, LINES);
});

Deno.bench("sliceLines() of lines 1-100", { group: "slice" }, () => {
  sliceLines(text, 1, 100);
});

Deno.bench("splitLines().slice() of the last 100 lines", { group: "slice" }, () => {
  splitLines(text).slice(LINES - 100);
});

// --- scan: literal -----------------------------------------------------------------------

const rareLiteral = literalMatcher("NEEDLE_RARE");
const commonLiteral = literalMatcher("return");

Deno.bench("scanText() literal, rare, findCandidate", {
  group: "scan literal rare",
  baseline: true,
}, () => {
  countMatches(rareLiteral);
});

Deno.bench("scanText() literal, rare, per-line walk", { group: "scan literal rare" }, () => {
  countMatches(perLine(rareLiteral));
});

Deno.bench("split + includes, rare", { group: "scan literal rare" }, () => {
  naiveScan((line) => line.includes("NEEDLE_RARE"));
});

Deno.bench("scanText() literal, common, findCandidate", {
  group: "scan literal common",
  baseline: true,
}, () => {
  countMatches(commonLiteral);
});

Deno.bench("scanText() literal, common, per-line walk", { group: "scan literal common" }, () => {
  countMatches(perLine(commonLiteral));
});

Deno.bench("split + includes, common", { group: "scan literal common" }, () => {
  naiveScan((line) => line.includes("return"));
});

// --- scan: regex -------------------------------------------------------------------------

const rareRegex = regexMatcher("NEEDLE_\\w+$");
const commonRegex = regexMatcher("^\\s*return\\b");
const rareRe = /NEEDLE_\w+$/us;
const commonRe = /^\s*return\b/us;

Deno.bench(
  "scanText() regex, rare, findCandidate",
  { group: "scan regex rare", baseline: true },
  () => {
    countMatches(rareRegex);
  },
);

Deno.bench("scanText() regex, rare, per-line walk", { group: "scan regex rare" }, () => {
  countMatches(perLine(rareRegex));
});

Deno.bench("split + RegExp#test, rare", { group: "scan regex rare" }, () => {
  naiveScan((line) => rareRe.test(line));
});

Deno.bench("scanText() regex, common, findCandidate", {
  group: "scan regex common",
  baseline: true,
}, () => {
  countMatches(commonRegex);
});

Deno.bench("scanText() regex, common, per-line walk", { group: "scan regex common" }, () => {
  countMatches(perLine(commonRegex));
});

Deno.bench("split + RegExp#test, common", { group: "scan regex common" }, () => {
  naiveScan((line) => commonRe.test(line));
});

Deno.bench(
  "scanText() regex with lookbehind (no fast path), rare",
  { group: "scan regex rare" },
  () => {
    countMatches(regexMatcher("(?<= )NEEDLE_RARE"));
  },
);

// --- edits -------------------------------------------------------------------------------

const middle = Math.floor(LINES / 2);
// Two neighbouring lines, the first with a token found nowhere else.
const uniqueAt = text.indexOf("UNIQUE_MARK");
const uniqueEnd = text.indexOf("\n", text.indexOf("\n", uniqueAt) + 1) + 1;
const uniquePiece = text.slice(text.lastIndexOf("\n", uniqueAt) + 1, uniqueEnd);

Deno.bench("replaceLines() one line in the middle", { group: "edit", baseline: true }, () => {
  replaceLines(text, [{ start_line: middle, new_text: "replaced\n" }]);
});

Deno.bench("replaceLines() 100 ranges spread over the text", { group: "edit" }, () => {
  const step = Math.floor(LINES / 100);
  replaceLines(
    text,
    Array.from({ length: 100 }, (_, i) => ({ start_line: 1 + i * step, new_text: "x" })),
  );
});

const expected = sliceLines(text, middle, middle).lines[0];
Deno.bench("replaceLines() with expected_text", { group: "edit" }, () => {
  replaceLines(text, [{ start_line: middle, new_text: "replaced", expected_text: expected }]);
});

Deno.bench("insertLines() in the middle", { group: "edit" }, () => {
  insertLines(text, middle, "inserted");
});

Deno.bench("replaceText() of a rare piece, replaceAll (10 occurrences)", { group: "edit" }, () => {
  replaceText(text, "NEEDLE_RARE", "found", { replaceAll: true });
});

Deno.bench("replaceText() of a unique multi-line piece", { group: "edit" }, () => {
  replaceText(text, uniquePiece, "found\nagain");
});

// What any edit costs at least: build the new text and read it once (V8 otherwise keeps
// a concatenation as a rope and defers the copy).
const cut = Math.floor(text.length / 2);
Deno.bench("splice by offset + one read (lower bound)", { group: "edit" }, () => {
  const out = text.slice(0, cut) + "replaced\n" + text.slice(cut);
  out.indexOf("\u0000");
});
