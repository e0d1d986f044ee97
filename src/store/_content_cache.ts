/**
 * The search cache: contents of small files kept between searches under a byte budget. An
 * entry is used only while the file keeps the device, inode, size and mtime (nanoseconds)
 * it had when read, so a change on disk is seen by the next search. Once the budget is full,
 * new files are not admitted (a search reads files in one order every time, so evicting
 * old entries for new ones would make every lookup miss); stale entries make room.
 *
 * @module
 */
import type { FileIdentity } from "./_line_index.ts";

/** True when two stats describe the same version of a file. */
export function sameVersion(a: FileIdentity, b: FileIdentity): boolean {
  return a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs;
}

/** File contents by the store's key, within a byte budget. */
export class ContentCache {
  readonly #budget: number;
  readonly #entries = new Map<string, { identity: FileIdentity; bytes: Uint8Array }>();
  #bytes = 0;

  /** @param budget bytes of content kept at most */
  constructor(budget: number) {
    if (!Number.isInteger(budget) || budget < 0) {
      throw new TypeError(`searchCacheBytes must be a non-negative integer, got ${budget}`);
    }
    this.#budget = budget;
  }

  /** Bytes held now (never more than the budget). */
  get size(): number {
    return this.#bytes;
  }

  /** The cached content of this version of the file, or undefined. */
  get(key: string, identity: FileIdentity): Uint8Array | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (!sameVersion(entry.identity, identity)) {
      this.#remove(key);
      return undefined;
    }
    return entry.bytes;
  }

  /** Keeps a file's content when it fits in what is left of the budget. */
  set(key: string, identity: FileIdentity, bytes: Uint8Array): void {
    this.#remove(key);
    if (this.#bytes + bytes.length > this.#budget) return;
    this.#entries.set(key, { identity, bytes });
    this.#bytes += bytes.length;
  }

  #remove(key: string): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#entries.delete(key);
    this.#bytes -= entry.bytes.length;
  }
}
