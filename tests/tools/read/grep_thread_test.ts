// The grep tool shows a result that crossed from the search thread (packed, each file's rows
// laid out whole where they fit) as it shows the same result found in its own thread, at
// every budget.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { DirectoryStore } from "../../../src/disk/directory_store.ts";
import { HAS_WORKERS } from "../../../src/io/runtime.ts";
import type { ToolOptions } from "../../../src/tools/options.ts";
import { harness, type TempRoot, tempRoot } from "../../_helpers/tools.ts";

/** Lines 1 to `count`, the ones `every` apart holding `foo`. */
function numbered(count: number, every: number, eol = "\n"): string {
  let text = "";
  for (let i = 1; i <= count; i++) text += (i % every === 0 ? `foo ${i}` : `line ${i}`) + eol;
  return text;
}

const FILES = {
  "a.txt": numbered(40, 3),
  "b/crlf.txt": numbered(12, 2, "\r\n"),
  // (Line numbers past those whose prefixes are kept.)
  "c/late.txt": numbered(70_010, 70_000),
  "d/long.txt": `foo short\n${"x".repeat(300)}foo${"y".repeat(300)}\nfoo\n`,
  "e/last.txt": "foo without an end",
  "f/wide.txt": "fooé ü 漢字 😀\nno\nfoo again\n",
};

describe("grep through the search thread", { skip: !HAS_WORKERS }, () => {
  let root: TempRoot;
  let onThread: DirectoryStore;

  before(async () => {
    root = await tempRoot(FILES);
    onThread = await DirectoryStore.create({ roots: [root.dir], searchThread: true });
  });

  after(async () => {
    onThread.close();
    await root.remove();
  });

  it("answers as the caller's thread answers, at every budget", async () => {
    const budgets: ToolOptions[] = [{}, { cut: 20 }, { maxLines: 1 }, { maxLines: 5 }];
    for (const maxChars of [1, 40, 75, 76, 77, 120, 200, 333, 800, 2000]) {
      budgets.push({ maxChars }, { maxChars, cut: 20 }, { maxChars, maxLines: 7 });
    }
    const calls = [
      { pattern: "foo" },
      { pattern: "foo", context: 1 },
      { pattern: "foo", offset: 3 },
      { pattern: "foo \\d+", max_matches: 9 },
    ];
    let compared = 0;
    for (const options of budgets) {
      const here = harness(root.store, options);
      const there = harness(onThread, options);
      for (const args of calls) {
        const expected = await here.call("grep", args);
        const got = await there.call("grep", args);
        const what = `${JSON.stringify(options)} ${JSON.stringify(args)}`;
        assert.equal(got.isError, undefined, what);
        assert.deepEqual(got.content, expected.content, what);
        assert.deepEqual(got.structuredContent, expected.structuredContent, what);
        compared++;
      }
    }
    assert.equal(compared, 136);
  });
});
