/**
 * Opening real files for reading without ever blocking on a FIFO or device, shared by the
 * directory store's reads and its search. A small file is read with blocking calls (in Bun a
 * promise of `node:fs/promises` costs more than reading a few lines);
 * a larger one with non-blocking reads, so a long read leaves the event loop free and the
 * line index can scan one block while the next is read.
 *
 * @module
 */
import { describeKind, type FileStat } from "../io/file_stat.ts";
import type { FileSystem } from "../io/file_system.ts";
import { BLOCK_BYTES, concat, type ReadableFile } from "./_line_reader.ts";
import { mapOsError } from "./_os_errors.ts";
import { FileTooLargeError, NotAFileError } from "../store/errors.ts";
import type { WalkNode } from "../store/walk.ts";

/** Files up to this size are read with blocking calls. */
export const BLOCKING_READ_BYTES = 4 * 1024 * 1024;

/** A file read with blocking calls: every promise it returns is already settled. */
class BlockingFile implements ReadableFile {
  readonly #files: FileSystem;
  readonly #fd: number;
  constructor(files: FileSystem, fd: number) {
    this.#files = files;
    this.#fd = fd;
  }
  read(buffer: Uint8Array, offset: number, length: number, position: number) {
    try {
      return Promise.resolve({ bytesRead: this.readNow(buffer, offset, length, position) });
    } catch (error) {
      return Promise.reject(error);
    }
  }
  readNow(buffer: Uint8Array, offset: number, length: number, position: number): number {
    return this.#files.read(this.#fd, buffer, offset, length, position);
  }
  close(): Promise<void> {
    this.#files.close(this.#fd);
    return Promise.resolve();
  }
}

/** A file read off the thread, so a long read leaves the event loop free. */
class PooledFile implements ReadableFile {
  readonly #files: FileSystem;
  readonly #fd: number;
  constructor(files: FileSystem, fd: number) {
    this.#files = files;
    this.#fd = fd;
  }
  async read(buffer: Uint8Array, offset: number, length: number, position: number) {
    return { bytesRead: await this.#files.readAsync(this.#fd, buffer, offset, length, position) };
  }
  readNow(buffer: Uint8Array, offset: number, length: number, position: number): number {
    return this.#files.readCached?.(this.#fd, buffer, offset, length, position) ?? -1;
  }
  close(): Promise<void> {
    this.#files.close(this.#fd);
    return Promise.resolve();
  }
}

/**
 * An open file to read from: with blocking calls when it is small, off the thread when not.
 *
 * @param files the file system the descriptor is of
 * @param fd the descriptor
 * @param size the file's size
 * @returns the file (closing it closes the descriptor)
 */
export function readableFile(files: FileSystem, fd: number, size: number): ReadableFile {
  return size <= BLOCKING_READ_BYTES ? new BlockingFile(files, fd) : new PooledFile(files, fd);
}

/**
 * Opens a regular file for reading without ever blocking: stat first (a FIFO or device is
 * refused before it is opened), open non-blocking and following no symlink (the key is
 * already the real path), then stat the open file, in case the path was swapped in between.
 *
 * @param files where the file is
 * @param node the file's real path and display path
 * @returns the open file and its stat
 * @throws {StoreError} mapped from the OS error, or {@linkcode NotAFileError}
 */
export function openForRead(
  files: FileSystem,
  node: WalkNode,
): Promise<{ handle: ReadableFile; stat: FileStat; fd: number }> {
  try {
    const before = files.lstat(node.key);
    if (before.kind !== "file") throw new NotAFileError(node.display, describeKind(before.kind));
    const fd = files.openRead(node.key);
    try {
      const stat = files.fstat(fd);
      if (stat.kind !== "file") throw new NotAFileError(node.display, describeKind(stat.kind));
      return Promise.resolve({ handle: readableFile(files, fd, stat.size), stat, fd });
    } catch (error) {
      files.close(fd);
      throw error;
    }
  } catch (error) {
    return Promise.reject(mapOsError(error, node.display, "read"));
  }
}

/**
 * The first bytes of a file (fewer when it is shorter).
 *
 * @param handle the open file
 * @param count how many bytes
 * @returns the bytes
 */
export async function readHead(handle: ReadableFile, count: number): Promise<Uint8Array> {
  const buffer = new Uint8Array(count);
  let filled = 0;
  while (filled < count) {
    const { bytesRead } = await handle.read(buffer, filled, count - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

/** What is read past a file's size, to tell whether it grew while being read. */
const GROWTH_PROBE_BYTES = 4096;

/** Reads a whole file whose size was `size` when opened; it may have changed since. */
export async function readAll(
  handle: ReadableFile,
  size: number,
  maxBytes: number | undefined,
  display: string,
): Promise<Uint8Array> {
  const pieces: Uint8Array[] = [];
  let total = 0;
  let blockBytes = Math.max(size, 1);
  for (;;) {
    const buffer = new Uint8Array(blockBytes);
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(
        buffer,
        filled,
        buffer.length - filled,
        total + filled,
      );
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    total += filled;
    if (filled > 0) pieces.push(buffer.subarray(0, filled));
    if (filled < buffer.length) break;
    if (maxBytes !== undefined && total > maxBytes) {
      throw new FileTooLargeError(display, total, maxBytes);
    }
    // The file is as large as it was, or it grew while being read: a small read tells which
    // (a block's worth of zeroed memory per file read cost more than the read), then blocks.
    blockBytes = pieces.length === 1 ? GROWTH_PROBE_BYTES : BLOCK_BYTES;
  }
  // (Also when it grew past the cap by less than a read.)
  if (maxBytes !== undefined && total > maxBytes) {
    throw new FileTooLargeError(display, total, maxBytes);
  }
  return concat(pieces.length === 0 ? [new Uint8Array(0)] : pieces);
}
