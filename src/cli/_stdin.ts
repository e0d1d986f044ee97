/**
 * Standard input as `linewise grep` searches it: for the path `-`, and, as grep and ripgrep
 * search it, when no path is given while standard input is a pipe or a file
 * (`git diff | linewise grep TODO`, `linewise grep TODO < notes.txt`), as a file named
 * `<stdin>`. Text is searched as it comes, run by run of whole lines, and its rows printed as
 * they are found, as ripgrep prints them: `tail -f log | linewise grep ERROR` shows each error
 * when it is written, and an input of any length is searched with a bounded memory (a line of
 * it at most {@linkcode STDIN_MAX_BYTES}). Binary input (a NUL in its first 8 KiB) is read to
 * its end, up to that size, as `grep --json` reads it.
 *
 * A socket is read for `-` alone. It is what a program's spawn gives by default (Node's), and
 * such a program rarely means it as input: it leaves it open (where ripgrep waits forever) or
 * closes it at once (where ripgrep searches nothing and finds no match), so a grep given no
 * path searches the current directory there, as it did.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import * as fs from "node:fs";
import { pipesAmong } from "../io/thread_priority.ts";
import { BINARY_PROBE_BYTES } from "../store/_text.ts";

/** The name standard input is shown by, as ripgrep shows it. */
export const STDIN_NAME = "<stdin>";

/**
 * The most of standard input read whole (binary input, `grep --json`), and the longest line of
 * it searched as it comes (a file's longer line is searched as it is read, its row a part of
 * it: save such input to a file).
 */
export const STDIN_MAX_BYTES = 256 * 1024 * 1024;

/** Standard input could not be read on (said as the command's error). */
export class StdinError extends Error {
  override name = "StdinError";
}

/** Standard input as it comes, once its first bytes tell whether it is text. */
export interface StdinRuns {
  /** Whether a NUL is in its first 8 KiB: binary, to be read whole ({@linkcode whole}). */
  binary: boolean;
  /**
   * Its bytes as runs of whole lines (each but the last ends with `\n`), each run what the
   * reads since the last one brought; throws a {@linkcode StdinError} when a read fails or a
   * line is over {@linkcode STDIN_MAX_BYTES}. Stopped early (a search that found enough),
   * it reads no more.
   */
  runs(): AsyncGenerator<Uint8Array>;
  /** Its bytes to its end, with those read already (binary input). */
  whole(): Promise<Uint8Array | { error: string }>;
}

/** Standard input, as the command line gives it to grep. */
export interface StdinSource {
  /** Whether it is a pipe or a file: a grep given no path searches it. */
  searchable: boolean;
  /**
   * Reads it to its end.
   *
   * @returns its bytes, or why it was not read
   */
  read(): Promise<Uint8Array | { error: string }>;
  /**
   * Reads its first 8 KiB (or less, to its end), for a search as it comes.
   *
   * @returns the input as it comes, or why it could not be read
   */
  open(): Promise<StdinRuns | { error: string }>;
}

/**
 * The process's standard input (descriptor 0).
 *
 * @returns the source
 */
export function processStdin(): StdinSource {
  let searchable = false;
  try {
    const stat = fs.fstatSync(0);
    searchable = stat.isFIFO() || stat.isFile();
  } catch {
    // (Closed: there is none.)
  }
  return { searchable, ...inputOf(0, "standard input") };
}

/**
 * A pipe named on the command line, as a shell names what `<(cmd)` gives (`/dev/fd/63`), read
 * as it comes, as standard input is: the root's sandbox would refuse the path (outside it, or
 * a link), and what it leads to is the process's own descriptor, given by the shell.
 *
 * @param path the path as given
 * @returns the input, or undefined when the path names no such pipe (or socket) of this process
 */
export function namedPipe(path: string): Pick<StdinSource, "open"> | undefined {
  const fd = descriptorNamed(path);
  // (Not open, or a file: the path is searched as any other, which says what it names.)
  return fd === undefined || pipesAmong([fd]).length === 0 ? undefined : inputOf(fd, path);
}

/**
 * The descriptor a path names as `/dev/fd/N` or `/proc/self/fd/N` does, past the standard
 * three (0 is standard input, 1 and 2 the output: none of them is read so).
 *
 * @param path the path as given
 * @returns the descriptor, or undefined
 */
export function descriptorNamed(path: string): number | undefined {
  const fd = Number(/^\/(?:dev|proc\/self)\/fd\/([1-9][0-9]*)$/.exec(path)?.[1]);
  return fd > 2 ? fd : undefined;
}

/**
 * A descriptor's input, read from where it stands.
 *
 * @param fd the descriptor
 * @param name what errors call it ("standard input", or the path given)
 */
function inputOf(fd: number, name: string): Pick<StdinSource, "read" | "open"> {
  const reader = chunkReader(fd, name);
  /** A read under way that the first bytes' wait left behind, to take first. */
  let pending: Promise<Chunk> | undefined;
  const next = (): Promise<Chunk> => {
    const got = pending ?? reader();
    pending = undefined;
    return got;
  };
  return {
    read: () => readWhole([], next, name),
    async open() {
      const head: Uint8Array[] = [];
      let length = 0;
      const waitUntil = Date.now() + TEXT_AFTER_MS;
      while (length < BINARY_PROBE_BYTES) {
        const read = next();
        const got = await within(read, waitUntil - Date.now());
        if (got === TOO_LONG) {
          pending = read; // (taken for text: the read goes on, and is the runs' next)
          break;
        }
        if (typeof got === "string") return { error: got };
        if (got === undefined) break;
        head.push(got);
        length += got.length;
      }
      const first = Buffer.concat(head, length);
      return {
        binary: first.subarray(0, BINARY_PROBE_BYTES).includes(0),
        runs: () => runsOf(first, next, name),
        whole: () => readWhole([first], next, name),
      };
    },
  };
}

/**
 * How long the first 8 KiB of standard input are waited for before what came is taken for
 * text: a program that writes a few lines and then waits (`tail -f`) gets its lines searched.
 */
const TEXT_AFTER_MS = 100;

/** A read of standard input: its bytes, undefined at its end, or why it failed. */
export type Chunk = Uint8Array | undefined | string;

/** What {@linkcode within} gives when the time ran out first. */
const TOO_LONG = Symbol("too long");

/** A read's chunk, or {@linkcode TOO_LONG} once `ms` pass first. */
function within(read: Promise<Chunk>, ms: number): Promise<Chunk | typeof TOO_LONG> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<typeof TOO_LONG>((resolve) => {
    timer = setTimeout(() => resolve(TOO_LONG), Math.max(ms, 0));
  });
  return Promise.race([read, late]).finally(() => clearTimeout(timer));
}

/**
 * An input from after `first` (bytes read already) as runs of whole lines: a line read in
 * pieces is joined once, when its end comes.
 *
 * @param first the bytes read already
 * @param next the next read: its bytes, undefined at the input's end, or why it failed
 * @param name what the error of a line too long calls the input
 * @returns the runs (each but the last ends with `\n`); throws a {@linkcode StdinError} when a
 *   read fails or a line is over {@linkcode STDIN_MAX_BYTES}
 * @example
 * ```ts
 * import { runsOf } from "./_stdin.ts";
 * import assert from "node:assert/strict";
 * const reads = ["b\nc", "d", "\ne"].map((text) => new TextEncoder().encode(text));
 * const runs = [];
 * for await (const run of runsOf(new TextEncoder().encode("a"), async () => reads.shift())) {
 *   runs.push(new TextDecoder().decode(run));
 * }
 * assert.deepEqual(runs, ["ab\n", "cd\n", "e"]);
 * ```
 */
export async function* runsOf(
  first: Uint8Array,
  next: () => Promise<Chunk>,
  name = "standard input",
): AsyncGenerator<Uint8Array> {
  /** The pieces of the line not ended yet. */
  let partial: Uint8Array[] = [];
  let partialBytes = 0;
  for (let chunk: Uint8Array | undefined = first; chunk !== undefined;) {
    const lf = chunk.lastIndexOf(LF);
    if (lf === -1) {
      partial.push(chunk);
      partialBytes += chunk.length;
      if (partialBytes > STDIN_MAX_BYTES) {
        throw new StdinError(tooLarge(`a line of ${name}`));
      }
    } else {
      const ended = chunk.subarray(0, lf + 1);
      yield partialBytes === 0 ? ended : Buffer.concat([...partial, ended]);
      partial = lf + 1 === chunk.length ? [] : [chunk.subarray(lf + 1)];
      partialBytes = chunk.length - lf - 1;
    }
    const got = await next();
    if (typeof got === "string") throw new StdinError(got);
    chunk = got;
  }
  if (partialBytes > 0) yield Buffer.concat(partial, partialBytes);
}

/** Why `what` is not searched: it is over {@linkcode STDIN_MAX_BYTES}. */
function tooLarge(what: string): string {
  return `${what} is over ${STDIN_MAX_BYTES / 1024 / 1024} MiB: save it to a file and search that`;
}

/** An input to its end, after the bytes read already, or why it could not be read. */
async function readWhole(
  read: Uint8Array[],
  next: () => Promise<Chunk>,
  name: string,
): Promise<Uint8Array | { error: string }> {
  const chunks = [...read];
  let total = read.reduce((sum, chunk) => sum + chunk.length, 0);
  for (;;) {
    if (total > STDIN_MAX_BYTES) return { error: tooLarge(name) };
    const got = await next();
    if (typeof got === "string") return { error: got };
    if (got === undefined) return Buffer.concat(chunks, total);
    chunks.push(got);
    total += got.length;
  }
}

/**
 * The reads of a descriptor, each into one buffer kept (a pipe gives 64 KiB a read, a file as
 * much as it asks): the bytes of the next, undefined at its end, or why it failed.
 */
function chunkReader(fd: number, name: string): () => Promise<Chunk> {
  let buffer: Uint8Array | undefined;
  return async () => {
    buffer ??= new Uint8Array(CHUNK_BYTES);
    const got = await readSome(fd, buffer);
    if (typeof got !== "number") return `cannot read ${name}: ${got.message}`;
    return got === 0 ? undefined : buffer.slice(0, got);
  };
}

const LF = 10;

/** The most bytes one read takes. */
const CHUNK_BYTES = 1024 * 1024;

/** The longest wait between two tries of a descriptor another process made non-blocking. */
const MAX_RETRY_MS = 50;

/** Some bytes of a descriptor into `chunk`: how many (0 at its end), or the error. */
function readSome(fd: number, chunk: Uint8Array): Promise<number | Error> {
  return new Promise((resolve) => {
    let wait = 1;
    const attempt = () =>
      fs.read(fd, chunk, 0, chunk.length, null, (error, bytes) => {
        // (A descriptor another process made non-blocking is tried again, less often the
        // longer it stays silent.)
        if ((error as { code?: string } | null)?.code === "EAGAIN") {
          setTimeout(attempt, wait);
          wait = Math.min(wait * 2, MAX_RETRY_MS);
        } else resolve(error ?? bytes);
      });
    attempt();
  });
}
