import { test } from "node:test";
import assert from "node:assert/strict";
import type { ToolDefinition, ToolResult } from "../../src/tools/tool.ts";
import { callResult, toolListing } from "../../src/mcp/tool_messages.ts";

const tool: ToolDefinition = {
  name: "echo",
  title: "Echo",
  description: "Says it back.",
  inputSchema: { type: "object", properties: { text: { type: "string" } } },
  outputSchema: { type: "object", properties: { text: { type: "string" } } },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  call: () => Promise.resolve({ content: [] }),
};

test("toolListing() gives 2024-11-05 only name, description and inputSchema", () => {
  assert.deepEqual(toolListing(tool, "2024-11-05"), {
    name: "echo",
    description: "Says it back.",
    inputSchema: tool.inputSchema,
  });
});

test("toolListing() gives 2025-03-26 the annotations, with the title inside them", () => {
  assert.deepEqual(toolListing(tool, "2025-03-26"), {
    name: "echo",
    description: "Says it back.",
    inputSchema: tool.inputSchema,
    annotations: { title: "Echo", ...tool.annotations },
  });
});

test("toolListing() gives 2026-07-28 what the tool says where requests stand alone", () => {
  const alone = { type: "object" as const, properties: {}, required: ["text"] };
  const said = {
    ...tool,
    standalone: { description: "Says back what it is given.", inputSchema: alone },
  };
  assert.equal(toolListing(said, "2026-07-28").description, "Says back what it is given.");
  assert.equal(toolListing(said, "2026-07-28").inputSchema, alone);
  for (const version of ["2024-11-05", "2025-11-25"] as const) {
    assert.equal(toolListing(said, version).description, "Says it back.", version);
    assert.equal(toolListing(said, version).inputSchema, tool.inputSchema, version);
  }
  // (A tool that says nothing else is listed as it is.)
  assert.equal(toolListing(tool, "2026-07-28").description, "Says it back.");
});

for (const version of ["2025-06-18", "2025-11-25"] as const) {
  test(`toolListing() gives ${version} the title, the outputSchema and the annotations`, () => {
    assert.deepEqual(toolListing(tool, version), {
      name: "echo",
      title: "Echo",
      description: "Says it back.",
      inputSchema: tool.inputSchema,
      outputSchema: tool.outputSchema,
      annotations: tool.annotations,
    });
  });
}

const result: ToolResult = {
  content: [{ type: "text", text: "hi" }],
  structuredContent: { text: "hi" },
};

test("callResult() leaves out structuredContent before 2025-06-18", () => {
  for (const version of ["2024-11-05", "2025-03-26"] as const) {
    assert.deepEqual(callResult(result, version), { content: result.content }, version);
  }
});

test("callResult() includes structuredContent from 2025-06-18 on", () => {
  for (const version of ["2025-06-18", "2025-11-25"] as const) {
    assert.deepEqual(callResult(result, version), result, version);
  }
});

test("callResult() keeps isError only when true", () => {
  assert.deepEqual(callResult({ ...result, isError: true }, "2024-11-05"), {
    content: result.content,
    isError: true,
  });
  assert.equal("isError" in callResult({ ...result, isError: false }, "2025-06-18"), false);
});

test("callResult() refuses something that is not a tool result with a TypeError", () => {
  for (const bad of [undefined, null, "x", {}, { content: "x" }]) {
    assert.throws(() => callResult(bad as unknown as ToolResult, "2025-06-18"), TypeError);
  }
});

test("toolListing() gives the output budget as _meta from 2025-06-18 on, and only then", () => {
  const budgeted = { ...tool, maxResultChars: 60000 };
  for (const version of ["2025-06-18", "2025-11-25", "2026-07-28"] as const) {
    assert.deepEqual(toolListing(budgeted, version)._meta, {
      "anthropic/maxResultSizeChars": 60000,
    });
  }
  for (const version of ["2024-11-05", "2025-03-26"] as const) {
    assert.equal(toolListing(budgeted, version)._meta, undefined, version);
  }
});

test("callResult() names the result's type in 2026-07-28, and only there", () => {
  assert.deepEqual(callResult(result, "2026-07-28"), { resultType: "complete", ...result });
  assert.equal(callResult(result, "2025-11-25").resultType, undefined);
});
