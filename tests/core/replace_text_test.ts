import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { type ReplaceOptions, replaceText } from "../../src/core/replace_text.ts";
import { OldTextMatchError } from "../../src/core/edit_result.ts";
import { InputError } from "../../src/core/input_errors.ts";
import { splitBom } from "../../src/core/bom.ts";
import { countLineBreaks, countLines, endsWithTerminator } from "../../src/core/split_lines.ts";
import { escapeRegExp } from "../../src/core/matcher.ts";
import { anyText, breakText, pureText, RUNS, text } from "../_helpers/arbitraries.ts";

const LONG = "q".repeat(100_000);

describe("replaceText() edits", () => {
  const ROWS: Array<{
    name: string;
    text: string;
    old: string;
    new: string;
    options?: ReplaceOptions;
    result: string;
    lineDelta: number;
  }> = [
    {
      name: "replaces a unique piece of a line",
      text: "a\nfoo\nb\n",
      old: "foo",
      new: "bar",
      result: "a\nbar\nb\n",
      lineDelta: 0,
    },
    {
      name: "matches LF old text against a CRLF file and writes CRLF",
      text: "a\r\nb\r\n",
      old: "a\nb",
      new: "x\ny",
      result: "x\r\ny\r\n",
      lineDelta: 0,
    },
    {
      name: "gives LF new text inside a CRLF line the CRLF of that line",
      text: "say hi\r\nend\r\n",
      old: "hi",
      new: "hello\nworld",
      result: "say hello\r\nworld\r\nend\r\n",
      lineDelta: 1,
    },
    {
      name: "matches CRLF old text against an LF file and writes LF",
      text: "a\nb\nc\n",
      old: "a\r\nb",
      new: "x\r\ny\r\nz",
      result: "x\ny\nz\nc\n",
      lineDelta: 1,
    },
    {
      name: "gives new text a terminator when old text ended with one, so lines never join",
      text: "a\nb\nc\n",
      old: "b\n",
      new: "x",
      result: "a\nx\nc\n",
      lineDelta: 0,
    },
    {
      name: "deletes a whole line",
      text: "a\nb\nc\n",
      old: "b\n",
      new: "",
      result: "a\nc\n",
      lineDelta: -1,
    },
    {
      name: "deletes a line selected from the end of the line before, without joining lines",
      text: "a\nb\nc\n",
      old: "\nb\n",
      new: "",
      result: "a\nc\n",
      lineDelta: -1,
    },
    {
      name: "deletes the last line selected from the end of the line before",
      text: "a\nb\n",
      old: "\nb\n",
      new: "",
      result: "a\n",
      lineDelta: -1,
    },
    {
      name: "deletes the unterminated last line with the newline before it",
      text: "a\nb",
      old: "\nb",
      new: "",
      result: "a",
      lineDelta: -1,
    },
    {
      name: "keeps no final newline when new text at the end has one",
      text: "ax",
      old: "x",
      new: "y\n",
      result: "ay",
      lineDelta: 0,
    },
    {
      name: "keeps the final newline when the old text took it",
      text: "a\nb\n",
      old: "b\n",
      new: "c",
      result: "a\nc\n",
      lineDelta: 0,
    },
    {
      name: "keeps no final newline when the last line is emptied",
      text: "a\nb",
      old: "b",
      new: "",
      result: "a",
      lineDelta: -1,
    },
    {
      name: "empties a one-line text",
      text: "a",
      old: "a",
      new: "",
      result: "",
      lineDelta: -1,
    },
    {
      name: "keeps the BOM",
      text: "\uFEFFkey=1\r\n",
      old: "1",
      new: "2",
      result: "\uFEFFkey=2\r\n",
      lineDelta: 0,
    },
    {
      name: "replaces every occurrence with replaceAll",
      text: "x\nx\nyx\n",
      old: "x",
      new: "z",
      options: { replaceAll: true },
      result: "z\nz\nyz\n",
      lineDelta: 0,
    },
    {
      name: "replaces every line with replaceAll, counting added lines",
      text: "x\nx\n",
      old: "x",
      new: "1\n2",
      options: { replaceAll: true },
      result: "1\n2\n1\n2\n",
      lineDelta: 2,
    },
    {
      name: "treats regex metacharacters and astral characters as text",
      text: "f(a.b)*[c]😀\n",
      old: "(a.b)*[c]😀",
      new: "$&$1",
      result: "f$&$1\n",
      lineDelta: 0,
    },
    {
      name: "finds a lone CR as text",
      text: "a\rb\nc\n",
      old: "a\rb",
      new: "x",
      result: "x\nc\n",
      lineDelta: 0,
    },
    {
      name: "replaces a 100,000-character line",
      text: `a\n${LONG}\nb`,
      old: LONG,
      new: "z",
      result: "a\nz\nb",
      lineDelta: 0,
    },
    {
      name: "keeps whitespace-only lines",
      text: " \n\t\nx\n",
      old: "x",
      new: "y",
      result: " \n\t\ny\n",
      lineDelta: 0,
    },
    {
      name: "in exact mode matches and writes byte for byte",
      text: "a\r\nb\r\n",
      old: "a\r\nb",
      new: "x\ny",
      options: { exact: true },
      result: "x\ny\r\n",
      lineDelta: 0,
    },
    {
      name: "in exact mode still never joins lines",
      text: "a\nb\nc\n",
      old: "b\n",
      new: "x",
      options: { exact: true },
      result: "a\nx\nc\n",
      lineDelta: 0,
    },
    {
      name: "in exact mode lets the new text add a final newline",
      text: "ax",
      old: "x",
      new: "y\n",
      options: { exact: true },
      result: "ay\n",
      lineDelta: 0,
    },
  ];
  for (const row of ROWS) {
    test(`replaceText() ${row.name}`, () => {
      const out = replaceText(row.text, row.old, row.new, row.options);
      assert.equal(out.text, row.result);
      assert.equal(out.lineDelta, row.lineDelta);
    });
  }

  test("replaceText() reports regions with old and new line numbers", () => {
    const out = replaceText("a\nx\nb\nx\nc\n", "x\n", "1\n2\n", { replaceAll: true });
    assert.equal(out.text, "a\n1\n2\nb\n1\n2\nc\n");
    assert.deepEqual(out.regions, [
      { oldStart: 2, oldEnd: 2, newStart: 2, newEnd: 3 },
      { oldStart: 4, oldEnd: 4, newStart: 5, newEnd: 6 },
    ]);
    assert.equal(out.lineDelta, 2);
  });

  test("replaceText() replaces a million occurrences (more than a call takes as arguments)", () => {
    // (The occurrences were once spread into a call: 130,000 overflowed Node's and Deno's
    // stack, 750,000 Bun's, as "internal error: Maximum call stack size exceeded".)
    const out = replaceText("ab ".repeat(1_000_000) + "\n", "ab", "c", { replaceAll: true });
    assert.equal(out.text, "c ".repeat(1_000_000) + "\n");
    assert.equal(out.occurrences, 1_000_000);
  });

  test("replaceText() reports a deleted region as ending before it starts", () => {
    const out = replaceText("a\nb\nc\n", "b\n", "");
    assert.deepEqual(out.regions, [{ oldStart: 2, oldEnd: 2, newStart: 2, newEnd: 1 }]);
  });

  test("replaceText() reports the region of an edit whose final newline was restored", () => {
    const out = replaceText("a\nb\n", "\nb\n", "");
    assert.deepEqual(out.regions, [{ oldStart: 1, oldEnd: 2, newStart: 1, newEnd: 1 }]);
  });
});

describe("replaceText() errors", () => {
  const notFound = (t: string, old: string, options?: ReplaceOptions) => () =>
    replaceText(t, old, "x", options);

  test("replaceText() refuses old text that is not there", () => {
    assert.throws(notFound("a\nb\n", "c"), (error: unknown) => {
      assert.ok(error instanceof OldTextMatchError);
      assert.deepEqual(error.lines, []);
      assert.match(error.message, /old_text was not found; read the file again/);
      return true;
    });
  });

  test("replaceText() in exact mode refuses LF old text in a CRLF file", () => {
    assert.throws(notFound("a\r\nb\r\n", "a\nb", { exact: true }), OldTextMatchError);
  });

  test("replaceText() refuses old text that spans a BOM", () => {
    assert.throws(notFound("\uFEFFa\n", "\uFEFFa"), OldTextMatchError);
  });

  const AMBIGUOUS: Array<[string, string, string, number[]]> = [
    ["names the line of every occurrence", "x\ny\nx\nzx\n", "x", [1, 3, 4]],
    ["names a line twice when it holds two occurrences", "xx\ny\n", "x", [1, 1]],
    ["numbers CRLF lines", "a\r\nx\r\nx", "x", [2, 3]],
    ["numbers lines after a BOM from 1", "\uFEFFx\nx\n", "x", [1, 2]],
    ["does not count a lone CR as a line break", "x\rx\nx", "x", [1, 1, 2]],
    ["names the first line of multi-line occurrences", "a\nb\na\nb\n", "a\nb", [1, 3]],
  ];
  for (const [name, t, old, lines] of AMBIGUOUS) {
    test(`replaceText() refuses an ambiguous old text and ${name}`, () => {
      assert.throws(() => replaceText(t, old, "z"), (error: unknown) => {
        assert.ok(error instanceof OldTextMatchError);
        assert.deepEqual(error.lines, lines);
        assert.match(
          error.message,
          new RegExp(
            `old_text occurs ${lines.length} times \\(at lines ${
              lines.join(", ")
            }\\); .*replace_all=true`,
          ),
        );
        return true;
      });
    });
  }

  test("replaceText() refuses empty old text with a TypeError", () => {
    assert.throws(() => replaceText("a\n", "", "x"), (error: unknown) => {
      assert.ok(error instanceof TypeError);
      assert.match(error.message, /old_text is empty/);
      return true;
    });
  });
});

describe("replaceText() and CRLF terminators", () => {
  test("an occurrence that would split a CRLF is none, unless exact", () => {
    assert.throws(() => replaceText("a\r\nb\r\n", "a\r", "A"), OldTextMatchError);
    assert.throws(
      () => replaceText("a\r\nb\r\n", "\r", "", { replaceAll: true }),
      OldTextMatchError,
    );
    // (A line break in old_text takes the CRLF whole.)
    assert.equal(replaceText("a\r\nb\r\n", "\nb", " B").text, "a B\r\n");
    // (A lone \r is text, and found as it is.)
    assert.equal(replaceText("a\r\r\nb\r\n", "a\r", "A").text, "A\r\nb\r\n");
    assert.equal(replaceText("a\r\nb\r\n", "a\r", "A", { exact: true }).text, "A\nb\r\n");
  });

  test("a replacement that would join a lone \\r to a line break is refused, unless exact", () => {
    for (
      const [text, old, replacement] of [
        ["a\nb\n", "a", "a\r"], // (its \r before the file's \n)
        ["x\ry\n", "y", "\nz"], // (the file's \r before its \n)
        ["x\ryz\n", "yz", ""], // (deleted from between them)
      ]
    ) {
      assert.throws(() => replaceText(text, old, replacement), {
        name: "InputError",
        message:
          /at line 1, the replacement would put a lone \\r \(text\) right before a line break/,
      });
      assert.ok(replaceText(text, old, replacement, { exact: true }));
    }
  });
});

describe("replaceText() properties", () => {
  /** Text and a piece of it to replace: a substring that neither starts nor ends inside a CRLF. */
  const withPiece = fc.tuple(text, fc.nat(), fc.nat()).map(([t, a, b]) => {
    const { body } = splitBom(t);
    const from = body.length === 0 ? 0 : a % body.length;
    const to = Math.min(body.length, from + 1 + (b % 6));
    const inCrlf = (at: number) => body[at - 1] === "\r" && body[at] === "\n";
    return { t, piece: inCrlf(from) || inCrlf(to) ? "" : body.slice(from, to) };
  }).filter(({ piece }) => piece.length > 0);

  /** Runs an edit, or gives undefined when it would join a lone `\r` (text) to a line break. */
  const unlessLoneCr = <T>(edit: () => T): T | undefined => {
    try {
      return edit();
    } catch (error) {
      if (error instanceof InputError && /a lone \\r \(text\)/.test(error.message)) {
        return undefined;
      }
      throw error;
    }
  };

  test("replaceText() reports a lineDelta equal to the change in line count, and regions that add up", () => {
    fc.assert(
      fc.property(withPiece, anyText, fc.boolean(), ({ t, piece }, replacement, exact) => {
        const out = unlessLoneCr(() =>
          replaceText(t, piece, replacement, { replaceAll: true, exact })
        );
        if (out === undefined) return;
        const { bom, body } = splitBom(t);
        // Strip only the BOM the text had: new text may start with a U+FEFF of its own.
        const before = countLines(body);
        const after = countLines(out.text.slice(bom.length));
        assert.equal(out.lineDelta, after - before);
        let delta = 0;
        for (const r of out.regions) {
          assert.equal(r.newStart, r.oldStart + delta);
          delta += (r.newEnd - r.newStart) - (r.oldEnd - r.oldStart);
        }
        assert.equal(delta, out.lineDelta);
      }),
      RUNS,
    );
  });

  test("replaceText() keeps the BOM and the final-newline state", () => {
    fc.assert(
      fc.property(withPiece, anyText, ({ t, piece }, replacement) => {
        const { bom, body } = splitBom(t);
        const out = unlessLoneCr(() =>
          replaceText(t, piece, replacement, { replaceAll: true }).text
        );
        if (out === undefined) return true;
        assert.equal(out.slice(0, bom.length), bom);
        const after = out.slice(bom.length);
        const emptyLast = /(^|\n)\r?\n$/.test(after);
        return after === "" || emptyLast || endsWithTerminator(after) === endsWithTerminator(body);
      }),
      RUNS,
    );
  });

  test("replaceText() of a piece by itself changes nothing in a pure-LF or pure-CRLF text", () => {
    const pure = fc.oneof(pureText("\n"), pureText("\r\n"));
    fc.assert(
      fc.property(pure, fc.nat(), fc.nat(), fc.boolean(), (t, a, b, exact) => {
        const { body } = splitBom(t);
        const from = a % body.length;
        const piece = body.slice(from, Math.min(body.length, from + 1 + (b % 6)));
        fc.pre(piece.length > 0 && !piece.startsWith("\n") && !piece.endsWith("\r"));
        return replaceText(t, piece, piece, { replaceAll: true, exact }).text === t;
      }),
      RUNS,
    );
  });

  test("replaceText() finds the occurrences a RegExp reference finds, on the same lines", () => {
    // The piece, sometimes with its CRLFs written as LF, as a model would copy it.
    const search = fc.tuple(withPiece, fc.boolean(), fc.boolean()).map(([p, lf, exact]) => ({
      ...p,
      piece: lf ? p.piece.replaceAll("\r\n", "\n") : p.piece,
      exact,
    }));
    fc.assert(
      fc.property(search, ({ t, piece, exact }) => {
        const { body } = splitBom(t);
        // (Unless exact, an occurrence neither starts nor ends inside a CRLF.)
        const source = exact
          ? escapeRegExp(piece)
          : `(?!(?<=\\r)\\n)${
            piece.split(/\r?\n/).map(escapeRegExp).join("\\r?\\n")
          }(?!(?<=\\r)\\n)`;
        const expected = [...body.matchAll(new RegExp(source, "g"))].map((m) =>
          countLineBreaks(body, 0, m.index) + 1
        );
        let lines: number[];
        try {
          lines = [replaceText(t, piece, "x", { exact }).regions[0].oldStart];
        } catch (error) {
          if (!(error instanceof OldTextMatchError)) throw error;
          lines = error.lines;
        }
        assert.deepEqual(lines, expected);
      }),
      RUNS,
    );
  });

  test("replaceText() in a pure-LF text without line breaks involved is String#replaceAll", () => {
    fc.assert(
      fc.property(
        pureText("\n"),
        fc.nat(),
        fc.nat(),
        fc.string({ minLength: 1, maxLength: 3 }),
        fc.boolean(),
        (t, a, b, replacement, exact) => {
          const from = a % t.length;
          const piece = t.slice(from, Math.min(t.length, from + 1 + (b % 6)));
          fc.pre(
            !piece.endsWith("\n") && !/[\r\n]/.test(replacement) && !piece.startsWith("\uFEFF"),
          );
          const out = replaceText(t, piece, replacement, { replaceAll: true, exact }).text;
          assert.equal(out, t.split(piece).join(replacement));
        },
      ),
      RUNS,
    );
  });

  test("replaceText() keeps a pure-CRLF text pure CRLF and a pure-LF text pure LF", () => {
    fc.assert(
      fc.property(
        fc.oneof(pureText("\n"), pureText("\r\n")),
        fc.constantFrom("a", "b", "😀", " ", "\n", "a\n", "\na"),
        breakText,
        (t, old, replacement) => {
          let out: string;
          try {
            out = replaceText(t, old, replacement, { replaceAll: true }).text;
          } catch (error) {
            if (error instanceof OldTextMatchError) return true;
            throw error;
          }
          return t.includes("\r\n") ? !/(^|[^\r])\n/.test(out) : !out.includes("\r");
        },
      ),
      RUNS,
    );
  });
});
