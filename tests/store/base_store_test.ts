import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { literalMatcher } from "../../src/core/mod.ts";
import type { SearchQuery } from "../../src/store/file_store.ts";
import type { WalkNode } from "../../src/store/walk.ts";
import { MemoryStore, type MemoryStoreOptions } from "../../src/store/memory_store.ts";
import { testFileStore } from "../../src/testing/mod.ts";

/** A store whose findMatchingFiles proposes far too many candidates, as an index might. */
class GenerousStore extends MemoryStore {
  readonly #extra: string[];
  constructor(files: Record<string, string | Uint8Array>, options: MemoryStoreOptions = {}) {
    super(files, options);
    this.#extra = [
      ...Object.keys(files),
      "missing.txt",
      "../outside.txt",
      ".git/config",
      "dir",
      "x\0y",
    ];
  }
  override async findMatchingFiles(query: SearchQuery): Promise<string[]> {
    const exact = await super.findMatchingFiles(query);
    return [...this.#extra, ...exact, ...exact].reverse();
  }
}

testFileStore("a store with a generous findMatchingFiles", (files, { deny }) => {
  const store = new GenerousStore(files, { deny });
  return { store, changeFile: (path, content) => store.set(path, content) };
});

describe("BaseFileStore", () => {
  it("search() from too many candidates equals search() from the exact walk", async () => {
    const files = {
      ".gitignore": "ignored/\nskip.txt\n",
      "ignored/a.txt": "x\n",
      "skip.txt": "x\n",
      ".hidden": "x\n",
      "src/a.ts": "x\ny\nx\n",
      "src/b.txt": "x\n",
      "deny.me": "x\n",
    };
    const exact = new MemoryStore(files, { deny: ["*.me"] });
    const generous = new GenerousStore(files, { deny: ["*.me"] });
    for (
      const query of [{}, { glob: "*.ts" }, { path: "src" }, { includeIgnored: true }, {
        path: "src/a.ts",
      }]
    ) {
      const q = { matcher: literalMatcher("x"), context: 1, ...query };
      assert.deepEqual(await generous.search(q), await exact.search(q), JSON.stringify(query));
      assert.deepEqual(await generous.glob(query), await exact.glob(query), JSON.stringify(query));
    }
  });

  it("walks hidden files of the types asked for (ripgrep's -t), from candidates too", async () => {
    const files = {
      ".gitignore": ".ignored.ts\n",
      ".eslintrc.ts": "x\n",
      ".ignored.ts": "x\n",
      ".hidden/a.ts": "x\n",
      "src/.local.ts": "x\n",
      "src/.local.md": "x\n",
      "src/b.ts": "x\n",
    };
    const query = { matcher: literalMatcher("x"), glob: "*.ts", revealTypes: ["*.ts"] };
    const paths = [".eslintrc.ts", "src/.local.ts", "src/b.ts"];
    for (const store of [new MemoryStore(files), new GenerousStore(files)]) {
      const result = await store.search(query);
      assert.deepEqual(result.files.map((file) => file.path), paths, store.constructor.name);
      const plain = await store.search({ ...query, revealTypes: undefined });
      assert.deepEqual(plain.files.map((file) => file.path), ["src/b.ts"], store.constructor.name);
    }
  });

  it("leaves out files of the types left out (ripgrep's -T), not such directories, from candidates too", async () => {
    const files = {
      "a.md": "x\n",
      "src/b.md": "x\n",
      "src/c.ts": "x\n",
      "notes.md/d.ts": "x\n",
    };
    const query = { matcher: literalMatcher("x"), hideTypes: ["*.md"] };
    for (const store of [new MemoryStore(files), new GenerousStore(files)]) {
      const result = await store.search(query);
      const paths = result.files.map((file) => file.path);
      assert.deepEqual(paths, ["notes.md/d.ts", "src/c.ts"], store.constructor.name);
      // (A glob that takes a file, where globs decide first, outweighs the types.)
      const taken = await store.search({ ...query, glob: ["*.md"], globsFirst: true });
      const takenPaths = taken.files.map((file) => file.path);
      assert.deepEqual(takenPaths, ["a.md", "src/b.md"], store.constructor.name);
    }
  });

  it("lets globs decide before the ignore rules where asked (ripgrep's -g), from candidates too", async () => {
    const files = {
      ".gitignore": "ignored/\nskip.txt\n",
      "ignored/a.txt": "x\n",
      "skip.txt": "x\n",
      ".hidden.txt": "x\n",
      ".dir/c.txt": "x\n",
      ".git/config": "x\n",
      "src/a.ts": "x\n",
      "src/b.txt": "x\n",
    };
    const exact = new MemoryStore(files);
    const generous = new GenerousStore(files);
    const found = [
      // (A file a glob takes, ignored or hidden; not one in a directory no glob takes.)
      [["*.txt"], [".hidden.txt", "skip.txt", "src/b.txt"]],
      [["*.txt", "!src/**"], [".hidden.txt", "skip.txt"]],
      [["*.txt", "!skip.txt"], [".hidden.txt", "src/b.txt"]],
      // (A directory a glob takes is entered; its files still need a glob of their own.)
      [["ignored", "*.txt"], [".hidden.txt", "ignored/a.txt", "skip.txt", "src/b.txt"]],
      [[".dir", "c.txt"], [".dir/c.txt"]],
      // (Globs that only leave out: the rules decide the rest.)
      [["!src"], []],
      [["!*.ts"], ["src/b.txt"]],
      // (Not even a glob that takes everything enters .git.)
      [["*", ".*"], [
        ".dir/c.txt",
        ".gitignore",
        ".hidden.txt",
        "ignored/a.txt",
        "skip.txt",
        "src/a.ts",
        "src/b.txt",
      ]],
    ] as const;
    // (A glob with a `/` matches the path from the root, as printed, whatever the start.)
    const below = [
      [["src/*.txt"], ["src/b.txt"]],
      [["/b.txt"], []],
    ] as const;
    for (
      const [glob, paths, path] of [
        ...found,
        ...below.map(([g, p]) => [g, p, "src"] as const),
      ]
    ) {
      const q = { matcher: literalMatcher("x"), glob, globsFirst: true, path };
      const result = await exact.search(q);
      assert.deepEqual(result.files.map((file) => file.path), paths, JSON.stringify(glob));
      assert.deepEqual(await generous.search(q), result, JSON.stringify(glob));
    }
  });

  it("lets a repository inside the tree have its rules alone, where a store says so", async () => {
    // (As the command line's directory store does: WalkSource.repositoryAt.)
    class Repositories extends MemoryStore {
      protected override repositoryAt(dir: WalkNode) {
        return dir.display === "nested" ? { exclude: "n.txt\n" } : undefined;
      }
    }
    const files = {
      ".gitignore": "*.log\n",
      "a.log": "x\n",
      "nested/.git/HEAD": "x\n",
      "nested/b.log": "x\n",
      "nested/n.txt": "x\n",
      "nested/ok.txt": "x\n",
    };
    for (const path of [".", "nested"]) {
      const result = await new Repositories(files).search({ matcher: literalMatcher("x"), path });
      assert.deepEqual(result.files.map((file) => file.path), ["nested/b.log", "nested/ok.txt"]);
    }
  });
});
