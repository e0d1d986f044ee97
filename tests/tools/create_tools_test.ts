import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { MemoryStore } from "../../src/store/memory_store.ts";
import { createTools } from "../../src/tools/create_tools.ts";
import { LINE_RULE } from "../../src/tools/options.ts";
import { memoryTools, text } from "../_helpers/tools.ts";

const ALL = [
  "read",
  "grep",
  "glob",
  "list",
  "write",
  "replace",
  "replace_lines",
  "insert_lines",
  "patch",
  "undo",
  "move",
  "delete",
];
const READ_ONLY = ["read", "grep", "glob", "list"];

function byName() {
  return new Map(createTools(new MemoryStore()).map((tool) => [tool.name, tool]));
}

describe("createTools()", () => {
  test("createTools() makes the twelve tools, read-only ones first", () => {
    assert.deepEqual(createTools(new MemoryStore()).map((t) => t.name), ALL);
  });

  test("createTools() with readOnly leaves exactly read, grep, glob and list", () => {
    assert.deepEqual(
      createTools(new MemoryStore(), { readOnly: true }).map((t) => t.name),
      READ_ONLY,
    );
  });

  const ANNOTATIONS: Array<
    { name: string; readOnly: boolean; destructive?: boolean; idempotent: boolean }
  > = [
    { name: "read", readOnly: true, idempotent: true },
    { name: "grep", readOnly: true, idempotent: true },
    { name: "glob", readOnly: true, idempotent: true },
    { name: "list", readOnly: true, idempotent: true },
    { name: "write", readOnly: false, destructive: true, idempotent: true },
    { name: "replace", readOnly: false, destructive: true, idempotent: false },
    { name: "replace_lines", readOnly: false, destructive: true, idempotent: false },
    { name: "insert_lines", readOnly: false, destructive: false, idempotent: false },
    { name: "patch", readOnly: false, destructive: true, idempotent: false },
    { name: "undo", readOnly: false, destructive: true, idempotent: false },
    { name: "move", readOnly: false, destructive: true, idempotent: false },
    { name: "delete", readOnly: false, destructive: true, idempotent: true },
  ];
  for (const row of ANNOTATIONS) {
    test(`createTools() annotates ${row.name} as SPEC §3 says`, () => {
      const annotations = byName().get(row.name)!.annotations;
      assert.equal(annotations.readOnlyHint, row.readOnly);
      assert.equal(annotations.idempotentHint, row.idempotent);
      assert.equal(annotations.openWorldHint, false);
      if (row.destructive !== undefined) assert.equal(annotations.destructiveHint, row.destructive);
    });
  }

  const LINE_NUMBER_TOOLS = ["read", "grep", "replace", "replace_lines", "insert_lines"];
  for (const name of LINE_NUMBER_TOOLS) {
    test(`createTools() states the line rule in the description of ${name}, which deals in line numbers`, () => {
      assert.ok(byName().get(name)!.description.includes(LINE_RULE));
    });
  }

  const DEFAULTS: Array<{ tool: string; required: string[]; defaults: Record<string, unknown> }> = [
    { tool: "read", required: ["path"], defaults: { start_line: 1 } },
    {
      tool: "grep",
      required: ["pattern"],
      defaults: {
        path: ".",
        literal: false,
        ignore_case: false,
        context: 0,
        max_matches: 200,
        include_ignored: false,
      },
    },
    { tool: "glob", required: ["pattern"], defaults: { path: ".", include_ignored: false } },
    { tool: "list", required: [], defaults: { path: ".", depth: 1, include_ignored: false } },
    { tool: "write", required: ["path", "content"], defaults: { overwrite: false } },
    {
      tool: "replace",
      required: ["path"],
      defaults: { replace_all: false, dry_run: false, exact: false },
    },
    {
      tool: "replace_lines",
      required: ["path", "edits"],
      defaults: { dry_run: false, exact: false },
    },
    {
      tool: "insert_lines",
      required: ["path", "after_line", "text"],
      defaults: { dry_run: false, exact: false },
    },
    { tool: "delete", required: ["path"], defaults: {} },
  ];
  for (const row of DEFAULTS) {
    test(`createTools() gives ${row.tool} the required parameters and defaults of SPEC §3`, async () => {
      const tool = byName().get(row.tool)!;
      const schema = tool.inputSchema;
      assert.equal(schema.type, "object");
      // (The schema leaves out additionalProperties, which costs the model bytes: the tool
      // itself refuses what it does not know.)
      const unknown = await tool.call({ bogus: 1 });
      assert.equal(unknown.isError, true);
      assert.match(unknown.content[0].text, /^unknown argument "bogus"; the arguments are /);
      assert.deepEqual(schema.required ?? [], row.required);
      const properties = schema.properties as Record<
        string,
        { default?: unknown; type: string; description?: string }
      >;
      for (const [name, value] of Object.entries(row.defaults)) {
        assert.deepEqual(
          properties[name].default,
          value,
          `${row.tool}.${name} defaults to ${value}`,
        );
      }
    });
  }

  test("createTools() describes replace_lines edits with start_line, end_line, new_text and expected_text", () => {
    const edits = (byName().get("replace_lines")!.inputSchema.properties as Record<
      string,
      { items: { properties: object; required: string[] } }
    >).edits;
    assert.deepEqual(Object.keys(edits.items.properties), [
      "start_line",
      "end_line",
      "new_text",
      "expected_text",
    ]);
    assert.deepEqual(edits.items.required, ["start_line", "new_text"]);
  });

  test("createTools() gives every tool a title, a description and an object outputSchema", () => {
    for (const tool of createTools(new MemoryStore())) {
      assert.ok(tool.title.length > 0, tool.name);
      assert.ok(tool.description.length > 20, tool.name);
      assert.equal(tool.outputSchema.type, "object", tool.name);
      const required = (tool.outputSchema.required ?? []) as string[];
      const properties = tool.outputSchema.properties as Record<string, unknown>;
      for (const name of required) {
        assert.ok(name in properties, `${tool.name}: ${name} is declared`);
      }
    }
  });

  test("createTools() descriptions follow the budget options", () => {
    const read = createTools(new MemoryStore(), { maxLines: 123 }).find((t) => t.name === "read")!;
    assert.match(read.description, /123 rows/);
  });
});

describe("createTools() call()", () => {
  const JUNK: unknown[] = [null, undefined, 5, "x", [], [1], true, { bogus: 1 }, { path: 5 }, {
    path: null,
  }];
  for (const name of ALL) {
    test(`${name}'s call() never throws for junk arguments; it answers with a sentence`, async () => {
      const h = memoryTools({ "a.txt": "a\n" });
      for (const args of JUNK) {
        const result = await h.call(name, args);
        if (result.isError) {
          assert.doesNotMatch(
            text(result),
            /\n\s+at |internal error/,
            `${name}(${JSON.stringify(args)})`,
          );
        }
      }
    });
  }

  test("every tool answers random arguments with a result, never a throw or an internal error", async () => {
    const value = fc.oneof(
      fc.constant(null),
      fc.boolean(),
      fc.integer({ min: -3, max: 5 }),
      fc.constantFrom("a.txt", "", ".", "..", "/", "a.txt/", "\0", "(", "*", "x\n"),
      fc.constant([]),
      fc.constant([{ start_line: 1, new_text: "x" }]),
      fc.constant({}),
    );
    // Arguments named as each tool's own parameters, so that calls get past the name check.
    const call = fc.constantFrom(...ALL).chain((name) => {
      const keys = Object.keys(byName().get(name)!.inputSchema.properties as object);
      return fc.tuple(
        fc.constant(name),
        fc.dictionary(fc.constantFrom(...keys), value, { maxKeys: 5 }),
      );
    });
    await fc.assert(
      fc.asyncProperty(
        call,
        async ([name, args]) => {
          const h = memoryTools({ "a.txt": "one\ntwo\n", "d/b.txt": "b\n" });
          const result = await h.call(name, args);
          assert.equal(result.content.length, 1);
          if (result.isError) {
            assert.doesNotMatch(
              text(result),
              /\n\s+at |internal error/,
              `${name}(${JSON.stringify(args)})`,
            );
          }
        },
      ),
      { numRuns: 1000 },
    );
  });

  test("an aborted call rejects instead of returning an error result", async () => {
    const h = memoryTools({ "a.txt": "foo\n" });
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(h.call("grep", { pattern: "foo" }, { signal: controller.signal }), {
      name: "AbortError",
    });
  });
});

describe("createTools() and bugs", () => {
  test("a store that breaks is reported as an internal error, with its stack to the log", async () => {
    class BrokenStore extends MemoryStore {
      override readText(): never {
        throw new TypeError("Cannot read properties of undefined (reading 'lines')");
      }
    }
    const logged: string[] = [];
    const tools = createTools(new BrokenStore({ "a.txt": "x\n" }), {
      log: (message) => logged.push(message),
    });
    const read = tools.find((tool) => tool.name === "read")!;
    const result = await read.call({ path: "a.txt" });
    assert.equal(result.isError, true);
    assert.equal(
      result.content[0].text,
      "internal error: Cannot read properties of undefined (reading 'lines'); please report it",
    );
    assert.equal(logged.length, 1);
    assert.match(logged[0], /^the read tool failed: TypeError: Cannot read properties/);
    assert.match(logged[0], /\n\s+at /, "the stack goes to the log");
  });

  test("a refusal is the caller's mistake: said as it is, and nothing is logged", async () => {
    const logged: string[] = [];
    const tools = createTools(new MemoryStore({ "a.txt": "x\n" }), {
      log: (message) => logged.push(message),
    });
    const read = tools.find((tool) => tool.name === "read")!;
    const result = await read.call({ path: "a.txt", start_line: 9 });
    assert.match(result.content[0].text, /^a\.txt: start_line 9 is past the end/);
    assert.deepEqual(logged, []);
  });
});
