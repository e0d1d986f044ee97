/**
 * Serialises work per key (a file's real path): edits to one file run one after another.
 *
 * @module
 */

/** A table of per-key queues. */
export class LockTable {
  readonly #tails = new Map<string, Promise<unknown>>();

  /** Runs `work` after every earlier call for the same key has settled. */
  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const mine = previous.then(work, work);
    const tail = mine.then(() => {}, () => {});
    this.#tails.set(key, tail);
    try {
      return await mine;
    } finally {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    }
  }
}
