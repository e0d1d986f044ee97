// Shared by the tool-layer tests: the tools over a MemoryStore or over a DirectoryStore in a
// fresh temporary directory, and small readers of a result.
import assert from "node:assert/strict";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { DirectoryStore } from "../../src/disk/directory_store.ts";
import type { DirectoryStoreOptions } from "../../src/disk/directory_store.ts";
import { MemoryStore } from "../../src/store/memory_store.ts";
import type { FileStore } from "../../src/store/file_store.ts";
import { createTools } from "../../src/tools/create_tools.ts";
import type { ToolOptions } from "../../src/tools/options.ts";
import type { CallContext, ToolDefinition, ToolResult } from "../../src/tools/tool.ts";

/** Files to seed a store with, by path. */
export type Files = Record<string, string | Uint8Array>;

/** The tools over one store, called by name. */
export interface Harness {
  store: FileStore;
  tools: ToolDefinition[];
  /** Calls a tool by name through its guarded `call`. */
  call(name: string, args: unknown, context?: CallContext): Promise<ToolResult>;
}

/** The tools over `store`. */
export function harness(store: FileStore, options: ToolOptions = {}): Harness {
  const tools = createTools(store, options);
  return {
    store,
    tools,
    call(name, args, context) {
      const tool = tools.find((t) => t.name === name);
      if (!tool) throw new Error(`no tool ${name}`);
      return tool.call(args, context);
    },
  };
}

/** The tools over a MemoryStore holding `files` (`deny` as the store's deny globs). */
export function memoryTools(
  files: Files,
  options: ToolOptions & { deny?: string[] } = {},
): Harness & { store: MemoryStore } {
  const { deny, ...toolOptions } = options;
  const store = new MemoryStore(files, { deny });
  return { ...harness(store, toolOptions), store };
}

/** The text content of a result (there is always exactly one block). */
export function text(result: ToolResult): string {
  assert.equal(result.content.length, 1);
  assert.equal(result.content[0].type, "text");
  return result.content[0].text;
}

/** Asserts a successful result and returns its text. */
export function okText(result: ToolResult): string {
  assert.equal(result.isError, undefined, `expected success, got: ${result.content[0]?.text}`);
  return text(result);
}

/**
 * Asserts a successful result that names the file's version first, as its structured content
 * does, and returns its text without that note (for tests about the rest of the text).
 */
export function rowsText(result: ToolResult): string {
  const all = okText(result);
  const version = result.structuredContent?.version;
  assert.equal(typeof version, "string", "the result carries a version");
  const note = `[version ${version}]\n`;
  assert.ok(all.startsWith(note), `the text starts with ${note.trim()}: ${all}`);
  return all.slice(note.length);
}

/**
 * Asserts a successful grep result whose file headings end with ` @<version>`, each the
 * version its structured content gives the file, and returns the text without them.
 */
export function grepText(result: ToolResult): string {
  const files = (result.structuredContent?.files ?? []) as Array<{ version?: string }>;
  const tokens: string[] = [];
  const out = okText(result).replace(/ @([0-9a-f]{8})\n/g, (_all, version: string) => {
    tokens.push(version);
    return "\n";
  });
  assert.deepEqual(tokens, files.flatMap((f) => f.version ? [f.version] : []));
  return out;
}

/**
 * Asserts an error result carrying a plain sentence (no stack trace, no structured content)
 * and returns the message.
 */
export function errorText(result: ToolResult): string {
  assert.equal(result.isError, true, `expected an error, got: ${result.content[0]?.text}`);
  const message = text(result);
  assert.equal(result.structuredContent, undefined);
  assert.ok(message.length > 0);
  assert.doesNotMatch(message, /\n\s+at /, "an error message carries no stack trace");
  assert.doesNotMatch(message, /internal error/, `an expected failure, not a bug: ${message}`);
  return message;
}

/** A UTF-8 text as bytes. */
export function bytes(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

/** A fresh temporary directory (real path), its files, and a DirectoryStore over it. */
export interface TempRoot {
  dir: string;
  store: DirectoryStore;
  /** Absolute path of a file in the root. */
  at(name: string): string;
  /** Removes the directory. */
  remove(): Promise<void>;
}

/** Makes a temporary root holding `files`; call `remove` in finally. */
export async function tempRoot(
  files: Files = {},
  options: DirectoryStoreOptions & { deny?: string[] } = {},
): Promise<TempRoot> {
  const dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "linewise-tools-")));
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(dir, name);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, content);
  }
  const store = await DirectoryStore.create({ roots: [dir], ...options });
  return {
    dir,
    store,
    at: (name) => path.join(dir, name),
    remove: () => fs.rm(dir, { recursive: true, force: true }),
  };
}

/** Runs `body` with the tools over a temporary root holding `files`, then removes the root. */
export async function withTempRoot(
  files: Files,
  body: (root: TempRoot, tools: Harness) => Promise<void>,
  options: ToolOptions & DirectoryStoreOptions & { deny?: string[] } = {},
): Promise<void> {
  const { readOnly, maxLines, maxChars, cut, maxEditBytes, timeBudgetMs, ...storeOptions } =
    options;
  const root = await tempRoot(files, storeOptions);
  try {
    await body(
      root,
      harness(root.store, { readOnly, maxLines, maxChars, cut, maxEditBytes, timeBudgetMs }),
    );
  } finally {
    await root.remove();
  }
}

/** Checks a structured result against the required fields of an output schema. */
export function assertFitsSchema(
  value: Record<string, unknown> | undefined,
  schema: { [key: string]: unknown },
  where = "structuredContent",
): void {
  assert.ok(value && typeof value === "object", `${where} is an object`);
  const properties = (schema.properties ?? {}) as Record<
    string,
    { type?: string; items?: { [key: string]: unknown } }
  >;
  for (const name of (schema.required ?? []) as string[]) {
    assert.ok(name in value, `${where} has the required field ${name}`);
  }
  for (const [name, field] of Object.entries(value)) {
    const property = properties[name];
    assert.ok(property, `${where}.${name} is declared in the output schema`);
    if (field === undefined) continue;
    const type = property.type;
    if (type === "integer") assert.ok(Number.isInteger(field), `${where}.${name} is an integer`);
    if (type === "string") assert.equal(typeof field, "string", `${where}.${name} is a string`);
    if (type === "boolean") assert.equal(typeof field, "boolean", `${where}.${name} is boolean`);
    if (type === "array") {
      assert.ok(Array.isArray(field), `${where}.${name} is an array`);
      const items = property.items;
      if (items?.properties) {
        (field as Record<string, unknown>[]).forEach((item, i) =>
          assertFitsSchema(item, items, `${where}.${name}[${i}]`)
        );
      }
    }
  }
}
