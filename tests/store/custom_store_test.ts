// The custom-store example of docs/custom-stores.md, kept honest: a store over a plain Map implements the
// six primitives of BaseFileStore and inherits reads, grep, glob, edits and the tools.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  BaseFileStore,
  createTools,
  type DirEntry,
  type FileBytes,
  FileChangedError,
  FileExistsError,
  literalMatcher,
  NotAFileError,
  NotFoundError,
  type PathStat,
  type StorePath,
  type WalkNode,
  type WriteFileOptions,
} from "../../mod.ts";

// --- docs example starts ---
/** Files kept in a Map of path → text, e.g. a snapshot fetched from elsewhere. */
class MapStore extends BaseFileStore {
  #files: Map<string, { bytes: Uint8Array; version: number }>;
  #version = 0;

  constructor(files: Record<string, string>) {
    super();
    const entries = Object.entries(files).map(([path, text]) => [path, this.#entry(text)] as const);
    this.#files = new Map(entries);
  }

  #entry(text: string | Uint8Array) {
    const bytes = typeof text === "string" ? new TextEncoder().encode(text) : text;
    return { bytes, version: ++this.#version };
  }

  #isDir(key: string): boolean {
    return key === "." || [...this.#files.keys()].some((path) => path.startsWith(key + "/"));
  }

  protected resolvePath(path: string, forWrite: boolean): Promise<StorePath> {
    const key = path.replace(/^\.\/|\/$/g, "") || ".";
    const exists = this.#files.has(key) || this.#isDir(key);
    if (!exists && !forWrite) return Promise.reject(new NotFoundError(path));
    return Promise.resolve({ key, display: key, exists });
  }

  protected statPath(node: WalkNode): Promise<PathStat> {
    const file = this.#files.get(node.key);
    if (file) {
      return Promise.resolve({ kind: "file", size: file.bytes.length, mtimeMs: file.version });
    }
    if (this.#isDir(node.key)) return Promise.resolve({ kind: "directory", size: 0, mtimeMs: 0 });
    return Promise.reject(new NotFoundError(node.display));
  }

  protected readFile(node: WalkNode): Promise<FileBytes> {
    const file = this.#files.get(node.key);
    if (!file) return Promise.reject(new NotAFileError(node.display, "not a file"));
    return Promise.resolve({ bytes: file.bytes, version: file.version });
  }

  protected listDirectory(dir: WalkNode): Promise<DirEntry[]> {
    const prefix = dir.key === "." ? "" : dir.key + "/";
    const names = new Map<string, DirEntry>();
    for (const [path, file] of this.#files) {
      if (!path.startsWith(prefix)) continue;
      const [name, ...rest] = path.slice(prefix.length).split("/");
      const kind = rest.length > 0 ? "directory" : "file";
      names.set(name, {
        name,
        kind,
        size: kind === "file" ? file.bytes.length : 0,
        symlink: false,
      });
    }
    return Promise.resolve([...names.values()]);
  }

  protected writeFile(
    node: StorePath,
    bytes: Uint8Array,
    options: WriteFileOptions,
  ): Promise<void> {
    const current = this.#files.get(node.key);
    if (current && !options.overwrite) return Promise.reject(new FileExistsError(node.display));
    if (options.ifVersion !== undefined && current?.version !== options.ifVersion) {
      return Promise.reject(new FileChangedError(node.display));
    }
    this.#files.set(node.key, this.#entry(bytes));
    return Promise.resolve();
  }

  protected deletePath(node: StorePath): Promise<void> {
    if (this.#files.delete(node.key)) return Promise.resolve();
    return Promise.reject(new NotAFileError(node.display, "a directory"));
  }
}
// --- docs example ends ---

test("a custom store inherits grep numbering that agrees with its line reads", async () => {
  const store = new MapStore({ "src/a.ts": "one\r\ntwo\r\nthree\r\n", "b.txt": "two\n" });
  const found = await store.search({ matcher: literalMatcher("two") });
  assert.deepEqual(found.files.map((f) => [f.path, f.rows.map((r) => r.line)]), [
    ["b.txt", [1]],
    ["src/a.ts", [2]],
  ]);
  const range = await store.readLines("src/a.ts", {
    start: 2,
    maxLines: 1,
    maxChars: 100,
    cut: 2000,
  });
  assert.deepEqual(range.lines, ["two\r\n"]);
});

test("a custom store serves every tool, edits included", async () => {
  const store = new MapStore({ "src/a.ts": "one\r\ntwo\r\nthree\r\n" });
  const tools = new Map(createTools(store).map((tool) => [tool.name, tool]));
  const edited = await tools.get("replace_lines")!.call({
    path: "src/a.ts",
    edits: [{ start_line: 2, new_text: "2\n2b", expected_text: "two" }],
  });
  assert.equal(edited.isError, undefined, edited.content[0].text);
  assert.equal((await store.readText("src/a.ts")).text, "one\r\n2\r\n2b\r\nthree\r\n");
  const globbed = await tools.get("glob")!.call({ pattern: "*.ts" });
  assert.equal(globbed.content[0].text, "src/a.ts\n");
  const missing = await tools.get("read")!.call({ path: "nope.txt" });
  assert.equal(missing.isError, true);
});
