import assert from "node:assert/strict";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, describe, it, test } from "node:test";
import { formatRow } from "../../src/core/format_rows.ts";
import { compilePattern } from "../../src/match/safe_matcher.ts";
import { DirectoryStore } from "../../src/disk/directory_store.ts";
import { StoreError } from "../../src/store/errors.ts";
import type { SearchQuery } from "../../src/store/file_store.ts";
import { Sandbox } from "../../src/disk/sandbox.ts";
import { InputError } from "../../src/core/input_errors.ts";
import { WATCH_ORDER_KEPT } from "../../src/io/runtime.ts";
import { thisThreadId, threadCpuMs } from "../../src/io/thread_cpu.ts";
import {
  collectsAtOnce,
  GRACE_MS,
  KEPT_HERE,
  postedError,
  PROBE_LONGEST_MS,
  PROBE_MS,
  RUNNING,
  SearchThread,
  SECOND_SEARCH_BELOW,
  STUCK_CPU_MS,
  takenForStuck,
} from "../../src/disk/_search_thread.ts";

const hasWorkers = typeof Worker === "function";

/** A search thread module that never answers, and one that answers every search with a bug. */
const SILENT = "self.onmessage = () => {};";
const FAULTY = `self.onmessage = (event) => {
  if (typeof event.data.id !== "number") return;
  self.postMessage({ id: event.data.id, error: { kind: "bug", name: "TypeError",
    message: "x is undefined", stack: "TypeError: x is undefined\\n    at thread.js:2" } });
};`;

/**
 * The pattern of the search a module of the tests' is late with. (Told by its pattern, not by
 * its deadline: on a busy machine a thread may get a search seconds after it was posted.)
 */
const LATE = "late";

/**
 * One alive but late (as a thread at nice 4 on a busy machine may be): it answers a ping, never
 * the late search, and another only later than a thread that answered no ping would have been
 * replaced.
 */
const SLUGGISH = `self.onmessage = (event) => {
  const data = event.data;
  if (data.ping) self.postMessage({ pong: true });
  else if (typeof data.id === "number" && data.query.recipe.pattern !== "${LATE}") {
    setTimeout(() => {
      self.postMessage({ id: data.id, error: { kind: "input", message: "went on" } });
    }, ${GRACE_MS + PROBE_MS + 1000});
  }
};`;

/**
 * One that answers each pattern with one kept result, numbered by pattern: posted whole
 * unless the answering thread says it holds that number.
 */
const KEEPING = `const numbers = new Map();
self.onmessage = (event) => {
  const { id, query, held } = event.data;
  if (typeof id !== "number") return;
  const pattern = query.recipe.pattern;
  const kept = numbers.get(pattern) ?? numbers.set(pattern, numbers.size + 1).get(pattern);
  if (held.includes(kept)) return self.postMessage({ id, kept });
  // (A row's text goes after its prefix, as the grep tool shows it: "2\\t".)
  self.postMessage({ id, strings: true, texts: "2\\t" + pattern, paths: "a.txt" });
  self.postMessage({ id, kept, apart: true, result: {
    files: { paths: "", invalid: new Uint8Array(1), rowCounts: new Int32Array([1]),
      matchedLines: new Int32Array([-1]), whole: new Uint8Array(1),
      lines: new Int32Array([2]), textLengths: new Int32Array([pattern.length + 2]), texts: "",
      matches: new Int32Array([0, pattern.length]), pieces: [], sha1s: [] },
    matchedLines: 1, filesSearched: 1, binaryFilesSkipped: 0, filesNotSearched: 0 } });
};`;

/** One that posts a result without the strings that go ahead of it (see \`PackedStrings\`). */
const ROWLESS = `self.onmessage = (event) => {
  if (typeof event.data.id !== "number") return;
  self.postMessage({ id: event.data.id, apart: true, result: {
    files: { paths: "", invalid: new Uint8Array(1), rowCounts: new Int32Array([1]),
      matchedLines: new Int32Array([-1]), whole: new Uint8Array(1),
      lines: new Int32Array([2]), textLengths: new Int32Array([8]), texts: "",
      matches: new Int32Array([0, 6]), pieces: [], sha1s: [] },
    matchedLines: 1, filesSearched: 1, binaryFilesSkipped: 0, filesNotSearched: 0 } });
};`;

/** One that posts a result in a shape the answering side cannot read (no rows at all). */
const UNREADABLE = `self.onmessage = (event) => {
  if (typeof event.data.id !== "number") return;
  self.postMessage({ id: event.data.id, result: { files: { paths: "a.txt" }, matchedLines: 1,
    filesSearched: 1, binaryFilesSkipped: 0, filesNotSearched: 0 } });
};`;

/** How a module of the tests' tells its thread's id, as the search thread does. */
const TELLS_ID = `import * as fs from "node:fs";
try {
  self.postMessage({ threadId: Number(fs.readlinkSync("/proc/thread-self").split("/").at(-1)) });
} catch { /* (Deno lets only --allow-all read /proc: the thread's time is not told there) */ }
/** Whether this is the first thread of this module, or one that replaced it. */
const marker = new URL("./" + import.meta.url.split("/").at(-1) + ".started", import.meta.url);
const first = !fs.existsSync(marker);
fs.writeFileSync(marker, "");
`;

/**
 * One stuck in a loop on its first search, the first time it is started; started again, it
 * answers every search, saying so. The loop ends when the test removes the module's marker:
 * Deno's `terminate()` does not stop a thread in a loop (denoland/deno#35657), which would
 * spend a core until the test process ends.
 */
const STUCK_ONCE = `${TELLS_ID}
self.onmessage = (event) => {
  const data = event.data;
  if (data.ping) return self.postMessage({ pong: true });
  if (typeof data.id !== "number") return;
  if (first) while (fs.existsSync(marker));
  self.postMessage({ id: data.id, error: { kind: "input", message: "answered by a new thread" } });
};`;

/**
 * One that waits on the system without spending processor time (as a thread starved of a
 * core does) on the late search, for longer than a ping may go unanswered.
 */
const WAITING = `${TELLS_ID}
self.onmessage = (event) => {
  const data = event.data;
  if (data.ping) return self.postMessage({ pong: true });
  if (typeof data.id !== "number") return;
  if (data.query.recipe.pattern === "${LATE}") {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ${PROBE_MS + 2000});
  } else {
    const message = first ? "went on" : "went on in a new thread";
    self.postMessage({ id: data.id, error: { kind: "input", message } });
  }
};`;

/** A search of a budget that outlasts the tests of a late thread. */
const LONG_BUDGET_MS = 30_000;
/** How long the tests of a late thread wait for its other search (they time out at 30 s). */
const ANSWERED_WITHIN_MS = 25_000;

/** One that throws where it stands (a long line of code, as a bundle's is). */
const THROWING = `${"/* a long line of code */ ".repeat(40)} self.onmessage = (event) => {
  if (typeof event.data.id === "number") undefinedThing(); };`;

/** A pattern with no linear-time form that takes far longer than any budget on "a"*501+"b". */
const SLOW = "(a)a*a*a*\\1c";

function query(pattern: string, extra: Partial<SearchQuery> = {}): SearchQuery {
  return { matcher: compilePattern(pattern).matcher, ...extra };
}

test("a thread that does not answer a ping is stuck once it spends its time, or waits a minute", () => {
  const pinged = 1_000_000;
  assert.equal(takenForStuck(undefined, pinged, pinged + PROBE_MS), true, "its time unknown");
  assert.equal(takenForStuck(STUCK_CPU_MS, pinged, pinged + PROBE_MS), true, "it spent it");
  assert.equal(takenForStuck(STUCK_CPU_MS - 10, pinged, pinged + PROBE_MS), false, "starved");
  assert.equal(takenForStuck(0, pinged, pinged + PROBE_LONGEST_MS), true, "waited too long");
  assert.equal(takenForStuck(0, pinged, pinged + PROBE_LONGEST_MS - 1), false);
});

test("the search thread collects at once only after a search that read files, under load", () => {
  const big = SECOND_SEARCH_BELOW + 1;
  assert.equal(collectsAtOnce(false, true, big), true, "others waiting, a big process");
  assert.equal(collectsAtOnce(false, false, big), false, "none waiting: once idle");
  assert.equal(collectsAtOnce(true, true, big), false, "a repeat left little");
  assert.equal(collectsAtOnce(false, true, SECOND_SEARCH_BELOW - 1), false, "a small process");
});

describe("the search thread", { skip: !hasWorkers }, () => {
  let dir: string;
  let modules: string;
  let inThread: DirectoryStore;
  let onThread: DirectoryStore;

  before(async () => {
    dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "linewise-thread-")));
    modules = await fs.mkdtemp(path.join(os.tmpdir(), "linewise-thread-modules-"));
    await fs.mkdir(path.join(dir, "src/deep"), { recursive: true });
    await fs.writeFile(path.join(dir, "a.txt"), "one\nneedle two\nthree\n");
    await fs.writeFile(path.join(dir, "src/b.ts"), "const needle = 1;\n// Needle\n");
    await fs.writeFile(path.join(dir, "src/deep/c.md"), "no match\r\nneedle\r\n");
    await fs.writeFile(path.join(dir, "slow.txt"), "a".repeat(501) + "b\n");
    await fs.writeFile(path.join(dir, "bin.dat"), new Uint8Array([110, 0, 1, 2]));
    await fs.writeFile(
      path.join(dir, "min.js"),
      "x".repeat(100_000) + "needle();" + "y".repeat(9000),
    );
    await fs.writeFile(path.join(modules, "silent.js"), SILENT);
    await fs.writeFile(path.join(modules, "faulty.js"), FAULTY);
    await fs.writeFile(path.join(modules, "sluggish.js"), SLUGGISH);
    await fs.writeFile(path.join(modules, "throwing.js"), THROWING);
    await fs.writeFile(path.join(modules, "keeping.js"), KEEPING);
    await fs.writeFile(path.join(modules, "rowless.js"), ROWLESS);
    await fs.writeFile(path.join(modules, "unreadable.js"), UNREADABLE);
    await fs.writeFile(path.join(modules, "stuck-once.js"), STUCK_ONCE);
    await fs.writeFile(path.join(modules, "waiting.js"), WAITING);
    inThread = await DirectoryStore.create({ roots: [dir] });
    onThread = await DirectoryStore.create({ roots: [dir], searchThread: true });
  });

  after(async () => {
    onThread.close();
    await fs.rm(dir, { recursive: true });
    await fs.rm(modules, { recursive: true });
  });

  it("finds what the caller's thread finds, with progress and the same counts", async () => {
    assert.equal(onThread.searchesTakeTurns, true);
    assert.equal(inThread.searchesTakeTurns, false);
    const cases: Array<[string, Partial<SearchQuery>, { ignoreCase?: boolean }?]> = [
      ["needle", {}],
      ["needle", { context: 1 }],
      ["needle", {}, { ignoreCase: true }],
      ["need(le)?", { glob: "**/*.ts" }],
      ["needle", { includeIgnored: true, onUnreadable: () => {} }],
      ["needle", { glob: "*.js" }],
      ["needle", { path: "src", maxMatches: 1 }],
      ["^three$", {}],
    ];
    for (const [pattern, extra, options] of cases) {
      const make = () => ({ matcher: compilePattern(pattern, options).matcher, ...extra });
      let progressed = 0;
      const got = await onThread.search({ ...make(), onProgress: () => progressed++ });
      assert.deepEqual(got, await inThread.search(make()), `${pattern} ${JSON.stringify(extra)}`);
      assert.ok(progressed > 0, "progress crosses from the thread");
    }
  });

  it("sends only the part of a long row that will be shown, which shows alike", async () => {
    const make = () => query("needle", { glob: "*.js", rowCut: 100 });
    const whole = (await inThread.search(query("needle", { glob: "*.js" }))).files[0].rows[0];
    assert.equal(whole.text.length, 109_009);
    for (const store of [inThread, onThread]) {
      const part = (await store.search(make())).files[0].rows[0];
      assert.ok(part.text.length <= 100, `${part.text.length} UTF-16 units sent`);
      assert.equal(formatRow(part, { cut: 100 }).text, formatRow(whole, { cut: 100 }).text);
    }
  });

  it("sends the store's errors back with their code and path", async () => {
    const error = await onThread.search(query("x", { path: "missing" })).catch((e) => e);
    assert.ok(error instanceof StoreError, String(error));
    assert.equal(error.code, "not_found");
    assert.equal(error.path, "missing");
  });

  it("refuses a malformed glob as the caller's mistake, at once", async () => {
    const error = await onThread.search(query("x", { glob: "**/.txt[!" })).catch((e) => e);
    assert.ok(error instanceof InputError, String(error));
    assert.match(error.message, /is never closed/);
    const signal = new AbortController().signal;
    assert.deepEqual(postedError(new InputError("bad glob"), signal), {
      kind: "input",
      message: "bad glob",
    });
    assert.equal(postedError(new TypeError("x is undefined"), signal).kind, "bug");
  });

  it("answers a search whose budget ends while it waits as never started", async () => {
    const deadline = Date.now() + 1500;
    const slow = Array.from({ length: RUNNING }, () => onThread.search(query(SLOW, { deadline })));
    // (A pattern scanned here takes turns apart from those a helper scans: it does not wait.)
    const plain = Date.now();
    assert.equal((await onThread.search(query("needle"))).matchedLines, 4);
    assert.ok(Date.now() - plain < 1000, `a plain grep waited ${Date.now() - plain} ms`);
    const started = Date.now();
    const waiting = await onThread.search(query(SLOW, { deadline: Date.now() + 300 }));
    const waited = Date.now() - started;
    assert.equal(waiting.neverStarted, true);
    assert.equal(waiting.stopped, "time");
    assert.equal(waiting.filesSearched, 0);
    assert.ok(waited >= 250 && waited < 1400, `answered after ${waited} ms`);
    for (const result of await Promise.all(slow)) {
      // The second runs beside the first only while the process is small enough. (On a busy
      // machine the budget may end between two files, before the pattern is stuck.)
      assert.equal(result.stopped, "time");
      const kept = result.patternStopped || result.neverStarted || result.filesNotSearched > 0;
      assert.ok(kept, JSON.stringify(result));
      assert.ok(Date.now() - deadline < 1000, "the slow searches kept their budget");
    }
    // The turns are free again.
    assert.equal((await onThread.search(query("needle"))).matchedLines, 4);
  });

  it("rejects a waiting search and a running one when they are aborted", async () => {
    const controller = new AbortController();
    const deadline = Date.now() + 1500;
    const slow = Array.from(
      { length: RUNNING },
      () => onThread.search(query(SLOW, { deadline, signal: controller.signal })),
    );
    const waiting = onThread.search(query(SLOW, { signal: controller.signal }));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = Date.now();
    controller.abort(new Error("cancelled by the test"));
    await Promise.all(
      [waiting, ...slow].map((search) => assert.rejects(search, /cancelled by the test/)),
    );
    assert.ok(Date.now() - started < 1000, `aborts took ${Date.now() - started} ms`);
    assert.equal((await onThread.search(query("needle"))).matchedLines, 4);
  });

  it("replaces a thread that does not keep the budget, and answers the search", async () => {
    const sandbox = await Sandbox.create({ roots: [dir] });
    const thread = SearchThread.where(
      sandbox.share(),
      { searchIndex: false },
      new URL(`file://${modules}/silent.js`),
    )!;
    try {
      for (let round = 0; round < 2; round++) {
        const deadline = Date.now() + 200;
        const result = await thread.search(query("needle", { deadline }));
        const late = Date.now() - deadline;
        assert.equal(result.stopped, "time");
        assert.equal(result.filesSearched, 0);
        assert.ok(late >= GRACE_MS - 50 && late < GRACE_MS + 1000, `answered ${late} ms late`);
      }
    } finally {
      thread.close();
    }
  });

  /** The thread of a module of the test's. */
  async function threadOf(name: string): Promise<SearchThread> {
    const sandbox = await Sandbox.create({ roots: [dir] });
    return SearchThread.where(
      sandbox.share(),
      { searchIndex: false },
      new URL(`file://${modules}/${name}`),
    )!;
  }

  /**
   * A search due in 200 ms, then one with a long budget (the late one first: the other may
   * wait for its turn behind it, as it does when memory is high). The other is the error it
   * is answered with, or a sentence saying it was not answered in time (rather than the
   * test's timeout, which tells nothing).
   */
  function lateThenOther(thread: SearchThread) {
    const deadline = Date.now() + 200;
    const late = thread.search(query(LATE, { deadline }));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const other = Promise.race([
      thread.search(query("needle", { deadline: Date.now() + LONG_BUDGET_MS }))
        .catch((error) => error),
      new Promise((resolve) => {
        timer = setTimeout(
          () => resolve(`not answered in ${ANSWERED_WITHIN_MS} ms`),
          ANSWERED_WITHIN_MS,
        );
      }),
    ]).finally(() => clearTimeout(timer));
    return { deadline, late, other };
  }

  it(
    "replaces a late thread that spends its time and answers no ping; its other searches go on",
    { timeout: 30_000 },
    async () => {
      const thread = await threadOf("stuck-once.js");
      try {
        const { deadline, late, other } = lateThenOther(thread);
        assert.equal((await late).stopped, "time");
        const answer = await other;
        const waited = Date.now() - deadline - GRACE_MS;
        assert.ok(answer instanceof InputError, `the other search: ${answer}`);
        assert.equal(answer.message, "answered by a new thread");
        // (Looked at every PROBE_MS: stuck once it spent STUCK_CPU_MS, at the first look on
        // a machine that gives it a core, at a later one on a busy machine.)
        assert.ok(
          waited >= PROBE_MS - 50 && waited < 3 * PROBE_MS + 1000,
          `replaced after ${waited} ms`,
        );
      } finally {
        thread.close();
        await fs.rm(path.join(modules, "stuck-once.js.started"));
      }
    },
  );

  it("keeps a late thread that spends no time while it does not answer, as a starved one", {
    timeout: 30_000,
    skip: threadCpuMs(thisThreadId() ?? -1) === undefined, // (where /proc tells it)
  }, async () => {
    const thread = await threadOf("waiting.js");
    try {
      const { late, other } = lateThenOther(thread);
      assert.equal((await late).stopped, "time");
      const answer = await other;
      assert.ok(answer instanceof InputError, `the other search: ${answer}`);
      assert.equal(answer.message, "went on");
    } finally {
      thread.close();
    }
  });

  it("keeps a thread late with a search but alive, and its other searches go on", {
    timeout: 30_000,
  }, async () => {
    const thread = await threadOf("sluggish.js");
    try {
      const { deadline, late, other } = lateThenOther(thread);
      assert.equal((await late).stopped, "time");
      assert.ok(Date.now() - deadline < GRACE_MS + 1000, "answered at its budget");
      const answer = await other;
      assert.ok(answer instanceof InputError, `the other search: ${answer}`);
      assert.equal(answer.message, "went on");
    } finally {
      thread.close();
    }
  });

  it("answers a search repeated with the result held here, until a file changes", {
    skip: !WATCH_ORDER_KEPT, // (where the index runs)
  }, async () => {
    const store = await DirectoryStore.create({
      roots: [dir],
      searchThread: true,
      searchIndex: true,
    });
    const b = path.join(dir, "src/b.ts");
    const before = await fs.readFile(b, "utf8");
    try {
      const repeated = () => store.search(query("needle", { maxMatches: 100 }));
      let last = await repeated();
      let held = false;
      // (Once the index watches the tree, it keeps a result; the next repeat is the held one.)
      for (let i = 0; i < 100 && !held; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        const next = await repeated();
        held = next === last;
        last = next;
      }
      assert.ok(held, "a repeat is answered with the result held here");
      assert.deepEqual(last, await inThread.search(query("needle", { maxMatches: 100 })));
      await fs.writeFile(b, "needle again\n");
      const changed = await repeated();
      assert.notEqual(changed, last);
      assert.deepEqual(changed, await inThread.search(query("needle", { maxMatches: 100 })));
      assert.equal(
        changed.files.find((f) => f.path === "src/b.ts")?.rows[0].text,
        "needle again\n",
      );
    } finally {
      store.close();
      await fs.writeFile(b, before);
    }
  });

  it("holds the last kept results, which the thread then names by number alone", async () => {
    const thread = await threadOf("keeping.js");
    try {
      const first = await thread.search(query("needle"));
      assert.equal(first.files[0].rows[0].text, "needle");
      assert.ok(Object.isFrozen(first.files[0].rows[0]), "held results are frozen");
      assert.equal(await thread.search(query("needle")), first, "named, not posted again");
      // Beyond KEPT_HERE others, the first is no longer held: it is posted whole again.
      for (let i = 0; i < KEPT_HERE; i++) await thread.search(query(`other${i}`));
      const again = await thread.search(query("needle"));
      assert.notEqual(again, first);
      assert.deepEqual(again, first);
      // A new thread numbers its results anew: what was held for the last one is not named.
      thread.close(); // (each search from now on starts a thread of its own)
      const anew = await thread.search(query("other0"));
      assert.equal(anew.files[0].rows[0].text, "other0");
    } finally {
      thread.close();
    }
  });

  it("reports a failure on the thread as a bug, with the thread's stack", async () => {
    const sandbox = await Sandbox.create({ roots: [dir] });
    const thread = SearchThread.where(
      sandbox.share(),
      { searchIndex: false },
      new URL(`file://${modules}/faulty.js`),
    )!;
    try {
      const error = await thread.search(query("needle")).catch((e) => e);
      assert.ok(error instanceof Error && !(error instanceof StoreError), String(error));
      assert.match(error.message, /the search thread failed: x is undefined/);
      assert.match(error.stack!, /on the search thread[\s\S]*thread\.js:2/);
    } finally {
      thread.close();
    }
  });

  it("refuses a result whose rows did not come ahead of it, as a failure of its own", async () => {
    const thread = await threadOf("rowless.js");
    try {
      const error = await thread.search(query("needle")).catch((e) => e);
      assert.ok(error instanceof Error && !(error instanceof StoreError), String(error));
      assert.match(error.message, /posted a result without its rows/);
    } finally {
      thread.close();
    }
  });

  it("refuses a result it cannot read as a failure, rather than leave the search unanswered", async () => {
    const thread = await threadOf("unreadable.js");
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const error = await Promise.race([
        thread.search(query("needle")).catch((e) => e),
        new Promise((resolve) => timer = setTimeout(() => resolve("not answered in 5 s"), 5_000)),
      ]);
      assert.ok(error instanceof Error && !(error instanceof StoreError), String(error));
      assert.match(error.message, /^the search thread posted a result that could not be read \(/);
    } finally {
      clearTimeout(timer);
      thread.close();
    }
  });

  it("says in one line what failed when the thread dies, not the line of code", async () => {
    const sandbox = await Sandbox.create({ roots: [dir] });
    const thread = SearchThread.where(
      sandbox.share(),
      { searchIndex: false },
      new URL(`file://${modules}/throwing.js`),
    )!;
    try {
      const error = await thread.search(query("needle")).catch((e) => e);
      assert.ok(error instanceof Error && !(error instanceof StoreError), String(error));
      assert.match(
        error.message,
        /^the search thread failed: (Uncaught )?ReferenceError: undefinedThing is not defined$/,
      );
    } finally {
      thread.close();
    }
  });
});
