// LineReader hands a file over as runs of whole lines, and a line longer than asked for as its
// blocks; with `transient`, one buffer takes every block, so a run is valid only until the
// next call: what is handed over must be the same bytes either way, whatever the blocks cut.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import fc from "fast-check";
import { LineReader, type ReadableFile } from "../../src/files/_line_reader.ts";

/** A file in memory whose reads give at most `most` bytes at a time. */
function fileOf(bytes: Uint8Array, most: number): ReadableFile {
  return {
    read(buffer, offset, length, position) {
      const got = bytes.subarray(position, position + Math.min(length, most));
      buffer.set(got, offset);
      return Promise.resolve({ bytesRead: got.length });
    },
    close: () => Promise.resolve(),
  };
}

/** What a reader hands over, each piece copied at once: ["run" | "long", bytes]. */
async function handedOver(reader: LineReader, longBytes: number): Promise<[string, string][]> {
  const out: [string, string][] = [];
  for (
    let next = await reader.next(longBytes);
    next !== null;
    next = await reader.next(longBytes)
  ) {
    if ("run" in next) out.push(["run", Buffer.from(next.run).toString("latin1")]);
    else {
      let line = "";
      for await (const block of next.long) line += Buffer.from(block).toString("latin1");
      out.push(["long", line]);
    }
  }
  return out;
}

test("a transient reader hands over the bytes a reader of fresh blocks does", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.oneof(fc.nat(5), fc.nat(300)), { maxLength: 20 }),
      fc.boolean(),
      fc.integer({ min: 16, max: 64 }),
      fc.integer({ min: 1, max: 100 }),
      fc.integer({ min: 1, max: 200 }),
      fc.nat(3),
      async (lengths, last, blockBytes, most, longBytes, position) => {
        const text = lengths.map((n, i) => String.fromCharCode(97 + i % 26).repeat(n)).join("\n") +
          (last ? "\n" : "");
        const bytes = Buffer.from(text, "latin1");
        const read = (transient: boolean) =>
          handedOver(
            new LineReader(fileOf(bytes, most), position, blockBytes, transient),
            longBytes,
          );
        const fresh = await read(false);
        assert.deepEqual(await read(true), fresh);
        // (Every byte from the position, in order; each run ends where a line does.)
        assert.equal(fresh.map(([, piece]) => piece).join(""), text.slice(position));
        for (const [kind, piece] of fresh.slice(0, -1)) {
          assert.ok(kind === "long" || piece.endsWith("\n"), JSON.stringify(piece));
        }
      },
    ),
    { numRuns: 500 },
  );
});
