import { test } from "node:test";
import assert from "node:assert/strict";
import { createOutputQueue } from "../../src/mcp/_output_queue.ts";

test("createOutputQueue() writes lines in order, one write at a time, those queued meanwhile together", async () => {
  const written: string[] = [];
  let active = 0;
  const queue = createOutputQueue({
    async write(text) {
      active++;
      assert.equal(active, 1, "writes never overlap");
      if (text === "a\n") { for (const line of ["b", "c"]) queue.send(line); // while it is under way
       }
      await new Promise((resolve) => setTimeout(resolve, 0));
      written.push(text);
      active--;
    },
  }, () => assert.fail("not broken"));
  queue.send("a");
  await queue.flushed();
  await queue.flushed(); // (b and c)
  queue.send("d");
  queue.send("e");
  await queue.flushed();
  assert.deepEqual(written, ["a\n", "b\nc\n", "d\ne\n"]);
});

test("createOutputQueue() stops at the first failed write and reports it once", async () => {
  const written: string[] = [];
  const failures: unknown[] = [];
  const queue = createOutputQueue({
    write(text): void | Promise<void> {
      if (text === "bad\n") throw new Error("EPIPE");
      if (text === "worse\n") return Promise.reject(new Error("EPIPE again"));
      written.push(text);
      return undefined;
    },
  }, (error) => failures.push(error));
  queue.send("ok");
  await queue.flushed();
  queue.send("bad");
  await queue.flushed();
  queue.send("worse");
  queue.send("never");
  await queue.flushed();
  assert.deepEqual(written, ["ok\n"]);
  assert.equal(failures.length, 1);
  assert.equal(queue.broken, true);
});

test("createOutputQueue() reports a rejected write as broken", async () => {
  const failures: unknown[] = [];
  const queue = createOutputQueue(
    { write: () => Promise.reject(new Error("gone")) },
    (error) => failures.push(error),
  );
  queue.send("x");
  await queue.flushed();
  assert.equal(queue.broken, true);
  assert.equal((failures[0] as Error).message, "gone");
});
