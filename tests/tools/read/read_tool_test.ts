import process from "node:process";
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  assertFitsSchema,
  bytes,
  errorText,
  harness,
  memoryTools,
  okText,
  rowsText,
  text,
  withTempRoot,
} from "../../_helpers/tools.ts";
import { MemoryStore } from "../../../src/store/mod.ts";

const TEN = Array.from({ length: 10 }, (_, i) => `line ${i + 1}\n`).join("");

const FILES = {
  "a.txt": "one\ntwo\nthree\n",
  "crlf.txt": "a\r\nb\r\nc\r\n",
  "cr.txt": "a\rb\nc\r\r\n",
  "bom.txt": "\uFEFFfirst\nsecond\n",
  "nofinal.txt": "a\nb",
  "empty.txt": "",
  "blank.txt": "\n",
  "ten.txt": TEN,
  "long.txt": "abcdefghijklmnopqrstuvwxyz\nshort\n",
  "astral.txt": "😀😀😀😀😀😀😀😀😀😀😀😀\n",
  "bin.dat": new Uint8Array([0x61, 0x62, 0x00, 0x63, 0x0a]),
  "bad.txt": new Uint8Array([0x61, 0xff, 0x0a, 0x62, 0x0a]),
  "badnofinal.txt": new Uint8Array([0x61, 0xff]),
  "dir/inner.txt": "inner\n",
  "secret.env": "TOKEN=hunter2\n",
};

function tools(options: Parameters<typeof memoryTools>[1] = {}) {
  return memoryTools(FILES, { cut: 10, deny: ["*.env"], ...options });
}

describe("read", () => {
  const ROWS: Array<{ name: string; args: Record<string, unknown>; text: string }> = [
    {
      name: "numbers every line of a file",
      args: { path: "a.txt" },
      text: "1\tone\n2\ttwo\n3\tthree\n",
    },
    {
      name: "starts at start_line and reads to the end",
      args: { path: "a.txt", start_line: 2 },
      text: "2\ttwo\n3\tthree\n",
    },
    {
      name: "stops at end_line, inclusive",
      args: { path: "a.txt", start_line: 1, end_line: 2 },
      text: "1\tone\n2\ttwo\n",
    },
    {
      name: "reads a single line",
      args: { path: "a.txt", start_line: 2, end_line: 2 },
      text: "2\ttwo\n",
    },
    {
      name: "clamps an end_line past the end",
      args: { path: "a.txt", start_line: 2, end_line: 99 },
      text: "2\ttwo\n3\tthree\n",
    },
    {
      name: "keeps CRLF terminators in the rows",
      args: { path: "crlf.txt" },
      text: "1\ta\r\n2\tb\r\n3\tc\r\n",
    },
    { name: "treats a lone CR as text", args: { path: "cr.txt" }, text: "1\ta\rb\n2\tc\r\r\n" },
    {
      name: "leaves the BOM out of line 1",
      args: { path: "bom.txt" },
      text: "1\tfirst\n2\tsecond\n",
    },
    {
      name: "shows a last line without a terminator without adding one",
      args: { path: "nofinal.txt" },
      text: "1\ta\n2\tb",
    },
    {
      name: "shows an empty line as a row with only its terminator",
      args: { path: "blank.txt" },
      text: "1\t\n",
    },
    {
      name: "takes an absolute path inside the root",
      args: { path: "/a.txt", start_line: 3 },
      text: "3\tthree\n",
    },
    {
      name: "takes a path with ./ and a subdirectory",
      args: { path: "./dir/inner.txt" },
      text: "1\tinner\n",
    },
  ];
  for (const row of ROWS) {
    test(`read ${row.name}`, async () => {
      assert.equal(rowsText(await tools().call("read", row.args)), row.text);
    });
  }

  test("read of an empty file from line 1 is a note, not an error", async () => {
    const result = await tools().call("read", { path: "empty.txt" });
    assert.equal(rowsText(result), "[empty file: 0 lines]\n");
    assert.equal(result.structuredContent?.total_lines, 0);
    assert.equal(result.structuredContent?.end_line, 0);
    assert.equal(result.structuredContent?.truncated, false);
  });

  const REFUSED: Array<{ name: string; args: unknown; message: RegExp }> = [
    {
      name: "start_line 0, naming the line count",
      args: { path: "a.txt", start_line: 0 },
      message:
        /^a\.txt: start_line must be a whole number of 1 or more, got 0; the file has 3 lines$/,
    },
    {
      name: "a negative start_line, naming the line count",
      args: { path: "a.txt", start_line: -4 },
      message: /got -4; the file has 3 lines$/,
    },
    {
      name: "end_line 0, naming the line count",
      args: { path: "a.txt", end_line: 0 },
      message:
        /^a\.txt: end_line 0 is before start_line 1; ask for end_line >= start_line \(the file has 3 lines\)$/,
    },
    {
      name: "end_line before start_line, naming the line count",
      args: { path: "a.txt", start_line: 3, end_line: 2 },
      message: /end_line 2 is before start_line 3.*the file has 3 lines/,
    },
    {
      name: "start_line past the end, naming the line count",
      args: { path: "a.txt", start_line: 4 },
      message:
        /^a\.txt: start_line 4 is past the end: the file has 3 lines; read from start_line=1 to 3$/,
    },
    {
      name: "start_line past the end even with end_line",
      args: { path: "a.txt", start_line: 7, end_line: 9 },
      message: /start_line 7 is past the end: the file has 3 lines/,
    },
    {
      name: "start_line 2 of an empty file",
      args: { path: "empty.txt", start_line: 2 },
      message: /start_line 2 is past the end: the file has 0 lines$/,
    },
    {
      name: "start_line 2 of a file without a final newline, counting its last line",
      args: { path: "nofinal.txt", start_line: 3 },
      message: /the file has 2 lines/,
    },
    {
      name: "column with end_line different from start_line",
      args: { path: "long.txt", start_line: 1, end_line: 2, column: 3 },
      message:
        /^long\.txt: column reads one line: give end_line=1 \(equal to start_line\) or leave it out$/,
    },
    {
      name: "column past the line's end, naming its length",
      args: { path: "long.txt", column: 28 },
      message: /^long\.txt: column 28 is past the end of line 1, which has 26 code points$/,
    },
    {
      name: "column 0",
      args: { path: "long.txt", column: 0 },
      message: /^argument "column" must be 1 or more, got number 0$/,
    },
    {
      name: "a file that does not exist",
      args: { path: "nope.txt" },
      message: /^no file or directory at "nope\.txt"; check the path with glob or list$/,
    },
    {
      name: "a directory",
      args: { path: "dir" },
      message: /^"dir" is a directory, not a regular file$/,
    },
    {
      name: "a binary file, giving its size",
      args: { path: "bin.dat" },
      message:
        /^"bin\.dat" is a binary file \(5 bytes, a NUL byte in its first 8 KiB\); it cannot be read as text$/,
    },
    {
      name: "a denied file",
      args: { path: "secret.env" },
      message: /^path "secret\.env" is not accessible: the server denies it$/,
    },
    {
      name: "a denied file that does not exist, with the same message",
      args: { path: "other.env" },
      message: /^path "other\.env" is not accessible: the server denies it$/,
    },
    {
      name: "a path above the root",
      args: { path: "../a.txt" },
      message: /^path "\.\.\/a\.txt" is outside the allowed roots; use a path inside a root$/,
    },
    {
      name: "a path with a NUL byte",
      args: { path: "a\0.txt" },
      message: /outside the allowed roots|cannot be used/,
    },
    { name: "a missing path", args: {}, message: /^missing required argument "path"$/ },
    {
      name: "a path that is not a string",
      args: { path: 3 },
      message: /^argument "path" must be a string, got number 3$/,
    },
    {
      name: "a start_line that is a string",
      args: { path: "a.txt", start_line: "2" },
      message: /^argument "start_line" must be a whole number, got the string "2"$/,
    },
    {
      name: "a fractional start_line",
      args: { path: "a.txt", start_line: 1.5 },
      message: /^argument "start_line" must be a whole number, got number 1\.5$/,
    },
    {
      name: "an unknown field",
      args: { path: "a.txt", lines: 3 },
      message:
        /^unknown argument "lines"; the arguments are path, start_line, end_line, column, ranges$/,
    },
    {
      name: "arguments that are not an object",
      args: "a.txt",
      message: /^arguments must be an object/,
    },
  ];
  for (const row of REFUSED) {
    test(`read refuses ${row.name}`, async () => {
      assert.match(errorText(await tools().call("read", row.args)), row.message);
    });
  }

  test("reads of one file sent at once read it whole once", async () => {
    let whole = 0;
    class Counting extends MemoryStore {
      override readText(...args: Parameters<MemoryStore["readText"]>) {
        whole++;
        return super.readText(...args);
      }
    }
    const h = harness(new Counting({ "ten.txt": TEN }));
    const reads = await Promise.all(
      Array.from(
        { length: 16 },
        (_, i) => h.call("read", { path: "ten.txt", start_line: i % 10 + 1, end_line: i % 10 + 1 }),
      ),
    );
    reads.forEach((read, i) =>
      assert.match(okText(read), new RegExp(`\\n${i % 10 + 1}\\tline ${i % 10 + 1}\\n$`))
    );
    assert.equal(whole, 1);
  });

  test("read leaks nothing of a denied file's content", async () => {
    const message = errorText(await tools().call("read", { path: "secret.env" }));
    assert.doesNotMatch(message, /hunter2/);
  });
});

describe("read output format", () => {
  test("read cuts a line over the cut with a marker naming its length and the column to go on", async () => {
    assert.equal(
      rowsText(await tools().call("read", { path: "long.txt" })),
      "1\tabcdefghij … [line cut: 26 code points; column=11 shows more]\n2\tshort\n",
    );
  });

  test("read lists the cut lines in structuredContent", async () => {
    const result = await tools().call("read", { path: "long.txt" });
    assert.deepEqual(result.structuredContent?.cut_lines, [1]);
  });

  test("read does not cut a line of exactly the cut", async () => {
    const h = memoryTools({ "ten.txt": "0123456789\n" }, { cut: 10 });
    assert.equal(rowsText(await h.call("read", { path: "ten.txt" })), "1\t0123456789\n");
  });

  test("read counts the cut in code points, not UTF-16 units", async () => {
    assert.equal(
      rowsText(await tools().call("read", { path: "astral.txt" })),
      "1\t😀😀😀😀😀😀😀😀😀😀 … [line cut: 12 code points; column=11 shows more]\n",
    );
  });

  test("read with column shows one line from that column, cut again if still long", async () => {
    assert.equal(
      rowsText(await tools().call("read", { path: "long.txt", start_line: 1, column: 11 })),
      "1\t[from column 11] klmnopqrst … [line cut: 26 code points; column=21 shows more]\n",
    );
  });

  test("read with column shows the rest of the line and its terminator when it fits", async () => {
    assert.equal(
      rowsText(
        await tools().call("read", { path: "long.txt", start_line: 1, end_line: 1, column: 21 }),
      ),
      "1\t[from column 21] uvwxyz\n",
    );
  });

  test("read with column 1 on an empty line is allowed", async () => {
    assert.equal(rowsText(await tools().call("read", { path: "blank.txt", column: 1 })), "1\t\n");
  });

  test("read of a file without a final newline puts a \\n before a note, and only then", async () => {
    const h = memoryTools({ "x.txt": new Uint8Array([0x61, 0x0a, 0x62, 0xff]) });
    assert.equal(
      okText(await h.call("read", { path: "x.txt" })),
      "1\ta\n2\tb\uFFFD\n[not valid UTF-8: invalid bytes are shown as U+FFFD; edit tools refuse this file]\n",
    );
  });

  test("read of an invalid UTF-8 file works, shows U+FFFD and says so", async () => {
    const result = await tools().call("read", { path: "bad.txt" });
    assert.equal(
      okText(result),
      "1\ta\uFFFD\n2\tb\n[not valid UTF-8: invalid bytes are shown as U+FFFD; edit tools refuse this file]\n",
    );
    assert.equal(result.structuredContent?.invalid_utf8, true);
  });

  test("read that stops at maxLines ends with a note saying how to continue", async () => {
    const h = memoryTools({ "ten.txt": TEN }, { maxLines: 3 });
    const result = await h.call("read", { path: "ten.txt" });
    assert.equal(
      rowsText(result),
      "1\tline 1\n2\tline 2\n3\tline 3\n[lines 1-3 of 10; continue with start_line=4]\n",
    );
    assert.equal(result.structuredContent?.truncated, true);
    assert.equal(result.structuredContent?.next_start_line, 4);
    assert.equal(result.structuredContent?.end_line, 3);
    assert.equal(result.structuredContent?.total_lines, 10);
  });

  test("read continues from next_start_line to the end, and the last page has no footer", async () => {
    const h = memoryTools({ "ten.txt": TEN }, { maxLines: 4 });
    let start = 1;
    let all = "";
    for (let page = 0; page < 5; page++) {
      const result = await h.call("read", { path: "ten.txt", start_line: start });
      const shown = rowsText(result);
      all += shown.replace(/\[[^\]]*\]\n$/, "");
      if (!result.structuredContent?.truncated) {
        assert.doesNotMatch(shown, /\[/);
        break;
      }
      start = result.structuredContent.next_start_line as number;
    }
    assert.equal(all, TEN.split("\n").slice(0, 10).map((l, i) => `${i + 1}\t${l}\n`).join(""));
  });

  test("read stopped by end_line is complete: no footer, not truncated", async () => {
    const h = memoryTools({ "ten.txt": TEN }, { maxLines: 3 });
    const result = await h.call("read", { path: "ten.txt", start_line: 2, end_line: 4 });
    assert.equal(rowsText(result), "2\tline 2\n3\tline 3\n4\tline 4\n");
    assert.equal(result.structuredContent?.truncated, false);
    assert.equal(result.structuredContent?.next_start_line, undefined);
  });

  test("read with a small character budget still shows rows and says how to continue", async () => {
    const thirty = Array.from({ length: 30 }, (_, i) => `line ${i + 1}\n`).join("");
    const h = memoryTools({ "thirty.txt": thirty }, { maxChars: 200 });
    const result = await h.call("read", { path: "thirty.txt" });
    const shown = rowsText(result);
    assert.ok(shown.length <= 200, `${shown.length} characters`);
    const next = result.structuredContent?.next_start_line as number;
    assert.ok(next > 2, `more than one row fits in 200 characters, next is ${next}`);
    assert.ok(shown.endsWith(`; continue with start_line=${next}]\n`), shown);
  });

  test("read always shows at least one row, even over the budget", async () => {
    const h = memoryTools({ "wide.txt": "x".repeat(500) + "\nb\n" }, { maxChars: 200, cut: 400 });
    const result = await h.call("read", { path: "wide.txt" });
    assert.match(
      rowsText(result),
      /^1\tx{400} … \[line cut: 500 code points; column=401 shows more\]\n\[lines 1-1 of 2; continue with start_line=2\]\n$/,
    );
  });

  test("read's structuredContent fits the output schema and never carries the file text", async () => {
    const h = tools();
    const schema = h.tools.find((t) => t.name === "read")!.outputSchema;
    for (
      const args of [{ path: "a.txt" }, { path: "empty.txt" }, { path: "long.txt", column: 11 }, {
        path: "bad.txt",
      }]
    ) {
      const result = await h.call("read", args);
      assertFitsSchema(result.structuredContent, schema);
      assert.equal(result.structuredContent?.path, args.path);
    }
    const result = await h.call("read", { path: "a.txt" });
    assert.match(text(result), /three/);
    assert.doesNotMatch(JSON.stringify(result.structuredContent), /three/);
  });
});

describe("read over a directory store", () => {
  test("read of a file with invalid UTF-8 bytes works and says so", async () => {
    await withTempRoot(
      { "bad.txt": new Uint8Array([0x6f, 0x6b, 0xc3, 0x28, 0x0a]) },
      async (_root, h) => {
        const result = await h.call("read", { path: "bad.txt" });
        assert.match(okText(result), /^1\tok\uFFFD\(\n\[not valid UTF-8/);
        assert.equal(result.structuredContent?.invalid_utf8, true);
      },
    );
  });

  test("read refuses a binary file with its size", async () => {
    await withTempRoot(
      { "img.bin": new Uint8Array(1000).fill(7).fill(0, 10, 11) },
      async (_root, h) => {
        assert.match(
          errorText(await h.call("read", { path: "img.bin" })),
          /\(1000 bytes, a NUL byte/,
        );
      },
    );
  });

  test("read refuses a directory and an absolute path outside the root", async () => {
    await withTempRoot({ "sub/a.txt": "a\n" }, async (_root, h) => {
      assert.match(errorText(await h.call("read", { path: "sub" })), /is a directory/);
      assert.match(
        errorText(await h.call("read", { path: "/etc/hostname" })),
        /outside the allowed roots/,
      );
    });
  });

  test("read of a large file whose count is not known leaves the count out of a range error", async () => {
    await withTempRoot({ "big.txt": TEN }, async (_root, h) => {
      const backwards = errorText(
        await h.call("read", { path: "big.txt", start_line: 5, end_line: 2 }),
      );
      assert.equal(
        backwards,
        "big.txt: end_line 2 is before start_line 5; ask for end_line >= start_line",
      );
      const zero = errorText(await h.call("read", { path: "big.txt", start_line: 0 }));
      assert.equal(zero, "big.txt: start_line must be a whole number of 1 or more, got 0");
      const page = await h.call("read", { path: "big.txt", start_line: 1, end_line: 2 });
      assert.equal(rowsText(page), "1\tline 1\n2\tline 2\n");
    }, { countLinesUpTo: 0 });
  });

  test("read of a file over the edit cap ends a truncated page with a footer without the total", async () => {
    await withTempRoot({ "big.txt": TEN }, async (_root, h) => {
      const result = await h.call("read", { path: "big.txt" });
      assert.match(okText(result), /^1\tline 1\n.*\n\[lines 1-3; continue with start_line=4\]\n$/s);
      assert.equal(result.structuredContent?.total_lines, undefined);
      assert.equal(result.structuredContent?.version, undefined, "too large to edit: no version");
    }, { countLinesUpTo: 0, maxLines: 3, maxEditBytes: 10 });
  });

  test("read follows an in-root symlink to a file", async () => {
    await withTempRoot({ "real.txt": "target\n" }, async (root, h) => {
      const fs = await import("node:fs/promises");
      await fs.symlink(root.at("real.txt"), root.at("link.txt"));
      assert.equal(rowsText(await h.call("read", { path: "link.txt" })), "1\ttarget\n");
    });
  });

  test("read refuses a symlink that points out of the root", async () => {
    await withTempRoot({}, async (root, h) => {
      const fs = await import("node:fs/promises");
      const os = await import("node:os");
      await fs.symlink(os.tmpdir(), root.at("out"));
      assert.match(
        errorText(await h.call("read", { path: "out/x.txt" })),
        /outside the allowed roots/,
      );
    });
  });

  test("read keeps bytes as they are: a file written as bytes reads back row by row", async () => {
    await withTempRoot({ "mixed.txt": bytes("a\r\nb\rc\n\uFEFFd") }, async (_root, h) => {
      assert.equal(
        rowsText(await h.call("read", { path: "mixed.txt" })),
        "1\ta\r\n2\tb\rc\n3\t\uFEFFd",
      );
    });
  });
});

describe("read ranges", () => {
  const HUNDRED = Array.from({ length: 100 }, (_, i) => `l${i + 1}\n`).join("");

  test("shows several ranges of one version, the later ones headed by a note", async () => {
    const h = memoryTools({ "a.txt": HUNDRED });
    const result = await h.call("read", {
      path: "a.txt",
      ranges: [{ start_line: 40, end_line: 41 }, { start_line: 90, end_line: 91 }],
    });
    assert.equal(rowsText(result), "40\tl40\n41\tl41\n[lines 90-91]\n90\tl90\n91\tl91\n");
    assert.deepEqual(result.structuredContent?.ranges, [
      { start_line: 40, end_line: 41, truncated: false },
      { start_line: 90, end_line: 91, truncated: false },
    ]);
    // One version for them all, which numbered edits then refer to.
    okText(
      await h.call("replace_lines", { path: "a.txt", edits: [{ start_line: 90, new_text: "x" }] }),
    );
  });

  test("keeps to one output budget, saying which ranges it left out", async () => {
    const h = memoryTools({ "a.txt": HUNDRED }, { maxLines: 10 });
    const result = await h.call("read", {
      path: "a.txt",
      ranges: [{ start_line: 1, end_line: 8 }, { start_line: 50, end_line: 60 }, {
        start_line: 90,
      }],
    });
    // (The note continues the range cut short to its own end, and the whole says it was cut.)
    assert.match(
      rowsText(result),
      /\n8\tl8\n\[lines 50-51\]\n50\tl50\n51\tl51\n\[lines 50-51 of 100; continue with start_line=52, end_line=60\]\n\[output budget reached: ranges from lines 90-end on are not shown; read them next\]\n$/,
    );
    assert.equal(result.structuredContent?.truncated, true);
  });

  test("refuses ranges beside start_line, and a range past the end", async () => {
    const h = memoryTools({ "a.txt": HUNDRED });
    assert.equal(
      errorText(
        await h.call("read", { path: "a.txt", start_line: 2, ranges: [{ start_line: 1 }] }),
      ),
      "give either ranges or start_line, not both",
    );
    assert.match(
      errorText(
        await h.call("read", { path: "a.txt", ranges: [{ start_line: 1 }, { start_line: 200 }] }),
      ),
      /start_line 200 is past the end: the file has 100 lines/,
    );
  });
});

describe("a name that ends with a backslash", () => {
  test(
    "is a file off Windows, read by its quoted name",
    { skip: process.platform === "win32" },
    async () => {
      await withTempRoot({ "foo\\": "back\n" }, async (_root, h) => {
        assert.equal(okText(await h.call("glob", { pattern: "*" })), '"foo\\\\"\n');
        assert.match(okText(await h.call("read", { path: '"foo\\\\"' })), /1\tback\n/);
      });
    },
  );
});
