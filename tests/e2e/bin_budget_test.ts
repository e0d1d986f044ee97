// End to end: what a model reads of the server (the instructions, and each tool's description
// and input schema) costs no more than the reference filesystem server's 7,167 bytes, and every
// tool that takes or returns line numbers still states the line rule.
import { test } from "node:test";
import assert from "node:assert/strict";
import { initialized, type RawSession, tempRoot } from "../_helpers/binary.ts";

/** The reference server's instructions, descriptions and input schemas (14 tools), in bytes. */
const REFERENCE_BYTES = 7167;
const LINE_RULE =
  /Lines count from 1 and end at \\n \(\\r\\n is one terminator; a lone \\r is text\)/;

type Tool = { name: string; description: string; inputSchema: unknown };

async function served(session: RawSession): Promise<{ instructions: string; tools: Tool[] }> {
  session.sendJson({ jsonrpc: "2.0", id: "list", method: "tools/list" });
  const lines = await session.receivedUntil('"list"') as Array<
    { id: unknown; result: Record<string, unknown> }
  >;
  const init = lines.find((line) => line.id === 0)!.result;
  const list = lines.find((line) => line.id === "list")!.result;
  return { instructions: init.instructions as string, tools: list.tools as Tool[] };
}

/** What a 2026-07-28 client reads: server/discover's instructions and the era's tool list. */
async function servedModern(session: RawSession): Promise<{ instructions: string; tools: Tool[] }> {
  const _meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  session.sendJson({
    jsonrpc: "2.0",
    id: "discover",
    method: "server/discover",
    params: { _meta },
  });
  session.sendJson({ jsonrpc: "2.0", id: "modern", method: "tools/list", params: { _meta } });
  const lines = await session.receivedUntil('"modern"') as Array<
    { id: unknown; result: Record<string, unknown> }
  >;
  const discover = lines.find((line) => line.id === "discover")!.result;
  const list = lines.find((line) => line.id === "modern")!.result;
  return { instructions: discover.instructions as string, tools: list.tools as Tool[] };
}

test("what the model reads fits the reference server's bytes, the line rule in each numbered tool", async () => {
  const root = tempRoot();
  const session = await initialized(["serve", "--root", root.dir]);
  try {
    // (Each era's: a 2026-07-28 client reads texts of its own, see ToolDefinition.standalone.)
    for (const { instructions, tools } of [await served(session), await servedModern(session)]) {
      const bytes = (text: string) => new TextEncoder().encode(text).length;
      const total = bytes(instructions) +
        tools.reduce(
          (sum, tool) => sum + bytes(tool.description) + bytes(JSON.stringify(tool.inputSchema)),
          0,
        );
      assert.equal(tools.length, 12);
      assert.ok(total <= REFERENCE_BYTES, `${total} bytes against ${REFERENCE_BYTES}`);
      assert.match(instructions, LINE_RULE);
      for (const name of ["read", "grep", "replace", "replace_lines", "insert_lines"]) {
        assert.match(tools.find((t) => t.name === name)!.description, LINE_RULE, name);
      }
    }
    assert.equal(await session.close(), 0);
  } finally {
    session.child.kill();
    root.remove();
  }
});
