// End to end: a cancelled edit has one commit point, the rename. A cancel heard before it
// leaves the file as it was and gets no answer; one heard after it finds the edit done, and
// the edit's answer is sent. Driven line by line, with cancels at random moments.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { initialized, tempRoot } from "../_helpers/binary.ts";

type Message = { id?: unknown; result?: { content: { text: string }[]; isError?: boolean } };

const ROUNDS = 200;

test("a cancelled edit is either done and answered, or not done and not answered", {
  timeout: 120_000,
}, async () => {
  const root = tempRoot();
  const file = join(root.dir, "a.txt");
  writeFileSync(file, "end\n");
  const session = await initialized(["serve", "--root", root.dir]);
  const insert = (id: string, text: string) => ({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "insert_lines", arguments: { path: "a.txt", after_line: 0, text } },
  });
  // A whole-file write takes the same lock as the edits, so the next edit waits for it too.
  const write = (id: string, text: string) => ({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: {
      name: "write",
      arguments: { path: "a.txt", content: `${text}end\n`, overwrite: true },
    },
  });
  try {
    // The agent reads the file first: its numbered edits refer to what it saw.
    session.sendJson({
      jsonrpc: "2.0",
      id: "read",
      method: "tools/call",
      params: { name: "read", arguments: { path: "a.txt" } },
    });
    await session.receivedUntil(`"read"`);
    // How long an edit takes here and now (a loaded machine's fsync took more than the 3 ms
    // the cancels used to wait at most, and every edit was cancelled before its commit):
    // the cancels come within twice that, so that some land on either side of the commit.
    const took: number[] = [];
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      session.sendJson(insert(`w${i}`, `W${i}\n`));
      await session.receivedUntil(`"w${i}"`);
      took.push(performance.now() - started);
    }
    const span = Math.max(3, 2 * took.sort((a, b) => a - b)[2]);
    const outcomes = { done: 0, stopped: 0, writesDone: 0, writesStopped: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      const writing = round % 2 === 1;
      session.sendJson((writing ? write : insert)(`a${round}`, `A${round}\n`));
      // A cancel now, a little later, or after the edit may be done.
      const delay = round % 4 === 0 ? 0 : Math.random() * span;
      if (delay > 0) await new Promise((wake) => setTimeout(wake, delay));
      session.sendJson({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: `a${round}`, reason: "the user pressed stop" },
      });
      // The next edit of the same file runs after the cancelled one is over (one file's
      // edits are serialised), and its answer comes after the cancelled one's, if any.
      session.sendJson(insert(`b${round}`, `B${round}\n`));
      const lines = await session.receivedUntil(`"b${round}"`) as Message[];
      const answered = lines.filter((m) => m.id === `a${round}`);
      const written = readFileSync(file, "utf8").includes(`A${round}\n`);
      assert.ok(answered.length <= 1, `round ${round}: at most one answer`);
      if (written) {
        assert.equal(answered.length, 1, `round ${round}: the edit was made, so it is answered`);
        assert.notEqual(answered[0].result?.isError, true, JSON.stringify(answered[0]));
        outcomes.done++;
        if (writing) outcomes.writesDone++;
      } else {
        assert.equal(answered.length, 0, `round ${round}: not made, so not answered`);
        outcomes.stopped++;
        if (writing) outcomes.writesStopped++;
      }
    }
    // Both sides of the commit point were reached (a test of one side only proves little).
    assert.ok(outcomes.done > 0 && outcomes.stopped > 0, JSON.stringify({ ...outcomes, span }));
    assert.ok(
      outcomes.writesDone > 0 && outcomes.writesStopped > 0,
      JSON.stringify({ ...outcomes, span }),
    );
    assert.equal(await session.close(), 0);
  } finally {
    session.child.kill();
    root.remove();
  }
});
