import { test } from "node:test";
import assert from "node:assert/strict";
import { envelopeError, isModern } from "../../src/mcp/_modern.ts";
import type { JsonRpcParams, JsonRpcRequest } from "../../src/mcp/json_rpc.ts";

const VERSION = "io.modelcontextprotocol/protocolVersion";
const CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";

const request = (method: string, params?: JsonRpcParams): JsonRpcRequest => ({
  kind: "request",
  id: 1,
  method,
  params,
});

test("isModern() takes server/discover and a versioned _meta, nothing else", () => {
  const call = (params: JsonRpcParams) => request("tools/call", params);
  assert.ok(isModern(request("server/discover")));
  assert.ok(isModern(call({ _meta: { [VERSION]: "2026-07-28" } })));
  assert.ok(isModern(call({ _meta: { [VERSION]: 7 } })), "a bad version is refused, not legacy");
  assert.ok(!isModern(call({ _meta: { progressToken: 3 } })), "a legacy progress token");
  assert.ok(!isModern(call({ name: "read" })));
  assert.ok(!isModern(request("initialize", {})));
});

test("envelopeError() wants a string version of 2026-07-28 and the client's capabilities", () => {
  const list = (meta: Record<string, unknown>) => request("tools/list", { _meta: meta });
  assert.equal(envelopeError(list({ [VERSION]: "2026-07-28", [CAPABILITIES]: {} })), undefined);
  const code = (meta: Record<string, unknown>) =>
    (envelopeError(list(meta)) as { error: { code: number } }).error.code;
  assert.equal(code({ [VERSION]: 7, [CAPABILITIES]: {} }), -32602);
  assert.equal(code({ [VERSION]: "2025-06-18", [CAPABILITIES]: {} }), -32022);
  assert.equal(code({ [VERSION]: "2026-07-28" }), -32602);
  assert.equal(code({ [VERSION]: "2026-07-28", [CAPABILITIES]: [] }), -32602);
});
