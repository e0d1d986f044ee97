import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import process from "node:process";
import { after, before, describe, test } from "node:test";
import { setImmediate } from "node:timers";
import { WATCH_ORDER_KEPT } from "../../../src/io/runtime.ts";
import {
  quietWhen,
  REPEAT_WINDOW_MS,
  TreeWatcher,
} from "../../../src/search/index/_tree_watcher.ts";
import { stderrOf } from "../../_helpers/stderr.ts";

const isBun = "Bun" in globalThis;
const BUN_ONLY = {
  skip: WATCH_ORDER_KEPT ? false : "the watcher is trusted only on Bun",
  timeout: 60_000,
};

describe("TreeWatcher", () => {
  let root: string;
  let watcher: TreeWatcher;
  const at = (name: string) => path.join(root, name);
  before(async () => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "linewise-watch-test-")));
    fs.mkdirSync(at("src"));
    fs.writeFileSync(at("src/a.ts"), "a\n");
    if (WATCH_ORDER_KEPT) watcher = (await TreeWatcher.start([root]))!;
  });
  after(() => {
    watcher?.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  test("trusts only Bun's watcher", () => {
    assert.equal(WATCH_ORDER_KEPT, isBun);
  });

  test("a sync with nothing changed reports nothing", BUN_ONLY, async () => {
    await watcher.sync();
    const changes = await watcher.sync();
    assert.deepEqual([...changes.paths], []);
    assert.deepEqual([...changes.moved], []);
    assert.equal(changes.rules, false);
    assert.equal(changes.lost, false);
  });

  test("a write just before the sync is reported, and moves nothing", BUN_ONLY, async () => {
    for (let round = 0; round < 50; round++) {
      fs.writeFileSync(at("src/a.ts"), `round ${round}\n`);
      const changes = await watcher.sync();
      assert.ok(changes.paths.has(at("src/a.ts")), `round ${round}`);
      assert.deepEqual([...changes.moved], [], `round ${round}`);
    }
  });

  test(
    "every path touched before a sync is in it, whatever the mix of changes",
    BUN_ONLY,
    async () => {
      // Writes, atomic replaces, creates and deletes of a few files, back to back, each
      // followed at once by a sync: the pattern that meets Bun's dropping of repeated events.
      const names = ["src/p.ts", "src/q.ts", "r.ts"];
      for (const name of names) fs.writeFileSync(at(name), "0\n");
      let seed = 11;
      const pick = (n: number) => (seed = (seed * 16807) % 2147483647) % n;
      for (let round = 0; round < 300; round++) {
        const name = names[pick(names.length)];
        const touched = [at(name)];
        switch (pick(4)) {
          case 0:
            fs.writeFileSync(at(name), `write ${round}\n`);
            break;
          case 1: {
            const temp = at(`${name}.${round}.tmp`);
            fs.writeFileSync(temp, `replace ${round}\n`);
            fs.renameSync(temp, at(name));
            break;
          }
          case 2:
            fs.rmSync(at(name), { force: true });
            fs.writeFileSync(at(name), `recreate ${round}\n`);
            break;
          case 3:
            fs.appendFileSync(at(name), `append ${round}\n`);
            break;
        }
        const changes = await watcher.sync();
        for (const path of touched) assert.ok(changes.paths.has(path), `round ${round}: ${path}`);
      }
    },
  );

  test("creating, deleting and renaming move the entries", BUN_ONLY, async () => {
    fs.writeFileSync(at("src/b.ts"), "b\n");
    let changes = await watcher.sync();
    assert.ok(changes.paths.has(at("src/b.ts")));
    assert.ok(changes.moved.has(at("src/b.ts")));
    fs.renameSync(at("src/b.ts"), at("src/c.ts"));
    changes = await watcher.sync();
    assert.ok(changes.paths.has(at("src/b.ts")) && changes.paths.has(at("src/c.ts")));
    assert.ok(changes.moved.has(at("src/b.ts")) && changes.moved.has(at("src/c.ts")));
    fs.rmSync(at("src/c.ts"));
    changes = await watcher.sync();
    assert.ok(changes.paths.has(at("src/c.ts")));
    assert.ok(changes.moved.has(at("src/c.ts")));
    assert.equal(changes.rules, false);
  });

  test("a file written in a directory made just before is reported", BUN_ONLY, async () => {
    fs.mkdirSync(at("new"));
    await watcher.sync();
    fs.writeFileSync(at("new/x.ts"), "x\n");
    const changes = await watcher.sync();
    assert.ok(changes.paths.has(at("new/x.ts")));
  });

  test(
    "editing a .gitignore changes the rules (any walk's files may change)",
    BUN_ONLY,
    async () => {
      fs.writeFileSync(at(".gitignore"), "a\n");
      await watcher.sync();
      fs.writeFileSync(at(".gitignore"), "b\n");
      const changes = await watcher.sync();
      assert.ok(changes.paths.has(at(".gitignore")));
      assert.equal(changes.rules, true);
      fs.writeFileSync(at("src/.gitignore"), "c\n");
      assert.equal((await watcher.sync()).rules, true, "one below");
      // (Past the window in which a path heard is reported again.)
      await new Promise((resolve) => setTimeout(resolve, 2 * REPEAT_WINDOW_MS));
      await watcher.sync();
      fs.writeFileSync(at("src/a.gitignore"), "c\n");
      assert.equal((await watcher.sync()).rules, false, "another name");
      fs.rmSync(at("src/.gitignore"));
      fs.rmSync(at("src/a.gitignore"));
      await watcher.sync();
    },
  );

  test(
    "concurrent syncs each wait for their own sentinel and all report the change",
    BUN_ONLY,
    async () => {
      fs.writeFileSync(at("src/a.ts"), "concurrent\n");
      const all = await Promise.all([watcher.sync(), watcher.sync(), watcher.sync()]);
      assert.ok(all.every((changes) => !changes.lost), JSON.stringify(all.map((c) => c.lost)));
      assert.ok(all.some((changes) => changes.paths.has(at("src/a.ts"))));
      assert.equal(watcher.healthy, true);
    },
  );

  test("changes inside .git are reported (a grep of .git, or through a link, reads there)", {
    ...BUN_ONLY,
  }, async () => {
    fs.mkdirSync(at(".git/objects"), { recursive: true });
    fs.mkdirSync(at("sub/.git"), { recursive: true });
    // (Past the repeat window of earlier tests' changes.)
    await new Promise((resolve) => setTimeout(resolve, REPEAT_WINDOW_MS + 5));
    await watcher.sync();
    await watcher.sync();
    fs.writeFileSync(at(".git/index"), "x");
    fs.writeFileSync(at(".git/objects/ab"), "x");
    fs.writeFileSync(at("sub/.git/HEAD"), "x");
    fs.writeFileSync(at("sub/.gitkeep"), "x");
    await new Promise((resolve) => setTimeout(resolve, REPEAT_WINDOW_MS + 5));
    const paths = [...(await watcher.sync()).paths];
    for (const name of [".git/index", ".git/objects/ab", "sub/.git/HEAD", "sub/.gitkeep"]) {
      assert.ok(paths.includes(at(name)), `${name}: ${JSON.stringify(paths)}`);
    }
  });

  test("a closed watcher reports that changes may be lost", BUN_ONLY, async () => {
    const other = (await TreeWatcher.start([root]))!;
    other.close();
    assert.equal(other.healthy, false);
    const changes = await other.sync();
    assert.equal(changes.lost, true);
  });

  test("more changes between two syncs than it holds count as lost", BUN_ONLY, async () => {
    const small = (await TreeWatcher.start([root], 10))!;
    try {
      await small.sync();
      for (let i = 0; i < 20; i++) fs.writeFileSync(at(`many-${i}.txt`), "x\n");
      const { value: changes, lines } = await stderrOf(() => small.sync());
      assert.equal(changes.lost, true);
      assert.equal(small.healthy, false);
      assert.deepEqual(lines, [
        "linewise: the file watcher stopped (more than 10 events between two searches); " +
        "searches read every file until the index starts again",
      ]);
    } finally {
      small.close();
    }
  });

  test(
    "a flood of events on a few paths gives the watcher up, and it stops listening",
    BUN_ONLY,
    async () => {
      const small = (await TreeWatcher.start([root], 10))!;
      try {
        await small.sync();
        // Two paths written in turn (Bun drops a repeat of the previous event): few paths,
        // but more events than the cap.
        for (let i = 0; i < 40; i++) fs.writeFileSync(at(`busy-${i % 2}.txt`), `${i}\n`);
        const { value: changes, lines } = await stderrOf(() => small.sync());
        assert.equal(changes.lost, true);
        assert.equal(lines.length, 1);
        assert.equal(small.healthy, false);
        const started = Date.now();
        await small.sync();
        assert.ok(Date.now() - started < 1000, "a sync of a watcher that gave up does not wait");
      } finally {
        small.close();
      }
    },
  );

  test("a check file that cannot be written fails the watcher, said once", BUN_ONLY, async () => {
    const barrier = fs.mkdtempSync(path.join(os.tmpdir(), "linewise-watch-barrier-"));
    const other = (await TreeWatcher.start([root], undefined, barrier))!;
    try {
      fs.rmSync(barrier, { recursive: true }); // (no check file can be written now)
      const { value, lines } = await stderrOf(() => Promise.all([other.sync(), other.sync()]));
      assert.deepEqual(value.map((changes) => changes.lost), [true, true]);
      assert.equal(other.healthy, false);
      assert.equal(lines.length, 1, lines.join("\n"));
      assert.match(lines[0], /^linewise: the file watcher stopped \(its check file could not/);
    } finally {
      other.close();
    }
  });

  test("a watcher whose thread is being stopped fails without a word", BUN_ONLY, async () => {
    // (The thread's owner removes the directory as it stops the thread: a sync under way said
    // "the file watcher stopped" as a server ended.)
    const barrier = fs.mkdtempSync(path.join(os.tmpdir(), "linewise-watch-barrier-"));
    const other = (await TreeWatcher.start([root], undefined, barrier))!;
    let stopping = false;
    quietWhen(() => stopping);
    try {
      stopping = true;
      fs.rmSync(barrier, { recursive: true });
      const { value, lines } = await stderrOf(() => other.sync());
      assert.equal(value.lost, true);
      assert.equal(other.healthy, false);
      assert.deepEqual(lines, []);
    } finally {
      quietWhen(() => false);
      other.close();
    }
  });

  test(
    "a check file unheard for 2 s fails the watcher; both syncs waiting lose changes",
    BUN_ONLY,
    async () => {
      const barrier = fs.mkdtempSync(path.join(os.tmpdir(), "linewise-watch-barrier-"));
      const other = (await TreeWatcher.start([root], undefined, barrier))!;
      try {
        // The watched directory moves away and another takes its name: check files are
        // written, and no event comes. The first sync to time out gives the watcher up, which
        // ends the other one's wait.
        fs.renameSync(barrier, `${barrier}-watched`);
        fs.mkdirSync(barrier);
        const { value, lines } = await stderrOf(() => Promise.all([other.sync(), other.sync()]));
        assert.deepEqual(value.map((changes) => changes.lost), [true, true]);
        assert.equal(other.healthy, false);
        assert.deepEqual(lines, [
          "linewise: the file watcher stopped (a change went unreported for 2 s); " +
          "searches read every file until the index starts again",
        ]);
      } finally {
        other.close();
        fs.rmSync(`${barrier}-watched`, { recursive: true, force: true });
      }
    },
  );

  test("a root that does not exist gives no watcher", BUN_ONLY, async () => {
    const { value, lines } = await stderrOf(() => TreeWatcher.start([at("missing")]));
    assert.equal(value, undefined);
    assert.equal(lines.length, 1);
    assert.match(lines[0], /^linewise: the roots cannot be watched for changes \(.*ENOENT.*\); /);
  });

  test(
    "sets its watches on a thread of its own: the calling thread turns meanwhile",
    BUN_ONLY,
    async () => {
      // (A recursive watch sets one per directory before it returns: on a large tree that
      // held the thread that searches. Set here, the watcher would be ready before this
      // thread's next turn.)
      let turns = 0;
      let turning = true;
      const turn = () => {
        turns++;
        if (turning) setImmediate(turn);
      };
      setImmediate(turn);
      const other = await TreeWatcher.start([root]);
      turning = false;
      try {
        assert.ok(other !== undefined, "it watches");
        assert.ok(turns > 0, "this thread turned while the watches were set");
        await other.sync();
        fs.writeFileSync(at("src/thread.ts"), "t\n");
        assert.deepEqual([...(await other.sync()).paths], [at("src/thread.ts")]);
      } finally {
        other?.close();
      }
    },
  );

  test("runs out of watches after it started: it fails, and says changes may be lost", {
    ...BUN_ONLY,
    skip: BUN_ONLY.skip ||
      (process.getuid?.() !== 0 && "needs root: it lowers the inotify watch limit for a moment"),
  }, async () => {
    // (Its own root: a directory made under the shared one would fail the shared watcher.)
    const own = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "linewise-watch-limit-")));
    const other = (await TreeWatcher.start([own]))!;
    const limit = "/proc/sys/fs/inotify/max_user_watches";
    const before = fs.readFileSync(limit, "utf8");
    try {
      await other.sync();
      assert.equal(other.healthy, true);
      // A new directory needs a watch of its own, and none is left. (The limit is the
      // machine's: for these few milliseconds, another process of this user that sets a new
      // watch fails too. The suite runs its files one after the other.)
      fs.writeFileSync(limit, "1");
      const { lines } = await stderrOf(async () => {
        try {
          fs.mkdirSync(path.join(own, "unwatched"));
          for (let i = 0; i < 200 && other.healthy; i++) {
            await new Promise((resolve) => setTimeout(resolve, 10));
          }
        } finally {
          fs.writeFileSync(limit, before);
        }
      });
      assert.equal(other.healthy, false, "the failure was heard");
      assert.equal(lines.length, 1, "said once");
      assert.ok(lines[0].startsWith("linewise: the file watcher stopped ("), lines[0]);
      assert.ok(lines[0].includes("ENOSPC"), lines[0]);
      const end =
        "; searches read every file until the index starts again (raise fs.inotify.max_user_watches)";
      assert.ok(lines[0].endsWith(end), lines[0]);
      assert.equal((await other.sync()).lost, true);
    } finally {
      other.close();
      fs.rmSync(own, { recursive: true, force: true });
    }
  });
});
