import assert from "node:assert/strict";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import { literalMatcher } from "../../src/core/mod.ts";
import { DirectoryStore } from "../../src/disk/directory_store.ts";
import { Sandbox } from "../../src/disk/sandbox.ts";

const SECRET = "TOPSECRET-do-not-leak";

/** Every file, directory and link under `dir` with content, mode and target: what "changed" means. */
async function snapshot(dir: string, skip: string): Promise<Map<string, string>> {
  const result = new Map<string, string>();
  async function visit(current: string): Promise<void> {
    for (const name of (await fs.readdir(current)).sort()) {
      const full = path.join(current, name);
      if (full === skip) continue;
      const stat = await fs.lstat(full);
      if (stat.isSymbolicLink()) result.set(full, `link ${await fs.readlink(full)}`);
      else if (stat.isDirectory()) {
        result.set(full, `dir ${stat.mode}`);
        await visit(full);
      } else {result.set(
          full,
          `file ${stat.mode} ${stat.mtimeMs} ${await fs.readFile(full, "utf8")}`,
        );}
    }
  }
  await visit(dir);
  return result;
}

/** Paths that lead out of the root on Windows (a backslash separates, a drive letter roots). */
const BACKSLASHED: Array<[string, string]> = [
  ["backslash separators climbing out", "..\\outside\\secret.txt"],
  ["backslashes far above the root", "..\\..\\..\\etc\\passwd"],
  ["mixed separators climbing out", "sub\\..\\../outside/secret.txt"],
  ["a UNC path", "\\\\server\\share\\secret.txt"],
  ["a backslash-rooted path", "\\etc\\passwd"],
  ["a Windows drive path", "C:\\Windows\\System32\\drivers\\etc\\hosts"],
  ["a drive-relative path", "c:secret.txt"],
];

type Case = [string, () => string, "outside_root" | "denied" | "invalid_path"];

describe("the sandbox refuses every attack path and changes nothing outside", () => {
  let base: string;
  let root: string;
  let store: DirectoryStore;
  let before_: Map<string, string>;

  before(async () => {
    base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "linewise-sec-")));
    root = path.join(base, "root");
    for (const dir of ["root/secret", "root/sub", "root2", "outside/dir", "rootx"]) {
      await fs.mkdir(path.join(base, dir), { recursive: true });
    }
    const files: Record<string, string> = {
      "root/inside.txt": "inside token\n",
      "root/sub/ok.txt": "ok token\n",
      "root/denied.env": `token ${SECRET}\n`,
      "root/secret/key.txt": `token ${SECRET}\n`,
      "root2/secret.txt": `token ${SECRET}\n`,
      "rootx/secret.txt": `token ${SECRET}\n`,
      "outside/secret.txt": `token ${SECRET}\n`,
      "outside/dir/inner.txt": `token ${SECRET}\n`,
    };
    for (const [name, content] of Object.entries(files)) {
      await fs.writeFile(path.join(base, name), content);
    }
    const links: [string, string][] = [
      ["link-out", "../outside/secret.txt"],
      ["link-out-abs", path.join(base, "outside/secret.txt")],
      ["link-dir-out", "../outside"],
      ["link-dir-out-abs", path.join(base, "outside/dir")],
      ["chain1", "chain2"],
      ["chain2", "chain3"],
      ["chain3", "../outside/secret.txt"],
      ["in-then-out", "sub/hop"],
      ["sub/hop", "../../outside/secret.txt"],
      ["loop1", "loop2"],
      ["loop2", "loop1"],
      ["self", "self"],
      ["dangling-out", "../outside/new.txt"],
      ["dangling-out-abs", "/nonexistent-linewise-dir/new.txt"],
      ["link-parent", ".."],
      ["link-slash", "/"],
      ["link-root2", path.join(base, "root2")],
      ["link-to-denied", "denied.env"],
      ["link-to-secret-dir", "secret"],
      ["link-chain-denied", "link-to-denied"],
      ["sub/up-out", "../../rootx"],
    ];
    for (const [name, target] of links) await fs.symlink(target, path.join(root, name));
    store = await DirectoryStore.create({ roots: [root], deny: ["*.env", "secret/"] });
    before_ = await snapshot(base, root);
  });

  after(async () => {
    await fs.rm(base, { recursive: true, force: true });
  });

  const cases: Case[] = [
    [".. to a sibling directory", () => "../outside/secret.txt", "outside_root"],
    [".. far above the root", () => "../../../../etc/passwd", "outside_root"],
    ["an absolute system path", () => "/etc/passwd", "outside_root"],
    ["an absolute path elsewhere", () => path.join(base, "outside/secret.txt"), "outside_root"],
    [
      "a sibling sharing the root's prefix (root2)",
      () => path.join(base, "root2/secret.txt"),
      "outside_root",
    ],
    [
      "a sibling sharing the root's prefix (rootx)",
      () => path.join(base, "rootx/secret.txt"),
      "outside_root",
    ],
    ["the root then .. to a sibling", () => path.join(root, "../root2/secret.txt"), "outside_root"],
    ["a relative path to the prefix sibling", () => "../root2/secret.txt", "outside_root"],
    [
      "a path that dips inside then climbs out",
      () => "sub/../../outside/secret.txt",
      "outside_root",
    ],
    ["a file name then ..", () => "inside.txt/../../outside/secret.txt", "outside_root"],
    ["a relative symlink out", () => "link-out", "outside_root"],
    ["an absolute symlink out", () => "link-out-abs", "outside_root"],
    ["the absolute form of a symlink out", () => path.join(root, "link-out"), "outside_root"],
    ["a file inside a symlinked directory out", () => "link-dir-out/secret.txt", "outside_root"],
    ["a symlinked directory out itself", () => "link-dir-out", "outside_root"],
    ["an absolute symlinked directory out", () => "link-dir-out-abs/inner.txt", "outside_root"],
    ["a symlink chain out", () => "chain1", "outside_root"],
    ["the middle of a symlink chain out", () => "chain2", "outside_root"],
    ["a symlink to an in-root symlink out", () => "in-then-out", "outside_root"],
    ["a symlink loop", () => "loop1", "invalid_path"],
    ["a symlink to itself", () => "self", "invalid_path"],
    ["a path through a symlink loop", () => "loop1/x.txt", "invalid_path"],
    ["a dangling symlink out (a write would create outside)", () => "dangling-out", "outside_root"],
    ["a dangling absolute symlink out", () => "dangling-out-abs", "outside_root"],
    ["a new file whose parent resolves outside", () => "link-dir-out/new.txt", "outside_root"],
    ["a new file deep under a parent outside", () => "link-dir-out/a/b/new.txt", "outside_root"],
    ["a symlink to the root's parent", () => "link-parent/outside/secret.txt", "outside_root"],
    ["a symlink to /", () => "link-slash/etc/passwd", "outside_root"],
    ["a symlink to the prefix sibling", () => "link-root2/secret.txt", "outside_root"],
    [
      "a nested symlink climbing to the prefix sibling",
      () => "sub/up-out/secret.txt",
      "outside_root",
    ],
    ["a NUL byte in the middle", () => "inside.txt\0../../etc/passwd", "outside_root"],
    ["a lone NUL byte", () => "\0", "outside_root"],
    [
      "a name holding a backslash, then .. climbing out",
      () => "sub/..\\x/../../../outside/secret.txt",
      "outside_root",
    ],
    // (Off Windows these are names in the root: see "a backslash is part of a name" below.)
    ...(process.platform === "win32"
      ? BACKSLASHED.map(([l, p]) => [l, () => p, "outside_root"] as Case)
      : []),
    [
      "a look-alike root name (Cyrillic o)",
      () => path.join(base, "r\u043E\u043Et/inside.txt"),
      "outside_root",
    ],
    [
      "a look-alike root name (fullwidth letters)",
      () => path.join(base, "\uFF52\uFF4F\uFF4F\uFF54/inside.txt"),
      "outside_root",
    ],
    [
      "a look-alike root name (zero-width space)",
      () => path.join(base, "ro\u200Bot/inside.txt"),
      "outside_root",
    ],
    [
      "a very long path climbing out",
      () => "a/".repeat(3000) + "../".repeat(3001) + "outside/secret.txt",
      "outside_root",
    ],
    ["a very long run of ..", () => "../".repeat(5000) + "etc/passwd", "outside_root"],
    ["a name too long for the file system", () => "x".repeat(5000), "invalid_path"],
    ["a denied file", () => "denied.env", "denied"],
    ["a denied file that does not exist", () => "missing.env", "denied"],
    ["a denied directory", () => "secret", "denied"],
    ["a file in a denied directory", () => "secret/key.txt", "denied"],
    ["a denied path in other case", () => "SECRET/key.txt", "denied"],
    ["a denied path written roundabout", () => "./sub/../secret/./key.txt", "denied"],
    ["the absolute form of a denied file", () => path.join(root, "denied.env"), "denied"],
    ["a symlink whose target is denied", () => "link-to-denied", "denied"],
    ["a symlink chain through a denied target", () => "link-chain-denied", "denied"],
    ["a symlinked directory whose target is denied", () => "link-to-secret-dir/key.txt", "denied"],
  ];

  it("the table holds at least 40 attack paths", () => {
    assert.ok(cases.length >= 40, `${cases.length} cases`);
  });

  for (const [label, makePath, code] of cases) {
    it(`refuses ${label} for every operation`, async () => {
      const asked = makePath();
      const operations: [string, () => Promise<unknown>][] = [
        ["stat", () => store.stat(asked)],
        ["readText", () => store.readText(asked)],
        ["readBytes", () => store.readBytes(asked)],
        [
          "readLines",
          () => store.readLines(asked, { start: 1, maxLines: 10, maxChars: 1000, cut: 100 }),
        ],
        ["list", () => store.list(asked)],
        ["glob", () => store.glob({ path: asked, glob: "*" })],
        ["search", () => store.search({ matcher: literalMatcher("token"), path: asked })],
        ["write", () => store.write(asked, "pwned\n")],
        ["overwrite", () => store.write(asked, "pwned\n", { overwrite: true })],
        ["update", () => store.update(asked, () => ({ text: "pwned\n", value: 0 }))],
        ["delete", () => store.delete(asked)],
      ];
      for (const [name, operation] of operations) {
        await assert.rejects(operation(), (error: Error & { code?: string }) => {
          assert.equal(
            error.code,
            code,
            `${name}(${JSON.stringify(asked.slice(0, 80))}): ${error.message}`,
          );
          assert.ok(!error.message.includes(SECRET), "the message reveals nothing from outside");
          assert.ok(
            !error.message.includes(path.join(base, "outside")) ||
              asked.includes(path.join(base, "outside")),
          );
          return true;
        });
      }
      assert.deepEqual(await snapshot(base, root), before_, "nothing outside the root changed");
    });
  }

  it(
    "a backslash is part of a name off Windows: what would climb out there is a file in the root",
    {
      skip: process.platform === "win32",
    },
    async () => {
      for (const [label, asked] of BACKSLASHED) {
        await assert.rejects(store.stat(asked), { code: "not_found" }, label);
        await store.write(asked, "made here\n");
        assert.equal(await fs.readFile(path.join(root, asked), "utf8"), "made here\n", label);
        assert.equal((await store.readText(asked)).text, "made here\n", label);
        assert.ok((await store.glob({ glob: "*", includeIgnored: true })).includes(asked), label);
        await store.delete(asked);
        await assert.rejects(fs.access(path.join(root, asked)), label);
        // (The folders a write made on the way, in the root too.)
        await fs.rm(path.join(root, asked.split("/")[0]), { recursive: true, force: true });
      }
      assert.deepEqual(await snapshot(base, root), before_, "nothing outside the root changed");
    },
  );

  it("grep over the whole tree never returns a line of a denied or outside file", async () => {
    for (const includeIgnored of [false, true]) {
      const found = await store.search({
        matcher: literalMatcher("token"),
        includeIgnored,
        maxMatches: 10_000,
      });
      assert.deepEqual(found.files.map((f) => f.path), ["inside.txt", "sub/ok.txt"]);
      assert.ok(!JSON.stringify(found).includes(SECRET));
    }
  });

  it("listings and globs never show a denied name or a symlink that leads outside", async () => {
    const listed = (await store.list(".", { depth: 10, includeIgnored: true })).map((e) => e.path);
    assert.deepEqual(listed, ["sub", "sub/ok.txt", "inside.txt"]);
    const globbed = await store.glob({ glob: "**", includeIgnored: true });
    assert.deepEqual(globbed, ["inside.txt", "sub/ok.txt"]);
  });
});

describe("Sandbox", () => {
  let base: string;
  before(async () => {
    base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "linewise-sbx-")));
    for (const dir of ["a/sub", "b", "a2"]) {
      await fs.mkdir(path.join(base, dir), { recursive: true });
    }
    await fs.writeFile(path.join(base, "a/sub/f.txt"), "f\n");
    await fs.writeFile(path.join(base, "b/g.txt"), "g\n");
    await fs.symlink(path.join(base, "a"), path.join(base, "alias"));
    await fs.symlink("sub/f.txt", path.join(base, "a/link.txt"));
  });
  after(async () => {
    await fs.rm(base, { recursive: true, force: true });
  });

  it("resolves relative paths against the first root and shows other roots absolute", async () => {
    const sandbox = await Sandbox.create({ roots: [path.join(base, "a"), path.join(base, "b")] });
    const first = await sandbox.resolve("sub/f.txt");
    assert.equal(first.real, path.join(base, "a/sub/f.txt"));
    assert.equal(first.display, "sub/f.txt");
    const second = await sandbox.resolve(path.join(base, "b/g.txt"));
    assert.equal(second.display, path.join(base, "b/g.txt"));
    assert.equal((await sandbox.resolve(".")).display, ".");
  });

  it("another thread's copy keeps the roots in their order, a nested one after its parent", async () => {
    const roots = [path.join(base, "a"), path.join(base, "a/sub"), path.join(base, "b")];
    const sandbox = await Sandbox.create({ roots });
    const copy = Sandbox.fromShared(sandbox.share());
    assert.deepEqual(copy.roots, sandbox.roots);
    for (const asked of [".", "sub/f.txt", path.join(base, "a/sub/f.txt")]) {
      assert.deepEqual(await copy.resolve(asked), await sandbox.resolve(asked), asked);
    }
  });

  it("follows an in-root symlink and shows the path as asked", async () => {
    const sandbox = await Sandbox.create({ roots: [path.join(base, "a")] });
    const resolved = await sandbox.resolve("link.txt");
    assert.equal(resolved.real, path.join(base, "a/sub/f.txt"));
    assert.equal(resolved.display, "link.txt");
  });

  it("accepts a root given through a symlink, by its given and its real form", async () => {
    const sandbox = await Sandbox.create({ roots: [path.join(base, "alias")] });
    assert.deepEqual(sandbox.roots, [path.join(base, "a")]);
    assert.equal((await sandbox.resolve(path.join(base, "alias/sub/f.txt"))).display, "sub/f.txt");
    assert.equal((await sandbox.resolve(path.join(base, "a/sub/f.txt"))).display, "sub/f.txt");
    await assert.rejects(sandbox.resolve(path.join(base, "a2")), { code: "outside_root" });
  });

  it("resolves a missing path for writing from its nearest existing ancestor", async () => {
    const sandbox = await Sandbox.create({ roots: [path.join(base, "a")] });
    const resolved = await sandbox.resolve("sub/new/dir/x.txt", { forWrite: true });
    assert.equal(resolved.exists, false);
    assert.equal(resolved.real, path.join(base, "a/sub/new/dir/x.txt"));
    await assert.rejects(sandbox.resolve("sub/new/dir/x.txt"), { code: "not_found" });
  });

  it("refuses roots that are missing or not directories", async () => {
    await assert.rejects(Sandbox.create({ roots: [path.join(base, "nope")] }), {
      code: "not_found",
    });
    await assert.rejects(Sandbox.create({ roots: [path.join(base, "b/g.txt")] }), {
      code: "not_a_directory",
    });
    await assert.rejects(Sandbox.create({ roots: [] }), TypeError);
  });

  it("narrow() keeps the intersection with client roots and never widens", async () => {
    const sandbox = await Sandbox.create({
      roots: [path.join(base, "a"), path.join(base, "b")],
      deny: ["/sub/f.txt"],
    });
    const inner = await sandbox.narrow([`file://${path.join(base, "a/sub")}`]);
    assert.deepEqual(inner?.roots, [path.join(base, "a/sub")]);
    // Deny rules stay anchored at the original root.
    await assert.rejects(inner!.resolve("f.txt"), { code: "denied" });
    const wider = await sandbox.narrow([base]);
    assert.deepEqual(wider?.roots, [path.join(base, "a"), path.join(base, "b")]);
    assert.equal(await sandbox.narrow([path.join(base, "a2"), "/nonexistent-linewise"]), undefined);
    // A root that is a file is no folder to work in: left out, as a missing one is.
    const file = path.join(base, "a/sub/g.txt");
    await fs.writeFile(file, "g\n");
    assert.equal(await sandbox.narrow([file]), undefined);
    assert.deepEqual((await sandbox.narrow([file, path.join(base, "b")]))?.roots, [
      path.join(base, "b"),
    ]);
  });

  it("a narrowed root moved out of its root reaches nothing there, and its path what is there now", async () => {
    const dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "linewise-narrow-")));
    const root = path.join(dir, "root");
    const outside = path.join(dir, "outside");
    await fs.mkdir(path.join(root, "sub"), { recursive: true });
    await fs.mkdir(outside);
    try {
      const sandbox = await Sandbox.create({ roots: [root] });
      for (let round = 0; round < 2; round++) {
        // (Narrowed again in the second round: nothing of the first is reused.)
        const narrowed = (await sandbox.narrow([path.join(root, "sub")]))!;
        const store = new DirectoryStore(narrowed);
        await fs.rename(path.join(root, "sub"), path.join(outside, `moved${round}`));
        await fs.writeFile(path.join(outside, `moved${round}`, "secret.txt"), "outside\n");
        await assert.rejects(store.readText("secret.txt"), { code: "not_found" });
        await fs.mkdir(path.join(root, "sub"));
        await store.write("new.txt", "in\n");
        assert.deepEqual(await fs.readdir(path.join(root, "sub")), ["new.txt"]);
        assert.deepEqual(await fs.readdir(path.join(outside, `moved${round}`)), ["secret.txt"]);
        await fs.rm(path.join(root, "sub", "new.txt"));
      }
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it("another thread's copy of a narrowed sandbox looks for denied files in the original roots", async () => {
    const dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "linewise-narrow-")));
    await fs.mkdir(path.join(dir, "sub"));
    await fs.writeFile(path.join(dir, ".env"), "SECRET=1\n");
    await fs.writeFile(path.join(dir, "sub", "b.txt"), "b\n");
    await fs.link(path.join(dir, "sub", "b.txt"), path.join(dir, "sub", "b2.txt"));
    await fs.link(path.join(dir, ".env"), path.join(dir, "sub", "env-too.txt"));
    try {
      const sandbox = await Sandbox.create({ roots: [dir], deny: [".env"] });
      const copy = Sandbox.fromShared((await sandbox.narrow([path.join(dir, "sub")]))!.share());
      const stat = (name: string) => copy.files.lstat(path.join(dir, "sub", name));
      assert.equal(await copy.deniedByIdentity(stat("b.txt")), false);
      assert.equal(await copy.deniedByIdentity(stat("env-too.txt")), true);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it("a narrowed root is known by the spelling the client or the server gave it", async () => {
    const dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "linewise-narrow-")));
    const real = path.join(dir, "real");
    const link = path.join(dir, "link");
    await fs.mkdir(path.join(real, "sub"), { recursive: true });
    await fs.writeFile(path.join(real, "sub", "a.txt"), "a\n");
    await fs.symlink(real, link);
    try {
      const sandbox = await Sandbox.create({ roots: [link] });
      for (const client of [link, real, path.join(link, "sub")]) {
        const narrowed = (await sandbox.narrow([client]))!;
        const asked = path.join(client, client.endsWith("sub") ? "a.txt" : "sub/a.txt");
        assert.equal((await narrowed.resolve(asked)).real, path.join(real, "sub", "a.txt"), client);
      }
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it("compares roots by whole segments", async () => {
    const sandbox = await Sandbox.create({ roots: [path.join(base, "a")] });
    assert.equal(sandbox.contains(path.join(base, "a")), true);
    assert.equal(sandbox.contains(path.join(base, "a/sub")), true);
    assert.equal(sandbox.contains(path.join(base, "a2")), false);
    assert.equal(sandbox.contains(path.join(base, "a2/x")), false);
  });
});

describe("a symlink whose target ends with a separator", () => {
  it("leads to a directory only, as the kernel has it", async () => {
    const root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "linewise-slash-")));
    await fs.mkdir(path.join(root, "sub"));
    await fs.writeFile(path.join(root, "real.txt"), "needle\n");
    await fs.writeFile(path.join(root, "sub", "inner.txt"), "needle\n");
    await fs.writeFile(path.join(root, "rules.txt"), "inner.txt\n");
    await fs.symlink("real.txt/", path.join(root, "file-slash"));
    await fs.symlink(path.join(root, "real.txt") + "/", path.join(root, "file-slash-abs"));
    await fs.symlink("sub/", path.join(root, "dir-slash"));
    await fs.symlink("rules.txt/", path.join(root, "sub", ".gitignore"));
    try {
      const store = await DirectoryStore.create({ roots: [root] });
      // (The kernel's own answer: a file with a separator after it is not a directory.)
      await assert.rejects(fs.readFile(path.join(root, "file-slash")), { code: "ENOTDIR" });
      for (const link of ["file-slash", "file-slash-abs"]) {
        await assert.rejects(store.readText(link), { code: "not_found" }, link);
      }
      assert.equal((await store.readText("dir-slash/inner.txt")).text, "needle\n");
      // A walk leaves such a link out, and reads no ignore file through it.
      assert.deepEqual(await store.glob({}), ["real.txt", "rules.txt", "sub/inner.txt"]);
      store.close();
    } finally {
      await fs.rm(root, { recursive: true, force: true });
    }
  });
});
