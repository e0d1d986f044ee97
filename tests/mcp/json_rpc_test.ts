import { test } from "node:test";
import assert from "node:assert/strict";
import {
  classifyMessage,
  errorResponse,
  type IncomingMessage,
  INVALID_REQUEST,
  successResponse,
} from "../../src/mcp/json_rpc.ts";

const cases: { name: string; value: unknown; expected: Partial<IncomingMessage> }[] = [
  {
    name: "a request with a number id",
    value: { jsonrpc: "2.0", id: 1, method: "ping" },
    expected: { kind: "request", id: 1, method: "ping" },
  },
  {
    name: "a request with a string id and params",
    value: { jsonrpc: "2.0", id: "a", method: "tools/call", params: { name: "x" } },
    expected: { kind: "request", id: "a", method: "tools/call", params: { name: "x" } },
  },
  {
    name: "a request with array params",
    value: { jsonrpc: "2.0", id: 2, method: "m", params: [1] },
    expected: { kind: "request", id: 2, params: [1] },
  },
  {
    name: "a notification",
    value: { jsonrpc: "2.0", method: "notifications/initialized" },
    expected: { kind: "notification", method: "notifications/initialized" },
  },
  {
    name: "a notification with a wrong jsonrpc as a never-answered invalid notification",
    value: { jsonrpc: "1.0", method: "x" },
    expected: { kind: "invalid", id: null, notification: true },
  },
  {
    name: "a notification whose method is not a string as an invalid notification",
    value: { jsonrpc: "2.0", method: 5 },
    expected: { kind: "invalid", notification: true },
  },
  {
    name: "a wrong jsonrpc version, keeping the id",
    value: { jsonrpc: "1.0", id: 3, method: "ping" },
    expected: { kind: "invalid", id: 3, notification: false },
  },
  {
    name: "a missing jsonrpc, keeping the id",
    value: { id: 3, method: "ping" },
    expected: { kind: "invalid", id: 3, notification: false },
  },
  {
    name: "a missing method, keeping the id",
    value: { jsonrpc: "2.0", id: 4 },
    expected: { kind: "invalid", id: 4, notification: false },
  },
  {
    name: "a null id as invalid with id null",
    value: { jsonrpc: "2.0", id: null, method: "ping" },
    expected: { kind: "invalid", id: null, notification: false },
  },
  {
    name: "an object id as invalid with id null",
    value: { jsonrpc: "2.0", id: {}, method: "ping" },
    expected: { kind: "invalid", id: null, notification: false },
  },
  {
    name: "a boolean id as invalid with id null",
    value: { jsonrpc: "2.0", id: true, method: "ping" },
    expected: { kind: "invalid", id: null, notification: false },
  },
  {
    name: "string params as invalid",
    value: { jsonrpc: "2.0", id: 5, method: "ping", params: "x" },
    expected: { kind: "invalid", id: 5, notification: false },
  },
  {
    name: "null params as invalid",
    value: { jsonrpc: "2.0", id: 5, method: "ping", params: null },
    expected: { kind: "invalid", id: 5, notification: false },
  },
  {
    name: "a success response",
    value: { jsonrpc: "2.0", id: "s1", result: { roots: [] } },
    expected: { kind: "response", id: "s1", result: { roots: [] } },
  },
  {
    name: "an error response",
    value: { jsonrpc: "2.0", id: "s1", error: { code: -1, message: "no" } },
    expected: { kind: "response", id: "s1", error: { code: -1, message: "no", data: undefined } },
  },
  {
    name: "an error response with id null as a response, never answered",
    value: { jsonrpc: "2.0", id: null, error: { code: -32700, message: "parse" } },
    expected: { kind: "response", id: null },
  },
  { name: "a string", value: "x", expected: { kind: "invalid", id: null } },
  { name: "null", value: null, expected: { kind: "invalid", id: null } },
  { name: "a number", value: 7, expected: { kind: "invalid", id: null } },
  { name: "an array", value: [], expected: { kind: "invalid", id: null } },
];

for (const { name, value, expected } of cases) {
  test(`classifyMessage() classifies ${name}`, () => {
    const message = classifyMessage(value);
    for (const [key, wanted] of Object.entries(expected)) {
      assert.deepEqual((message as unknown as Record<string, unknown>)[key], wanted, key);
    }
  });
}

test("classifyMessage() says what is wrong", () => {
  const message = classifyMessage({ jsonrpc: "2.0", id: 1, method: 3 });
  assert.equal(message.kind, "invalid");
  assert.match((message as { reason: string }).reason, /"method" must be a string, got a number/);
});

test("successResponse() and errorResponse() build JSON-RPC 2.0 responses", () => {
  assert.deepEqual(successResponse("a", { x: 1 }), { jsonrpc: "2.0", id: "a", result: { x: 1 } });
  assert.deepEqual(errorResponse(null, { code: INVALID_REQUEST, message: "bad" }), {
    jsonrpc: "2.0",
    id: null,
    error: { code: -32600, message: "bad" },
  });
});
