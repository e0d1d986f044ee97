/**
 * The command line's standard output, written with blocking calls, each text as it is given
 * (a grep gives a file's rows once it is searched): a reader slower than the search holds the
 * search back, as it holds ripgrep back. Written through `process.stdout`, what was printed
 * waited in the process for the reader: `linewise grep e drivers/gpu` of the Linux tree (732
 * MB of rows) grew to 2.2 GB piped to a reader that paused 4 s, against 1.0 GB now.
 *
 * `process.stdout` is never touched: under Bun and Node that makes the descriptor
 * non-blocking, for this process and for every other one sharing it (a command after
 * linewise writing to the same pipe then failed with EAGAIN). A descriptor that is
 * non-blocking all the same (a parent made it so) is waited on a millisecond at a time.
 *
 * @module
 */
import * as fs from "node:fs";
import { RUNTIME } from "../io/runtime.ts";

/**
 * The most bytes one call writes: Deno's `writeSync` writes on after a partial write, and a
 * descriptor that is non-blocking then fails with EAGAIN, the bytes written lost count of.
 * A pipe writes at most `PIPE_BUF` bytes (4,096 on Linux) whole or not at all.
 */
const WRITE_BYTES = RUNTIME === "deno" ? 4096 : Infinity;

/** What a write that failed tells: the system's error code, if any. */
export type WriteError = Error & { code?: string };

/**
 * A blocking writer of `fd`: each text is written whole before it returns.
 *
 * @param fd the descriptor (1 for standard output)
 * @param failed told of a write that failed (the reader gone: `EPIPE`); nothing is written
 *   after it
 * @returns the writer
 * @example
 * ```ts
 * import { blockingOutput } from "./_stdout.ts";
 * import * as fs from "node:fs";
 * import * as os from "node:os";
 * import * as path from "node:path";
 * import assert from "node:assert/strict";
 * const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "out-")), "out");
 * const fd = fs.openSync(file, "w");
 * const write = blockingOutput(fd, (error) => { throw error; });
 * write("a\n");
 * assert.equal(fs.readFileSync(file, "utf8"), "a\n");
 * fs.closeSync(fd);
 * ```
 */
export function blockingOutput(
  fd: number,
  failed: (error: WriteError) => void,
): (text: string) => void {
  let broken = false;
  let bytes: Uint8Array | undefined;
  /** Writes the first `length` bytes of `bytes`; false once a write failed. */
  const writeAll = (length: number): boolean => {
    for (let at = 0; at < length;) {
      try {
        at += fs.writeSync(fd, bytes!, at, Math.min(length - at, WRITE_BYTES));
      } catch (error) {
        const code = (error as WriteError).code;
        if (code === "EAGAIN" || code === "EWOULDBLOCK") pause(1);
        else if (code !== "EINTR") {
          broken = true;
          failed(error as WriteError);
          return false;
        }
      }
    }
    return true;
  };
  return (text) => {
    if (broken || text === "") return;
    bytes ??= new Uint8Array(PIECE_CHARS * 3);
    for (let from = 0; from < text.length;) {
      let to = Math.min(from + PIECE_CHARS, text.length);
      // (A surrogate pair is encoded whole: the piece ends before its first half.)
      if (to < text.length && isHighSurrogate(text.charCodeAt(to - 1))) to--;
      const piece = from === 0 && to === text.length ? text : text.slice(from, to);
      if (!writeAll(encoder.encodeInto(piece, bytes).written)) return;
      from = to;
    }
  };
}

/**
 * The characters encoded at a time, into one buffer of three bytes each (the most one UTF-16
 * unit takes). One file's rows are one text, tens of megabytes for a generated header of the
 * Linux tree: `Buffer.from` of such a text allocates its size and, under Bun, encodes it many
 * times slower than pieces of it are encoded into a buffer kept.
 */
const PIECE_CHARS = 16 * 1024;

const encoder = new TextEncoder();

/** Whether a UTF-16 code unit is the first half of a surrogate pair. */
function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

/** A writer that gathers what it is given, and the way to write what it holds. */
export interface OutputBuffer {
  /** Takes a text, written once the texts held reach the buffer's size. */
  write(text: string): void;
  /** Writes what is held. */
  flush(): void;
}

/**
 * Gathers texts into writes of about `chars` characters: a listing of 78,000 paths is a few
 * hundred writes, not one per path (which took twice ripgrep's time over the Linux tree), as
 * ripgrep writes to a pipe or a file.
 *
 * @param write where the texts go
 * @param chars the characters gathered before a write (0: each text is written at once)
 * @returns the buffer
 * @example
 * ```ts
 * import { outputBuffer } from "./_stdout.ts";
 * import assert from "node:assert/strict";
 * const writes: string[] = [];
 * const out = outputBuffer((text) => writes.push(text), 4);
 * out.write("ab");
 * out.write("cd");
 * out.write("e");
 * out.flush();
 * assert.deepEqual(writes, ["abcd", "e"]);
 * ```
 */
export function outputBuffer(write: (text: string) => void, chars: number): OutputBuffer {
  let held: string[] = [];
  let length = 0;
  const flush = () => {
    if (held.length === 0) return;
    const text = held.length === 1 ? held[0] : held.join("");
    held = [];
    length = 0;
    write(text);
  };
  return {
    write(text) {
      if (chars === 0) return write(text);
      held.push(text);
      length += text.length;
      if (length >= chars) flush();
    },
    flush,
  };
}

/** A word nothing wakes, to wait on. */
let asleep: Int32Array | undefined;

/** Blocks the thread for `ms` milliseconds. */
function pause(ms: number): void {
  Atomics.wait(asleep ??= new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
