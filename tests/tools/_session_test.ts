import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { LineIndex } from "../../src/core/mod.ts";
import { Session, UNDO_STEPS, VERSIONS_PER_FILE } from "../../src/tools/_session.ts";
import { versionOf } from "../../src/versions/mod.ts";

describe("Session", () => {
  test("remembers the latest version shown of each file, and older ones by version", () => {
    const s = new Session(1 << 20);
    assert.equal(s.showed("a.txt", "one\n"), versionOf("one\n"));
    s.showed("a.txt", "two\n");
    assert.equal(s.latest("a.txt")?.text, "two\n");
    assert.equal(s.find("a.txt", versionOf("one\n"))?.text, "one\n");
    assert.equal(s.find("a.txt", versionOf("one\n").toUpperCase())?.text, "one\n");
    assert.equal(s.latest("b.txt"), undefined);
  });

  test("rows of an unknown version become the latest, with no text", () => {
    const s = new Session(1 << 20);
    s.showed("a.txt", "one\n");
    assert.equal(s.showed("a.txt", undefined), undefined);
    assert.deepEqual(s.latest("a.txt"), { version: undefined, text: undefined });
  });

  test("a file first shown without its text keeps the version and identity it was shown with", () => {
    const s = new Session(1 << 20);
    assert.equal(s.showed("a.txt", undefined, "v1", { identity: "id-1" }), "v1");
    assert.deepEqual(s.latest("a.txt"), { version: "v1", text: undefined, identity: "id-1" });
    assert.equal(s.showed("b.txt", undefined, "v2", { identity: undefined }), "v2");
    assert.deepEqual(s.latest("b.txt"), { version: "v2", text: undefined });
    // (Nothing held: the budget is untouched, and the next version shown pushes nothing out.)
    assert.equal(s.bytes, 0);
    s.showed("a.txt", "two\n");
    assert.equal(s.find("a.txt", "v1")?.identity, "id-1");
  });

  test("rows of an unknown version shown again (a grep repeated) are used, and push out no version", () => {
    const s = new Session(60);
    s.showed("a.txt", "one\n");
    s.showed("b.txt", "b".repeat(20)); // 40 bytes
    for (let i = 0; i < 6; i++) assert.equal(s.showed("a.txt", undefined), undefined);
    assert.deepEqual(s.latest("a.txt"), { version: undefined, text: undefined });
    assert.equal(s.find("a.txt", versionOf("one\n"))?.text, "one\n", "the version shown before");
    s.showed("c.txt", "c".repeat(10)); // 8 + 40 + 20 > 60: b, used least recently, goes
    assert.equal(s.latest("b.txt"), undefined);
    assert.ok(s.latest("a.txt"));
  });

  test("keeps to its budget, least recently used files first, counting 2 bytes a unit", () => {
    const s = new Session(100);
    s.showed("a.txt", "a".repeat(20)); // 40 bytes
    s.showed("b.txt", "b".repeat(20));
    s.latest("a.txt");
    s.showed("a.txt", "a".repeat(20)); // a is now the most recent
    s.showed("c.txt", "c".repeat(20)); // 120 > 100: b goes
    assert.equal(s.latest("b.txt"), undefined);
    assert.ok(s.latest("a.txt")?.text);
    assert.ok(s.bytes <= 100, `${s.bytes} bytes held`);
  });

  test("a file shown again as it was last shown (a grep repeated) keeps its text, and is used", () => {
    const s = new Session(100);
    const a = "a".repeat(20);
    const lines = new LineIndex("x\n".repeat(200)); // (4 starts kept: 16 bytes)
    s.showed("a.txt", a, undefined, { identity: "i1", lines }); // 40 + 16 bytes
    s.showed("b.txt", "b".repeat(10)); // 20 bytes
    assert.equal(s.showed("a.txt", undefined, versionOf(a), { identity: "i1" }), versionOf(a));
    assert.deepEqual(s.known("a.txt", "i1"), {
      version: versionOf(a),
      text: a,
      identity: "i1",
      lines,
    });
    s.showed("c.txt", "c".repeat(10));
    s.showed("d.txt", "d".repeat(5)); // 106 > 100: b, used least recently, goes
    assert.equal(s.latest("b.txt"), undefined);
    assert.equal(s.latest("a.txt")?.text, a);
    // Shown with another identity (the same text, the file written again): that one is known.
    s.showed("a.txt", undefined, versionOf(a), { identity: "i2" });
    assert.equal(s.known("a.txt", "i1"), undefined);
    assert.equal(s.known("a.txt", "i2")?.text, a);
  });

  test("counts the bytes of a text no more once rows of other versions push it out", () => {
    const s = new Session(1 << 20);
    const a = "a".repeat(20);
    s.showed("a.txt", a); // 40 bytes
    s.showed("b.txt", undefined, "b1"); // (no text held: nothing to count)
    assert.equal(s.bytes, 40);
    for (let i = 0; i < VERSIONS_PER_FILE; i++) s.showed("a.txt", undefined, `v${i}`);
    assert.equal(s.find("a.txt", versionOf(a)), undefined);
    assert.equal(s.bytes, 0);
    // Lines kept with a version, which rows of that version shown again (by grep) replace.
    s.showed("c.txt", undefined, "c1", { lines: new LineIndex("x\n".repeat(200)) }); // 16 bytes
    s.showed("c.txt", undefined, "c2");
    assert.equal(s.bytes, 16);
    s.showed("c.txt", undefined, "c1");
    assert.equal(s.bytes, 0);
  });

  test("latest as of a mark is the version that was the latest then", () => {
    const s = new Session(1 << 20);
    const before = s.mark();
    s.showed("a.txt", "one\n");
    const once = s.mark();
    s.showed("a.txt", "two\n");
    const twice = s.mark();
    s.showed("a.txt", "one\n"); // (shown again: the latest once more)
    assert.equal(s.latest("a.txt", before), undefined);
    assert.equal(s.latest("a.txt", once)?.text, "one\n");
    assert.equal(s.latest("a.txt", twice)?.text, "two\n");
    assert.equal(s.latest("a.txt", s.mark())?.text, "one\n");
    assert.equal(s.latest("a.txt")?.text, "one\n");
  });

  test("a held mark keeps the version that was the latest then, however many are shown", () => {
    const s = new Session(1 << 20);
    s.showed("a.txt", "v0\n");
    const held = s.hold();
    for (let i = 1; i <= 6; i++) s.showed("a.txt", `v${i}\n`);
    assert.equal(s.latest("a.txt", held.mark)?.text, "v0\n");
    held.release();
    s.showed("a.txt", "v7\n");
    assert.equal(s.latest("a.txt", held.mark), undefined, "let go once released");
  });

  test("a held mark outlives any number of shows after it, and lets them go once released", () => {
    const s = new Session(1 << 20);
    s.showed("a.txt", "v0\n");
    const held = s.hold();
    for (let i = 1; i <= 200; i++) s.showed("a.txt", `v${i}\n`);
    assert.equal(s.latest("a.txt", held.mark)?.text, "v0\n");
    held.release();
    s.showed("a.txt", "v201\n");
    assert.equal(s.latest("a.txt", held.mark), undefined, "the shows before are let go");
  });

  test("a held mark is let go past 4,096 shows of its file: its edit is refused, not misplaced", () => {
    const s = new Session(1 << 20);
    s.showed("a.txt", "v0\n");
    const held = s.hold();
    for (let i = 1; i <= 4100; i++) s.showed("a.txt", `v${i}\n`);
    assert.equal(s.latest("a.txt", held.mark), undefined);
    assert.equal(s.latest("a.txt")?.text, "v4100\n");
    held.release();
  });

  test("a hold let go twice lets go once: another hold of the same mark stays", () => {
    const s = new Session(1 << 20);
    s.showed("a.txt", "v0\n");
    const [first, second] = [s.hold(), s.hold()];
    first.release();
    first.release();
    for (let i = 1; i <= 6; i++) s.showed("a.txt", `v${i}\n`);
    assert.equal(s.latest("a.txt", second.mark)?.text, "v0\n");
    second.release();
  });

  test("a file moved to a path is shown there from the move on", () => {
    const s = new Session(1 << 20);
    s.showed("b.txt", "b\n");
    s.showed("a.txt", "a\n");
    const before = s.mark();
    s.moved("a.txt", "b.txt");
    assert.equal(s.latest("b.txt", before), undefined, "a call marked before saw another b.txt");
    assert.equal(s.latest("b.txt", s.mark())?.text, "a\n");
  });

  test("a file over the whole budget keeps its version but not its text", () => {
    const s = new Session(100);
    const big = "x".repeat(60);
    assert.equal(s.showed("big.txt", big), versionOf(big));
    assert.deepEqual(s.latest("big.txt"), { version: versionOf(big), text: undefined });
    assert.equal(s.bytes, 0);
  });

  test("keeps the last edits of a file for undo, and takes them back off", () => {
    const s = new Session(1 << 20);
    for (let i = 0; i < UNDO_STEPS + 3; i++) s.edited("a.txt", `${i}\n`, `${i + 1}\n`);
    assert.equal(s.edits("a.txt").length, UNDO_STEPS);
    assert.equal(s.latest("a.txt")?.text, `${UNDO_STEPS + 3}\n`);
    s.undone("a.txt", 2);
    assert.equal(s.edits("a.txt").length, UNDO_STEPS - 2);
  });
});
