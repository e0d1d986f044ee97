import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ArgumentError, checkArgs } from "../../src/tools/_args.ts";
import type { JsonSchema } from "../../src/tools/tool.ts";

const item: JsonSchema = {
  type: "object",
  properties: {
    start_line: { type: "integer", minimum: 1 },
    new_text: { type: "string" },
  },
  required: ["start_line", "new_text"],
};

const schema: JsonSchema = {
  type: "object",
  properties: {
    path: { type: "string" },
    count: { type: "integer", minimum: 0, default: 3 },
    flag: { type: "boolean", default: false },
    edits: { type: "array", items: item },
    note: { type: "string" },
  },
  required: ["path"],
};

describe("checkArgs()", () => {
  test("checkArgs() refuses text with a lone surrogate, but not a path (a byte that is not UTF-8)", () => {
    const texts: JsonSchema = {
      type: "object",
      properties: {
        path: { type: "string" },
        content: { type: "string" },
        edits: {
          type: "array",
          items: { type: "object", properties: { new_text: { type: "string" } } },
        },
      },
      required: [],
    };
    assert.throws(() => checkArgs(texts, { content: "a\ud83d" }), {
      name: "ArgumentError",
      message:
        'argument "content" holds a lone surrogate (U+D83D), which is no character: UTF-8 cannot write it',
    });
    assert.throws(
      () => checkArgs(texts, { edits: [{ new_text: "\udc80" }] }),
      /"edits\[0\]\.new_text" holds/,
    );
    assert.deepEqual(checkArgs(texts, { path: "bad\udcff.txt", content: "😀" }), {
      path: "bad\udcff.txt",
      content: "😀",
    });
  });

  test("checkArgs() fills in defaults and leaves optional fields without one out", () => {
    assert.deepEqual(checkArgs(schema, { path: "a" }), { path: "a", count: 3, flag: false });
  });

  test("checkArgs() takes an empty optional path, glob or version as not given, but keeps text", () => {
    const optional: JsonSchema = {
      type: "object",
      properties: {
        path: { type: "string", default: "." },
        glob: { type: "string" },
        version: { type: "string" },
        new_text: { type: "string" },
      },
      required: [],
    };
    assert.deepEqual(checkArgs(optional, { path: "", glob: "", version: "", new_text: "" }), {
      path: ".",
      new_text: "",
    });
    // (As any optional argument that is no string: "" is no number or boolean.)
    assert.deepEqual(checkArgs(schema, { path: "a", count: "", flag: "" }), {
      path: "a",
      count: 3,
      flag: false,
    });
  });

  test("checkArgs() refuses a string outside its enum, naming the choices", () => {
    const choice: JsonSchema = {
      type: "object",
      properties: { output: { type: "string", enum: ["a", "b"], default: "a" } },
    };
    assert.deepEqual(checkArgs(choice, { output: "b" }), { output: "b" });
    assert.throws(() => checkArgs(choice, { output: "c" }), {
      message: 'argument "output" must be one of a, b, got the string "c"',
    });
  });

  test("checkArgs() keeps given values and checks array items against their schema", () => {
    const edits = [{ start_line: 2, new_text: "x" }];
    assert.deepEqual(checkArgs(schema, { path: "a", count: 0, flag: true, edits }), {
      path: "a",
      count: 0,
      flag: true,
      edits,
    });
  });

  test("checkArgs() treats null like a missing field, so the default applies", () => {
    assert.deepEqual(checkArgs(schema, { path: "a", count: null }), {
      path: "a",
      count: 3,
      flag: false,
    });
  });

  const REFUSED: Array<{ name: string; args: unknown; message: RegExp }> = [
    {
      name: "a string instead of an object",
      args: "x",
      message: /^arguments must be an object, got the string "x"$/,
    },
    {
      name: "an array instead of an object",
      args: [1],
      message: /^arguments must be an object, got an array$/,
    },
    {
      name: "a number instead of an object",
      args: 7,
      message: /^arguments must be an object, got number 7$/,
    },
    { name: "a missing required field", args: {}, message: /^missing required argument "path"$/ },
    {
      name: "a required path that is empty",
      args: { path: "" },
      message: /^argument "path" is empty: give a path$/,
    },
    {
      name: "a required field set to null",
      args: { path: null },
      message: /^missing required argument "path"$/,
    },
    {
      name: "an unknown field",
      args: { path: "a", bogus: 1 },
      message: /^unknown argument "bogus"; the arguments are path, count, flag, edits, note$/,
    },
    {
      name: "a field named like an Object.prototype member",
      args: { path: "a", toString: 1 },
      message: /^unknown argument "toString"/,
    },
    {
      name: "a field named constructor",
      args: { path: "a", constructor: "x" },
      message: /^unknown argument "constructor"/,
    },
    {
      name: "a field named __proto__ (as JSON.parse makes it)",
      args: JSON.parse('{"path":"a","__proto__":{"x":1}}'),
      message: /^unknown argument "__proto__"/,
    },
    {
      name: "a number for a string",
      args: { path: 5 },
      message: /^argument "path" must be a string, got number 5$/,
    },
    {
      name: "a string for an integer",
      args: { path: "a", count: "2" },
      message: /^argument "count" must be a whole number, got the string "2"$/,
    },
    {
      name: "a fraction for an integer",
      args: { path: "a", count: 1.5 },
      message: /^argument "count" must be a whole number, got number 1.5$/,
    },
    {
      name: "NaN for an integer",
      args: { path: "a", count: NaN },
      message: /^argument "count" must be a whole number, got number NaN$/,
    },
    {
      name: "Infinity for an integer",
      args: { path: "a", count: Infinity },
      message: /must be a whole number, got number Infinity$/,
    },
    {
      name: "an integer below the minimum",
      args: { path: "a", count: -1 },
      message: /^argument "count" must be 0 or more, got number -1$/,
    },
    {
      name: "a string for a boolean",
      args: { path: "a", flag: "true" },
      message: /^argument "flag" must be true or false, got the string "true"$/,
    },
    {
      name: "a number for a boolean",
      args: { path: "a", flag: 1 },
      message: /^argument "flag" must be true or false, got number 1$/,
    },
    {
      name: "an object for an array",
      args: { path: "a", edits: {} },
      message: /^argument "edits" must be an array, got an object$/,
    },
    {
      name: "an empty array",
      args: { path: "a", edits: [] },
      message: /^argument "edits" must be a non-empty array, got an empty array$/,
    },
    {
      name: "an array item that is not an object",
      args: { path: "a", edits: ["x"] },
      message: /^argument "edits\[0\]" must be an object, got the string "x"$/,
    },
    {
      name: "an array item missing a field",
      args: { path: "a", edits: [{ new_text: "x" }] },
      message: /^missing required argument "edits\[0\].start_line"$/,
    },
    {
      name: "an array item with an unknown field",
      args: { path: "a", edits: [{ start_line: 1, new_text: "", x: 1 }] },
      message: /^unknown argument "edits\[0\].x"; the arguments are start_line, new_text$/,
    },
    {
      name: "an array item below a minimum",
      args: {
        path: "a",
        edits: [{ start_line: 1, new_text: "" }, { start_line: 0, new_text: "" }],
      },
      message: /^argument "edits\[1\].start_line" must be 1 or more, got number 0$/,
    },
    {
      name: "a long string quoted only in part",
      args: { path: "a", count: "x".repeat(100) },
      message: new RegExp(`got the string "${"x".repeat(40)}"$`),
    },
  ];
  for (const row of REFUSED) {
    test(`checkArgs() refuses ${row.name} with an ArgumentError that says what is wrong`, () => {
      assert.throws(() => checkArgs(schema, row.args), (error: unknown) => {
        assert.ok(error instanceof ArgumentError, "an ArgumentError");
        assert.ok(error instanceof TypeError, "which is a TypeError");
        assert.match((error as Error).message, row.message);
        return true;
      });
    });
  }

  test("checkArgs() accepts undefined and null arguments as an empty object", () => {
    const optional: JsonSchema = {
      type: "object",
      properties: { depth: { type: "integer", default: 1 } },
    };
    assert.deepEqual(checkArgs(optional, undefined), { depth: 1 });
    assert.deepEqual(checkArgs(optional, null), { depth: 1 });
  });
});
