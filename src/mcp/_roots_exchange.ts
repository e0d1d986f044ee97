/**
 * The server's side of `roots/list`: it asks the client for its roots, hands the paths to
 * the server's `onRoots`, and serves the tools that come back. Only the answer to the
 * newest request counts (an older one may arrive later, or `onRoots` may still be working
 * on it when a newer one comes).
 *
 * @module
 */

import { messageOf } from "./_error_text.ts";
import type { ToolDefinition } from "../tools/tool.ts";
import { type JsonRpcResponse, requestIdKey } from "./json_rpc.ts";
import { clientRootPaths } from "./roots.ts";

/** What the exchange needs from the server. */
export interface RootsExchangeOptions {
  /** Sends a message to the client. */
  send: (message: Record<string, unknown>) => void;
  /** Receives diagnostics, one sentence per call. */
  log: (message: string) => void;
  /** The server's `onRoots` (see `ServerOptions`). */
  onRoots: (
    paths: string[],
  ) => ToolDefinition[] | undefined | Promise<ToolDefinition[] | undefined>;
  /** Serves new tools from now on. */
  useTools: (tools: ToolDefinition[]) => void;
}

/** Asks the client for its roots and applies the newest answer. */
export class RootsExchange {
  readonly #options: RootsExchangeOptions;
  readonly #pending = new Map<string, (response: JsonRpcResponse) => void>();
  readonly #work = new Set<Promise<void>>();
  #nextId = 1;
  #generation = 0;
  #answered!: () => void;
  /** Settles once the client's first answer has been applied (or has failed). */
  readonly answered: Promise<void> = new Promise((resolve) => this.#answered = resolve);

  constructor(options: RootsExchangeOptions) {
    this.#options = options;
  }

  /**
   * Sends `roots/list`; its answer replaces the effect of any earlier one.
   *
   * @returns settles once that answer has been applied (or has failed)
   */
  request(): Promise<void> {
    const generation = ++this.#generation;
    const id = `linewise-${this.#nextId++}`;
    let resolve!: () => void;
    const promise = new Promise<void>((done) => resolve = done);
    this.#pending.set(requestIdKey(id), (response) => {
      const work = this.#apply(response, generation).catch((error) => {
        this.#options.log(
          `applying the client's roots failed (${messageOf(error)}); the tools stay as they are`,
        );
      }).finally(() => {
        this.#work.delete(work);
        this.#answered();
        resolve();
      });
      this.#work.add(work);
    });
    this.#options.send({ jsonrpc: "2.0", id, method: "roots/list" });
    return promise;
  }

  /**
   * Takes a response from the client.
   *
   * @param response any response; one to an id this exchange did not send is logged
   */
  handleResponse(response: JsonRpcResponse): void {
    const key = response.id === null ? undefined : requestIdKey(response.id);
    const handler = key === undefined ? undefined : this.#pending.get(key);
    if (key === undefined || handler === undefined) {
      this.#options.log(
        `ignored a response to an unknown request id ${JSON.stringify(response.id)}`,
      );
      return;
    }
    this.#pending.delete(key);
    handler(response);
  }

  /** Resolves once every answer taken so far has been applied (or has failed). */
  async settled(): Promise<void> {
    await Promise.all(this.#work);
  }

  async #apply(response: JsonRpcResponse, generation: number): Promise<void> {
    const { log, onRoots, useTools } = this.#options;
    if (generation !== this.#generation) return;
    if (response.error) {
      log(`the client's roots/list failed (${response.error.message}); the tools stay as they are`);
      return;
    }
    let paths: string[];
    try {
      const roots = clientRootPaths(response.result);
      for (const sentence of roots.skipped) log(sentence);
      paths = roots.paths;
    } catch (error) {
      if (!(error instanceof TypeError)) throw error;
      log(`ignored the client's roots/list answer: ${error.message}`);
      return;
    }
    // A client that declares roots but has none (the MCP Inspector) leaves the server's
    // roots as they are, without a word.
    if (paths.length === 0) return;
    const next = await onRoots(paths);
    if (generation !== this.#generation) return;
    if (next !== undefined && !Array.isArray(next)) {
      throw new TypeError(`onRoots must return an array of tools or undefined`);
    }
    if (next === undefined) {
      log(
        `none of the client's roots (${paths.join(", ") || "none"}) lies within the ` +
          `server's roots; the server's roots stay in force`,
      );
      return;
    }
    useTools(next);
  }
}
