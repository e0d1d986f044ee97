/**
 * A sparse line-offset index: for each file read by line number, where some lines start, so
 * that a second read deep in the same unchanged file seeks instead of counting again. An
 * entry belongs to one version of a file (device, inode, size and mtime in nanoseconds, from
 * the open handle); any other version is indexed anew.
 *
 * Memory is bounded: at most {@linkcode MAX_CHECKPOINTS} checkpoints per file (two numbers
 * each, about 64 KiB) and at most `maxFiles` files (least recently used go first), so at
 * most 16 MiB for the default 256 files; a file of a few megabytes has a handful of
 * checkpoints. An agent reads across many files: with too few kept, each read of a file
 * counted its lines again.
 *
 * @module
 */
import { countingMemory, countLf } from "../io/_count_lf.ts";
import { Buffer } from "node:buffer";
import type { ReadableFile } from "./_line_reader.ts";

/** Bytes per read while counting lines: two such buffers are in use at a time. */
export const SCAN_BLOCK_BYTES = 1024 * 1024;
/** Checkpoints kept per file; a larger file gets them further apart. */
export const MAX_CHECKPOINTS = 4096;

const LF = 10;

/** Which version of a file an index describes. */
export interface FileIdentity {
  /** Device. */
  dev: bigint;
  /** Inode. */
  ino: bigint;
  /** Size in bytes. */
  size: number;
  /** Modification time in nanoseconds. */
  mtimeNs: bigint;
}

/** Where a line starts, or how many lines the file has when it has fewer. */
export type LineSeek =
  | { found: true; offset: number }
  | { found: false; lines: number };

/** The checkpoints of one file version. */
class LineIndex {
  readonly identity: FileIdentity;
  readonly step: number;
  /** Byte offsets of checkpoints, increasing; the first is the start of line 1. */
  readonly offsets: number[];
  /** `\n` bytes between the start of line 1 and each checkpoint. */
  readonly newlines: number[] = [0];
  /** The file's line count, once a scan has reached its end. */
  total: number | undefined;

  constructor(identity: FileIdentity, base: number) {
    this.identity = identity;
    this.offsets = [base];
    const size = Number(identity.size);
    this.step = Math.max(
      SCAN_BLOCK_BYTES,
      Math.ceil(size / MAX_CHECKPOINTS / SCAN_BLOCK_BYTES) * SCAN_BLOCK_BYTES,
    );
  }

  /** The last checkpoint with at most `count` newlines before it (index into the arrays). */
  atOrBefore(count: number): number {
    let low = 0;
    let high = this.newlines.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (this.newlines[mid] <= count) low = mid;
      else high = mid - 1;
    }
    return low;
  }

  /**
   * Remembers where a line that was asked for starts, so that reading it again (agents
   * re-read the range they are editing) seeks straight to it. Kept in order, within the cap.
   */
  remember(offset: number, newlines: number): void {
    const at = this.atOrBefore(newlines);
    if (this.newlines[at] === newlines || this.offsets.length >= MAX_CHECKPOINTS) return;
    this.offsets.splice(at + 1, 0, offset);
    this.newlines.splice(at + 1, 0, newlines);
  }

  /** Records a checkpoint met by a scan that counted exactly from an earlier one. */
  record(offset: number, newlines: number): void {
    const last = this.offsets.length - 1;
    // Only past the last checkpoint: scans from an earlier one meet the ones after it again.
    if (offset >= this.offsets[last] + this.step && this.offsets.length < MAX_CHECKPOINTS) {
      this.offsets.push(offset);
      this.newlines.push(newlines);
    }
  }
}

function sameIdentity(a: FileIdentity, b: FileIdentity): boolean {
  return a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs;
}

/** Line indexes of recently read files, by the store's key of the file. */
export class LineIndexCache {
  readonly #maxFiles: number;
  readonly #entries = new Map<string, LineIndex>();

  /** @param maxFiles how many files to remember */
  constructor(maxFiles = 256) {
    this.#maxFiles = maxFiles;
  }

  /** The index of this version of the file, made fresh when the version is new. */
  #index(key: string, identity: FileIdentity, base: number): LineIndex {
    let index = this.#entries.get(key);
    if (
      index === undefined || !sameIdentity(index.identity, identity) || index.offsets[0] !== base
    ) {
      index = new LineIndex(identity, base);
    }
    // Re-inserting keeps the map in least-recently-used order.
    this.#entries.delete(key);
    this.#entries.set(key, index);
    if (this.#entries.size > this.#maxFiles) {
      this.#entries.delete(this.#entries.keys().next().value!);
    }
    return index;
  }

  /**
   * Where line `line` starts (line 1 starts at `base`, after a BOM), counting `\n` bytes from
   * the nearest checkpoint; or, when the file has fewer lines, how many it has.
   *
   * @param handle the open file
   * @param key the store's key of the file
   * @param identity the version of the file open in `handle`
   * @param base where line 1 starts (3 after a BOM, else 0)
   * @param line a 1-based line number
   * @returns the offset, or the line count
   */
  async seekLine(
    handle: ReadableFile,
    key: string,
    identity: FileIdentity,
    base: number,
    line: number,
  ): Promise<LineSeek> {
    const index = this.#index(key, identity, base);
    const wanted = line - 1; // newlines to pass
    if (wanted === 0) return { found: true, offset: base };
    if (index.total !== undefined && line > index.total) {
      return { found: false, lines: index.total };
    }
    const from = index.atOrBefore(wanted);
    if (index.newlines[from] === wanted) return { found: true, offset: index.offsets[from] };
    const result = await scan(handle, index, from, wanted);
    if (result.found) index.remember(result.offset, wanted);
    return result;
  }

  /**
   * The file's line count (terminated lines, plus an unterminated last one), counted once
   * per version of the file.
   *
   * @param handle the open file
   * @param key the store's key of the file
   * @param identity the version of the file open in `handle`
   * @param base where line 1 starts
   * @returns the number of lines
   */
  async lineCount(
    handle: ReadableFile,
    key: string,
    identity: FileIdentity,
    base: number,
  ): Promise<number> {
    const index = this.#index(key, identity, base);
    if (index.total === undefined) {
      await scan(handle, index, index.offsets.length - 1, Infinity);
    }
    return index.total!;
  }

  /**
   * The line count when an earlier scan of this version already found it.
   *
   * @param key the store's key of the file
   * @param identity the version of the file
   * @returns the count, or undefined
   */
  knownLineCount(key: string, identity: FileIdentity): number | undefined {
    const index = this.#entries.get(key);
    return index && sameIdentity(index.identity, identity) ? index.total : undefined;
  }
}

/**
 * Counts `\n` bytes from checkpoint `from` until `wanted` have been passed (returning where
 * the next line starts) or the file ends (recording the line count), a block at a time. A
 * block the handle can read at once (`readNow`: a small file, or what the page cache holds
 * of a large one) is read on this thread straight into the memory it is counted in (no copy,
 * no call off the thread), and the event loop gets a turn every {@linkcode SCAN_SLICE_MS}; a
 * block that would wait for the disk is read off the thread. Only the block holding the
 * line wanted is looked through line by line.
 */
async function scan(
  handle: ReadableFile,
  index: LineIndex,
  from: number,
  wanted: number,
): Promise<LineSeek> {
  const buffer = FREE_BUFFERS.pop() ?? Buffer.allocUnsafe(SCAN_BLOCK_BYTES);
  try {
    return await scanWith(buffer, handle, index, from, wanted);
  } finally {
    FREE_BUFFERS.push(buffer);
  }
}

/** Scan buffers not in use: allocating 1 MiB per read cost more than a small read. */
const FREE_BUFFERS: Buffer[] = [];

/** How long a scan reads and counts on this thread before the event loop gets a turn. */
const SCAN_SLICE_MS = 4;

async function scanWith(
  buffer: Buffer,
  handle: ReadableFile,
  index: LineIndex,
  from: number,
  wanted: number,
): Promise<LineSeek> {
  let position = index.offsets[from];
  let newlines = index.newlines[from];
  let lastByte = -1;
  let slice = performance.now();
  // (Counted where it is read, before any await: another scan may count there meanwhile.)
  const counting = countingMemory() ?? { bytes: buffer, count: (n) => countLf(buffer, 0, n) };
  for (;;) {
    let block: Uint8Array;
    let inBlock: number;
    const now = handle.readNow?.(counting.bytes, 0, counting.bytes.length, position) ?? -1;
    if (now > 0) {
      block = counting.bytes.subarray(0, now);
      inBlock = counting.count(now);
    } else {
      const { bytesRead } = await handle.read(buffer, 0, SCAN_BLOCK_BYTES, position);
      slice = performance.now(); // (that was a turn)
      block = buffer.subarray(0, bytesRead);
      inBlock = countLf(block, 0, bytesRead);
    }
    if (block.length === 0) break;
    const blockStart = position;
    position += block.length;
    index.record(blockStart, newlines);
    if (newlines + inBlock < wanted) newlines += inBlock;
    else {
      // indexOf on bytes is memchr on Bun and Node, far faster than a loop over the bytes.
      for (let at = block.indexOf(LF); at !== -1; at = block.indexOf(LF, at + 1)) {
        if (++newlines === wanted) return { found: true, offset: blockStart + at + 1 };
      }
    }
    lastByte = block[block.length - 1];
    if (performance.now() - slice > SCAN_SLICE_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      slice = performance.now();
    }
  }
  const partial = lastByte !== -1 && lastByte !== LF;
  index.total = newlines + (partial ? 1 : 0);
  return { found: false, lines: index.total };
}
