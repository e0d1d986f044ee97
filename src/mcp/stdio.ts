/**
 * The stdio edge: the server loop on this process's stdin and stdout. Works under Deno, Bun
 * and Node through `node:process`.
 *
 * @module
 */

import process from "node:process";
import { serveLines, type ServerOptions } from "./server.ts";

/**
 * Serves MCP on stdin and stdout until stdin closes or stdout's reader goes away.
 * Diagnostics go to `options.log`, by default to stderr; stdout carries protocol only.
 *
 * @param options The tools, the server's identity and the limits, as for `serveLines`.
 * @returns A promise that resolves when the session is over, with every answer written (or,
 *   when stdout broke, abandoned). The caller should then exit the process: under Deno a
 *   pending stdin read cannot be cancelled, so after a broken stdout the process would
 *   otherwise linger until the host closes stdin.
 * @example
 * ```ts ignore
 * import { serveStdio } from "./stdio.ts";
 *
 * await serveStdio({ tools: [], serverInfo: { name: "example", version: "1.0.0" } });
 * ```
 */
export async function serveStdio(options: ServerOptions): Promise<void> {
  const { stdin, stdout, stderr } = process;
  const log = options.log ?? ((message: string) => void stderr.write(`linewise: ${message}\n`));

  // A write to a pipe whose reader is gone fails with EPIPE, reported both to the write's
  // callback and as an "error" event; an unheard "error" event would kill the process.
  let failure: Error | undefined;
  const pending = new Set<(error: Error) => void>();
  function onError(error: Error): void {
    failure ??= error;
    for (const reject of pending) reject(error);
    pending.clear();
  }
  stdout.on("error", onError);

  const output = {
    write(text: string): Promise<void> {
      if (failure) return Promise.reject(failure);
      return new Promise<void>((resolve, reject) => {
        pending.add(reject);
        stdout.write(text, (error) => {
          pending.delete(reject);
          if (error) reject(error);
          else resolve();
        });
      });
    },
  };

  try {
    await serveLines(stdin, output, { ...options, log });
  } finally {
    // The "error" listener stays: a late EPIPE after the session must not kill the process.
    // Without this a stdin that is still open keeps the event loop, and the process, alive.
    stdin.destroy();
  }
}
