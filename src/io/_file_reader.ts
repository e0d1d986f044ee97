/**
 * Reads small regular files whole with synchronous calls into one reused buffer: open
 * (non-blocking, not following a last-segment symlink), fstat on the open descriptor, read,
 * close. Search reads thousands of files in a row; a promise and a fresh buffer per file cost
 * more than the read itself, and fresh buffers pile up until the garbage collector runs (on a
 * large tree, far past what the search needs). Where the runtime has WebAssembly, the buffer
 * is the thread's read region (`_wasm_chunks.ts`), shared by its readers, so that the search's
 * scanners go through the bytes where they were read: the bytes returned stay valid only
 * until the thread's next read, and are used before any `await`.
 *
 * Nothing blocks: files are opened with `O_NONBLOCK` (an open of a FIFO returns at once).
 * `read` refuses a FIFO, socket or device by its fstat before any read; `readUnstated`
 * skips the fstat of a small file (see there).
 *
 * @module
 */
import type { FileStat } from "./file_stat.ts";
import type { FileSystem } from "./file_system.ts";
import { keepOffTopTier } from "./runtime.ts";
import { adviseHugePages } from "./libc.ts";
import { readRegion } from "./_wasm_chunks.ts";

/**
 * A buffer grown to this or more is backed by huge pages where the kernel allows: filling a
 * fresh one otherwise costs a page fault per 4 KiB. On a virtual machine the first read of a
 * 9 MB file into a fresh buffer took 34-37 ms, 13-33 ms advised, and 1-2 ms the second time.
 */
const HUGE_BUFFER_BYTES = 4 * 1024 * 1024;

/** What {@linkcode FileReader.read} found. */
export type ReadOutcome =
  /** The whole file; a view of the reader's buffer, valid until the thread's next read. */
  | { kind: "bytes"; bytes: Uint8Array; stat: FileStat }
  /**
   * A regular file larger than the reader reads whole, or than its buffer when it may not
   * grow (nothing read but the head asked for, a view of the reader's buffer).
   */
  | { kind: "large"; stat: FileStat; head?: Uint8Array }
  /** Not a regular file (nothing read). */
  | { kind: "not_file"; stat: FileStat };

/** Reads small regular files whole into one reused buffer. */
export class FileReader {
  /** Where the files are opened (beneath the roots, following no symlink). */
  readonly files: FileSystem;
  readonly #maxBytes: number;
  /** Where the buffer grows: the thread's read region (undefined: fresh memory). */
  readonly #region: Uint8Array | undefined;
  #buffer: Uint8Array;
  /** The buffer of the files larger than the region, kept for the next. */
  #beyond: Uint8Array | undefined;

  /**
   * @param files where to open the files
   * @param maxBytes files larger than this are reported as large, not read
   * @param initialBytes the buffer's first size (it grows to the largest file read)
   */
  constructor(files: FileSystem, maxBytes: number, initialBytes = 256 * 1024) {
    this.files = files;
    this.#maxBytes = maxBytes;
    this.#region = readRegion();
    const size = Math.min(initialBytes, maxBytes);
    this.#buffer = this.#region?.subarray(0, size) ?? new Uint8Array(size);
  }

  /**
   * Reads a file whole if it is a regular file no larger than `maxBytes`. A file that grows
   * while being read is cut at the size fstat reported (the next search sees the rest).
   * Errors of the file system (ENOENT, EACCES, ELOOP...) are thrown as the runtime reports
   * them.
   *
   * @param path the real path
   * @param grow whether the buffer may grow to the file; if not, a file larger than the
   *   buffer is reported as `large` too (growing touches fresh memory, see
   *   {@linkcode readInChunks})
   * @param head how many of a large file's first bytes to read (what tells a binary file)
   * @returns the bytes, or why they were not read
   */
  read(path: string, grow = true, head = 0): ReadOutcome {
    const fd = this.files.openRead(path);
    try {
      return this.#readOpen(fd, grow, head);
    } finally {
      this.files.close(fd);
    }
  }

  /**
   * Reads a file whole without asking for its stat, when it fits the buffer: one read of
   * the whole buffer. A search's first pass over a big tree reads thousands of small files,
   * and the stat is a quarter of each one's system calls. A read that returns less than
   * asked is the end of the file: a regular file gives a short read only there (one that
   * grows meanwhile is cut there, as `read` cuts it at the size of its stat). What is given
   * up: the size, links and times. The kind is still safe: a FIFO or socket refuses the
   * positional read (ESPIPE), a directory fails with EISDIR, and a device either fills the
   * buffer or, like `/dev/null`, reads as empty.
   *
   * @param path the real path
   * @returns the bytes (valid until the thread's next read), or undefined when they filled
   *   the buffer (a larger file: use {@linkcode read} or {@linkcode readInChunks})
   */
  readUnstated(path: string): Uint8Array | undefined {
    const files = this.files;
    const fd = files.openRead(path);
    try {
      const buffer = this.#buffer;
      const got = files.read(fd, buffer, 0, buffer.length, 0);
      return got < buffer.length ? buffer.subarray(0, got) : undefined;
    } finally {
      files.close(fd);
    }
  }

  /**
   * {@linkcode readUnstated}, handing the bytes to `use` while the file is still open, with
   * its stat to ask for (an fstat of the same open file, taken after the read; only while
   * `use` runs) and the time the read began. A change made since then leaves a ctime that is
   * not older than that time, which `identityText` refuses as of it, so a digest of the bytes
   * with that stat's identity is of the file as it is (ctime being this machine's clock).
   *
   * @param path the real path
   * @param use what to make of the bytes (valid until the thread's next read)
   * @returns what `use` made, or undefined when the bytes filled the buffer
   */
  readUnstatedThen<T>(
    path: string,
    use: (bytes: Uint8Array, stat: () => FileStat, readAt: number) => T,
  ): T | undefined {
    const files = this.files;
    const fd = files.openRead(path);
    try {
      const buffer = this.#buffer;
      const readAt = Date.now();
      const got = files.read(fd, buffer, 0, buffer.length, 0);
      if (got === buffer.length) return undefined;
      return use(buffer.subarray(0, got), () => files.fstat(fd), readAt);
    } finally {
      files.close(fd);
    }
  }

  /**
   * Reads a regular file no larger than `maxBytes` in chunks of the buffer's size, without
   * growing the buffer (growing touches fresh memory, whose page faults cost about as much
   * as the read itself), handing each chunk to `visit` until it
   * returns false. A file that grows meanwhile is cut at the size of its stat.
   *
   * @param path the real path
   * @param visit takes each chunk (valid until the next), and says whether to go on
   * @param anySize whether a file larger than `maxBytes` is read too
   * @param first the bytes of the first chunk, when fewer (what tells a binary file: its
   *   head is then all that is read of it)
   * @returns "read" (to the end, or until `visit` stopped), or why nothing was read
   */
  readInChunks(
    path: string,
    visit: (chunk: Uint8Array) => boolean,
    anySize = false,
    first = Infinity,
  ): "read" | "large" | "not_file" {
    const files = this.files;
    const fd = files.openRead(path);
    try {
      const stat = files.fstat(fd);
      if (stat.kind !== "file") return "not_file";
      const size = stat.size;
      if (size > this.#maxBytes && !anySize) return "large";
      const buffer = this.#buffer;
      for (let at = 0; at < size;) {
        const most = at === 0 ? Math.min(first, buffer.length) : buffer.length;
        const got = files.read(fd, buffer, 0, Math.min(most, size - at), at);
        if (got === 0 || !visit(buffer.subarray(0, got))) break;
        at += got;
      }
      return "read";
    } finally {
      files.close(fd);
    }
  }

  /**
   * Reads byte ranges of a file one after another, each into the start of the buffer (which
   * grows to the longest range, not to all of them: a fresh buffer costs a page fault per 4
   * KiB touched), handing each to `visit`, when the fstat of the open file passes `accept`
   * (for instance: it is as it was when the ranges were chosen) before the reads and after
   * them (it was not written meanwhile).
   *
   * @param path the real path
   * @param ranges `[start, end)` pairs, flat, within the file
   * @param accept whether the file may be read
   * @param visit takes each range's bytes (valid until the next range) and its number, and
   *   says whether to go on
   * @returns true when every range was read and visited and the file was accepted after;
   *   false when the file was refused, ended before a range did, a range exceeds
   *   `maxBytes`, or `visit` stopped (what it was given is then not to be used)
   */
  readRanges(
    path: string,
    ranges: readonly number[],
    accept: (stat: FileStat) => boolean,
    visit: (range: Uint8Array, index: number) => boolean,
  ): boolean {
    const files = this.files;
    const fd = files.openRead(path);
    try {
      if (!accept(files.fstat(fd))) return false;
      let longest = 0;
      for (let i = 0; i < ranges.length; i += 2) {
        longest = Math.max(longest, ranges[i + 1] - ranges[i]);
      }
      if (longest > this.#maxBytes) return false;
      const buffer = this.#room(longest);
      for (let i = 0; i < ranges.length; i += 2) {
        let filled = 0;
        for (let at = ranges[i]; at < ranges[i + 1];) {
          const got = files.read(fd, buffer, filled, ranges[i + 1] - at, at);
          if (got === 0) return false;
          filled += got;
          at += got;
        }
        if (!visit(buffer.subarray(0, filled), i / 2)) return false;
      }
      return accept(files.fstat(fd));
    } finally {
      files.close(fd);
    }
  }

  /** {@linkcode read} of an open file. */
  #readOpen(fd: number, grow: boolean, head: number): ReadOutcome {
    const stat = this.files.fstat(fd);
    if (stat.kind !== "file") return { kind: "not_file", stat };
    const size = stat.size;
    if (size <= (grow ? this.#maxBytes : this.#buffer.length)) {
      return { kind: "bytes", bytes: this.#readStart(fd, size), stat };
    }
    if (head === 0) return { kind: "large", stat };
    return { kind: "large", stat, head: this.#readStart(fd, Math.min(head, this.#buffer.length)) };
  }

  /** The first `count` bytes of an open file (fewer if it ends first), in the buffer. */
  #readStart(fd: number, count: number): Uint8Array {
    const buffer = this.#room(count);
    let filled = 0;
    while (filled < count) {
      const got = this.files.read(fd, buffer, filled, count - filled, filled);
      if (got === 0) break;
      filled += got;
    }
    return buffer.subarray(0, filled);
  }

  /**
   * A buffer of `size` bytes or more (at most `maxBytes`): the buffer, grown within the region;
   * for a file larger than the region, a buffer of fresh memory kept for such files (the buffer
   * stays the region's, where the next files are read).
   */
  #room(size: number): Uint8Array {
    if (size <= this.#buffer.length) return this.#buffer;
    const grown = (from: number) => Math.min(this.#maxBytes, Math.max(size, from * 2));
    const region = this.#region;
    if (region === undefined) return this.#buffer = freshBuffer(grown(this.#buffer.length));
    if (size <= region.length) {
      const length = Math.min(region.length, grown(this.#buffer.length));
      return this.#buffer = region.subarray(0, length);
    }
    let beyond = this.#beyond;
    if (beyond === undefined || size > beyond.length) {
      this.#beyond = beyond = freshBuffer(grown(beyond?.length ?? 0));
    }
    return beyond;
  }
}

/** A buffer of fresh memory, backed by huge pages when it is large. */
function freshBuffer(size: number): Uint8Array {
  const buffer = new Uint8Array(size);
  if (size >= HUGE_BUFFER_BYTES) adviseHugePages(buffer);
  return buffer;
}

keepOffTopTier(FileReader.prototype.read, FileReader.prototype.readUnstated);
