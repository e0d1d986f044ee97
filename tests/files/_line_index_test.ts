import { fromNodeStat } from "../../src/io/file_stat.ts";
import assert from "node:assert/strict";
import { readSync } from "node:fs";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { describe, it } from "node:test";
import { LineIndexCache, SCAN_BLOCK_BYTES } from "../../src/files/_line_index.ts";
import type { ReadableFile } from "../../src/files/_line_reader.ts";
import { DirectoryStore } from "../../src/disk/directory_store.ts";

/** Lines of varied length (CRLF, lone CR, long lines) over several scan blocks. */
function buildText(bytes: number, final = "\n"): { text: string; starts: number[] } {
  let text = "";
  const starts: number[] = [];
  for (let n = 1; text.length < bytes; n++) {
    starts.push(text.length);
    const body = `line ${n} ` + "x".repeat((n * 7919) % 300) + (n % 13 === 0 ? "\r" : "");
    text += body + (n % 5 === 0 ? "\r\n" : "\n");
  }
  return { text: text.slice(0, -1) + final, starts };
}

async function withFile(
  text: string,
  work: (file: string, dir: string) => Promise<void>,
): Promise<void> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "linewise-index-"));
  try {
    const file = path.join(dir, "f.txt");
    await fs.writeFile(file, text);
    await work(file, dir);
  } finally {
    await fs.rm(dir, { recursive: true });
  }
}

/**
 * How a scan reads: off the thread alone (a handle without `readNow`), or at once where
 * it can, as from a page cache holding part of a file: a whole block, a third of one, or
 * none (-1, then read off the thread), in turns.
 */
const READS = ["off the thread", "at once in part"] as const;

function readsOf(handle: fs.FileHandle, reads: typeof READS[number]): ReadableFile {
  if (reads === "off the thread") return handle;
  let calls = 0;
  return {
    read: (buffer, offset, length, position) => handle.read(buffer, offset, length, position),
    readNow: (buffer, offset, length, position) => {
      const turn = calls++ % 3;
      if (turn === 2) return -1;
      return readSync(
        handle.fd,
        buffer,
        offset,
        turn === 0 ? length : Math.ceil(length / 3),
        position,
      );
    },
    close: () => handle.close(),
  };
}

async function seek(
  cache: LineIndexCache,
  file: string,
  line: number,
  reads: typeof READS[number] = "off the thread",
) {
  const handle = await fs.open(file, "r");
  try {
    const stat = fromNodeStat(await handle.stat({ bigint: true }));
    return await cache.seekLine(readsOf(handle, reads), file, stat, 0, line);
  } finally {
    await handle.close();
  }
}

describe("LineIndexCache", () => {
  for (const reads of READS) {
    it(`seekLine() finds where each line starts, across blocks and from checkpoints (${reads})`, async () => {
      const { text, starts } = buildText(3 * SCAN_BLOCK_BYTES + 12345);
      await withFile(text, async (file) => {
        const cache = new LineIndexCache();
        const probes = [1, 2, 777, starts.length - 1, starts.length, 5000, 12, 9000];
        for (const line of probes) {
          assert.deepEqual(await seek(cache, file, line, reads), {
            found: true,
            offset: starts[line - 1],
          });
        }
        assert.deepEqual(await seek(cache, file, starts.length + 1, reads), {
          found: true,
          offset: text.length,
        });
        assert.deepEqual(await seek(cache, file, starts.length + 2, reads), {
          found: false,
          lines: starts.length,
        });
      });
    });
  }

  it("gives the event loop turns while it reads blocks at once", async () => {
    const { text, starts } = buildText(8 * SCAN_BLOCK_BYTES);
    await withFile(text, async (file) => {
      const handle = await fs.open(file, "r");
      try {
        // Each block read at once takes 3 ms: a scan that never yields would hold the loop 24.
        const slow: ReadableFile = {
          read: (buffer, offset, length, position) => handle.read(buffer, offset, length, position),
          readNow: (buffer, offset, length, position) => {
            for (const until = performance.now() + 3; performance.now() < until;);
            return readSync(handle.fd, buffer, offset, length, position);
          },
          close: () => handle.close(),
        };
        const stat = fromNodeStat(await handle.stat({ bigint: true }));
        const line = starts.length - 1;
        let turns = 0;
        let scanning = true;
        const turn = () => scanning && (turns++, setImmediate(turn));
        setImmediate(turn);
        const found = await new LineIndexCache().seekLine(slow, file, stat, 0, line);
        scanning = false;
        assert.deepEqual(found, { found: true, offset: starts[line - 1] });
        assert.ok(turns >= 2, `${turns} turns`);
      } finally {
        await handle.close();
      }
    });
  });

  it("remembers lines asked for, and any order of seeks still lands on each line's start", async () => {
    const { text, starts } = buildText(SCAN_BLOCK_BYTES / 2);
    await withFile(text, async (file) => {
      const cache = new LineIndexCache();
      let seed = 7;
      const next = () => (seed = (seed * 48271) % 2147483647);
      const probes = [2000, 2000, 1995, 2003, 1, 2000];
      for (let i = 0; i < 300; i++) probes.push(1 + (next() % starts.length));
      for (const line of probes) {
        const found = await seek(cache, file, line);
        assert.deepEqual(found, { found: true, offset: starts[line - 1] }, `line ${line}`);
      }
    });
  });

  it("counts an unterminated last line, and forgets a file that changed", async () => {
    const { text, starts } = buildText(SCAN_BLOCK_BYTES + 999, "");
    await withFile(text, async (file) => {
      const cache = new LineIndexCache();
      const handle = await fs.open(file, "r");
      const stat = fromNodeStat(await handle.stat({ bigint: true }));
      assert.equal(await cache.lineCount(handle, file, stat, 0), starts.length);
      assert.equal(cache.knownLineCount(file, stat), starts.length);
      await handle.close();
      await fs.writeFile(file, "one\ntwo\n");
      assert.deepEqual(await seek(cache, file, 2), { found: true, offset: 4 });
      assert.deepEqual(await seek(cache, file, 4), { found: false, lines: 2 });
    });
  });
});

describe("DirectoryStore.readLines() with the line index", () => {
  it("reads the same lines deep in a file the first and the second time, and after a change", async () => {
    const { text, starts } = buildText(2 * SCAN_BLOCK_BYTES + 100);
    await withFile(text, async (_file, dir) => {
      const store = await DirectoryStore.create({ roots: [dir] });
      const options = { maxLines: 3, maxChars: 100_000, cut: 2000 };
      const line = starts.length - 10;
      const expected = [0, 1, 2].map((i) => text.slice(starts[line - 1 + i], starts[line + i]));
      for (let i = 0; i < 2; i++) {
        const range = await store.readLines("f.txt", { ...options, start: line });
        assert.deepEqual(range.lines, expected);
        assert.equal(range.more, true);
      }
      await fs.writeFile(path.join(dir, "f.txt"), "a\n".repeat(starts.length - 8) + "end\n");
      const changed = await store.readLines("f.txt", { ...options, start: line + 1 });
      assert.deepEqual(changed.lines, ["a\n", "a\n", "end\n"]);
      assert.equal(changed.total, starts.length - 7);
      assert.equal(changed.more, false);
    });
  });
});
