// A store that keeps its search workers starts them with the store and lends them to its
// searches of many files, one search at a time; close() stops them. Workers are
// counted where they are made: the global Worker, wrapped.
import assert from "node:assert/strict";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import { literalMatcher } from "../../src/core/mod.ts";
import { DirectoryStore } from "../../src/disk/directory_store.ts";
import { HAS_WORKERS, NESTED_WORKERS_START_SLOWLY } from "../../src/io/runtime.ts";
import type { SearchResult } from "../../src/store/file_store.ts";
import { stderrOf } from "../_helpers/stderr.ts";

/** Workers made and stopped since the wrapper was put in place, and the last one made. */
const counts = { started: 0, stopped: 0, last: undefined as Worker | undefined };
const RealWorker = globalThis.Worker;

class CountedWorker extends RealWorker {
  constructor(...args: ConstructorParameters<typeof Worker>) {
    super(...args);
    counts.started++;
    counts.last = this;
  }
  override terminate(): void {
    counts.stopped++;
    super.terminate();
  }
}

describe("a store that keeps its search workers", { skip: !HAS_WORKERS }, () => {
  const query = { matcher: literalMatcher("needle"), maxMatches: 1000 };
  let root: string;
  let expected: SearchResult;
  before(async () => {
    root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "linewise-kept-")));
    for (let i = 0; i < 40; i++) {
      await fs.writeFile(path.join(root, `f${i}.txt`), i % 3 === 0 ? `a\nneedle ${i}\n` : "b\n");
    }
    const alone = await DirectoryStore.create({ roots: [root], searchThreads: 1 });
    expected = await alone.search(query);
    assert.equal(expected.files.length, 14);
    globalThis.Worker = CountedWorker as typeof Worker;
  });
  after(async () => {
    globalThis.Worker = RealWorker;
    await fs.rm(root, { recursive: true, force: true });
  });

  /**
   * Runs rounds of searches on a new store (each round's searches at once), checks each
   * answer, then closes it; returns the workers started and stopped before the close, and
   * stopped after it.
   */
  async function workersOf(
    options: { keepSearchWorkers?: boolean },
    rounds: number[],
  ): Promise<{ atCreation: number; started: number; stopped: number; afterClose: number }> {
    counts.started = counts.stopped = 0;
    const store = await DirectoryStore.create({
      roots: [root],
      searchThreads: 3,
      parallelSearchFrom: 1,
      ...options,
    });
    const atCreation = counts.started;
    for (const atOnce of rounds) {
      const results = await Promise.all(Array.from({ length: atOnce }, () => store.search(query)));
      for (const result of results) assert.deepEqual(result, expected);
    }
    const { started, stopped } = counts;
    store.close();
    return { atCreation, started, stopped, afterClose: counts.stopped };
  }

  it("starts them with the store and lends them to each search", async () => {
    assert.deepEqual(await workersOf({ keepSearchWorkers: true }, [1, 1, 1]), {
      atCreation: 2,
      started: 2,
      stopped: 0,
      afterClose: 2,
    });
  });

  it("lends them to one search at a time: another at the same time starts and stops its own", async () => {
    // (Two searches sent at once overlap, unless the second's walk gets to its first file
    // only once the first search has ended, as it did once in the suite on a loaded machine:
    // it then borrows the kept workers. So up to 3 tries. Workers lent to both at once would
    // leave them at 2 started every time.)
    let seen;
    for (let attempt = 0; attempt < 3 && seen?.started !== 4; attempt++) {
      seen = await workersOf({ keepSearchWorkers: true }, [2, 1]);
    }
    assert.deepEqual(seen, { atCreation: 2, started: 4, stopped: 2, afterClose: 4 });
  });

  it("without it, each search starts its workers and stops them when it ends", async () => {
    assert.deepEqual(await workersOf({}, [1, 1, 1]), {
      atCreation: 0,
      started: 6,
      stopped: 6,
      afterClose: 6,
    });
  });

  it("has a search thread start with the store where the workers it starts start slowly", async () => {
    // (Deno took a second to start a worker from another; the thread then starts its own.)
    counts.started = 0;
    const store = await DirectoryStore.create({ roots: [root], searchThread: true });
    const atCreation = counts.started;
    store.close();
    assert.equal(atCreation, NESTED_WORKERS_START_SLOWLY ? 1 : 0);
  });

  it("drops them when one fails while they wait: the next search starts new ones", async () => {
    counts.started = counts.stopped = 0;
    const store = await DirectoryStore.create({
      roots: [root],
      searchThreads: 3,
      parallelSearchFrom: 1,
      keepSearchWorkers: true,
    });
    try {
      assert.deepEqual(await store.search(query), expected);
      const { lines } = await stderrOf(async () => {
        // (Not a batch: the worker throws and ends; Deno prints its error on stderr itself.)
        counts.last!.postMessage({ paths: 0 });
        for (let i = 0; i < 3000 && counts.stopped < 2; i++) {
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      });
      assert.equal(counts.stopped, 2, "both dropped");
      assert.ok(lines.length <= 1 && lines.every((line) => /search worker failed/.test(line)));
      assert.deepEqual(await store.search(query), expected);
      assert.equal(counts.started, 4, "two new ones for the next search");
    } finally {
      store.close();
    }
  });
});
