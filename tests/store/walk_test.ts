import assert from "node:assert/strict";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import { literalMatcher } from "../../src/core/mod.ts";
import { DirectoryStore } from "../../src/disk/directory_store.ts";
import { MemoryStore } from "../../src/store/memory_store.ts";
import type { SearchQuery } from "../../src/store/file_store.ts";
import {
  compileGlob,
  walkFileRuns,
  walkFiles,
  type WalkFilesOptions,
  type WalkNode,
  type WalkSource,
} from "../../src/store/walk.ts";

/** A fresh temporary directory holding these files (their folders made on the way). */
async function treeOf(name: string, files: Record<string, string>): Promise<string> {
  const root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), `linewise-${name}-`)));
  for (const [file, content] of Object.entries(files)) {
    await fs.mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await fs.writeFile(path.join(root, file), content);
  }
  return root;
}

describe("compileGlob()", () => {
  const cases: [string, string, boolean][] = [
    ["*.ts", "a.ts", true],
    ["*.ts", "src/deep/a.ts", true],
    ["*.ts", "a.tsx", false],
    ["*.ts", ".hidden.ts", true],
    ["src/*.ts", "src/a.ts", true],
    ["src/*.ts", "src/deep/a.ts", false],
    ["src/**/*.ts", "src/deep/a.ts", true],
    ["src/**/*.ts", "src/a.ts", true],
    ["/a.ts", "a.ts", true],
    ["/a.ts", "sub/a.ts", false],
    ["./src/*.ts", "src/a.ts", true],
    ["*.{ts,js}", "x/y.js", true],
    ["src\\*.ts", "src/a.ts", true],
    ["README", "docs/README", true],
  ];
  for (const [glob, file, expected] of cases) {
    it(`${JSON.stringify(glob)} ${expected ? "matches" : "does not match"} ${JSON.stringify(file)}`, () => {
      assert.equal(compileGlob(glob)(file), expected);
    });
  }
  it("refuses an empty glob with a TypeError", () => {
    assert.throws(() => compileGlob(""), TypeError);
    assert.throws(() => compileGlob([]), /a non-empty string or a list of them/);
    assert.throws(() => compileGlob(["*.ts", "!"]), /non-empty string/);
  });

  it("takes several globs with ripgrep's rules: ! excludes, a later one overrides", () => {
    const cases: [string[], string, boolean][] = [
      [["*.ts", "*.md"], "a.md", true],
      [["*.ts", "*.md"], "a.js", false],
      [["!*.md"], "a.js", true],
      [["!*.md"], "docs/a.md", false],
      [["*.ts", "!*.d.ts"], "x.d.ts", false],
      [["!*.d.ts", "*.ts"], "x.d.ts", true],
      [["*.ts", "!src/**"], "src/a.ts", false],
    ];
    for (const [globs, file, expected] of cases) {
      assert.equal(compileGlob(globs)(file), expected, `${globs} on ${file}`);
    }
  });

  it("excludes the files under a directory that a ! glob matches, as ripgrep prunes it", () => {
    // (`!node_modules` matched file names only: node_modules/p/i.js was searched.)
    const cases: [string[], string, boolean][] = [
      [["!node_modules"], "node_modules/p/i.js", false],
      [["!node_modules"], "x/node_modules/i.js", false],
      [["!node_modules"], "src/a.js", true],
      [["!node_modules/"], "node_modules/p/i.js", false],
      [["!a.js/"], "a.js", true], // (a trailing / matches directories only)
      [["!a.js/"], "x/a.js/in.txt", false],
      [["*.js", "!node_modules"], "node_modules/x.js", false],
      [["*.js", "!node_modules"], "src/x.js", true],
      [["!a/**", "*.txt"], "a/b/c.txt", false],
      [["!a/**", "*.txt"], "b/c.txt", true],
      [["!src/gen"], "src/gen/a.ts", false],
      [["!src/gen"], "lib/src/gen/a.ts", true],
      [["!build", "build/keep.txt"], "build/keep.txt", false],
    ];
    for (const [globs, file, expected] of cases) {
      assert.equal(compileGlob(globs)(file), expected, `${globs} on ${file}`);
    }
  });
});

describe("walkFileRuns()", () => {
  it("gives walkFiles' files in order, a run per stretch between directory listings", async () => {
    const store = new MemoryStore({
      "a.txt": "",
      "b/c.txt": "",
      "b/d/e.txt": "",
      "b/f.txt": "",
      "g.txt": "",
      "h.txt": "",
    });
    // (The walk source and start are the store's own, as its search uses them.)
    const inside = store as unknown as {
      walkSource: WalkSource;
      resolvePath(path: string, forWrite: boolean): Promise<WalkNode>;
    };
    const source = inside.walkSource;
    const start = await inside.resolvePath(".", false);
    const files = [];
    for await (const file of walkFiles(source, start)) files.push(file.display);
    const runs = [];
    for await (const run of walkFileRuns(source, start)) runs.push(run.map((f) => f.display));
    assert.deepEqual(runs.flat(), files);
    assert.deepEqual(runs, [["a.txt"], ["b/c.txt"], ["b/d/e.txt", "b/f.txt", "g.txt", "h.txt"]]);
  });

  it("lists no directory below maxDepth, and sizes only for maxFileSize", async () => {
    const store = new MemoryStore({ "a.txt": "", "b/c.txt": "", "b/d/e.txt": "" });
    const inside = store as unknown as {
      walkSource: WalkSource;
      resolvePath(path: string, forWrite: boolean): Promise<WalkNode>;
    };
    const start = await inside.resolvePath(".", false);
    const listed: string[] = [];
    const source: WalkSource = {
      ...inside.walkSource,
      listDirectory: (dir, options) => {
        listed.push(`${dir.display}${options.sizes ? " (sizes)" : ""}`);
        return inside.walkSource.listDirectory(dir, options);
      },
    };
    const walked = async (options: WalkFilesOptions) => {
      listed.length = 0;
      const files = [];
      for await (const run of walkFileRuns(source, start, options)) files.push(...run);
      return { files: files.map((file) => file.display), listed: [...listed] };
    };
    assert.deepEqual(await walked({ maxDepth: 1 }), { files: ["a.txt"], listed: ["."] });
    assert.deepEqual(await walked({ maxDepth: 2 }), {
      files: ["a.txt", "b/c.txt"],
      listed: [".", "b"],
    });
    assert.deepEqual((await walked({ maxFileSize: 10 })).listed, [
      ". (sizes)",
      "b (sizes)",
      "b/d (sizes)",
    ]);
  });
});

describe("walks over real files", () => {
  let root: string;
  let store: DirectoryStore;
  before(async () => {
    root = await treeOf("walk", {
      "a.txt": "needle\n",
      "dir/b.txt": "needle\n",
      "nested/.gitignore": "*.gen\n",
      "nested/x.gen": "needle\n",
      "nested/y.txt": "needle\n",
      ".git/HEAD": "needle\n",
    });
    await fs.symlink("dir", path.join(root, "dir-link"));
    await fs.symlink("a.txt", path.join(root, "file-link.txt"));
    await fs.symlink("..", path.join(root, "dir/up"));
    await fs.symlink(".", path.join(root, "dir/here"));
    await fs.symlink("missing", path.join(root, "dangling.txt"));
    store = await DirectoryStore.create({ roots: [root] });
  });
  after(async () => {
    await fs.rm(root, { recursive: true, force: true });
  });

  it("includes symlinked files, never follows symlinked directories, and has no duplicates", async () => {
    const files = await store.glob({ glob: "*" });
    assert.deepEqual(files, ["a.txt", "dir/b.txt", "file-link.txt", "nested/y.txt"]);
    const found = await store.search({ matcher: literalMatcher("needle") });
    assert.deepEqual(found.files.map((f) => f.path), files);
  });

  it("lists symlinked directories as directories without entering them, and drops dangling links", async () => {
    const entries = await store.list(".", { depth: 3 });
    assert.deepEqual(entries.map((e) => `${e.kind} ${e.path}`), [
      "directory dir",
      "directory dir/here",
      "directory dir/up",
      "file dir/b.txt",
      "directory dir-link",
      "directory nested",
      "file nested/y.txt",
      "file a.txt",
      "file file-link.txt",
    ]);
  });

  it("walks an explicit path through an in-root symlinked directory", async () => {
    assert.deepEqual(await store.glob({ path: "dir-link", glob: "*" }), ["dir-link/b.txt"]);
    assert.equal((await store.readText("dir-link/b.txt")).text, "needle\n");
  });

  it("honours a nested .gitignore without any .git directory and always skips .git", async () => {
    const all = await store.glob({ glob: "*", includeIgnored: true });
    assert.ok(all.includes("nested/x.gen"));
    assert.ok(!all.some((p) => p.startsWith(".git/")));
    assert.ok(!(await store.glob({ glob: "*" })).includes("nested/x.gen"));
  });
});

describe("a walk under .gitignore files of names and of paths, at several levels", () => {
  let root: string;
  let store: DirectoryStore;
  before(async () => {
    root = await treeOf("ignores", {
      // Paths (anchored, or with a slash inside) beside names, and a negation.
      ".gitignore": "/top.log\nbuild/\ndocs/*.tmp\n!keep.tmp\n",
      // Names only.
      "nested/.gitignore": "*.gen\n!important.gen\n",
      // An anchored path below a level of names.
      "nested/deep/.gitignore": "/local.txt\n",
      "a.txt": "",
      "top.log": "",
      "nested/top.log": "",
      "build/x.txt": "",
      "nested/build/y.txt": "",
      "docs/a.tmp": "",
      "docs/keep.tmp": "",
      "docs/sub/b.tmp": "",
      "nested/x.gen": "",
      "nested/important.gen": "",
      "nested/deep/z.gen": "",
      "nested/deep/local.txt": "",
      "nested/deep/more/local.txt": "",
    });
    store = await DirectoryStore.create({ roots: [root] });
  });
  after(async () => {
    await fs.rm(root, { recursive: true, force: true });
  });

  it("leaves out what git would, each rule at its own level", async () => {
    // (As \`git status --ignored\` and ripgrep see this tree.)
    assert.deepEqual(await store.glob({ glob: "**" }), [
      "a.txt",
      "docs/keep.tmp",
      "docs/sub/b.tmp",
      "nested/deep/more/local.txt",
      "nested/important.gen",
      "nested/top.log",
    ]);
    const entries = await store.list(".", { depth: 4 });
    assert.deepEqual(
      entries.filter((e) => e.kind === "file").map((e) => e.path).sort(),
      [...await store.glob({ glob: "**" })].sort(),
    );
  });

  it("walks a directory asked for that a rule ignores, the other rules holding in it", async () => {
    // (As ripgrep: \`rg hi build\` searches build/, and a *.gen there would still be left
    // out. All the rules above were once dropped for such a walk.)
    await fs.writeFile(path.join(root, "nested", "build", "z.gen"), "");
    try {
      assert.deepEqual(await store.glob({ glob: "**", path: "nested/build" }), [
        "nested/build/y.txt",
      ]);
    } finally {
      await fs.rm(path.join(root, "nested", "build", "z.gen"));
    }
  });
});

describe("ripgrep's own ignore files (.ignore, .rgignore), where a store reads them", () => {
  // (The same tree as tests/e2e/rg_compat_test.ts's, where ripgrep 13 gives these lists.)
  let top: string;
  let root: string;
  const files = {
    // Above the root: ripgrep reads its own files in every directory up, repository or not.
    ".ignore": "above.txt\n",
    "root/.ignore": "!x.log\nn.txt\nbuild/\n/sub/only.txt\n",
    "root/.rgignore": "!build/\n!.github/\nr.txt\n",
    "root/.gitignore": "!.cfg/\n",
    "root/sub/.gitignore": "x.log\ny.log\n",
    "root/nested/.git/HEAD": "",
    "root/above.txt": "",
    "root/r.txt": "",
    "root/only.txt": "",
    "root/.h.txt": "",
    "root/sub/x.log": "",
    "root/sub/y.log": "",
    "root/sub/only.txt": "",
    "root/nested/n.txt": "",
    "root/nested/ok.txt": "",
    "root/build/b.txt": "",
    "root/.github/w.yml": "",
    "root/.cfg/c.txt": "",
  };
  before(async () => {
    top = await treeOf("rg-ignores", files);
    root = path.join(top, "root");
    await fs.mkdir(path.join(root, ".git"));
  });
  after(async () => {
    await fs.rm(top, { recursive: true, force: true });
  });
  const storeOf = (ripgrepIgnores?: ReadonlyArray<".rgignore" | ".ignore">) =>
    DirectoryStore.create({ roots: [root], outerIgnores: true, ripgrepIgnores });
  const searched = async (store: DirectoryStore, glob = "**") => {
    const found = await store.glob({ glob });
    const entries = await store.list(".", { depth: 3 });
    // (list leaves out what glob does; its directories aside.)
    assert.deepEqual(entries.filter((e) => e.kind === "file").map((e) => e.path).sort(), found);
    return found;
  };

  it("outweigh .gitignore by rank whatever the depth, hold in a nested repository, reveal hidden names", async () => {
    assert.deepEqual(await searched(await storeOf([".rgignore", ".ignore"])), [
      ".cfg/c.txt",
      ".github/w.yml",
      "build/b.txt",
      "nested/ok.txt",
      "only.txt",
      "sub/x.log",
    ]);
  });

  it("never reveal .git, whatever a rule says", async () => {
    const tree = await treeOf("rg-dot-git", {
      ".gitignore": "!.git/\n",
      ".git/HEAD": "",
      "a.txt": "",
    });
    try {
      const store = await DirectoryStore.create({
        roots: [tree],
        ripgrepIgnores: [".rgignore", ".ignore"],
      });
      const entries = await store.list(".", { depth: 2 });
      assert.deepEqual(entries.map((e) => e.path), ["a.txt"]);
      assert.deepEqual(await store.glob({ glob: "**" }), ["a.txt"]);
    } finally {
      await fs.rm(tree, { recursive: true, force: true });
    }
  });

  it("leave .ignore out with --no-ignore-dot, as ripgrep's", async () => {
    assert.deepEqual(await searched(await storeOf([".rgignore"])), [
      ".cfg/c.txt",
      ".github/w.yml",
      "above.txt",
      "build/b.txt",
      "nested/n.txt",
      "nested/ok.txt",
      "only.txt",
      "sub/only.txt",
    ]);
  });

  it("are not read by a store that does not ask for them (a server's walks, SPEC §3)", async () => {
    const store = await DirectoryStore.create({ roots: [root] });
    assert.deepEqual(await searched(store), [
      "above.txt",
      "build/b.txt",
      "nested/n.txt",
      "nested/ok.txt",
      "only.txt",
      "r.txt",
      "sub/only.txt",
    ]);
  });

  it("apply to a walk that starts below, and to the files a store proposes", async () => {
    const store = await storeOf([".rgignore", ".ignore"]);
    assert.deepEqual(await store.glob({ glob: "**", path: "sub" }), ["sub/x.log"]);
    assert.deepEqual(await store.glob({ glob: "**", path: "nested" }), ["nested/ok.txt"]);
    // A store that reads them and proposes every file as a candidate (as an index might)
    // keeps what the walk keeps.
    const inRoot = Object.entries(files).filter(([file]) => file.startsWith("root/"))
      .map(([file, text]) => [file.slice("root/".length), text] as const);
    class Ripgrep extends MemoryStore {
      constructor(readonly generous: boolean) {
        super(Object.fromEntries(
          inRoot.map(([file, text]) => [file, file.endsWith("ignore") ? text : "x\n"]),
        ));
      }
      protected override ripgrepIgnores(): WalkSource["ripgrepIgnores"] {
        return [{ name: ".rgignore", rank: 2 }, { name: ".ignore", rank: 1 }];
      }
      protected override repositoryAt(dir: WalkNode) {
        return dir.display === "nested" ? { exclude: undefined } : undefined;
      }
      override async findMatchingFiles(query: SearchQuery): Promise<string[]> {
        if (!this.generous) return await super.findMatchingFiles(query);
        return inRoot.map(([file]) => file);
      }
    }
    const expected = [
      ".cfg/c.txt",
      ".github/w.yml",
      "above.txt", // (no file above the root here)
      "build/b.txt",
      "nested/ok.txt",
      "only.txt",
      "sub/x.log",
    ];
    for (const generous of [false, true]) {
      const found = await new Ripgrep(generous).search({ matcher: literalMatcher("x") });
      assert.deepEqual(found.files.map((file) => file.path), expected, `generous: ${generous}`);
    }
  });
});
