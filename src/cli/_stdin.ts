/**
 * Standard input as `linewise grep` searches it: for the path `-`, and, as grep and ripgrep
 * search it, when no path is given while standard input is a pipe or a file
 * (`git diff | linewise grep TODO`, `linewise grep TODO < notes.txt`). It is read to its
 * end, up to {@linkcode STDIN_MAX_BYTES}, and searched as a file named `<stdin>`.
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

/** The name standard input is shown by, as ripgrep shows it. */
export const STDIN_NAME = "<stdin>";

/** The most of standard input a grep reads (a file has no such bound: save it to one). */
export const STDIN_MAX_BYTES = 256 * 1024 * 1024;

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
  return {
    searchable,
    async read() {
      // (Each chunk is filled before the next: a pipe gives 64 KiB a read.)
      const chunks: Uint8Array[] = [];
      let chunk = new Uint8Array(CHUNK_BYTES);
      let filled = 0;
      let total = 0;
      for (;;) {
        const got = await readSome(chunk.subarray(filled));
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

/** The longest wait between two tries of a descriptor another process made non-blocking. */
const MAX_RETRY_MS = 50;

/** Some bytes of descriptor 0 into `chunk`: how many (0 at its end), or the error. */
function readSome(chunk: Uint8Array): Promise<number | Error> {
  return new Promise((resolve) => {
    let wait = 1;
    const attempt = () =>
      fs.read(0, chunk, 0, chunk.length, null, (error, bytes) => {
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
