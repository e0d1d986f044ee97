import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, chownSync, utimesSync, writeFileSync } from "node:fs";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { Buffer } from "node:buffer";
import fc from "fast-check";
import { literalMatcher, regexMatcher } from "../../src/core/mod.ts";
import { MemoryStore } from "../../src/store/memory_store.ts";
import { removeAbandonedTempFiles } from "../../src/files/_atomic_write.ts";
import { DirectoryStore } from "../../src/disk/directory_store.ts";
import { Sandbox } from "../../src/disk/sandbox.ts";
import { FileReader } from "../../src/io/_file_reader.ts";
import { hexDigest } from "../../src/io/hashes.ts";
import { WHOLE_FILE_BYTES } from "../../src/search/_search_file.ts";
import { testFileStore } from "../../src/testing/mod.ts";
import { filesOf } from "../_helpers/files.ts";

const isDeno = typeof (globalThis as { Deno?: unknown }).Deno !== "undefined";
const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const WIDE = { maxLines: 1_000_000, maxChars: 1e12, cut: 2000 };

async function tempDir(): Promise<string> {
  return await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "linewise-ds-")));
}

/** A whole second, as a file system with a coarse clock records two writes in a row. */
const SAME_TICK = 1_700_000_000;

async function writeTree(root: string, files: Record<string, string | Uint8Array>): Promise<void> {
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(root, name);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, content);
    await fs.utimes(file, SAME_TICK, SAME_TICK);
  }
}

/**
 * Changes a file in place, as another process would, within the same tick of the file
 * system's clock: the same inode, and for text of the same size the same size and mtime too.
 */
function changeInPlace(root: string, name: string, content: string): void {
  writeFileSync(path.join(root, name), content);
  utimesSync(path.join(root, name), SAME_TICK, SAME_TICK);
}

/** The command line that runs a TypeScript file with this runtime, with the given Deno flags. */
function runtimeCommand(script: string, denoFlags: string[]): [string, string[]] {
  if (isDeno) {
    return [process.execPath, [
      "run",
      "--quiet",
      `--config=${path.join(projectRoot, "deno.json")}`,
      ...denoFlags,
      script,
    ]];
  }
  return [process.execPath, [script]];
}

/**
 * A store over a new directory holding `files` (with `prepare` run on it), for the FileStore
 * contract: closed and the directory removed after each test.
 */
async function storeOver(
  files: Record<string, string | Uint8Array>,
  options: Omit<Parameters<typeof DirectoryStore.create>[0], "roots">,
  prepare?: (store: DirectoryStore) => Promise<void>,
) {
  const root = await tempDir();
  await writeTree(root, files);
  const store = await DirectoryStore.create({ roots: [root], ...options });
  await prepare?.(store);
  return {
    store,
    cleanup: async () => {
      store.close();
      await fs.rm(root, { recursive: true, force: true });
    },
    changeFile: (name: string, content: string) => changeInPlace(root, name, content),
  };
}

testFileStore("DirectoryStore", (files, { deny }) => storeOver(files, { deny }));

testFileStore(
  "DirectoryStore (search on two threads)",
  (files, { deny }) => storeOver(files, { deny, parallelSearchFrom: 1 }),
);

// (Under Bun, the binary's runtime. Such a store starts its worker with it, and a worker
// costs Deno about 80 ms of CPU to start: 8 CPU-s over the contract's stores, against 0.4 s
// under Bun. kept_workers_test.ts runs the kept workers under both runtimes.)
if (!isDeno) {
  testFileStore(
    "DirectoryStore (search on two threads, kept between searches)",
    (files, { deny }) => storeOver(files, { deny, parallelSearchFrom: 1, keepSearchWorkers: true }),
  );
}

testFileStore(
  "DirectoryStore (one openat per component, as without openat2)",
  (files, { deny }) => storeOver(files, { deny, fileSystem: { openat2: false } }),
);

testFileStore(
  "DirectoryStore (node:fs by path, as without FFI)",
  (files, { deny }) => storeOver(files, { deny, fileSystem: { raceFree: false }, warn: () => {} }),
);

testFileStore(
  "DirectoryStore (search index, learned before each test)",
  // Under Bun the index is on, and has learned every file before the test changes any;
  // elsewhere this runs the suite once more without it.
  (files, { deny }) =>
    storeOver(files, { deny, searchIndex: true }, async (store) => {
      await store.search({ matcher: literalMatcher("x"), includeIgnored: true });
      await new Promise((resolve) => setTimeout(resolve, 1)); // (taught after the search)
      for (let i = 0; i < 500 && (store.searchIndexStats()?.queued ?? 0) > 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    }),
);

describe("DirectoryStore.glob, straight from the walk", () => {
  it("lists what the inherited glob lists, in the same order", async () => {
    // Names that sort differently by segment and by whole path ("a" vs "a.txt" vs "a-b"),
    // hidden ones, and .gitignore rules.
    const segment = fc.constantFrom("a", "a.txt", "a-b", "A", "b", ".h", "z.ts", "a b");
    const tree = fc.dictionary(
      fc.array(segment, { minLength: 1, maxLength: 3 }).map((parts) => parts.join("/")),
      fc.constant("x\n"),
      { maxKeys: 12 },
    ).map((files) => {
      // A path cannot be both a file and a directory.
      const paths = Object.keys(files).sort();
      return Object.fromEntries(
        paths.filter((p) => !paths.some((q) => q.startsWith(p + "/"))).map((p) => [p, files[p]]),
      );
    });
    await fc.assert(
      fc.asyncProperty(
        tree,
        fc.constantFrom(undefined, "*", "*.txt", "a/**", "**/b"),
        fc.boolean(),
        fc.constantFrom("", "a/\n", "*.txt\n!a.txt\n"),
        async (files, glob, includeIgnored, gitignore) => {
          const all = gitignore === "" ? files : { ...files, ".gitignore": gitignore };
          const root = await tempDir();
          try {
            await writeTree(root, all);
            const store = await DirectoryStore.create({ roots: [root] });
            const options = { glob, includeIgnored };
            assert.deepEqual(await store.glob(options), await new MemoryStore(all).glob(options));
          } finally {
            await fs.rm(root, { recursive: true, force: true });
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe("DirectoryStore with real files", () => {
  let root: string;
  before(async () => {
    root = await tempDir();
  });
  after(async () => {
    await fs.rm(root, { recursive: true, force: true });
  });

  it("writing through an in-root symlink writes the target and keeps the link", async () => {
    const dir = await fs.mkdtemp(path.join(root, "link-"));
    await writeTree(dir, { "real.txt": "old\n" });
    await fs.symlink("real.txt", path.join(dir, "alias.txt"));
    const store = await DirectoryStore.create({ roots: [dir] });
    await store.write("alias.txt", "new\n", { overwrite: true });
    assert.equal(await fs.readlink(path.join(dir, "alias.txt")), "real.txt");
    assert.equal(await fs.readFile(path.join(dir, "real.txt"), "utf8"), "new\n");
    await store.update("alias.txt", (text) => ({ text: text + "more\n", value: 0 }));
    assert.equal((await fs.lstat(path.join(dir, "alias.txt"))).isSymbolicLink(), true);
    assert.equal(await fs.readFile(path.join(dir, "real.txt"), "utf8"), "new\nmore\n");
  });

  it("a name starting with U+FEFF (a BOM's bytes) is its own file, not the name without it", async () => {
    const dir = await fs.mkdtemp(path.join(root, "bom-"));
    await writeTree(dir, { "\ufeffname.txt": "bom\n", "name.txt": "plain\n" });
    const store = await DirectoryStore.create({ roots: [dir] });
    const names = (await store.list(".")).map((entry) => entry.path).sort();
    assert.deepEqual(names, ["name.txt", "\ufeffname.txt"]);
    assert.equal((await store.readText("\ufeffname.txt")).text, "bom\n");
    const found = await store.search({ matcher: literalMatcher("bom"), glob: "*.txt" });
    assert.deepEqual(found.files.map((file) => file.path), ["\ufeffname.txt"]);
  });

  it("overwrite and update keep the file mode", async () => {
    const dir = await fs.mkdtemp(path.join(root, "mode-"));
    await writeTree(dir, { "script.sh": "echo 1\n" });
    await fs.chmod(path.join(dir, "script.sh"), 0o751);
    const store = await DirectoryStore.create({ roots: [dir] });
    await store.write("script.sh", "echo 2\n", { overwrite: true });
    assert.equal((await fs.stat(path.join(dir, "script.sh"))).mode & 0o777, 0o751);
    await store.update("script.sh", (text) => ({ text: text + "echo 3\n", value: 0 }));
    assert.equal((await fs.stat(path.join(dir, "script.sh"))).mode & 0o777, 0o751);
  });

  it("writes leave no temporary file behind", async () => {
    const dir = await fs.mkdtemp(path.join(root, "tmp-"));
    const store = await DirectoryStore.create({ roots: [dir] });
    await store.write("a.txt", "1\n");
    await store.write("a.txt", "2\n", { overwrite: true });
    await assert.rejects(store.write("a.txt", "3\n"), { code: "exists" });
    assert.deepEqual(await fs.readdir(dir), ["a.txt"]);
  });

  it("deleting a symlink removes the link, not its target", async () => {
    const dir = await fs.mkdtemp(path.join(root, "del-"));
    await writeTree(dir, { "real.txt": "keep\n" });
    await fs.symlink("real.txt", path.join(dir, "alias.txt"));
    const store = await DirectoryStore.create({ roots: [dir] });
    await store.delete("alias.txt");
    assert.deepEqual(await fs.readdir(dir), ["real.txt"]);
  });

  it("a root nested in another keeps the outer root's .gitignore rules", async () => {
    const dir = await fs.realpath(await fs.mkdtemp(path.join(root, "ignored-")));
    await writeTree(dir, {
      ".gitignore": "*.log\n",
      "sub/k.log": "hello\n",
      "sub/k.txt": "hello\n",
    });
    const store = new DirectoryStore(await Sandbox.create({ roots: [dir, path.join(dir, "sub")] }));
    assert.deepEqual(await store.glob({ path: "sub" }), ["sub/k.txt"]);
    assert.deepEqual(await store.glob({ path: "." }), ["sub/k.txt"]);
    const found = await store.search({ matcher: literalMatcher("hello"), path: "sub" });
    assert.deepEqual(found.files.map((file) => file.path), ["sub/k.txt"]);
  });

  it("a directory that holds another root is not moved", async () => {
    const dir = await fs.realpath(await fs.mkdtemp(path.join(root, "holds-")));
    await writeTree(dir, { "x/sub/k.txt": "k\n" });
    const store = new DirectoryStore(
      await Sandbox.create({ roots: [dir, path.join(dir, "x/sub")] }),
    );
    await assert.rejects(store.move("x", "y"), {
      code: "cannot_move",
      message: /"x" cannot be moved: it holds the root x\/sub; nothing was moved/,
    });
    assert.deepEqual(await fs.readdir(dir), ["x"]);
  });

  it("a grep or glob of a root holding the first root names its files as the tools do", async () => {
    const dir = await fs.realpath(await fs.mkdtemp(path.join(root, "nested-")));
    await writeTree(dir, { "top.txt": "hello\n", "sub/k.txt": "hello\n" });
    const store = new DirectoryStore(await Sandbox.create({ roots: [path.join(dir, "sub"), dir] }));
    const shown = ["k.txt", path.join(dir, "top.txt")];
    const found = await store.search({ matcher: literalMatcher("hello"), path: dir });
    assert.deepEqual(found.files.map((file) => file.path), shown);
    assert.deepEqual(await store.glob({ path: dir, glob: "*.txt" }), shown);
    assert.equal((await store.readText(path.join(dir, "sub/k.txt"))).path, "k.txt");
  });

  it("a symlink deleted with expected text is checked by its target's, and only the link goes", async () => {
    const dir = await fs.mkdtemp(path.join(root, "del-"));
    await writeTree(dir, { "real.txt": "keep\n" });
    await fs.symlink("real.txt", path.join(dir, "alias.txt"));
    const store = await DirectoryStore.create({ roots: [dir] });
    await assert.rejects(store.delete("alias.txt", { expected: "other\n" }), { code: "changed" });
    assert.deepEqual((await fs.readdir(dir)).sort(), ["alias.txt", "real.txt"]);
    await store.delete("alias.txt", { expected: "keep\n" });
    assert.deepEqual(await fs.readdir(dir), ["real.txt"]);
    assert.equal(await fs.readFile(path.join(dir, "real.txt"), "utf8"), "keep\n");
  });

  it("update() sees an edit made by another process between read and write and refuses", async () => {
    const dir = await fs.mkdtemp(path.join(root, "race-"));
    await writeTree(dir, { "a.txt": "1\n" });
    const store = await DirectoryStore.create({ roots: [dir] });
    // Same size, and possibly the same mtime: only the content tells.
    await assert.rejects(
      store.update("a.txt", (text) => {
        writeFileSync(path.join(dir, "a.txt"), "2\n");
        return { text: text + "x\n", value: 0 };
      }),
      { code: "changed" },
    );
    assert.equal(await fs.readFile(path.join(dir, "a.txt"), "utf8"), "2\n");
  });

  it("a write's tidying leaves a denied file that looks like an abandoned temporary one", async () => {
    const dir = await fs.mkdtemp(path.join(root, "tidy-"));
    const ended = spawnSync(process.execPath, ["--version"]).pid!;
    const denied = `.env.${ended}-0123456789ab.linewise-tmp`;
    const abandoned = `.notes.txt.${ended}-0123456789ab.linewise-tmp`;
    await writeTree(dir, { [denied]: "SECRET=1\n", [abandoned]: "half\n" });
    const old = Date.now() / 1000 - 120;
    for (const name of [denied, abandoned]) utimesSync(path.join(dir, name), old, old);
    const store = await DirectoryStore.create({ roots: [dir], deny: [".env*"] });
    await store.write("notes.txt", "x\n");
    assert.deepEqual((await fs.readdir(dir)).sort(), [denied, "notes.txt"].sort());
  });

  it("update() refuses a file whose mode or owner changed between read and write", async () => {
    const dir = await fs.mkdtemp(path.join(root, "race-"));
    await writeTree(dir, { "a.txt": "1\n", "b.txt": "1\n" });
    await fs.chmod(path.join(dir, "a.txt"), 0o644);
    const store = await DirectoryStore.create({ roots: [dir] });
    const changes: Record<string, (file: string) => void> = {
      "a.txt": (file) => chmodSync(file, 0o600),
      // (A chown to another user takes root, as the CI runs.)
      ...process.getuid?.() === 0 ? { "b.txt": (file: string) => chownSync(file, 1, 1) } : {},
    };
    for (const [name, change] of Object.entries(changes)) {
      const file = path.join(dir, name);
      await assert.rejects(
        store.update(name, (text) => (change(file), { text: text + "x\n", value: 0 })),
        { code: "changed" },
      );
      assert.equal(await fs.readFile(file, "utf8"), "1\n", `${name} is kept`);
    }
    assert.equal((await fs.stat(path.join(dir, "a.txt"))).mode & 0o777, 0o600, "and its mode");
  });

  it("an edit cap refuses big files with a clear error while reads still work", async () => {
    const dir = await fs.mkdtemp(path.join(root, "cap-"));
    await writeTree(dir, { "big.txt": "line\n".repeat(1000) });
    const store = await DirectoryStore.create({ roots: [dir], maxEditBytes: 1000 });
    await assert.rejects(
      store.update("big.txt", (text) => ({ text, value: 0 })),
      (error: Error & { code?: string }) => {
        assert.equal(error.code, "too_large");
        assert.match(error.message, /5000 bytes, over the 1000-byte limit/);
        return true;
      },
    );
    const range = await store.readLines("big.txt", { start: 999, ...WIDE });
    assert.deepEqual(range.lines, ["line\n", "line\n"]);
    assert.equal(range.total, 1000);
  });

  it("a FIFO is refused by every operation without blocking", { timeout: 30_000 }, async (t) => {
    const dir = await fs.mkdtemp(path.join(root, "fifo-"));
    const made = spawnSync("mkfifo", [path.join(dir, "pipe")]);
    if (made.status !== 0) {
      t.skip?.("mkfifo is not available here");
      return;
    }
    await writeTree(dir, { "a.txt": "needle\n" });
    const store = await DirectoryStore.create({ roots: [dir] });
    assert.equal((await store.stat("pipe")).kind, "other");
    for (
      const attempt of [
        () => store.readText("pipe"),
        () => store.readBytes("pipe"),
        () => store.readLines("pipe", { start: 1, ...WIDE }),
        () => store.update("pipe", (text) => ({ text, value: 0 })),
        () => store.write("pipe", "x", { overwrite: true }),
        () => store.search({ matcher: literalMatcher("needle"), path: "pipe" }),
      ]
    ) {
      await assert.rejects(attempt(), { code: "not_a_file" });
    }
    const found = await store.search({ matcher: literalMatcher("needle") });
    assert.deepEqual(found.files.map((f) => f.path), ["a.txt"]);
    assert.deepEqual(await store.list("."), [
      { path: "a.txt", kind: "file", size: 7 },
      { path: "pipe", kind: "other", size: 0 },
    ]);
    await assert.rejects(store.delete("pipe"), { code: "not_a_file" });
  });

  it("readLines() streams deep lines of a 200 MB file and search() numbers them alike", {
    timeout: 300_000,
  }, async () => {
    const dir = await fs.mkdtemp(path.join(root, "big-"));
    const file = path.join(dir, "big.txt");
    const lineCount = 2_000_000;
    // 100 bytes a line, multi-byte characters included, so that 1 MiB blocks end inside them.
    const lineOf = (n: number) => {
      const head = `${String(n).padStart(9, "0")} é€𝄞 `;
      return head + "x".repeat(100 - 1 - Buffer.byteLength(head)) + "\n";
    };
    const handle = await fs.open(file, "w");
    try {
      const perChunk = 40_000;
      for (let first = 1; first <= lineCount; first += perChunk) {
        const parts: string[] = [];
        for (let n = first; n < first + perChunk && n <= lineCount; n++) parts.push(lineOf(n));
        await handle.write(parts.join(""));
      }
    } finally {
      await handle.close();
    }
    assert.equal((await fs.stat(file)).size, lineCount * 100);
    const store = await DirectoryStore.create({ roots: [dir] });

    const middle = await store.readLines("big.txt", {
      start: 1_234_567,
      maxLines: 3,
      maxChars: 1e6,
      cut: 2000,
    });
    assert.deepEqual(middle.lines, [lineOf(1_234_567), lineOf(1_234_568), lineOf(1_234_569)]);
    assert.equal(middle.more, true);
    assert.equal(middle.total, undefined, "counting the rest of a 200 MB file is left out");

    const tail = await store.readLines("big.txt", { start: lineCount - 2, ...WIDE });
    assert.deepEqual(tail.lines, [lineOf(lineCount - 2), lineOf(lineCount - 1), lineOf(lineCount)]);
    assert.equal(tail.total, lineCount);
    assert.equal(tail.more, false);

    const past = await store.readLines("big.txt", { start: lineCount + 5, ...WIDE });
    assert.deepEqual(past.lines, []);
    assert.equal(past.total, lineCount);

    const found = await store.search({ matcher: literalMatcher("001999999 é"), context: 1 });
    assert.deepEqual(found.files[0].rows.map((r) => r.line), [1_999_998, 1_999_999, 2_000_000]);
    assert.equal(found.files[0].rows[1].text, lineOf(1_999_999));
    await fs.rm(file);
  });

  it(
    "a file rewritten in a loop and killed with SIGKILL 48 times always holds one complete version",
    { timeout: 600_000 },
    async () => {
      const dir = await fs.mkdtemp(path.join(root, "crash-"));
      const script = path.join(dir, "writer.ts");
      const storeModule = path.join(projectRoot, "src/disk/directory_store.ts");
      await fs.writeFile(
        script,
        `import { DirectoryStore } from ${JSON.stringify(storeModule)};
const [root, name] = process.argv.slice(-2);
const store = await DirectoryStore.create({ roots: [root] });
// The test holds this pipe open; a runner killed mid-test closes it and the writer ends.
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
${versionSource}
for (let i = 1; ; i++) {
  await store.write(name, version(i), { overwrite: true });
  if (i === 1) process.stdout.write("ready\\n");
}
`,
      );
      const version = new Function(`${versionSource}; return version;`)() as (i: number) => string;
      const data = path.join(dir, "data");
      await fs.mkdir(data);
      const lanes = 4;
      // (A store that writes in place fails within the first dozen kills: 9 of 9 tries.)
      const rounds = 48;
      for (let lane = 0; lane < lanes; lane++) {
        await fs.writeFile(
          path.join(data, `f${lane}.txt`),
          version(0),
        );
      }

      let kills = 0;
      async function round(lane: number): Promise<void> {
        const name = `f${lane}.txt`;
        const [command, args] = runtimeCommand(script, [
          `--allow-read=${data}`,
          `--allow-write=${data}`,
        ]);
        const child = spawn(command, [...args, data, name], { stdio: ["pipe", "pipe", "pipe"] });
        let stderr = "";
        child.stderr.on("data", (chunk) => (stderr += chunk));
        const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
        await new Promise<void>((resolve, reject) => {
          child.stdout.on("data", () => resolve());
          child.on(
            "exit",
            (code) =>
              reject(new Error(`writer exited with ${code} before it was ready: ${stderr}`)),
          );
        });
        // A random moment inside the write loop.
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 40));
        child.kill("SIGKILL");
        await exited;
        kills++;
        const content = await fs.readFile(path.join(data, name), "utf8");
        const index = Number(/^version (\d+)\n/.exec(content)?.[1]);
        assert.ok(
          Number.isInteger(index),
          `the file starts with a version header (round ${kills})`,
        );
        assert.ok(
          content === version(index),
          `the file is exactly version ${index} (round ${kills})`,
        );
      }
      for (let done = 0; done < rounds; done += lanes) {
        await Promise.all(Array.from({ length: lanes }, (_, lane) => round(lane)));
      }
      assert.ok(kills >= rounds);
      // Writes cut short leave hidden temporary files named for their killed process; what
      // a later write removes once they are old (here at any age) is all that is left over.
      const handle = filesOf(data).openDir(await fs.realpath(data));
      try {
        removeAbandonedTempFiles(handle, 0);
      } finally {
        handle.close();
      }
      assert.deepEqual(
        (await fs.readdir(data)).sort(),
        Array.from({ length: lanes }, (_, lane) => `f${lane}.txt`),
      );
    },
  );

  it(
    "under Deno it works with --allow-read=ROOT --allow-write=ROOT only, and a missing permission is a clear error",
    { timeout: 120_000, skip: isDeno ? false : "Deno permissions exist only under Deno" },
    async () => {
      const dir = await fs.mkdtemp(path.join(root, "perm-"));
      const allowed = path.join(dir, "allowed");
      const other = path.join(dir, "other");
      await writeTree(other, { "c.txt": "secret\n" });
      const script = path.join(dir, "probe.ts");
      const storeModule = path.join(projectRoot, "src/disk/directory_store.ts");
      const coreModule = path.join(projectRoot, "src/core/mod.ts");
      await fs.writeFile(
        script,
        `import { DirectoryStore } from ${JSON.stringify(storeModule)};
import { literalMatcher } from ${JSON.stringify(coreModule)};
const [allowed, other] = process.argv.slice(-2);
const out: Record<string, unknown> = {};
async function step(name: string, work: () => Promise<unknown>) {
  try { out[name] = ["ok", await work()]; }
  catch (e) { out[name] = [(e as Error).name, (e as Error).message]; }
}
const store = await DirectoryStore.create({ roots: [allowed] });
await step("read", async () => (await store.readText("a.txt")).text);
await step("lines", async () => (await store.readLines("a.txt", { start: 2, maxLines: 5, maxChars: 100, cut: 100 })).lines);
await step("grep", async () => (await store.search({ matcher: literalMatcher("needle") })).files.map((f) => f.path));
await step("list", async () => (await store.list(".")).map((e) => e.path));
await step("write", () => store.write("new/c.txt", "made\\n"));
await step("update", () => store.update("a.txt", (text) => ({ text: text + "two\\n", value: "updated" })));
await step("delete", () => store.delete("sub/b.txt"));
await step("otherRoot", () => DirectoryStore.create({ roots: [allowed, other] }).then(() => "opened"));
console.log(JSON.stringify(out));
`,
      );
      async function probe(writable: boolean) {
        await fs.rm(allowed, { recursive: true, force: true });
        await writeTree(allowed, { "a.txt": "one\nneedle\n", "sub/b.txt": "b\n" });
        const flags = [
          `--allow-read=${allowed}`,
          ...(writable ? [`--allow-write=${allowed}`] : []),
        ];
        const [command, args] = runtimeCommand(script, flags);
        const run = spawnSync(command, [...args, allowed, other], { encoding: "utf8" });
        assert.equal(run.status, 0, `the probe does not crash: ${run.stderr}`);
        return JSON.parse(run.stdout.trim().split("\n").at(-1)!);
      }

      const full = await probe(true);
      assert.deepEqual(full.read, ["ok", "one\nneedle\n"]);
      assert.deepEqual(full.lines, ["ok", ["needle\n"]]);
      assert.deepEqual(full.grep, ["ok", ["a.txt"]]);
      assert.deepEqual(full.list, ["ok", ["sub", "a.txt"]]);
      assert.equal(full.write[0], "ok");
      assert.deepEqual(full.update, ["ok", "updated"]);
      assert.equal(full.delete[0], "ok");
      assert.equal(await fs.readFile(path.join(allowed, "a.txt"), "utf8"), "one\nneedle\ntwo\n");
      assert.equal(full.otherRoot[0], "PermissionError");
      assert.match(full.otherRoot[1], /^read access to ".*other" was refused by the system$/);

      const readOnly = await probe(false);
      assert.deepEqual(readOnly.read, ["ok", "one\nneedle\n"]);
      assert.deepEqual(readOnly.grep, ["ok", ["a.txt"]]);
      for (const name of ["write", "update", "delete"]) {
        assert.equal(readOnly[name][0], "PermissionError", `${name}: ${readOnly[name][1]}`);
        assert.match(readOnly[name][1], /^write access to ".*" was refused by the system$/);
      }
      assert.equal(await fs.readFile(path.join(allowed, "a.txt"), "utf8"), "one\nneedle\n");
    },
  );
});

/** Version `i` of the crash test's file: a header naming it and a body only it has. */
const versionSource = `function version(i) {
  const line = "version " + i + " " + "abcdefghijklmnopqrstuvwxyz".repeat(3) + "\\n";
  return "version " + i + "\\n" + line.repeat(4000) + "end " + i + "\\n";
}`;

describe("DirectoryStore.search() decoding only around the required literal", () => {
  const bytes = (...parts: (string | number[])[]) =>
    Buffer.concat(parts.map((p) => typeof p === "string" ? Buffer.from(p) : Buffer.from(p)));
  const cases: { name: string; content: string | Uint8Array; pattern: string; context: number }[] =
    [
      {
        name: "one match mid-file",
        content: "a\nb\nc needle\nd\ne\n",
        pattern: "needle",
        context: 0,
      },
      {
        name: "context around it",
        content: "a\nb\nc needle\nd\ne\nf\n",
        pattern: "needle",
        context: 2,
      },
      { name: "a one-byte first line", content: "\nneedle\n", pattern: "needle", context: 1 },
      {
        name: "matches at both ends",
        content: "needle\nx\ny\nneedle",
        pattern: "needle",
        context: 0,
      },
      {
        name: "a lone CR is text",
        content: "a\rb\nc\r\nneedle\r\nz\n",
        pattern: "needle",
        context: 1,
      },
      {
        name: "a U+FEFF starting the line before the window",
        content: "x\n\uFEFFy\nz\nneedle\n",
        pattern: "needle",
        context: 0,
      },
      {
        name: "invalid UTF-8 outside the window is still reported",
        content: bytes("bad ", [0xff, 0xfe], "\nok\nneedle here\n"),
        pattern: "needle",
        context: 0,
      },
      {
        name: "a regex with a literal",
        content: "q\nw\nfoo(1)\nfoo 2\n",
        pattern: "foo\\(\\d",
        context: 0,
      },
      {
        name: "lines far from any occurrence are emptied, numbers kept",
        content: "needle 1\na\nb\nc\nd\nneedle 2\ne\nf\ng\nneedle 3",
        pattern: "needle \\d",
        context: 0,
      },
      {
        name: "context around occurrences that overlap and ones that do not",
        content: "x\nneedle 1\na\nneedle 2\nb\nc\nd\ne\nf\nneedle 3\ng\nh\n",
        pattern: "needle",
        context: 2,
      },
      {
        name: "CRLF, a lone CR and invalid bytes in emptied lines",
        content: bytes("needle\r\n", "bad ", [0xff], "\r\n", "x\ry\r\n", "needle\r\n", "z"),
        pattern: "needle",
        context: 0,
      },
      {
        name: "a real BOM before the first occurrence",
        content: "\uFEFFneedle\nx\nneedle\n",
        pattern: "needle",
        context: 0,
      },
      {
        name: "U+FEFF starting a line after emptied ones",
        content: "a\nb\n\uFEFFneedle\nc\nd\n\uFEFFneedle\n",
        pattern: "needle",
        context: 0,
      },
      {
        name: "a regex whose lines without the literal are emptied",
        content: "function aSync(\nfunction b() {}\nconst x = 1;\nfunction cSync(\n",
        pattern: "function \\w+Sync\\(",
        context: 1,
      },
      {
        name: "the literal without a match",
        content: "a\nneedle\n",
        pattern: "needle\\d",
        context: 1,
      },
    ];
  for (const { name, content, pattern, context } of cases) {
    it(`numbers rows as the in-memory store does: ${name}`, async () => {
      const root = await tempDir();
      try {
        await writeTree(root, { "f.txt": content });
        const memory = new MemoryStore({ "f.txt": content });
        const query = { matcher: regexMatcher(pattern), context };
        const want = await memory.search(query);
        for (const parallelSearchFrom of [256, 1]) {
          const store = await DirectoryStore.create({ roots: [root], parallelSearchFrom });
          const got = await store.search(query);
          assert.deepEqual(got.files, want.files);
          assert.equal(got.matchedLines, want.matchedLines);
        }
      } finally {
        await fs.rm(root, { recursive: true });
      }
    });
  }
});

describe("DirectoryStore.search() of files larger than it reads whole", () => {
  // 17 MB of 100-byte lines: the file is streamed in runs of lines (the first ends at line
  // 163, the second is line 164 alone), and a run without the needle is counted, not decoded;
  // in one with it, only the lines holding it are. Some lines hold it in other letters' case,
  // or hold a part of it (what a search ignoring case looks for first); the last line has no
  // `\n`.
  const lines = 170_000;
  const heads: Record<number, string> = {
    164: "a Needle here",
    2_000: "NEEDLE",
    2_003: "NeEdL nEEDl eedle",
    50_000: "two: nEeDlE and needle",
    169_000: "a Needle here",
  };
  const lineOf = (n: number) => {
    const head = `${n} ${heads[n] ?? ""} `;
    if (n === lines) return `${n} Needle at the end`;
    return head + "x".repeat(99 - head.length) + "\n";
  };
  const text = Array.from({ length: lines }, (_, i) => lineOf(i + 1)).join("");
  const content = Buffer.from(text);
  content[5] = 0xff; // (invalid UTF-8 in line 1, in a run without the needle)
  // (Invalid UTF-8 only in line 2002, which holds no needle, in a run with lines that do.)
  const beside = Buffer.from(text);
  beside[2_001 * 100 + 50] = 0xfe;
  const binary = Buffer.concat([Buffer.from([0]), content]);
  // (Lines over the 4 MiB a search holds whole: one holding the needle far into it, one not.)
  const long = Buffer.from(
    `${"x".repeat(9_000_000)}Needle\n${"y".repeat(5_000_000)}\n${
      `${"z\n".repeat(999)}a Needle\n`.repeat(3_500)
    }`,
  );
  // (A count where every line holding the needle is a match is taken in the bytes, run by
  // run, the long lines searched as they pass.)
  const queries = {
    "a literal": { matcher: literalMatcher("Needle") },
    "context across runs": { matcher: literalMatcher("Needle"), context: 1 },
    "ignoring case": { matcher: regexMatcher("needle", { ignoreCase: true }) },
    "none": { matcher: literalMatcher("absent") },
    "a count of a literal": { matcher: literalMatcher("Needle"), countOnly: true },
    "a count of alternatives": { matcher: regexMatcher("nEeDlE|Needle"), countOnly: true },
    "a count of at most 2 a file": {
      matcher: literalMatcher("Needle"),
      countOnly: true,
      maxMatchesPerFile: 2,
    },
  };
  for (const [name, asked] of Object.entries(queries)) {
    // (Every matching line: the default cap of 200 would stop in the long lines' file.)
    const query = { maxMatches: Infinity, ...asked };
    it(`finds what the in-memory store finds: ${name}`, { timeout: 60_000 }, async () => {
      const root = await tempDir();
      try {
        const tree = { "beside.txt": beside, "big.txt": content, "bin.dat": binary, long };
        await writeTree(root, tree);
        const want = await new MemoryStore(tree).search(query);
        const got = await (await DirectoryStore.create({ roots: [root] })).search(query);
        assert.deepEqual(got.files, want.files);
        assert.deepEqual(
          [got.matchedLines, got.filesSearched, got.binaryFilesSkipped],
          [want.matchedLines, want.filesSearched, want.binaryFilesSkipped],
        );
        if (name !== "none") {
          assert.deepEqual(got.files.map((f) => [f.path, f.invalidUtf8]), [
            ["beside.txt", true],
            ["big.txt", true],
            ["long", false],
          ]);
        }
        if (name === "ignoring case") assert.equal(got.matchedLines, 2 * 5 + 3_501);
      } finally {
        await fs.rm(root, { recursive: true });
      }
    });
  }

  it("stops a count in the bytes between runs once the search is called off", async () => {
    const root = await tempDir();
    try {
      await writeTree(root, { "big.txt": content });
      const store = await DirectoryStore.create({ roots: [root], searchThreads: 1 });
      const files = store.sandbox.files;
      const readAsync = files.readAsync.bind(files);
      const stop = new AbortController();
      let reads = 0;
      let readsAfter = 0;
      // (Called off at the file's second block; a run is counted between two reads.)
      files.readAsync = (...args) => {
        if (stop.signal.aborted) readsAfter++;
        else if (++reads === 2) stop.abort(new Error("called off"));
        return readAsync(...args);
      };
      const query = { matcher: literalMatcher("Needle"), countOnly: true, signal: stop.signal };
      await assert.rejects(store.search({ ...query, path: "big.txt" }), /called off/);
      assert.equal(reads, 2);
      assert.ok(readsAfter <= 1, `${readsAfter} blocks read after it was called off`);
      store.close();
    } finally {
      await fs.rm(root, { recursive: true });
    }
  });
});

describe("DirectoryStore.search() asking for digests", () => {
  it("reads each of the first files once: the examination gives their digests", async () => {
    const root = await tempDir();
    try {
      const names = Array.from({ length: 6 }, (_, i) => `f${i}.txt`);
      await writeTree(root, Object.fromEntries(names.map((name) => [name, "a needle\n"])));
      await new Promise((resolve) => setTimeout(resolve, 1100)); // (identities: see identityText)
      const store = await DirectoryStore.create({ roots: [root], searchThreads: 1 });
      const opened: string[] = [];
      const files = store.sandbox.files;
      const openRead = files.openRead.bind(files);
      files.openRead = (name) => (opened.push(path.basename(name)), openRead(name));
      const digests = { afterMatches: 0, files: 4, maxBytes: 1000 };
      const result = await store.search({ matcher: literalMatcher("needle"), digests });
      const digested = result.files.filter((file) => file.sha1 !== undefined);
      assert.deepEqual(digested.map((file) => file.path).slice(0, 4), names.slice(0, 4));
      assert.deepEqual(opened.toSorted(), names, "each file opened once");
      store.close();
    } finally {
      await fs.rm(root, { recursive: true });
    }
  });

  it("reads once the first files with matches that come after others, on two threads", async () => {
    const root = await tempDir();
    try {
      // (Enough files for the workers: the examination counts its digests across threads.)
      const quiet = Array.from({ length: 300 }, (_, i) => `a${String(i).padStart(3, "0")}.txt`);
      const loud = Array.from({ length: 30 }, (_, i) => `b${String(i).padStart(2, "0")}.txt`);
      await writeTree(root, {
        ...Object.fromEntries(quiet.map((name) => [name, "nothing here\n"])),
        ...Object.fromEntries(loud.map((name) => [name, "a needle\n"])),
      });
      await new Promise((resolve) => setTimeout(resolve, 1100)); // (identities: see identityText)
      for (const searchThreads of [1, 2]) {
        const store = await DirectoryStore.create({
          roots: [root],
          searchThreads,
          parallelSearchFrom: 1,
        });
        const opened = new Map<string, number>();
        const files = store.sandbox.files;
        const openRead = files.openRead.bind(files);
        files.openRead = (name) => {
          opened.set(path.basename(name), (opened.get(path.basename(name)) ?? 0) + 1);
          return openRead(name);
        };
        const digests = { afterMatches: 0, files: 4, maxBytes: 1000 };
        const result = await store.search({ matcher: literalMatcher("needle"), digests });
        assert.deepEqual(result.files.map((file) => file.path), loud);
        const first = result.files.slice(0, 4);
        assert.ok(first.every((file) => file.sha1 === hexDigest("sha1", "a needle\n")));
        assert.ok(first.every((file) => file.identity !== undefined));
        // (Found as the examination went, not read again for their digests: on one thread,
        // every open is seen here.)
        if (searchThreads === 1) assert.deepEqual([...new Set(opened.values())], [1]);
        // (At most half a batch more than asked for.)
        const given = result.files.filter((file) => file.sha1 !== undefined).length;
        assert.ok(given <= 4 + 16, `${given} digests`);
        store.close();
      }
    } finally {
      await fs.rm(root, { recursive: true });
    }
  });
});

describe("DirectoryStore.search() reading a file again", () => {
  it("examines the bytes before it awaits: a read of another search may follow", async () => {
    const root = await tempDir();
    try {
      await writeTree(root, { "a.txt": "x\nneedle\n", "b.txt": `${"z".repeat(40)}\n` });
      const store = await DirectoryStore.create({ roots: [root], searchThreads: 1 });
      const files = store.sandbox.files;
      const openRead = files.openRead.bind(files);
      let opens = 0;
      files.openRead = (name) => {
        if (path.basename(name) !== "a.txt") return openRead(name);
        // The first open fails: the examination leaves the file to be read again. The
        // second lets a read of this thread follow at the first await, as another search's
        // would; the thread's readers share one buffer.
        if (++opens === 1) throw Object.assign(new Error("busy"), { code: "EBUSY" });
        const other = name.replace(/a\.txt$/, "b.txt");
        queueMicrotask(() => new FileReader(files, WHOLE_FILE_BYTES).read(other));
        return openRead(name);
      };
      const result = await store.search({ matcher: literalMatcher("needle") });
      assert.equal(opens, 2);
      assert.deepEqual(result.files.map((f) => [f.path, f.rows.map((r) => r.line)]), [
        ["a.txt", [2]],
      ]);
      store.close();
    } finally {
      await fs.rm(root, { recursive: true });
    }
  });
});

describe("DirectoryStore.search() between searches", () => {
  it("sees a change on disk in the next search", async () => {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), "linewise-ds-"));
    try {
      await fs.writeFile(path.join(root, "a.txt"), "one\nneedle\n");
      const store = await DirectoryStore.create({ roots: [root] });
      const search = async () =>
        (await store.search({ matcher: literalMatcher("needle") })).files.map((f) =>
          f.rows.map((r) => `${f.path}:${r.line}`)
        ).flat();
      assert.deepEqual(await search(), ["a.txt:2"]);
      assert.deepEqual(await search(), ["a.txt:2"]);
      await fs.writeFile(path.join(root, "a.txt"), "needle\nzero\n");
      assert.deepEqual(await search(), ["a.txt:1"]);
      await fs.writeFile(path.join(root, "a.txt"), "none\n");
      assert.deepEqual(await search(), []);
    } finally {
      await fs.rm(root, { recursive: true });
    }
  });
});

describe("DirectoryStore.search() and its deadline", () => {
  it("stops the walk too once the deadline has passed, and says so", async () => {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), "linewise-ds-"));
    try {
      for (const dir of ["a", "b", "c", "d"]) {
        await fs.mkdir(path.join(root, dir));
        await fs.writeFile(path.join(root, dir, "f.txt"), "needle\n");
      }
      const store = await DirectoryStore.create({ roots: [root] });
      const late = await store.search({
        matcher: literalMatcher("needle"),
        deadline: Date.now() - 1,
      });
      assert.equal(late.stopped, "time");
      assert.equal(late.walkUnfinished, true);
      assert.equal(late.filesSearched, 0);
      assert.ok(late.filesNotSearched < 4, `${late.filesNotSearched} files found`);
      // A cut walk is not remembered: the next search finds everything.
      const all = await store.search({ matcher: literalMatcher("needle") });
      assert.equal(all.matchedLines, 4);
      assert.equal(all.walkUnfinished, undefined);
    } finally {
      await fs.rm(root, { recursive: true });
    }
  });
});

describe("DirectoryStore.search() on two threads", () => {
  it("finds what one thread and the in-memory store find, in the same order, with the same counts and cap", async () => {
    const root = await tempDir();
    try {
      const files: Record<string, string | Uint8Array> = {
        ".gitignore": "ignored/\n*.log\n",
        "ignored/a.txt": "needle\n",
        "x.log": "needle\n",
        ".hidden/a.txt": "needle\n",
        "big/large.txt": ("x".repeat(99) + "\n").repeat(45_000) + "needle at the end\n",
      };
      for (let i = 0; i < 900; i++) {
        const dir = `d${i % 13}/e${i % 5}`;
        const name = `${dir}/f${i}.txt`;
        if (i % 17 === 0) files[name] = new Uint8Array([110, 101, 101, 100, 108, 101, 0, 10]);
        else if (i % 3 === 0) files[name] = `a ${i}\nb\nneedle ${i}\nc\nneedle again\nd\n`;
        else files[name] = `nothing ${i}\n`.repeat(i % 40);
        if (i % 97 === 0) files[`${dir}/.gitignore`] = `f${i + 13}.txt\n`;
      }
      await writeTree(root, files);
      const one = await DirectoryStore.create({ roots: [root], searchThreads: 1 });
      const two = await DirectoryStore.create({ roots: [root], parallelSearchFrom: 1 });
      const queries = [
        { matcher: literalMatcher("needle"), maxMatches: Infinity },
        { matcher: literalMatcher("needle"), maxMatches: 1 },
        { matcher: literalMatcher("needle"), maxMatches: 77, context: 2 },
        { matcher: regexMatcher("needle \\d+$"), maxMatches: 1000, context: 1 },
        { matcher: regexMatcher("^nothing"), maxMatches: 5000 },
        { matcher: regexMatcher("x|needle"), maxMatches: 300, glob: "*.txt" },
        { matcher: regexMatcher("again$|nothing 1\\d"), maxMatches: 5000, context: 1 },
        { matcher: regexMatcher("^a \\d+|end$"), maxMatches: 5000 },
        // A custom matcher's empty list of alternatives rules nothing out.
        {
          matcher: { matchLine: regexMatcher("again$").matchLine, alternativeLiterals: [] },
          maxMatches: 5000,
        },
      ];
      // The in-memory store reads every file and has no prefilter: the reference.
      const memory = new MemoryStore(files);
      for (const query of queries) {
        const expected = await memory.search(query);
        assert.deepEqual(await one.search(query), expected);
        assert.deepEqual(await two.search(query), expected);
      }
    } finally {
      await fs.rm(root, { recursive: true });
    }
  });
});
