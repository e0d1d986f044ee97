import assert from "node:assert/strict";
import { test } from "node:test";
import { thisThreadId, threadCpuMs } from "../../src/io/thread_cpu.ts";

const id = thisThreadId();

test("a thread's processor time grows while it works, and a gone thread has none", {
  skip: id === undefined, // (where /proc tells it: Linux, and not Deno without --allow-all)
}, () => {
  const before = threadCpuMs(id!)!;
  // (Work until 50 ms of the thread's time are counted, or 10 s on a very busy machine.)
  const started = Date.now();
  let used = 0;
  while (used < 50 && Date.now() - started < 10_000) used = threadCpuMs(id!)! - before;
  assert.ok(used >= 50, `${used} ms of the thread's time in ${Date.now() - started} ms`);
  assert.equal(threadCpuMs(2 ** 31 - 1), undefined);
});
