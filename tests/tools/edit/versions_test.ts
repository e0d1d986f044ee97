// The version guard of numbered edits, over a memory store whose files another writer
// changes between calls.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { errorText, harness, memoryTools, okText, rowsText } from "../../_helpers/tools.ts";
import { MemoryStore } from "../../../src/store/mod.ts";
import { versionOf } from "../../../src/versions/mod.ts";

const FILE = "one\ntwo\nthree\nfour\nfive\n";

async function seen(files: Record<string, string> = { "a.txt": FILE }) {
  const h = memoryTools(files);
  for (const path of Object.keys(files)) okText(await h.call("read", { path }));
  return h;
}

const textOf = async (h: ReturnType<typeof memoryTools>, path = "a.txt") =>
  (await h.store.readText(path)).text;

/** A memory store whose `held`-th update (from 0) waits until {@linkcode GatedStore.open}. */
class GatedStore extends MemoryStore {
  readonly #held: number;
  #updates = 0;
  #open: () => void = () => {};
  readonly #opened = new Promise<void>((resolve) => this.#open = resolve);

  constructor(files: Record<string, string>, held: number) {
    super(files);
    this.#held = held;
  }

  open(): void {
    this.#open();
  }

  override async update<T>(...args: Parameters<MemoryStore["update"]>): Promise<T> {
    if (this.#updates++ === this.#held) await this.#opened;
    return await super.update(...args) as T;
  }
}

describe("versions in results", () => {
  test("read, grep and edits name the file's version in text and structured content", async () => {
    const h = memoryTools({ "a.txt": FILE });
    const read = await h.call("read", { path: "a.txt", start_line: 2, end_line: 2 });
    assert.equal(read.structuredContent?.version, versionOf(FILE));
    assert.equal(okText(read), `[version ${versionOf(FILE)}]\n2\ttwo\n`);
    const grep = await h.call("grep", { pattern: "two" });
    assert.equal(okText(grep), `a.txt @${versionOf(FILE)}\n2\ttwo\n`);
    const edit = await h.call("replace_lines", {
      path: "a.txt",
      edits: [{ start_line: 2, new_text: "TWO" }],
    });
    const after = FILE.replace("two", "TWO");
    assert.equal(edit.structuredContent?.version, versionOf(after));
    assert.match(okText(edit), new RegExp(`^\\[version ${versionOf(after)}\\]\\n`));
  });
});

describe("numbered edits and the version the agent saw", () => {
  test("an edit after another writer inserted lines above goes to the moved lines, and says so", async () => {
    const h = await seen();
    h.store.set("a.txt", "zero\nhalf\n" + FILE);
    const result = await h.call("replace_lines", {
      path: "a.txt",
      edits: [{ start_line: 2, end_line: 3, new_text: "TWO\nTHREE" }],
    });
    assert.match(
      rowsText(result),
      /^\[the file had changed since you saw it, but not at the lines you edit; the edit went where they are now: lines 2-3 are now 4-5\]\n/,
    );
    assert.equal(await textOf(h), "zero\nhalf\none\nTWO\nTHREE\nfour\nfive\n");
  });

  test("an edit of a line another writer changed is refused, showing the current rows", async () => {
    const h = await seen();
    h.store.set("a.txt", "new\none\nTWO!\nthree\nfour\nfive\n");
    const message = errorText(
      await h.call("replace_lines", { path: "a.txt", edits: [{ start_line: 2, new_text: "2" }] }),
    );
    assert.equal(
      message,
      `a.txt: the file changed since this session showed it, and so did line 2 (numbered as you saw it); nothing was written. The lines there now (version ${
        versionOf("new\none\nTWO!\nthree\nfour\nfive\n")
      }):\n2\tone\n3\tTWO!\n4\tthree\n`,
    );
    assert.equal(await textOf(h), "new\none\nTWO!\nthree\nfour\nfive\n");
    // The rows shown are now what the session saw: the retry with their numbers goes through.
    okText(
      await h.call("replace_lines", { path: "a.txt", edits: [{ start_line: 3, new_text: "2" }] }),
    );
    assert.equal(await textOf(h), "new\none\n2\nthree\nfour\nfive\n");
  });

  // The calls of one turn of the model are sent before it sees any of their results: each
  // one's numbers refer to what was shown before they were sent, not to what a call sent
  // beside it showed meanwhile. (The store holds one call's update until the calls before it
  // have answered, as a slow disk may.)
  test("edits sent together all refer to the version shown before them", async () => {
    const store = new GatedStore({ "a.txt": FILE }, 1);
    const h = harness(store);
    okText(await h.call("read", { path: "a.txt" }));
    const first = h.call("replace_lines", {
      path: "a.txt",
      edits: [{ start_line: 2, new_text: "2a\n2b\n" }],
    });
    const second = h.call("insert_lines", { path: "a.txt", after_line: 4, text: "four+\n" });
    okText(await first);
    store.open();
    assert.match(
      rowsText(await second),
      /went where they are now: the insert point after line 4 is now after line 5/,
    );
    assert.equal((await store.readText("a.txt")).text, "one\n2a\n2b\nthree\nfour\nfour+\nfive\n");
  });

  test("six edits of one file sent together all land where they were meant", async () => {
    // (Each update waits its turn a while, so that the edits before it have answered.)
    class Staggered extends MemoryStore {
      #calls = 0;
      override async update<T>(...args: Parameters<MemoryStore["update"]>): Promise<T> {
        await new Promise((resolve) => setTimeout(resolve, 20 * this.#calls++));
        return await super.update(...args) as T;
      }
    }
    const lines = Array.from({ length: 12 }, (_, i) => `line ${i + 1}\n`).join("");
    const store = new Staggered({ "a.txt": lines });
    const h = harness(store);
    okText(await h.call("read", { path: "a.txt" }));
    const results = await Promise.all([2, 4, 6, 8, 10, 12].map((line) =>
      h.call("replace_lines", {
        path: "a.txt",
        edits: [{ start_line: line, new_text: `${line}a\n${line}b\n` }],
      })
    ));
    for (const result of results) okText(result);
    assert.equal(
      (await store.readText("a.txt")).text,
      lines.replace(/^line (\d*[02468])\n/gm, "$1a\n$1b\n"),
    );
  });

  test("a read sent beside an edit does not make the edit's numbers its own", async () => {
    const store = new GatedStore({ "a.txt": FILE }, 0);
    const h = harness(store);
    okText(await h.call("read", { path: "a.txt" }));
    store.set("a.txt", "zero\nhalf\n" + FILE); // (a formatter, after the agent's read)
    const edit = h.call("replace_lines", {
      path: "a.txt",
      edits: [{ start_line: 4, new_text: "FOUR" }],
    });
    okText(await h.call("read", { path: "a.txt", start_line: 1, end_line: 2 }));
    store.open();
    assert.match(rowsText(await edit), /line 4 is now 6/);
    assert.equal((await store.readText("a.txt")).text, "zero\nhalf\none\ntwo\nthree\nFOUR\nfive\n");
  });

  test("an edit of a file shown only by a call sent beside it is refused", async () => {
    const store = new GatedStore({ "a.txt": FILE }, 0);
    const h = harness(store);
    const edit = h.call("replace_lines", {
      path: "a.txt",
      edits: [{ start_line: 2, new_text: "x" }],
    });
    okText(await h.call("read", { path: "a.txt" }));
    store.open();
    assert.match(
      errorText(await edit),
      /^a\.txt: this session showed this file only after this edit was sent \(by a call sent with it\), so your line numbers cannot be checked; nothing was written/,
    );
    assert.equal((await store.readText("a.txt")).text, FILE);
  });

  test("an edit of a file the session never showed, without a guard, is refused", async () => {
    const h = memoryTools({ "a.txt": FILE });
    const message = errorText(
      await h.call("replace_lines", { path: "a.txt", edits: [{ start_line: 2, new_text: "x" }] }),
    );
    assert.match(message, /^a\.txt: this session has not shown this file.*Read the lines first/);
    assert.match(
      errorText(await h.call("insert_lines", { path: "a.txt", after_line: 1, text: "x" })),
      /has not shown this file/,
    );
    assert.equal(await textOf(h), FILE);
  });

  test("expected_text vouches for the numbers of a file never shown", async () => {
    const h = memoryTools({ "a.txt": FILE });
    okText(
      await h.call("replace_lines", {
        path: "a.txt",
        edits: [{ start_line: 2, new_text: "x", expected_text: "two" }],
      }),
    );
    okText(
      await h.call("insert_lines", {
        path: "a.txt",
        after_line: 3,
        text: "y",
        expected_text: "three",
      }),
    );
    assert.equal(await textOf(h), "one\nx\nthree\ny\nfour\nfive\n");
  });

  test("an insert next to a line another writer changed is refused; one elsewhere moves", async () => {
    const h = await seen();
    h.store.set("a.txt", "one\ntwo\nTHREE\nfour\nfive\nsix\n");
    assert.match(
      errorText(await h.call("insert_lines", { path: "a.txt", after_line: 2, text: "x" })),
      /and so did the lines next to your insert point after line 2 \(numbered as you saw it\)/,
    );
    const h2 = await seen();
    h2.store.set("a.txt", "zero\n" + FILE);
    const moved = await h2.call("insert_lines", { path: "a.txt", after_line: 4, text: "x" });
    assert.match(rowsText(moved), /the insert point after line 4 is now after line 5/);
    assert.equal(await textOf(h2), "zero\none\ntwo\nthree\nfour\nx\nfive\n");
  });

  test("numbers past the end of the version seen are refused, saying both line counts", async () => {
    const h = await seen({ "a.txt": "one\ntwo\n" });
    h.store.set("a.txt", "zero\none\ntwo\nthree\nfour\n");
    assert.match(
      errorText(
        await h.call("replace_lines", {
          path: "a.txt",
          edits: [{ start_line: 2, end_line: 3, new_text: "x" }],
        }),
      ),
      /^a\.txt: lines 2-3 reach beyond the 2 lines the file had when this session showed it \(it has 5 now\): read the lines again$/,
    );
    assert.match(
      errorText(await h.call("insert_lines", { path: "a.txt", after_line: 7, text: "x" })),
      /the insert point after line 7 is beyond the 2 lines/,
    );
    assert.equal(await textOf(h), "zero\none\ntwo\nthree\nfour\n");
  });

  test("version picks an older version the session showed; an unknown one is refused", async () => {
    const h = await seen();
    const v1 = versionOf(FILE);
    okText(
      await h.call("replace_lines", { path: "a.txt", edits: [{ start_line: 1, new_text: "1" }] }),
    );
    // Numbered as v1 (before the edit above): line 5 is still "five", now moved nowhere.
    h.store.set("a.txt", "top\n1\ntwo\nthree\nfour\nfive\n");
    okText(
      await h.call("replace_lines", {
        path: "a.txt",
        version: v1,
        edits: [{ start_line: 5, new_text: "5" }],
      }),
    );
    assert.equal(await textOf(h), "top\n1\ntwo\nthree\nfour\n5\n");
    assert.match(
      errorText(
        await h.call("replace_lines", {
          path: "a.txt",
          version: "0badf00d",
          edits: [{ start_line: 1, new_text: "x" }],
        }),
      ),
      /version 0badf00d is not the file's version now, and this session does not hold it/,
    );
    assert.match(
      errorText(
        await h.call("replace_lines", {
          path: "a.txt",
          version: "v1",
          edits: [{ start_line: 1, new_text: "x" }],
        }),
      ),
      /version must be the 8 hex digits results show/,
    );
  });

  test("a grep shows a version edits then refer to; its text is not kept", async () => {
    const h = memoryTools({ "a.txt": FILE });
    okText(await h.call("grep", { pattern: "four" }));
    okText(
      await h.call("replace_lines", { path: "a.txt", edits: [{ start_line: 4, new_text: "4" }] }),
    );
    assert.equal(await textOf(h), "one\ntwo\nthree\n4\nfive\n");
    const again = memoryTools({ "a.txt": FILE });
    okText(await again.call("grep", { pattern: "four" }));
    again.store.set("a.txt", "zero\n" + FILE);
    assert.match(
      errorText(
        await again.call("replace_lines", {
          path: "a.txt",
          edits: [{ start_line: 4, new_text: "4" }],
        }),
      ),
      /kept only the version it showed \(grep's, or one too large to keep\).*\n5\tfour\n/s,
    );
  });

  test("a file that changes between grep's search and its version gets none", async () => {
    class ChangingStore extends MemoryStore {
      override async search(query: Parameters<MemoryStore["search"]>[0]) {
        const found = await super.search(query);
        this.set("a.txt", "zero\n" + FILE); // another writer, right after the search
        return found;
      }
    }
    const store = new ChangingStore({ "a.txt": FILE });
    const h = harness(store);
    const grep = await h.call("grep", { pattern: "four" });
    assert.equal(okText(grep), "a.txt\n4\tfour\n", "rows of the file as searched, no version");
    assert.deepEqual(grep.structuredContent?.files, [{ path: "a.txt", lines: [4] }]);
    assert.match(
      errorText(
        await h.call("replace_lines", { path: "a.txt", edits: [{ start_line: 4, new_text: "4" }] }),
      ),
      /last showed rows of this file without a version/,
    );
    assert.equal((await store.readText("a.txt")).text, "zero\n" + FILE);
  });

  test("grep versions its first 50 files; an edit of another asks for a read", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 55; i++) files[`f${String(i).padStart(2, "0")}.txt`] = "hit\n";
    const h = memoryTools(files);
    const grep = await h.call("grep", { pattern: "hit" });
    const shown = grep.structuredContent?.files as Array<{ version?: string }>;
    assert.equal(shown.filter((f) => f.version).length, 50);
    assert.match(
      okText(grep),
      /\[the first 50 files carry their versions; read any other before editing it by line number\]/,
    );
    assert.match(
      errorText(
        await h.call("replace_lines", {
          path: "f52.txt",
          edits: [{ start_line: 1, new_text: "x" }],
        }),
      ),
      /last showed rows of this file without a version/,
    );
    okText(
      await h.call("replace_lines", { path: "f49.txt", edits: [{ start_line: 1, new_text: "x" }] }),
    );
  });

  test("grep keeps room for its versions within the output budget", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 60; i++) files[`f${String(i).padStart(2, "0")}.txt`] = "hit\n";
    for (const maxChars of [400, 500, 1000]) {
      const grep = await memoryTools(files, { maxChars }).call("grep", { pattern: "hit" });
      const text = okText(grep);
      assert.ok(text.length <= maxChars, `${text.length} characters of ${maxChars}`);
      const shown = grep.structuredContent?.files as Array<{ path: string; version?: string }>;
      assert.ok(shown.length > 3 && shown.length < 60, `${shown.length} files shown`);
      for (const file of shown) {
        assert.match(file.version ?? "", /^[0-9a-f]{8}$/, file.path);
        assert.ok(text.includes(`${file.path} @${file.version}\n1\thit\n`), file.path);
      }
    }
  });

  test("a grep after a read keeps the text the read left, so edits still carry over", async () => {
    const h = await seen();
    okText(await h.call("grep", { pattern: "four" }));
    h.store.set("a.txt", "zero\n" + FILE);
    okText(
      await h.call("replace_lines", { path: "a.txt", edits: [{ start_line: 4, new_text: "4" }] }),
    );
    assert.equal(await textOf(h), "zero\none\ntwo\nthree\n4\nfive\n");
  });

  test("a session over its memory budget forgets whole files, and then asks for a read", async () => {
    const h = memoryTools({ "a.txt": FILE, "b.txt": "x".repeat(100) + "\n" }, {
      sessionBytes: 150,
    });
    okText(await h.call("read", { path: "a.txt" }));
    okText(await h.call("read", { path: "b.txt" })); // 202 bytes: a.txt goes, b.txt keeps a hash
    h.store.set("b.txt", "y\n" + "x".repeat(100) + "\n");
    assert.match(
      errorText(
        await h.call("replace_lines", { path: "a.txt", edits: [{ start_line: 1, new_text: "1" }] }),
      ),
      /has not shown this file/,
    );
    assert.match(
      errorText(
        await h.call("replace_lines", { path: "b.txt", edits: [{ start_line: 1, new_text: "1" }] }),
      ),
      /kept only the version it showed/,
    );
  });
});

describe("expected_text that does not match", () => {
  test("says the file is unchanged, finds the text elsewhere and shows the rows", async () => {
    const h = await seen();
    const message = errorText(
      await h.call("replace_lines", {
        path: "a.txt",
        edits: [{ start_line: 2, new_text: "x", expected_text: "three" }],
      }),
    );
    assert.equal(
      message,
      `a.txt: expected_text does not match line 2 (first difference at line 2); nothing was written. The file is as this session showed it, so the difference is in expected_text. That text stands at line 3: your numbers are 1 lower. The lines there now (version ${
        versionOf(FILE)
      }):\n2\ttwo\n`,
    );
  });

  test("says when the file changed, and when the text carries row prefixes", async () => {
    const h = await seen();
    h.store.set("a.txt", "zero\none\ntwo\nthree\nfour\nfive\n");
    const message = errorText(
      await h.call("replace_lines", {
        path: "a.txt",
        version: versionOf("zero\none\ntwo\nthree\nfour\nfive\n"),
        edits: [{ start_line: 2, end_line: 3, new_text: "x", expected_text: "3\ttwo\n4\tthree" }],
      }),
    );
    assert.match(message, /carries the `<n>\\t` row prefixes; pass the lines without them\./);
    assert.match(message, /That text stands at lines 3-4: your numbers are 1 lower/);
    const changed = await seen();
    changed.store.set("a.txt", "one\ntwo!\nthree\nfour\nfive\n");
    assert.match(
      errorText(
        await changed.call("insert_lines", {
          path: "a.txt",
          after_line: 1,
          text: "x",
          expected_text: "uno",
        }),
      ),
      /conflict|changed since this session showed it/,
    );
  });
});

describe("the guard as a property", () => {
  // Lines are unique, so that which line is which is plain; an outside writer deletes,
  // changes and inserts lines; the agent edits lines of the version it saw.
  const scenario = fc.record({
    size: fc.integer({ min: 1, max: 12 }),
    changes: fc.array(
      fc.record({ kind: fc.constantFrom("insert", "delete", "change"), at: fc.nat() }),
      { maxLength: 4 },
    ),
    start: fc.nat(),
    length: fc.integer({ min: 1, max: 3 }),
    insert: fc.boolean(),
  });

  test("an applied edit changes exactly the lines addressed in the version seen", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ size, changes, start, length, insert }) => {
        const seenLines = Array.from({ length: size }, (_, i) => `line ${i + 1}`);
        const h = await seen({ "f.txt": seenLines.map((l) => l + "\n").join("") });
        const now = [...seenLines];
        let fresh = 0;
        for (const change of changes) {
          const at = change.at % (now.length + 1);
          if (change.kind === "insert") now.splice(at, 0, `outside ${fresh++}`);
          else if (now.length > 0 && at < now.length) {
            if (change.kind === "delete") now.splice(at, 1);
            else now[at] = `changed ${fresh++}`;
          }
        }
        const before = now.map((l) => l + "\n").join("");
        h.store.set("f.txt", before);
        const s = start % size + 1;
        const result = insert
          ? await h.call("insert_lines", { path: "f.txt", after_line: s - 1, text: "NEW" })
          : await h.call("replace_lines", {
            path: "f.txt",
            edits: [{ start_line: s, end_line: Math.min(size, s + length - 1), new_text: "NEW" }],
          });
        const after = await textOf(h, "f.txt");
        if (insert) {
          const above = s - 1 === 0 ? undefined : seenLines[s - 2];
          const below = s - 1 === size ? undefined : seenLines[s - 1];
          const i = above === undefined ? 0 : now.indexOf(above) + 1;
          const fits = (above === undefined || i > 0) &&
            (below === undefined ? i === now.length : now[i] === below);
          if (result.isError) {
            assert.equal(after, before, "a refused edit writes nothing");
            assert.ok(!fits, `refused though its lines were unchanged: ${result.content[0].text}`);
            return;
          }
          assert.ok(fits, `an insert went through with neighbours changed: ${after}`);
          now.splice(i, 0, "NEW");
        } else {
          const addressed = seenLines.slice(s - 1, Math.min(size, s + length - 1));
          const i = now.indexOf(addressed[0]);
          const fits = i >= 0 && addressed.every((line, k) => now[i + k] === line);
          if (result.isError) {
            assert.equal(after, before, "a refused edit writes nothing");
            assert.ok(!fits, `refused though its lines were unchanged: ${result.content[0].text}`);
            return;
          }
          assert.ok(fits, `an edit went through though its lines changed: ${after}`);
          now.splice(i, addressed.length, "NEW");
        }
        assert.equal(after, now.map((l) => l + "\n").join(""));
      }),
      { numRuns: 300 },
    );
  });
});
