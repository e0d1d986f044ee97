import { test } from "node:test";
import assert from "node:assert/strict";
import type { ToolDefinition, ToolResult } from "../../src/tools/tool.ts";
import { type CallRequest, createToolCalls } from "../../src/mcp/_tool_calls.ts";
import { type JsonRpcId, parseMessage, successResponse } from "../../src/mcp/json_rpc.ts";
import type { ProtocolVersion } from "../../src/mcp/protocol_versions.ts";
import { callResult } from "../../src/mcp/tool_messages.ts";

/** A tool whose calls wait until released or aborted. */
function heldTool(): { tool: ToolDefinition; release: () => void; signals: AbortSignal[] } {
  const releases: (() => void)[] = [];
  const signals: AbortSignal[] = [];
  const tool: ToolDefinition = {
    name: "held",
    title: "Held",
    description: "Waits.",
    inputSchema: { type: "object" },
    outputSchema: { type: "object" },
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    call: (_args, context) =>
      new Promise((resolve, reject) => {
        const signal = context!.signal!;
        signals.push(signal);
        signal.addEventListener("abort", () => reject(signal.reason));
        releases.push(() => resolve({ content: [{ type: "text", text: "ok" }] }));
      }),
  };
  return { tool, release: () => releases.shift()?.(), signals };
}

function request(id: number, tool: ToolDefinition, answers: Map<number, unknown>): CallRequest {
  return {
    id,
    tool,
    args: {},
    version: "2025-06-18",
    progressToken: undefined,
    reply: (json) => answers.set(id, json === undefined ? undefined : JSON.parse(json)),
  };
}

test("createToolCalls() refuses an id already in use and answers each call once", async () => {
  const { tool, release } = heldTool();
  const answers = new Map<number, unknown>();
  const calls = createToolCalls({ maxConcurrentCalls: 4, notify: () => {}, log: () => {} });
  assert.equal(calls.start(request(1, tool, answers)), true);
  assert.equal(calls.start(request(1, tool, answers)), false);
  await Promise.resolve();
  release();
  await calls.idle();
  assert.deepEqual(answers.get(1), {
    jsonrpc: "2.0",
    id: 1,
    result: { content: [{ type: "text", text: "ok" }] },
  });
  assert.equal(calls.start(request(1, tool, answers)), true, "a finished id is free again");
  calls.cancel(1, "done with it");
  await calls.idle();
});

test("createToolCalls() runs at most maxConcurrentCalls and drops a cancelled waiting call", async () => {
  const { tool, release, signals } = heldTool();
  const answers = new Map<number, unknown>();
  const calls = createToolCalls({ maxConcurrentCalls: 1, notify: () => {}, log: () => {} });
  calls.start(request(1, tool, answers));
  calls.start(request(2, tool, answers));
  calls.start(request(3, tool, answers));
  await Promise.resolve();
  assert.equal(signals.length, 1);
  calls.cancel(2, "not needed");
  assert.equal(answers.has(2), true);
  assert.equal(answers.get(2), undefined);
  release();
  while (signals.length < 2) await new Promise((resolve) => setTimeout(resolve, 0));
  release();
  await calls.idle();
  assert.equal(signals.length, 2, "the cancelled call never ran");
  assert.deepEqual([...answers.keys()].sort(), [1, 2, 3]);
});

test("createToolCalls() abandonAll() aborts running calls and answers none", async () => {
  const { tool, signals } = heldTool();
  const answers = new Map<number, unknown>();
  const calls = createToolCalls({ maxConcurrentCalls: 1, notify: () => {}, log: () => {} });
  calls.start(request(1, tool, answers));
  calls.start(request(2, tool, answers));
  await Promise.resolve();
  calls.abandonAll(new Error("EPIPE"));
  await calls.idle();
  assert.equal(signals[0].aborted, true);
  assert.deepEqual([...answers.values()], [undefined, undefined]);
});

test("createToolCalls() runs a tool that takes turns of its own without taking a slot", async () => {
  const held = heldTool();
  const turns = heldTool();
  const answers = new Map<number, unknown>();
  const calls = createToolCalls({ maxConcurrentCalls: 1, notify: () => {}, log: () => {} });
  const grep = { ...turns.tool, takesTurns: true };
  calls.start(request(1, grep, answers));
  calls.start(request(2, grep, answers));
  calls.start(request(3, held.tool, answers));
  calls.start(request(4, held.tool, answers));
  await Promise.resolve();
  assert.equal(turns.signals.length, 2, "both calls that take turns started");
  assert.equal(held.signals.length, 1, "one slot for the others, held by one of them");
  held.release();
  while (held.signals.length < 2) await new Promise((resolve) => setTimeout(resolve, 0));
  held.release();
  turns.release();
  turns.release();
  await calls.idle();
  assert.deepEqual([...answers.keys()].sort(), [1, 2, 3, 4]);
});

test("createToolCalls() answers a result given again (frozen) as it answers a new one", async () => {
  const text = { type: "text" as const, text: 'a\t"b"\n' };
  const given: ToolResult = { content: [text], structuredContent: { files: ["a"] } };
  [text, given.content, given.structuredContent, given].forEach((part) => Object.freeze(part));
  const tool: ToolDefinition = { ...heldTool().tool, call: () => Promise.resolve(given) };
  const texts: Array<[JsonRpcId, ProtocolVersion, string]> = [];
  const calls = createToolCalls({ maxConcurrentCalls: 4, notify: () => {}, log: () => {} });
  // (The last as a peer may write it, kept exactly where the runtime can: see parseMessage.)
  const big = (parseMessage('{"jsonrpc":"2.0","id":123456789012345678901234567890}') as {
    id: JsonRpcId;
  }).id;
  const ids: JsonRpcId[] = [1, "two", 3, big];
  const versions: ProtocolVersion[] = ["2025-06-18", "2025-06-18", "2024-11-05", "2026-07-28"];
  ids.forEach((id, i) => {
    const version = versions[i];
    calls.start({
      ...request(0, tool, new Map()),
      id,
      version,
      reply: (json) => texts.push([id, version, json!]),
    });
  });
  await calls.idle();
  assert.equal(texts.length, 4);
  for (const [id, version, text] of texts) {
    assert.equal(
      text,
      JSON.stringify(successResponse(id, callResult(given, version))),
      `${JSON.stringify(id)} ${version}`,
    );
  }
});

test("createToolCalls() takes a tool's arrival as each call comes, and lets it go as it ends", async () => {
  const held = heldTool();
  const taken: number[] = [];
  const released: number[] = [];
  const given: unknown[] = [];
  const tool: ToolDefinition = {
    ...held.tool,
    arrived: () => {
      const mark = taken.length;
      taken.push(mark);
      return { mark, release: () => void released.push(mark) };
    },
    call: (args, context) => (given.push(context?.arrival?.mark), held.tool.call(args, context)),
  };
  const answers = new Map<number, unknown>();
  const calls = createToolCalls({ maxConcurrentCalls: 1, notify: () => {}, log: () => {} });
  for (const id of [1, 2, 3]) calls.start(request(id, tool, answers));
  // (Each call's arrival is taken as it comes, also by those that wait for the slot.)
  assert.deepEqual([taken, given], [[0, 1, 2], [0]]);
  calls.cancel(2, "not needed");
  assert.deepEqual(released, [1], "a call cancelled while waiting lets its arrival go");
  held.release();
  while (given.length < 2) await new Promise((resolve) => setTimeout(resolve, 0));
  assert.deepEqual([given, released], [[0, 2], [1, 0]]);
  held.release();
  await calls.idle();
  assert.deepEqual(released, [1, 0, 2]);
});
