/**
 * Serialised writes to the peer that survive the peer going away.
 *
 * @module
 */

/** Where the server writes its lines: anything with a `write` that may be sync or async. */
export interface LineOutput {
  /**
   * Writes text (one or more whole lines). May return a promise that settles when the text is
   * handed over; a throw or a rejection means the reader is gone (e.g. EPIPE).
   */
  write(text: string): void | Promise<void>;
}

/**
 * Writes lines one after another (those queued meanwhile in one write) and stops for good
 * at the first failed write.
 */
export interface OutputQueue {
  /** Queues one line (without its `\n`); dropped once the output is broken. */
  send(line: string): void;
  /** True once a write failed: nothing more will be written. */
  readonly broken: boolean;
  /** Settles when every line queued so far has been written or dropped. */
  flushed(): Promise<void>;
}

/**
 * Wraps an output so writes never overlap, never reorder, and never throw.
 *
 * @param output The output to write to.
 * @param onBroken Called once, with the error, when a write first fails.
 * @returns The queue.
 */
export function createOutputQueue(
  output: LineOutput,
  onBroken: (error: unknown) => void,
): OutputQueue {
  let tail: Promise<void> = Promise.resolve();
  let broken = false;

  function fail(error: unknown): void {
    if (broken) return;
    broken = true;
    onBroken(error);
  }

  function write(text: string): void | Promise<void> {
    if (broken) return;
    try {
      const pending = output.write(text);
      if (pending) return pending.then(undefined, fail);
    } catch (error) {
      // Whatever the write threw, nothing more can reach the reader: stop writing rather
      // than crash the server (a reader that went away shows up as EPIPE here).
      fail(error);
    }
  }

  // Lines queued while a write is under way leave together in the next one: many answers
  // finished at once cost one system call, not one each.
  let waiting = "";
  return {
    send(line: string): void {
      if (broken) return;
      const first = waiting === "";
      waiting += line + "\n";
      if (!first) return;
      tail = tail.then(() => {
        const text = waiting;
        waiting = "";
        return write(text);
      });
    },
    get broken(): boolean {
      return broken;
    },
    flushed(): Promise<void> {
      return tail;
    },
  };
}
