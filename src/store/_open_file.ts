/**
 * Opening real files for reading without ever blocking, shared by the directory store's
 * reads and its search.
 *
 * @module
 */
import { constants } from "node:fs";
import * as fs from "node:fs/promises";
import { mapOsError } from "./_os_errors.ts";
import { NotAFileError } from "./errors.ts";
import type { WalkNode } from "./walk.ts";

const OPEN_READ = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0);

/** The stat of an open file, with the fields that tell versions apart as bigints. */
export type BigIntStats = Awaited<ReturnType<fs.FileHandle["stat"]>> & {
  mtimeNs: bigint;
  dev: bigint;
  ino: bigint;
  size: bigint;
};

/**
 * Opens a regular file for reading without ever blocking: stat first (a FIFO is refused
 * before it is opened), open non-blocking and without following a last-segment symlink
 * (the key is already the real path), then stat the open handle, in case the path was
 * swapped in between.
 *
 * @param node the file's real path and display path
 * @returns the open handle and its stat
 * @throws {StoreError} mapped from the OS error, or {@linkcode NotAFileError}
 */
export async function openForRead(
  node: WalkNode,
): Promise<{ handle: fs.FileHandle; stat: BigIntStats }> {
  try {
    const before = await fs.stat(node.key);
    if (!before.isFile()) throw new NotAFileError(node.display, describe(before));
    const handle = await fs.open(node.key, OPEN_READ);
    try {
      const stat = await handle.stat({ bigint: true });
      if (!stat.isFile()) throw new NotAFileError(node.display, describe(stat));
      return { handle, stat };
    } catch (error) {
      await handle.close();
      throw error;
    }
  } catch (error) {
    throw mapOsError(error, node.display, "read");
  }
}

/**
 * A phrase for a non-file, for {@linkcode NotAFileError}.
 *
 * @param stat what a stat said
 * @returns e.g. "a FIFO (named pipe)"
 */
export function describe(stat: {
  isDirectory(): boolean;
  isFIFO(): boolean;
  isSocket(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
}): string {
  if (stat.isDirectory()) return "a directory";
  if (stat.isFIFO()) return "a FIFO (named pipe)";
  if (stat.isSocket()) return "a socket";
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return "a device";
  return "not a regular file";
}

/**
 * The first bytes of a file (fewer when it is shorter).
 *
 * @param handle the open file
 * @param count how many bytes
 * @returns the bytes
 */
export async function readHead(handle: fs.FileHandle, count: number): Promise<Uint8Array> {
  const buffer = new Uint8Array(count);
  let filled = 0;
  while (filled < count) {
    const { bytesRead } = await handle.read(buffer, filled, count - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}
