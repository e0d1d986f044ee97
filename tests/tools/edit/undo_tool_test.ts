import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { errorText, memoryTools, okText, rowsText } from "../../_helpers/tools.ts";
import { versionOf } from "../../../src/versions/mod.ts";

const FILE = "one\r\ntwo\r\nthree\r\n";

async function edited() {
  const h = memoryTools({ "a.txt": FILE });
  okText(await h.call("read", { path: "a.txt" }));
  okText(
    await h.call("replace_lines", { path: "a.txt", edits: [{ start_line: 2, new_text: "2" }] }),
  );
  okText(await h.call("insert_lines", { path: "a.txt", after_line: 3, text: "four" }));
  return h;
}

const textOf = async (h: ReturnType<typeof memoryTools>) => (await h.store.readText("a.txt")).text;

describe("undo", () => {
  test("takes back the last edit byte for byte and shows the restored lines", async () => {
    const h = await edited();
    const result = await h.call("undo", { path: "a.txt" });
    assert.equal(await textOf(h), "one\r\n2\r\nthree\r\n");
    assert.equal(
      rowsText(result),
      "[undid 1 edit of a.txt]\n[deleted line 4; lines after 4 moved by -1]\n2\t2\r\n3\tthree\r\n",
    );
    assert.equal(result.structuredContent?.version, versionOf("one\r\n2\r\nthree\r\n"));
  });

  test("goes several steps back, then has nothing left to undo", async () => {
    const h = await edited();
    okText(await h.call("undo", { path: "a.txt", steps: 2 }));
    assert.equal(await textOf(h), FILE);
    assert.match(
      errorText(await h.call("undo", { path: "a.txt" })),
      /^a\.txt: this session has made no edit of this file that can be undone$/,
    );
  });

  test("refuses more steps than it holds, and writes nothing", async () => {
    const h = await edited();
    assert.match(
      errorText(await h.call("undo", { path: "a.txt", steps: 3 })),
      /steps 3 is more than the 2 edits of this file this session can undo/,
    );
    assert.equal(await textOf(h), "one\r\n2\r\nthree\r\nfour\r\n");
  });

  test("refuses while another writer changed the file since the last edit", async () => {
    const h = await edited();
    h.store.set("a.txt", "one\r\n2\r\nthree\r\nfour\r\nfive\r\n");
    assert.match(
      errorText(await h.call("undo", { path: "a.txt" })),
      /the file changed since this session's last edit of it, so undo would lose that change/,
    );
    assert.equal(await textOf(h), "one\r\n2\r\nthree\r\nfour\r\nfive\r\n");
  });

  test("goes back only as far as the edits follow one another", async () => {
    const h = await edited();
    h.store.set("a.txt", "zero\r\none\r\n2\r\nthree\r\nfour\r\n");
    okText(await h.call("read", { path: "a.txt" }));
    okText(
      await h.call("replace_lines", { path: "a.txt", edits: [{ start_line: 1, new_text: "0" }] }),
    );
    assert.match(
      errorText(await h.call("undo", { path: "a.txt", steps: 2 })),
      /changed between this session's edits of it, so undo can go back 1 step at most/,
    );
    okText(await h.call("undo", { path: "a.txt" }));
    assert.equal(await textOf(h), "zero\r\none\r\n2\r\nthree\r\nfour\r\n");
  });
});
