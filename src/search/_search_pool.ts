/**
 * Splits the reading of a directory search across the main thread and worker threads
 * (`_search_worker.ts`; one thread per core by default, see
 * {@linkcode defaultSearchThreads}). The files, in path order, are cut into batches; every
 * thread claims the next unclaimed batch from a shared counter and examines its files (read,
 * binary check, literal prefilter, decode of the window). The main thread takes the outcomes back
 * batch by batch in path order, so the scanner, the match cap, the deadline and progress
 * see exactly what a single thread would show them. Where workers or shared memory are
 * missing (Node), or a worker fails to start or dies (said once on stderr), the main thread
 * examines every batch itself.
 *
 * @module
 */
import { availableParallelism } from "node:os";
import { setImmediate } from "node:timers";
import type { SharedFileSystem } from "../io/file_system.ts";
import { offersCore } from "../io/thread_priority.ts";
import type { FileReader } from "../io/_file_reader.ts";
import {
  HAS_SHARED_MEMORY,
  keepOffTopTier,
  reportWorkerFailure,
  startWorker,
  STRINGS_POST_APART,
} from "../io/runtime.ts";
import { type Examination, type Examined, examineFile } from "./_search_file.ts";
import { type FlatOutcomes, flatOutcomes, outcomesOf } from "./_flat_outcomes.ts";
import type { ReadPlan } from "./index/_block_filters.ts";

/** Files per batch: small enough for the deadline, large enough that messages cost little. */
export const BATCH_SIZE = 32;
/** Batches per message to the worker (a message costs more than the 32 paths in it). */
const BATCHES_PER_MESSAGE = 4;
/**
 * UTF-16 code units of decoded text the worker may have handed over and the main thread
 * not yet taken: when the scan is the slow part, the worker waits instead of piling up
 * decoded files.
 */
const MAX_TEXT_AHEAD = 8 * 1024 * 1024;
/** Slots of the shared counters (and `DIGESTS_GIVEN`, the examination's). */
const CLAIMS = 0;
const TEXT_AHEAD = 1;
const SLOTS = 3;
/** What the claims counter is set to when the search ends. */
const CLOSED = 0x7fffffff;

/** What the main thread posts to the worker first. */
export interface SearchJob extends Examination {
  /** Tells this search's messages from those of an earlier search on the same worker. */
  id: number;
  /** Two Int32s: the next unclaimed batch, and the text handed over and not yet taken. */
  counter: SharedArrayBuffer;
  /** Where the files are read (the same handles as the main thread's). */
  files: SharedFileSystem;
}

/** What the main thread posts to the worker next, a few batches at a time, in order. */
export interface SearchBatches {
  /**
   * The real paths of whole batches ({@linkcode BATCH_SIZE} each, the search's last one
   * possibly fewer), in path order, joined with NUL (no path holds one): one string costs far
   * less to post than an array of arrays.
   */
  paths: string;
  /** What to read of some of them (by position in the search), from their block filters. */
  plans?: [number, ReadPlan][];
}

/**
 * What the worker posts back per batch: the outcomes, as they are or flat (where that posts
 * faster: see `_flat_outcomes.ts`).
 */
type BatchMessage =
  & {
    /** The job's id. */
    id: number;
    batch: number;
    /** UTF-16 code units of text in the outcomes. */
    text: number;
  }
  & ({ outcomes: Examined[] } | FlatOutcomes);

/**
 * The worker's side of a search: waits while too much decoded text is waiting for the main
 * thread, then claims the next batch below `limit`.
 *
 * @param shared the shared counters
 * @param limit how many batches the worker knows
 * @returns the batch, or -1
 */
export function claimForWorker(shared: Int32Array, limit: number): number {
  for (;;) {
    const ahead = Atomics.load(shared, TEXT_AHEAD);
    if (ahead <= MAX_TEXT_AHEAD || Atomics.load(shared, CLAIMS) >= limit) break;
    Atomics.wait(shared, TEXT_AHEAD, ahead, 100);
  }
  return claimBatch(shared, limit);
}

/**
 * Posts a batch's outcomes from the worker, counting their text as handed over.
 *
 * @param shared the shared counters
 * @param message the job's id, the batch and its outcomes
 * @param post the worker's postMessage
 */
export function handOver(
  shared: Int32Array,
  message: { id: number; batch: number; outcomes: Examined[] },
  post: (message: BatchMessage) => void,
): void {
  const { id, batch, outcomes } = message;
  const flat = STRINGS_POST_APART ? flatOutcomes(outcomes) : undefined;
  // (Flat, the text is in one string already: its length is the count.)
  const text = flat?.texts.length ?? textLength(outcomes);
  Atomics.add(shared, TEXT_AHEAD, text);
  post(flat === undefined ? { id, batch, outcomes, text } : { id, batch, text, ...flat });
}

/**
 * The UTF-16 code units of text in some outcomes (a kept text's strings).
 *
 * @param outcomes examined files
 * @returns the count
 */
export function textLength(outcomes: readonly Examined[]): number {
  let text = 0;
  for (const outcome of outcomes) {
    if (outcome.kind !== "text") continue;
    if (typeof outcome.text === "string") text += outcome.text.length;
    else if (!Array.isArray(outcome.text)) text += outcome.text.joined.length;
    else for (const part of outcome.text) if (typeof part === "string") text += part.length;
  }
  return text;
}

/**
 * Claims the next batch if it is below `limit` (the batches known complete).
 *
 * @param claims the shared counter
 * @param limit how many batches may be claimed
 * @returns the batch, or -1
 */
export function claimBatch(claims: Int32Array, limit: number): number {
  for (;;) {
    const next = Atomics.load(claims, CLAIMS);
    if (next >= limit) return -1;
    if (Atomics.compareExchange(claims, CLAIMS, next, next + 1) === next) return next;
  }
}

/** The most threads a search reads with unless told otherwise. */
export const MAX_DEFAULT_THREADS = 8;

/**
 * How many threads a search reads files with by default: one per core the process may run
 * on (`availableParallelism`, which follows the CPU affinity), at most
 * {@linkcode MAX_DEFAULT_THREADS}.
 *
 * @returns at least 1
 */
export function defaultSearchThreads(): number {
  return Math.max(1, Math.min(availableParallelism(), MAX_DEFAULT_THREADS));
}

/**
 * Starts the worker threads that read beside a search's own, when the runtime has workers
 * and shared memory; start them before the walk, so that they load while the walk runs.
 *
 * @param count how many (a search of `threads` threads has `threads - 1`)
 * @returns the workers (none where they cannot run)
 */
export function startSearchWorkers(count: number): Worker[] {
  if (!HAS_SHARED_MEMORY || count < 1) return [];
  const workers: Worker[] = [];
  for (let i = 0; i < count; i++) {
    const worker = startWorker("search");
    if (worker === undefined) break;
    // (They offer their cores where the thread that starts them does: in the server.)
    if (offersCore()) worker.postMessage({ offerCore: true } satisfies OfferCore);
    workers.push(worker);
  }
  return workers;
}

/** What tells a worker to offer its core (see `offerCore`), before any other message. */
export interface OfferCore {
  offerCore: true;
}

/**
 * Workers lent to one search at a time by their owner (who keeps them warm between
 * searches).
 */
export interface WorkerLease {
  /** The workers. */
  workers: Worker[];
  /**
   * Gives them back when the search ends.
   *
   * @param dead true when a worker failed (the owner must not lend them again)
   */
  release(dead: boolean): void;
}

/** Workers kept warm between searches and lent, all together, to one search at a time. */
export class WarmWorkers {
  readonly #count: number;
  #workers: Worker[] | undefined;
  #lent = false;
  #closed = false;

  /** @param count how many workers to keep (none: nothing is ever lent) */
  constructor(count: number) {
    this.#count = count;
  }

  /**
   * Lends the workers to one search, when they are not lent already.
   *
   * @returns the lease, or undefined
   */
  borrow(): WorkerLease | undefined {
    if (this.#closed || this.#lent) return undefined;
    const workers = this.#workers ??= startSearchWorkers(this.#count).map(unref) as Worker[];
    if (workers.length === 0) return undefined;
    this.#lent = true;
    return {
      workers,
      release: (dead) => {
        this.#lent = false;
        if (dead || this.#closed) this.#drop(workers);
        else for (const worker of workers) this.#idle(worker, workers);
      },
    };
  }

  /**
   * Until it is lent again, a worker that fails (its module did not load, say) is dropped with
   * the others, not lent dead: the next search starts new ones.
   */
  #idle(worker: Worker, workers: Worker[]): void {
    worker.onmessage = null;
    worker.onerror = worker.onmessageerror = (event: Event) => {
      event.preventDefault(); // (Deno would otherwise end the process)
      reportWorkerFailure("search", event);
      if (!this.#lent) this.#drop(workers);
    };
  }

  #drop(workers: Worker[]): void {
    for (const worker of workers) worker.terminate();
    if (this.#workers === workers) this.#workers = undefined;
  }

  /** Stops the workers (lent ones when they are given back). */
  close(): void {
    this.#closed = true;
    if (!this.#lent) { for (const worker of this.#workers ?? []) worker.terminate(); }
    this.#workers = undefined;
  }
}

/**
 * Lets the process end while the worker is alive (Bun has `unref`; elsewhere it is a
 * no-op).
 *
 * @param worker a worker, or undefined
 * @returns the same worker
 */
export function unref(worker: Worker | undefined): Worker | undefined {
  (worker as { unref?: () => void } | undefined)?.unref?.();
  return worker;
}

let lastJobId = 0;

/**
 * The examined files of one search, batch by batch in path order. The files are added as
 * the walk finds them; the worker examines each batch as soon as it is complete, so that it
 * reads while the walk goes on.
 */
export class ExaminedBatches {
  readonly batchSize: number = BATCH_SIZE;
  readonly #keys: string[] = [];
  readonly #plans = new Map<number, ReadPlan>(); // by position in #keys
  readonly #examination: Examination;
  readonly #reader: FileReader;
  readonly #claims: Int32Array;
  readonly #ready = new Map<number, Examined[]>();
  readonly #readyText = new Map<number, number>(); // text of the worker's batches in #ready
  #known = 0; // batches complete
  #posted = 0; // files posted to the worker
  #ended = false;
  readonly #id = ++lastJobId;
  /** The workers reading beside this thread (none once one failed: then it reads alone). */
  #workers: Worker[] = [];
  #lease: WorkerLease | undefined;
  #wake: (() => void) | undefined;

  /**
   * @param options the examination asked for, the main thread's reader, and the workers
   *   (if any): its own, stopped when the search ends, or lent ones, given back
   */
  constructor(
    options: Examination & {
      reader: FileReader;
      workers: Worker[] | WorkerLease | undefined;
    },
  ) {
    // (Everything but the reader and the workers is the examination, posted to them.)
    const { reader, workers: given, ...examination } = options;
    this.#examination = examination;
    this.#reader = reader;
    this.#lease = given !== undefined && "release" in given ? given : undefined;
    const workers = this.#lease?.workers ?? given as Worker[] | undefined ?? [];
    this.#claims = new Int32Array(
      workers.length === 0 ? new ArrayBuffer(4 * SLOTS) : new SharedArrayBuffer(4 * SLOTS),
    );
    this.#workers = workers;
    const die = (event: Event) => {
      event.preventDefault(); // (Deno would otherwise end the process)
      reportWorkerFailure("search", event);
      this.#stopWorkers(true);
      this.#wakeUp();
    };
    for (const worker of workers) {
      worker.onmessage = (event: MessageEvent<BatchMessage>) => {
        const posted = event.data;
        const { id, batch, text } = posted;
        if (id !== this.#id || !this.#workers.includes(worker)) return; // (an earlier search's)
        this.#ready.set(batch, "kinds" in posted ? outcomesOf(posted) : posted.outcomes);
        this.#readyText.set(batch, text);
        this.#wakeUp();
      };
      worker.onerror = die;
      worker.onmessageerror = die;
    }
    if (workers.length > 0) {
      this.#post({
        id: this.#id,
        ...this.#examination,
        counter: this.#claims.buffer as SharedArrayBuffer,
        files: reader.files.share(),
      });
    }
  }

  /**
   * Adds a file, after those added before (path order).
   *
   * @param key its real path
   * @param plan what to read of it, from its block filters
   */
  add(key: string, plan?: ReadPlan): void {
    if (plan !== undefined) this.#plans.set(this.#keys.length, plan);
    this.#keys.push(key);
    if (this.#keys.length % BATCH_SIZE === 0) this.#complete();
  }

  /** Says that every file has been added. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    if (this.#keys.length % BATCH_SIZE !== 0) this.#complete();
    else if (this.#posted < this.#keys.length) this.#postPaths();
  }

  /** How many batches there are (known once {@linkcode end} was called). */
  get count(): number {
    return this.#known;
  }

  /**
   * The outcomes of batch `index`, one per file; ask for the batches in order, after
   * {@linkcode end}.
   *
   * @param index the batch
   * @returns its outcomes
   */
  async get(index: number): Promise<Examined[]> {
    for (;;) {
      const ready = this.#ready.get(index);
      if (ready !== undefined) {
        this.#ready.delete(index);
        const text = this.#readyText.get(index);
        if (text !== undefined) {
          // Taken: the worker may decode that much more.
          this.#readyText.delete(index);
          Atomics.sub(this.#claims, TEXT_AHEAD, text);
          Atomics.notify(this.#claims, TEXT_AHEAD);
        }
        return ready;
      }
      // Batches are claimed in increasing order, and the main thread's own claims are in
      // #ready as soon as they are examined: a claimed batch missing there is the worker's.
      const next = Atomics.load(this.#claims, CLAIMS);
      if (next > index) {
        if (this.#workers.length === 0) return this.#examine(index); // a worker died with it
        if (next >= this.#known) {
          await new Promise<void>((resolve) => this.#wake = resolve);
          continue;
        }
      }
      // Claim the next batch; when it is a later one, keep it for then, and let the
      // worker's messages in.
      const claimed = claimBatch(this.#claims, this.#known);
      if (claimed === -1) continue;
      const outcomes = this.#examine(claimed);
      if (claimed === index) return outcomes;
      this.#ready.set(claimed, outcomes);
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** Ends the search: no batch is claimed any more, and the worker is stopped or given back. */
  close(): void {
    Atomics.store(this.#claims, CLAIMS, CLOSED);
    Atomics.store(this.#claims, TEXT_AHEAD, 0);
    Atomics.notify(this.#claims, TEXT_AHEAD);
    this.#stopWorkers(false);
    this.#ready.clear();
    this.#readyText.clear();
  }

  #complete(): void {
    const start = this.#known * BATCH_SIZE;
    this.#known++;
    if (this.#workers.length === 0) return;
    const unsent = Math.min(this.#keys.length, start + BATCH_SIZE) - this.#posted;
    if (unsent >= BATCHES_PER_MESSAGE * BATCH_SIZE || this.#ended) this.#postPaths();
  }

  #postPaths(): void {
    const end = Math.min(this.#keys.length, this.#known * BATCH_SIZE);
    const plans: [number, ReadPlan][] = [];
    for (const entry of this.#plans) {
      if (entry[0] >= this.#posted && entry[0] < end) plans.push(entry);
    }
    const paths = this.#keys.slice(this.#posted, end).join("\0");
    this.#post(plans.length === 0 ? { paths } : { paths, plans });
    this.#posted = end;
  }

  #post(message: SearchJob | SearchBatches): void {
    try {
      for (const worker of this.#workers) worker.postMessage(message);
    } catch (error) {
      reportWorkerFailure("search", error);
      this.#stopWorkers(true); // this thread does it all
    }
  }

  #examine(index: number): Examined[] {
    const end = Math.min(this.#keys.length, (index + 1) * BATCH_SIZE);
    const outcomes: Examined[] = [];
    for (let i = index * BATCH_SIZE; i < end; i++) {
      outcomes.push(
        examineFile(
          this.#reader,
          this.#keys[i],
          this.#examination,
          this.#plans.get(i),
          i,
          this.#claims,
        ),
      );
    }
    return outcomes;
  }

  #stopWorkers(dead: boolean): void {
    if (this.#workers.length === 0) return;
    for (const worker of this.#workers) {
      if (this.#lease === undefined) worker.terminate();
      else worker.onmessage = null;
    }
    this.#lease?.release(dead);
    this.#workers = [];
  }

  #wakeUp(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}

keepOffTopTier(ExaminedBatches.prototype.add);
