// When a store's search index is given up, it starts again after a wait that doubles while
// the indexes it starts are given up young. A clock of the test's own says when it is.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, test } from "node:test";
import { noticesTo } from "../../../src/io/runtime.ts";
import {
  IndexRestarts,
  MAX_RESTART_WAIT_MS,
  RESTART_WAIT_MS,
  YOUNG_MS,
} from "../../../src/search/index/_index_restarts.ts";

/** An index of the test: its number, the directory it was given, and whether it is closed. */
interface FakeIndex {
  number: number;
  watchDir: string | undefined;
  closes: number;
  close(): void;
}

function restarts(options: { watchDir?: string } = {}) {
  let time = 1_000_000;
  const made: FakeIndex[] = [];
  const said: string[] = [];
  const routedBack = noticesTo((line) => said.push(line));
  const index = new IndexRestarts<FakeIndex>((watchDir) => {
    const fake: FakeIndex = {
      number: made.length + 1,
      watchDir,
      closes: 0,
      close() {
        this.closes++;
      },
    };
    made.push(fake);
    return fake;
  }, { ...options, clock: () => time });
  return {
    index,
    made,
    said,
    routedBack,
    pass: (ms: number) => time += ms,
  };
}

describe("IndexRestarts", () => {
  test("starts the first index at once, and another only a wait after it was given up", () => {
    const { index, made, said, routedBack, pass } = restarts();
    try {
      assert.equal(index.now()?.number, 1);
      assert.equal(index.now(), index.current);
      index.givenUp(made[0]);
      assert.equal(made[0].closes, 1);
      assert.equal(index.current, undefined);
      pass(RESTART_WAIT_MS - 1);
      assert.equal(index.now(), undefined, "not before the wait");
      assert.equal(made.length, 1);
      pass(1);
      assert.equal(index.now()?.number, 2);
      assert.equal(index.now()?.number, 2, "one index at a time");
      assert.deepEqual(said, ["linewise: the search index starts again (given up 2.0 s ago)"]);
    } finally {
      routedBack();
    }
  });

  test("closes an index found given up once, whichever search found it", () => {
    const { index, made, routedBack, pass } = restarts();
    try {
      const first = index.now()!;
      index.givenUp(first);
      index.givenUp(first); // (a second search that refreshed the same index)
      assert.equal(first.closes, 1);
      pass(RESTART_WAIT_MS);
      const second = index.now()!;
      index.givenUp(first); // (a search still holding the first one)
      assert.equal(index.current, second, "the new index stays");
      assert.equal(second.closes, 0);
      assert.equal(made.length, 2);
    } finally {
      routedBack();
    }
  });

  test("waits twice as long each time an index is given up young, and the first wait after one that lasted", () => {
    const { index, made, routedBack, pass } = restarts();
    try {
      const waits: number[] = [];
      /** Gives the current index up after `lived` ms, and measures the wait before the next. */
      const giveUpAfter = (lived: number) => {
        pass(lived);
        index.givenUp(index.current!);
        let waited = 0;
        while (index.now() === undefined) {
          pass(1000);
          waited += 1000;
        }
        waits.push(waited);
      };
      giveUpAfter(5_000);
      for (let i = 0; i < 12; i++) giveUpAfter(1_000);
      assert.deepEqual(waits.slice(0, 5), [2_000, 4_000, 8_000, 16_000, 32_000]);
      assert.equal(Math.max(...waits), MAX_RESTART_WAIT_MS, "the wait stops growing");
      giveUpAfter(YOUNG_MS); // (it lasted: the cause went)
      assert.equal(waits.at(-1), RESTART_WAIT_MS);
      assert.equal(made.length, 15);
    } finally {
      routedBack();
    }
  });

  test("starts none again once closed", () => {
    const { index, made, routedBack, pass } = restarts();
    try {
      index.givenUp(made[0]);
      index.close();
      pass(RESTART_WAIT_MS);
      assert.equal(index.now(), undefined);
      assert.equal(made.length, 1);
      const open = restarts();
      open.index.close();
      assert.equal(open.made[0].closes, 1, "the index running is closed");
      open.routedBack();
    } finally {
      routedBack();
    }
  });

  test("makes the first index's watch directory again, empty, or lets the watcher make one", () => {
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), "linewise-restarts-"));
    const watchDir = path.join(parent, "watch");
    fs.mkdirSync(watchDir);
    const { index, made, routedBack, pass } = restarts({ watchDir });
    try {
      assert.equal(made[0].watchDir, watchDir);
      // (The watcher removes its directory when it closes.)
      fs.rmSync(watchDir, { recursive: true });
      index.givenUp(made[0]);
      pass(RESTART_WAIT_MS);
      assert.equal(index.now()?.watchDir, watchDir);
      assert.deepEqual(fs.readdirSync(watchDir), []);
      assert.equal(fs.statSync(watchDir).mode & 0o777, 0o700);
      // Where something took the name meanwhile, the new watcher makes its own directory.
      fs.rmSync(watchDir, { recursive: true });
      fs.writeFileSync(watchDir, "someone else's");
      index.givenUp(made[1]);
      pass(60_000);
      assert.equal(index.now()?.watchDir, undefined);
      assert.equal(fs.readFileSync(watchDir, "utf8"), "someone else's");
    } finally {
      routedBack();
      fs.rmSync(parent, { recursive: true, force: true });
    }
  });
});
