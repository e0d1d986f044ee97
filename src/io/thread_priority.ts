/**
 * The priority of the threads that work for searches, below the thread that answers
 * requests (Linux keeps a nice value per thread): {@linkcode lowerThisThread}.
 *
 * A lower nice value is not enough for a request to get a core at once: a search thread the
 * scheduler has given a core keeps it for the rest of its slice, and a read sent beside a
 * long grep then waited 2.5-3.4 ms for one, twice (the server to read the request, the
 * client to read the answer). So in the server, a lowered thread also offers its core
 * ({@linkcode offerCore}) while a request or an answer waits in the pipes of standard input
 * and output, and only then: offered always, it forfeited its slices to busy processes beside
 * it, and a grep of the Linux tree beside two of them took 9.2-11.5 s instead of 4.0. Not on
 * the command line, where no request waits: there the row waiting was the one `head -1`
 * took, and beside two busy processes the search went on through 1,100-5,000 files before
 * `head` ended, against 1,000-1,400 without the offers.
 *
 * @module
 */
import * as fs from "node:fs";
import { type Libc, loadLibc } from "./libc.ts";

/** `setpriority` target: a process, which on Linux is the calling thread when `who` is 0. */
const PRIO_PROCESS = 0;
/**
 * The nice value of threads that work for searches (the main thread keeps 0): a weight of
 * 423 against 1,024, enough for a read to get a core beside them. At nice 10 (a weight of
 * 110) they got a tenth of a core beside two busy processes, and a grep rg answered in 0.5-1.2
 * s took 5.6-10.3 s; at 4, 0.5-1.0 s, with reads beside greps as fast (see
 * docs/under-load.md).
 */
export const SEARCH_NICENESS = 4;

/** How often a lowered thread looks for a request or an answer waiting, at the most. */
export const OFFER_EVERY_MS = 0.5;

/** `ioctl` request: how many bytes a pipe or socket holds unread. */
const FIONREAD = 0x541b;

/** The C library, once the calling thread is lowered. */
let lowered: Libc | undefined;
/** The calling thread's offers, once it offers its core. */
let offers: CoreOffers | undefined;

/**
 * Gives the calling thread a lower priority than the process's other threads.
 *
 * @returns true when it is set; false where it cannot be (not Linux, no FFI)
 */
export function lowerThisThread(): boolean {
  const found = loadLibc();
  if (!("libc" in found) || found.libc.setpriority(PRIO_PROCESS, 0, SEARCH_NICENESS) !== 0) {
    return false;
  }
  lowered = found.libc;
  return true;
}

/**
 * Has the calling thread, if lowered, offer its core from now on (see {@linkcode offerCore}):
 * the server's search thread, and the workers it starts.
 */
export function offerCoreFromNowOn(): void {
  if (lowered !== undefined) offers ??= new CoreOffers(lowered, pipesAmong([0, 1]));
}

/**
 * Whether the calling thread offers its core: the workers it starts are told to as well.
 *
 * @returns true once {@linkcode offerCoreFromNowOn} set it up
 */
export function offersCore(): boolean {
  return offers !== undefined;
}

/**
 * In a thread that offers its core, every {@linkcode OFFER_EVERY_MS} at the most: lets
 * another thread waiting for this core have it now, when standard input holds a request not
 * read yet (the thread that answers waits for a core) or standard output an answer not read
 * yet (the client does). Elsewhere it does nothing. Called before each file or directory is
 * opened.
 */
export function offerCore(): void {
  offers?.offer();
}

/**
 * The descriptors that are pipes or sockets (a file's unread bytes would be the rest of it).
 *
 * @param fds the descriptors
 * @returns those of them that are pipes or sockets
 */
export function pipesAmong(fds: readonly number[]): number[] {
  return fds.filter((fd) => {
    try {
      const stat = fs.fstatSync(fd);
      return stat.isFIFO() || stat.isSocket();
    } catch {
      return false; // (closed)
    }
  });
}

/** Offers of a thread's core while bytes wait unread in some pipes (see {@linkcode offerCore}). */
export class CoreOffers {
  readonly #c: Pick<Libc, "ioctl" | "sched_yield">;
  readonly #pipes: readonly number[];
  readonly #unread = new Uint8Array(4);
  readonly #count = new Int32Array(this.#unread.buffer);
  #lookedAt = -Infinity;

  /**
   * @param c the C library's calls
   * @param pipes the pipes to look at
   */
  constructor(c: Pick<Libc, "ioctl" | "sched_yield">, pipes: readonly number[]) {
    this.#c = c;
    this.#pipes = pipes;
  }

  /**
   * Yields the core when one of the pipes holds bytes unread, unless it looked less than
   * {@linkcode OFFER_EVERY_MS} ago.
   *
   * @param now the time now, in milliseconds
   * @returns whether it yielded
   */
  offer(now: number = performance.now()): boolean {
    if (now - this.#lookedAt < OFFER_EVERY_MS) return false;
    this.#lookedAt = now;
    for (const fd of this.#pipes) {
      if (this.#c.ioctl(fd, FIONREAD, this.#unread) === 0 && this.#count[0] > 0) {
        this.#c.sched_yield();
        return true;
      }
    }
    return false;
  }
}
