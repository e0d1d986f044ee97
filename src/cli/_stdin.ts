/**
 * The command line's standard input, read whole: for `-f -` (patterns) and `-` as a path.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import * as fs from "node:fs";
import { pause } from "./_stdout.ts";

/**
 * Standard input's bytes, to its end, read with blocking calls: a descriptor that is
 * non-blocking all the same (a parent made it so) is waited on a millisecond at a time, and
 * one that is closed reads as empty.
 *
 * @returns the bytes
 */
export function readStdin(): Uint8Array {
  const chunks: Uint8Array[] = [];
  for (;;) {
    const chunk = new Uint8Array(64 * 1024);
    let got: number;
    try {
      got = fs.readSync(0, chunk, 0, chunk.length, null);
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === "EAGAIN" || code === "EWOULDBLOCK") pause(1);
      else if (code === "EOF" || code === "EBADF") break;
      else if (code !== "EINTR") throw error;
      continue;
    }
    if (got === 0) break;
    chunks.push(chunk.subarray(0, got));
  }
  return Buffer.concat(chunks);
}
