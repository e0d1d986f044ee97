// An edit of a large text is computed on a worker (_edit_thread.ts): the same result as on the
// thread that asked, the same refusals as their own classes with their fields, a bug still a
// bug, and a cancelled call ended at once.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  ExpectedTextMismatchError,
  InputError,
  LineRangeError,
  OldTextMatchError,
} from "../../../src/core/mod.ts";
import { versionOf } from "../../../src/versions/mod.ts";
import { type EditJob, kept, runEditJob } from "../../../src/tools/edit/_edit_jobs.ts";
import { computeEdit, OFF_THREAD_CHARS } from "../../../src/tools/edit/_edit_thread.ts";

const LINES = Math.ceil(OFF_THREAD_CHARS / 8) + 10;
/** A text just over the size computed on a worker: LINES lines of `abc def`, then `end\r\n`. */
const TEXT = "\uFEFF" + "abc def\n".repeat(LINES) + "end\r\n";
const BYTES = new TextEncoder().encode(TEXT);

function job(edit: Record<string, unknown>): EditJob {
  return { text: TEXT, exact: false, keep: 20, ...edit } as EditJob;
}

/** What a job throws, computed where it is asked for (`computeEdit`) and on this thread. */
async function thrownBoth(edit: Record<string, unknown>): Promise<[Error, Error]> {
  const there = await computeEdit(job(edit), BYTES).then(
    () => assert.fail("the worker's edit did not throw"),
    (error: Error) => error,
  );
  let here: Error | undefined;
  try {
    runEditJob(job(edit));
  } catch (error) {
    here = error as Error;
  }
  return [there, here!];
}

describe("computeEdit on a worker", () => {
  const edits = {
    "replace_all": {
      kind: "replace",
      edits: [{ old_text: "def", new_text: "x\ny", replace_all: true }],
    },
    "replace_lines": {
      kind: "lines",
      edits: [{ start_line: 2, end_line: 3, new_text: "B", expected_text: "abc def\nabc def" }],
    },
    "insert_lines": { kind: "insert", after: LINES + 1, insert: "tail\n", expected: "end" },
  };
  for (const [name, edit] of Object.entries(edits)) {
    test(`${name} gives what it gives here, with the new text's version`, async () => {
      const here = kept(runEditJob(job(edit)), 20);
      const there = await computeEdit(job(edit), BYTES);
      // (Only the worker computes the version: the edit did run there.)
      assert.equal(there.version, versionOf(here.text));
      assert.deepEqual({ ...there, version: undefined }, { ...here, version: undefined });
      assert.ok(there.regions.length <= 20);
    });
  }

  test("keeps the first 20 regions, and counts them all", async () => {
    const there = await computeEdit(job(edits.replace_all), BYTES);
    assert.equal(there.regionsTotal, LINES);
    assert.equal(there.occurrences, LINES);
    assert.deepEqual(there.regions[19], { oldStart: 20, oldEnd: 20, newStart: 39, newEnd: 40 });
  });

  test("a refusal comes back as its own class, with its fields and message", async () => {
    const cases: Array<[Record<string, unknown>, new (...args: never[]) => Error, string?]> = [
      [
        { kind: "replace", edits: [{ old_text: "abc def\nabc", new_text: "x" }] },
        OldTextMatchError,
        "lines",
      ],
      [{ kind: "replace", edits: [{ old_text: "", new_text: "x" }] }, InputError],
      [
        { kind: "lines", edits: [{ start_line: 2, new_text: "B", expected_text: "nope" }] },
        ExpectedTextMismatchError,
        "ranges",
      ],
      [{ kind: "lines", edits: [{ start_line: LINES + 5, new_text: "B" }] }, LineRangeError],
      [
        { kind: "insert", after: 1, insert: "x\n", expected: "nope" },
        ExpectedTextMismatchError,
        "ranges",
      ],
    ];
    for (const [edit, kind, field] of cases) {
      const [there, here] = await thrownBoth(edit);
      assert.ok(here instanceof kind, `${kind.name} here: ${here}`);
      assert.ok(there instanceof kind, `${kind.name} from the worker: ${there}`);
      assert.equal(there.name, here.name);
      assert.equal(there.message, here.message);
      if (field !== undefined) {
        assert.deepEqual(
          (there as unknown as Record<string, unknown>)[field],
          (here as unknown as Record<string, unknown>)[field],
        );
      }
    }
  });

  test("a bug in the edit stays a bug, not the caller's mistake", async () => {
    const [there, here] = await thrownBoth({
      kind: "replace",
      edits: [{ old_text: 5, new_text: "x" }],
    });
    assert.ok(here instanceof TypeError && !(here instanceof InputError));
    assert.ok(!(there instanceof InputError) && !(there instanceof LineRangeError));
    assert.equal(there.message, here.message);
  });

  test("bytes that are not the text's are a bug, not an edit of other content", async () => {
    const other = new TextEncoder().encode(TEXT.slice(0, -2));
    const error = await computeEdit(job(edits.replace_all), other).then(
      () => assert.fail("an edit of other bytes went through"),
      (error: Error) => error,
    );
    assert.ok(!(error instanceof InputError), String(error));
    assert.match(error.message, /decode to \d+ units, not \d+/);
  });

  test("a cancelled edit rejects with the signal's reason at once", async () => {
    const controller = new AbortController();
    const pending = computeEdit(job(edits.replace_all), BYTES, controller.signal);
    const reason = new Error("called off");
    setTimeout(() => controller.abort(reason), 20);
    await assert.rejects(pending, (error) => error === reason);
    await assert.rejects(
      computeEdit(job(edits.replace_all), BYTES, controller.signal),
      (e) => e === reason,
    );
  });
});
