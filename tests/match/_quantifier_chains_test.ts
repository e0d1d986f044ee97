import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { multipliedQuantifiers } from "../../src/match/_quantifier_chains.ts";
import { compilePattern } from "../../src/match/safe_matcher.ts";

describe("multipliedQuantifiers()", () => {
  const rows: Array<[string, boolean, number, string]> = [
    [
      "\\b(let|const|var)\\s+\\w+\\s*=\\s*require\\(",
      false,
      1,
      "each gives way to what the next cannot take",
    ],
    [
      "\\b(let|const|var)\\s+\\w+\\s*=\\s*require\\(",
      true,
      1,
      "ignoring case, \\s and \\w still differ",
    ],
    ["function\\s+(\\w+)\\s*\\(", false, 1, "a group of one alternative is read as what it holds"],
    ["[a-z]+_[a-z]+_[a-z]+\\(", false, 1, "a required character between them that neither takes"],
    ["\\w+\\s*\\w+;", false, 2, "an optional \\s* lets the second \\w+ start where the first ends"],
    [
      "export\\s+(default\\s+)?class\\s+\\w+",
      false,
      1,
      "an optional group is tried with and without",
    ],
    ["\\w+(\\s+x)?\\w+;", false, 2, "with it, its \\s+ may start where \\w+ ends"],
    ["\\w+(?:;|x)\\w+", false, 2, "a group in between that may be a letter"],
    ["\\w+(?:;|)\\w+", false, 2, "a group in between that may be empty"],
    ["a*a*a*b", false, 3, "a run of the same character"],
    [".*.*=", false, 2, "a dot takes anything"],
    ["\\bfoo\\b\\s+\\w+", false, 1, "\\b takes no character"],
    ["a*a*b|c+d", false, 2, "the worst alternative"],
    ["\\s+\\u00a0+", false, 2, "\\s takes U+00A0"],
    ["\\s+\\S+x", false, 1, "\\s and \\S share nothing"],
    ["[^a]+a+", false, 1, "a negated class shares nothing with what it leaves out"],
    ["[^a]+é+", false, 2, "a negated class takes what is beyond ASCII"],
    ["\\p{L}+\\p{N}+", false, 2, "properties are assumed to share what is beyond ASCII"],
    ["\\u0100+\\u0101+", false, 2, "\\u escapes are assumed to take anything beyond ASCII"],
    ["k+\u212a+", false, 1, "the Kelvin sign is not k"],
    ["k+\u212a+", true, 2, "ignoring case, the Kelvin sign is k"],
    ["\\w+\u017f+", true, 2, "ignoring case, \\w takes the long s"],
    ["a{2,}a{0,100}b", false, 2, "open and large bounds count"],
    ["a{0,16}a*b", false, 1, "a small bound does not"],
    ["(\\w+;)+", false, 2, "a repeated group is counted whole"],
    ["(a+|b)c+", false, 1, "each alternative of a group is tried in turn"],
    ["(a+|b)a+c", false, 2, "and costs as the worst"],
    [
      "(?:a|b)(?:c|d)(?:e|f)(?:g|h)(?:i|j)(?:k|l)(?:m|n)a+b+",
      false,
      2,
      "past 64 ways, all are counted",
    ],
    ["(\\w)\\1+x+", false, 2, "so is a backreference"],
    ["\\w+(?=\\s)\\s+", false, 2, "and a lookaround"],
    ["createElement\\(", false, 0, "a literal has none"],
    ["new Promise\\(\\s*", false, 0, "a run that ends the match gives back nothing"],
    ["Symbol\\.async\\w*x?", false, 0, "nor one with nothing required after it"],
    ["abc\\s+", false, 0, "nor a required run at the end"],
    ["\\w+\\s*", false, 0, "nor runs one after another at the end"],
    ["abc\\s*x", false, 0, "nor runs after a fixed start that no run holds"],
    ["\\bkmalloc_array\\s*\\(", false, 0, "an anchor or \\b first tells only where to start"],
    ["a\\w*x", false, 1, "a run that may hold another start counts"],
    ["x[ab]+[ab]+c", false, 2, "and runs after a fixed start that multiply one another"],
    ["\\s*x", false, 1, "and so does a run first"],
    ["abc\\s*$", false, 1, "an anchor after a run may fail"],
    ["abc\\s*\\b", false, 1, "or a word boundary"],
    ["[ab]+(?:cd)?", false, 1, "an optional group is read with it too"],
    ["^\\w+\\s*\\w+;", false, 1, "a pattern tried at a line's start alone counts one less"],
    ["^\\s*function\\s+\\w+", false, 0, "down to none"],
    ["^a|\\w+\\s*\\w+;", false, 2, "unless an alternative may start anywhere"],
  ];
  for (const [pattern, ignoreCase, expected, why] of rows) {
    test(`${JSON.stringify(pattern)}${ignoreCase ? " ignoring case" : ""} has ${expected}: ${why}`, () => {
      assert.equal(multipliedQuantifiers(pattern, ignoreCase), expected);
    });
  }

  test("counts every one of a pattern over 512 characters, which it does not read", () => {
    assert.equal(multipliedQuantifiers("a".repeat(507) + "a+=b+", false), 1);
    assert.equal(multipliedQuantifiers("a".repeat(508) + "a+=b+", false), 2);
  });

  test("bounds the steps a backtracking engine takes on a line that does not match", () => {
    // A backtracking engine is simulated on sequences of classes over four letters, each
    // repeated or not, and groups of them, then `x`: on a line of a repeated motif without
    // `x`, every start and every split is tried. Doubling the line must multiply the steps by
    // at most 2^(count + 1) (lower powers make it less), with room for lower powers.
    fc.assert(
      fc.property(drawn, ({ nodes, motif }) => {
        const pattern = nodes.map(sourceOf).join("") + "x";
        const count = multipliedQuantifiers(pattern, false);
        fc.pre(count <= 2);
        const length = count <= 1 ? 120 : 36;
        const line = (n: number) => motifLine(motif, n);
        const [short, long] = [steps(nodes, line(length)), steps(nodes, line(2 * length))];
        assert.ok(
          long <= short * 2 ** (count + 1) * 1.3,
          `${pattern} (${count}) on ${motif.join("")}: ${short} steps, then ${long}`,
        );
      }),
      { numRuns: 400 },
    );
  });

  test("bounds the steps of a pattern tried at a line's start alone", () => {
    // (As above, from the line's start only.)
    fc.assert(
      fc.property(drawn, ({ nodes, motif }) => {
        const pattern = "^" + nodes.map(sourceOf).join("") + "x";
        const count = multipliedQuantifiers(pattern, false);
        fc.pre(count <= 1);
        const length = count === 0 ? 120 : 48;
        const [short, long] = [length, 2 * length].map((n) => {
          const line = motifLine(motif, n);
          const { count: steps, matched } = search(nodes, line, (at) => line[at] === "x", true);
          assert.ok(!matched);
          return steps;
        });
        assert.ok(
          long <= short * 2 ** (count + 1) * 1.3 + 8,
          `${pattern} (${count}) on ${motif.join("")}: ${short} steps, then ${long}`,
        );
      }),
      { numRuns: 400 },
    );
  });

  test("a pattern counted without any costs an engine what a line's length does", () => {
    // (As above; a pattern with nothing required after a run matches at the first start
    // where what comes before the run does, on any line.)
    fc.assert(
      fc.property(drawn, ({ nodes, motif }) => {
        const pattern = nodes.map(sourceOf).join("");
        fc.pre(/[*+]|\{2,\}/.test(pattern) && multipliedQuantifiers(pattern, false) === 0);
        const [short, long] = [120, 240].map((n) => firstMatchSteps(nodes, motifLine(motif, n)));
        assert.ok(
          long <= short * 2 * 1.3 + 8,
          `${pattern} on ${motif.join("")}: ${short}, ${long}`,
        );
      }),
      { numRuns: 400 },
    );
  });
});

describe("compilePattern()", () => {
  test("runs a pattern natively on lines as long as its multiplied quantifiers allow", () => {
    // (The key names the longest line the native engine is given.)
    assert.match(
      compilePattern("\\b(let|const|var)\\s+\\w+\\s*=\\s*require\\(").matcher.key!,
      /\|10000$/,
    );
    assert.match(compilePattern("\\w+\\s*\\w+;").matcher.key!, /\|464$/);
    // (And on every line, as a literal is, where nothing required follows its runs.)
    assert.doesNotMatch(compilePattern("new Promise\\(\\s*").matcher.key!, /\|\d+$/);
  });
});

/** A class over four letters, repeated or not; or a group of sequences of them. */
type Node =
  | { chars: string[]; repeat: keyof typeof REPEATS }
  | { alternatives: Node[][]; optional: boolean };

const REPEATS = {
  "": [1, 1],
  "*": [0, Infinity],
  "+": [1, Infinity],
  "?": [0, 1],
  "{2,}": [2, Infinity],
  "{0,2}": [0, 2],
} as const;

const atom = fc.record({
  chars: fc.subarray([..."abcd"], { minLength: 1 }),
  repeat: fc.constantFrom(...Object.keys(REPEATS) as (keyof typeof REPEATS)[]),
});
const node: fc.Arbitrary<Node> = fc.oneof(
  { weight: 3, arbitrary: atom },
  fc.record({
    alternatives: fc.array(fc.array(atom, { minLength: 1, maxLength: 2 }), {
      minLength: 1,
      maxLength: 2,
    }),
    optional: fc.boolean(),
  }),
);

/** Patterns drawn as nodes, and the motif of the lines they are run on. */
const drawn = fc.record({
  nodes: fc.array(node, { minLength: 1, maxLength: 5 }),
  motif: fc.array(fc.constantFrom(..."abcd"), { minLength: 1, maxLength: 3 }),
});

/** A line of `length` characters (about), the motif repeated. */
function motifLine(motif: string[], length: number): string {
  return motif.join("").repeat(length / motif.length);
}

function sourceOf(node: Node): string {
  if ("chars" in node) return `[${node.chars.join("")}]${node.repeat}`;
  const inner = node.alternatives.map((sequence) => sequence.map(sourceOf).join("")).join("|");
  return `(?:${inner})${node.optional ? "?" : ""}`;
}

/**
 * The steps a backtracking engine takes to find that no part of `line` matches the nodes
 * then `x` (which the line lacks): greedy, each character a class is tested on counted.
 */
function steps(nodes: Node[], line: string): number {
  const { count, matched } = search(nodes, line, (at) => line[at] === "x");
  assert.ok(!matched);
  return count;
}

/** The steps the engine of {@linkcode steps} takes to the first match of the nodes alone. */
function firstMatchSteps(nodes: Node[], line: string): number {
  return search(nodes, line, () => true).count;
}

/**
 * The engine: tries each start in turn (the first alone when `anchored`), until `end` says a
 * match ends there.
 */
function search(
  nodes: Node[],
  line: string,
  end: (at: number) => boolean,
  anchored = false,
): { count: number; matched: boolean } {
  let count = 0;
  // Whether `nodes` from `i`, at `at`, and then what `then` matches, match.
  const match = (nodes: Node[], i: number, at: number, then: (at: number) => boolean): boolean => {
    if (i === nodes.length) return then(at);
    const node = nodes[i];
    const next = (to: number) => match(nodes, i + 1, to, then);
    if ("alternatives" in node) {
      return node.alternatives.some((sequence) => match(sequence, 0, at, next)) ||
        (node.optional && next(at));
    }
    const [least, most] = REPEATS[node.repeat];
    let run = 0;
    while (run < most && at + run < line.length) {
      count++;
      if (!node.chars.includes(line[at + run])) break;
      run++;
    }
    for (let taken = run; taken >= least; taken--) if (next(at + taken)) return true;
    return false;
  };
  for (let start = 0; start <= (anchored ? 0 : line.length); start++) {
    if (match(nodes, 0, start, (at) => (count++, end(at)))) return { count, matched: true };
  }
  return { count, matched: false };
}
