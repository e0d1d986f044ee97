/**
 * Standard input as `linewise grep` searches it, as ripgrep does: for the path `-`, and when
 * no path is given while standard input is a pipe (a socket too) or a file (`git diff | linewise grep TODO`,
 * `linewise grep TODO < notes.txt`). It is read whole, up to {@linkcode STDIN_MAX_BYTES}, and
 * searched as a file named `<stdin>`.
 *
 * Unlike ripgrep, a guess never waits without end. Agent hosts often leave a command's
 * standard input an open pipe that never sends, and there ripgrep waits forever. A pipe that
 * neither sends nor closes within {@linkcode GUESS_WAIT_MS} of a grep given no path is
 * refused, saying to give `-` (which waits) or a path.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import * as fs from "node:fs";

/** The name standard input is shown by, as ripgrep shows it. */
export const STDIN_NAME = "<stdin>";

/** The most of standard input a grep reads (a file has no such bound: save it to one). */
export const STDIN_MAX_BYTES = 256 * 1024 * 1024;

/** How long a grep given no path waits for a pipe's first bytes, or its end. */
export const GUESS_WAIT_MS = 1000;

/** Standard input, as the command line gives it to grep. */
export interface StdinSource {
  /** Whether it is a pipe (or a socket) or a file: a grep given no path searches it. */
  searchable: boolean;
  /**
   * Reads it whole.
   *
   * @param guessed no path was given: a pipe silent for {@linkcode GUESS_WAIT_MS} is refused
   * @returns its bytes, or why it was not read
   */
  read(guessed: boolean): Promise<Uint8Array | { error: string }>;
  /** Whether a read was left waiting on a silent pipe (the process must end by itself). */
  waiting(): boolean;
}

/**
 * The process's standard input (descriptor 0).
 *
 * @returns the source
 */
export function processStdin(): StdinSource {
  let kind: "pipe" | "file" | undefined;
  try {
    const stat = fs.fstatSync(0);
    kind = stat.isFIFO() || stat.isSocket() ? "pipe" : stat.isFile() ? "file" : undefined;
  } catch {
    kind = undefined; // (closed: there is none)
  }
  let waiting = false;
  return {
    searchable: kind !== undefined,
    waiting: () => waiting,
    async read(guessed) {
      // (Each chunk is filled before the next: a pipe gives 64 KiB a read.)
      const chunks: Uint8Array[] = [];
      let chunk = new Uint8Array(CHUNK_BYTES);
      let filled = 0;
      let total = 0;
      for (let first = true;; first = false) {
        const read = readSome(chunk.subarray(filled));
        const got = first && guessed && kind === "pipe" ? await inTime(read) : await read;
        if (got === "late") {
          waiting = true;
          return {
            error:
              `standard input is a pipe that sent nothing for ${GUESS_WAIT_MS} ms: give - to wait for it, or a path (. for the current directory)`,
          };
        }
        if (typeof got !== "number") {
          return { error: `cannot read standard input: ${got.message}` };
        }
        if (got === 0) break;
        total += got;
        if (total > STDIN_MAX_BYTES) {
          return {
            error: `standard input is over ${
              STDIN_MAX_BYTES / 1024 / 1024
            } MiB: save it to a file and search that`,
          };
        }
        filled += got;
        if (filled === chunk.length) {
          chunks.push(chunk);
          chunk = new Uint8Array(CHUNK_BYTES);
          filled = 0;
        }
      }
      chunks.push(chunk.subarray(0, filled));
      return Buffer.concat(chunks, total);
    },
  };
}

/** The bytes read into one buffer before the next is made. */
const CHUNK_BYTES = 4 * 1024 * 1024;

/** Some bytes of descriptor 0 into `chunk`: how many (0 at its end), or the error. */
function readSome(chunk: Uint8Array): Promise<number | Error> {
  return new Promise((resolve) => {
    const attempt = () =>
      fs.read(0, chunk, 0, chunk.length, null, (error, bytes) => {
        // (A descriptor another process made non-blocking is waited on.)
        if ((error as { code?: string } | null)?.code === "EAGAIN") setTimeout(attempt, 1);
        else resolve(error ?? bytes);
      });
    attempt();
  });
}

/** What `read` gives, or "late" once {@linkcode GUESS_WAIT_MS} have passed first. */
function inTime(read: Promise<number | Error>): Promise<number | Error | "late"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) => timer = setTimeout(resolve, GUESS_WAIT_MS, "late"));
  return Promise.race([read, late]).finally(() => clearTimeout(timer));
}
