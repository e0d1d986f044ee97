/**
 * Reads a file as runs of whole lines without holding more than a block and the lines asked
 * for: lines are found by counting `\n` bytes (the line rule's only boundary, and a byte
 * that never occurs inside a multi-byte UTF-8 character), so text is decoded only at line
 * boundaries.
 *
 * @module
 */

/** Bytes read per call: large enough to keep system calls rare, small enough to bound memory. */
/** An open file, read at positions (the part of `FileHandle` the readers use). */
export interface ReadableFile {
  /** Reads up to `length` bytes at `position` into `buffer` at `offset`. */
  read(
    buffer: Uint8Array,
    offset: number,
    length: number,
    position: number,
  ): Promise<{ bytesRead: number }>;
  /**
   * Reads as `read` does, at once on this thread, where that cannot hold it up long (a small
   * file, or what the page cache holds of a large one): -1 when it would wait for the disk.
   */
  readNow?(buffer: Uint8Array, offset: number, length: number, position: number): number;
  /** Closes the file. */
  close(): Promise<void>;
}

export const BLOCK_BYTES = 1024 * 1024;

/** The first read: enough for a page of lines without allocating (and zeroing) a block. */
const FIRST_READ_BYTES = 16 * 1024;

const LF = 10;

/** A forward-only reader of whole lines from an open file. */
export class LineReader {
  readonly #handle: ReadableFile;
  readonly #blockBytes: number;
  /** The next read's size: small first (most reads want a few lines), doubling to the block. */
  #nextBytes: number;
  #position: number;
  #block: Uint8Array = new Uint8Array(0);
  #at = 0;
  #eof = false;
  /** True when bytes were consumed since the last `\n` (an unterminated line so far). */
  #partial = false;
  /** With `transient`, the buffer each block is read into once blocks are of full size. */
  #kept: Uint8Array | undefined;
  readonly #transient: boolean;

  /**
   * @param handle an open regular file
   * @param position byte offset to start at (3 to skip a BOM)
   * @param blockBytes bytes per read
   * @param transient whether a run handed out may be valid only until the next call: one
   *   buffer then takes every block, where each block is otherwise a fresh one (a search of
   *   a 230 MB log made 59,000 page faults so, each costing microseconds)
   */
  constructor(handle: ReadableFile, position = 0, blockBytes = BLOCK_BYTES, transient = false) {
    this.#handle = handle;
    this.#position = position;
    this.#blockBytes = blockBytes;
    this.#nextBytes = Math.min(FIRST_READ_BYTES, blockBytes);
    this.#transient = transient;
  }

  /**
   * Reads the next block into a fresh buffer, so that runs handed out earlier stay valid
   * (unless `transient`); returns false at the end of the file.
   */
  async #fill(reuse?: Uint8Array): Promise<boolean> {
    if (this.#eof) return false;
    if (reuse === undefined && this.#transient && this.#nextBytes === this.#blockBytes) {
      reuse = this.#kept ??= new Uint8Array(this.#blockBytes);
    }
    const buffer = reuse ?? new Uint8Array(this.#nextBytes);
    this.#nextBytes = Math.min(this.#nextBytes * 2, this.#blockBytes);
    let filled = 0;
    // A short read is not the end of the file; only a read of 0 bytes is.
    while (filled < buffer.length) {
      const { bytesRead } = await this.#handle.read(
        buffer,
        filled,
        buffer.length - filled,
        this.#position,
      );
      if (bytesRead === 0) {
        this.#eof = true;
        break;
      }
      filled += bytesRead;
      this.#position += bytesRead;
    }
    this.#block = buffer.subarray(0, filled);
    this.#at = 0;
    return filled > 0;
  }

  /**
   * Skips whole lines.
   *
   * @param count how many `\n` to pass
   * @returns how many were passed (fewer at the end of the file)
   */
  async skipLines(count: number): Promise<number> {
    let skipped = 0;
    while (skipped < count) {
      if (this.#at >= this.#block.length && !(await this.#fill())) break;
      const lf = this.#block.indexOf(LF, this.#at);
      if (lf === -1) {
        this.#partial = true;
        this.#at = this.#block.length;
        continue;
      }
      skipped++;
      this.#partial = false;
      this.#at = lf + 1;
    }
    return skipped;
  }

  /** True when bytes have been passed since the last `\n` (only meaningful at the end). */
  get partial(): boolean {
    return this.#partial;
  }

  /**
   * The next run of whole lines: at least one line, about a block's worth; the last line of
   * the file may lack its `\n`. A line longer than a block is gathered from pieces joined
   * once, never by re-concatenating a growing buffer.
   *
   * @returns the bytes, or null at the end of the file
   */
  async nextLines(): Promise<Uint8Array | null> {
    const next = await this.next(Infinity); // (no line is longer than that: always a run)
    return next !== null && "run" in next ? next.run : null;
  }

  /**
   * {@linkcode nextLines}, but a line longer than `longBytes` is handed over as its bytes
   * block by block (each valid until the next; take them all before asking for more), so
   * that it is never held whole.
   *
   * @param longBytes the longest line handed over whole
   * @returns a run of whole lines, a long line's blocks, or null at the end of the file
   */
  async next(
    longBytes: number,
  ): Promise<{ run: Uint8Array } | { long: AsyncGenerator<Uint8Array> } | null> {
    if (this.#at >= this.#block.length && !(await this.#fill())) return null;
    const last = this.#block.lastIndexOf(LF);
    if (last >= this.#at) {
      const run = this.#block.subarray(this.#at, last + 1);
      this.#at = last + 1;
      return { run };
    }
    // (A transient block is read over by the next: the start of a line across blocks is
    // kept as a copy.)
    const pieces = [
      this.#transient ? this.#block.slice(this.#at) : this.#block.subarray(this.#at),
    ];
    let length = pieces[0].length;
    this.#at = this.#block.length;
    while (await this.#fill()) {
      const lf = this.#block.indexOf(LF);
      if (lf === -1) {
        pieces.push(this.#transient ? this.#block.slice() : this.#block);
        length += this.#block.length;
        this.#at = this.#block.length;
        if (length > longBytes) return { long: this.#rest(pieces) };
        continue;
      }
      pieces.push(this.#block.subarray(0, lf + 1));
      this.#at = lf + 1;
      break;
    }
    return { run: concat(pieces) };
  }

  /**
   * The rest of a long line, after the pieces read so far, block by block: each block is
   * valid only until the next is asked for (one buffer serves them all, so that a line of
   * gigabytes does not leave a gigabyte of garbage).
   */
  async *#rest(pieces: Uint8Array[]): AsyncGenerator<Uint8Array> {
    yield* pieces;
    pieces.length = 0;
    const buffer = new Uint8Array(this.#blockBytes);
    while (await this.#fill(buffer)) {
      const lf = this.#block.indexOf(LF);
      if (lf === -1) {
        this.#at = this.#block.length;
        yield this.#block;
        continue;
      }
      this.#at = lf + 1;
      yield this.#block.subarray(0, lf + 1);
      return;
    }
  }

  /** True when no bytes remain (reads ahead one block if needed). */
  async atEnd(): Promise<boolean> {
    return this.#at >= this.#block.length && !(await this.#fill());
  }

  /**
   * Counts the lines left, reading to the end of the file.
   *
   * @returns the number of lines after the current position
   */
  async countRest(): Promise<number> {
    let lines = 0;
    let partial = false;
    while (this.#at < this.#block.length || (await this.#fill())) {
      const block = this.#block;
      for (let lf = block.indexOf(LF, this.#at); lf !== -1; lf = block.indexOf(LF, lf + 1)) lines++;
      partial = block[block.length - 1] !== LF;
      this.#at = block.length;
    }
    return partial ? lines + 1 : lines;
  }
}

/** Joins byte arrays once. */
export function concat(pieces: Uint8Array[]): Uint8Array {
  if (pieces.length === 1) return pieces[0];
  let length = 0;
  for (const piece of pieces) length += piece.length;
  const out = new Uint8Array(length);
  let at = 0;
  for (const piece of pieces) {
    out.set(piece, at);
    at += piece.length;
  }
  return out;
}
