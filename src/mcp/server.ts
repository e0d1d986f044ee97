/**
 * The MCP server loop: newline-delimited JSON-RPC 2.0 in, answers out, tools called
 * concurrently. It takes its input and output as parameters, so it runs the same on stdio,
 * in tests, or on any other byte stream.
 *
 * @module
 */

import { messageOf } from "./_error_text.ts";
import type { CallArrival, ToolDefinition } from "../tools/tool.ts";
import { createOutputQueue, type LineOutput } from "./_output_queue.ts";
import { createToolCalls, type Reply } from "./_tool_calls.ts";
import {
  classifyMessage,
  errorResponse,
  INTERNAL_ERROR,
  INVALID_PARAMS,
  INVALID_REQUEST,
  isRequestId,
  type JsonRpcNotification,
  type JsonRpcRequest,
  METHOD_NOT_FOUND,
  PARSE_ERROR,
  parseMessage,
  requestIdKey,
  successResponse,
} from "./json_rpc.ts";
import { DEFAULT_MAX_LINE_BYTES, type OversizedLine, readMessageLines } from "./message_lines.ts";
import {
  LATEST_PROTOCOL_VERSION,
  MODERN_PROTOCOL_VERSION,
  negotiateProtocolVersion,
  protocolFeatures,
  type ProtocolVersion,
} from "./protocol_versions.ts";
import {
  discoverResult,
  envelopeError,
  isModern,
  LIST_CACHING,
  MODERN_METHODS,
  serverMeta,
  subscriptionAcknowledged,
  subscriptionEnded,
} from "./_modern.ts";
import { RootsExchange } from "./_roots_exchange.ts";
import { toolListing } from "./tool_messages.ts";

export type { LineOutput } from "./_output_queue.ts";

/** The server's name and version, as `initialize` reports them. */
export interface ServerInfo {
  /** The program name, e.g. "linewise". */
  name: string;
  /** Its version, e.g. "0.1.0". */
  version: string;
  /** A human title (sent to sessions of MCP 2025-06-18 and later, which define it). */
  title?: string;
}

/** Options for {@linkcode serveLines}. */
export interface ServerOptions {
  /** The tools to serve until `onRoots` says otherwise. */
  tools: ToolDefinition[];
  /** The name and version reported by `initialize`. */
  serverInfo: ServerInfo;
  /** Teaching text for the model, returned by `initialize`. */
  instructions?: string;
  /**
   * The teaching text where each request stands alone (MCP 2026-07-28), returned by
   * `server/discover`; `instructions` where not given.
   */
  standaloneInstructions?: string;
  /**
   * Called with the local paths of the client's roots, each time the client reports them.
   * Returns the tools to serve from then on, or undefined when nothing of the client's roots
   * can be served (the current tools then stay, and the server logs that). Without it the
   * server never asks the client for its roots.
   */
  onRoots?: (
    paths: string[],
  ) => ToolDefinition[] | undefined | Promise<ToolDefinition[] | undefined>;
  /** Receives diagnostics, one sentence per call (stdio servers send them to stderr). */
  log?: (message: string) => void;
  /**
   * Longest accepted inbound line in bytes; a longer one is answered with an error.
   * @default 4194304
   */
  maxLineBytes?: number;
  /**
   * How many tool calls run at once; later ones wait their turn (and can be cancelled).
   * @default 16
   */
  maxConcurrentCalls?: number;
  /**
   * How long tool calls wait for the client's roots when the client declares them (calls
   * that come before the answer would otherwise see the wider roots); after that the
   * current tools serve them and the log says why.
   * @default 5000
   */
  rootsWaitMs?: number;
}

const SUPPORTED_METHODS = "initialize, ping, tools/list and tools/call";

/** The answer to a method the server does not serve, saying what it serves instead. */
function methodNotFound(request: JsonRpcRequest, why: string): Record<string, unknown> {
  return errorResponse(request.id, {
    code: METHOD_NOT_FOUND,
    message: `method ${JSON.stringify(request.method)} ${why}`,
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Serves MCP over newline-delimited JSON-RPC until the input ends, then waits for the calls
 * still running and for their answers to be written.
 *
 * Bad input never stops it: each bad line is answered with an error (or ignored when it was
 * a notification). If the output breaks (the reader went away), it stops writing, aborts the
 * running calls and resolves without reading further.
 *
 * @param input The client's bytes, e.g. stdin.
 * @param output Where the answers go, e.g. stdout.
 * @param options The tools, the server's identity and the limits.
 * @returns A promise that resolves when the session is over; it does not reject.
 * @example
 * ```ts
 * import { serveLines } from "./server.ts";
 * import assert from "node:assert/strict";
 *
 * async function* input() {
 *   yield new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
 * }
 * const written: string[] = [];
 * await serveLines(input(), { write: (text) => void written.push(text) }, {
 *   tools: [],
 *   serverInfo: { name: "example", version: "1.0.0" },
 * });
 * assert.deepEqual(written, ['{"jsonrpc":"2.0","id":1,"result":{}}\n']);
 * ```
 */
export async function serveLines(
  input: AsyncIterable<Uint8Array>,
  output: LineOutput,
  options: ServerOptions,
): Promise<void> {
  const log = options.log ?? (() => {});
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const maxConcurrentCalls = options.maxConcurrentCalls ?? 16;
  const rootsWaitMs = options.rootsWaitMs ?? 5000;
  let tools = new Map(options.tools.map((tool) => [tool.name, tool]));
  // The stateless era cannot ask for the client's roots: the server's own are its world.
  const modernTools = new Map(tools);

  // Session state. Requests before `initialize` are served as if the newest version had
  // been agreed (lenient: some hosts probe with `ping` or `tools/list` first).
  let version: ProtocolVersion | undefined;
  let initialized = false;
  let clientHasRoots = false;

  // Wakes the read loop when the output breaks while the loop waits for input.
  let wakeReader: ((step: "broken") => void) | undefined;
  const out = createOutputQueue(output, (error) => {
    log(`stopped writing: the output failed (${messageOf(error)})`);
    calls.abandonAll(error);
    wakeReader?.("broken");
  });
  /** The `_meta` of every result of the stateless era: the server's name and version. */
  const modernMeta = serverMeta({ ...options.serverInfo });
  const calls = createToolCalls({ maxConcurrentCalls, notify: send, log, resultMeta: modernMeta });

  function send(message: Record<string, unknown>): void {
    out.send(JSON.stringify(message));
  }

  function replyTo(reply: Reply, message: Record<string, unknown>): void {
    reply(JSON.stringify(message));
  }

  /** The open subscriptions of the stateless era: their request ids, by key. */
  const subscriptions = new Map<string, string | number>();

  // --- Server-to-client requests (roots/list) -------------------------------------------

  const onRoots = options.onRoots;
  const roots = onRoots && new RootsExchange({
    send,
    log,
    onRoots,
    useTools(next) {
      const before = JSON.stringify(listTools(LATEST_PROTOCOL_VERSION));
      tools = new Map(next.map((tool) => [tool.name, tool]));
      if (JSON.stringify(listTools(LATEST_PROTOCOL_VERSION)) !== before) {
        send({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
      }
    },
  });

  // Calls that come before the client's roots are known wait for them, within a bound: the
  // tools served until then would see the server's wider roots.
  let rootsGate: Promise<void> | undefined;
  const waitingForRoots = new Map<string, () => void>();

  let openGate: (() => void) | undefined;

  // Calls that come after the client said its roots changed wait for them too: served with
  // the roots before, a call sent right after a narrowing would reach what the client took away.
  function gateOnRoots(answered: Promise<void>): void {
    let open!: () => void;
    const opened = new Promise<void>((done) => open = done);
    const timer = setTimeout(() => {
      log(
        `the client's roots did not come within ${rootsWaitMs} ms; calls are served with ` +
          `the tools there are until they do`,
      );
      open();
    }, rootsWaitMs);
    void answered.then(open);
    openGate = open;
    const gate: Promise<void> = opened.then(() => {
      clearTimeout(timer);
      if (openGate === open) openGate = undefined;
      if (rootsGate === gate) rootsGate = undefined;
    });
    rootsGate = gate;
  }

  function callAfterRoots(request: JsonRpcRequest, reply: Reply): void {
    const key = requestIdKey(request.id);
    if (waitingForRoots.has(key)) {
      replyTo(reply, idInUse(request.id));
      return;
    }
    // (A numbered edit takes its mark as its request arrives, see ToolDefinition.arrived:
    // calls already running may show results before the roots come. Answered in any way, the
    // call lets it go.)
    const name = isRecord(request.params) ? request.params.name : undefined;
    const tool = typeof name === "string" ? tools.get(name) : undefined;
    const arrival = tool?.arrived?.();
    const answer: Reply = (json) => (arrival?.release(), reply(json));
    let dropped = false;
    waitingForRoots.set(key, () => {
      dropped = true;
      answer(undefined);
    });
    void rootsGate!.then(() => {
      if (dropped) return;
      waitingForRoots.delete(key);
      // (Tools the client's roots replaced have a session of their own: the mark is not theirs.)
      const kept = tool !== undefined && tools.get(name as string) === tool;
      if (!kept) arrival?.release();
      startCall(request, answer, tools, undefined, kept ? arrival : undefined);
    });
  }

  function idInUse(id: JsonRpcRequest["id"]): Record<string, unknown> {
    // Answering would make two responses with one id; the client could not tell them apart.
    return errorResponse(id, {
      code: INVALID_REQUEST,
      message: `request id ${
        JSON.stringify(id)
      } is already in use by a call in progress; use a new id`,
    });
  }

  // --- Tool calls -------------------------------------------------------------------------

  function listTools(
    forVersion: ProtocolVersion,
    from: Map<string, ToolDefinition> = tools,
  ): Record<string, unknown>[] {
    return [...from.values()].map((tool) => toolListing(tool, forVersion));
  }

  function startCall(
    request: JsonRpcRequest,
    reply: Reply,
    from: Map<string, ToolDefinition> = tools,
    callVersion: ProtocolVersion = version ?? LATEST_PROTOCOL_VERSION,
    arrival?: CallArrival,
  ): void {
    const params = request.params;
    if (!isRecord(params) || typeof params.name !== "string") {
      replyTo(
        reply,
        errorResponse(request.id, {
          code: INVALID_PARAMS,
          message: `tools/call needs params with a "name" string naming the tool`,
        }),
      );
      return;
    }
    const tool = from.get(params.name);
    if (!tool) {
      const names = [...from.keys()].join(", ") || "none";
      replyTo(
        reply,
        errorResponse(request.id, {
          code: INVALID_PARAMS,
          message: `unknown tool ${JSON.stringify(params.name)}; the tools are: ${names}`,
        }),
      );
      return;
    }
    // (Arguments that are not an object fail the request's schema: a protocol error, as every
    // version has CallToolRequest's arguments an object. Null is taken for none.)
    if (params.arguments != null && !isRecord(params.arguments)) {
      replyTo(
        reply,
        errorResponse(request.id, {
          code: INVALID_PARAMS,
          message: `tools/call needs "arguments" to be an object of the tool's arguments, got ${
            Array.isArray(params.arguments) ? "an array" : JSON.stringify(params.arguments)
          }`,
        }),
      );
      return;
    }
    // (An open subscription holds its id, as a call does.)
    if (subscriptions.has(requestIdKey(request.id))) return replyTo(reply, idInUse(request.id));
    const meta = params._meta;
    const token = isRecord(meta) ? meta.progressToken : undefined;
    const started = calls.start({
      id: request.id,
      tool,
      args: params.arguments ?? {},
      version: callVersion,
      progressToken: isRequestId(token) ? token : undefined,
      reply,
      arrival,
    });
    if (!started) replyTo(reply, idInUse(request.id));
  }

  /**
   * Opens a subscription of the stateless era: acknowledged at once, with no notification
   * agreed to (see `subscriptionAcknowledged`), and held, unanswered, until the client
   * cancels it, or answered as ended once the input ends (`subscriptionEnded`).
   */
  function listen(request: JsonRpcRequest, reply: Reply): void {
    const params = request.params;
    if (!isRecord(params) || !isRecord(params.notifications)) {
      return replyTo(
        reply,
        errorResponse(request.id, {
          code: INVALID_PARAMS,
          message: `subscriptions/listen needs params.notifications, an object naming the ` +
            `notifications wanted`,
        }),
      );
    }
    const key = requestIdKey(request.id);
    if (subscriptions.has(key) || calls.has(request.id)) return replyTo(reply, idInUse(request.id));
    subscriptions.set(key, request.id as string | number);
    send(subscriptionAcknowledged(request.id as string | number));
  }

  function cancel(params: unknown): void {
    if (!isRecord(params)) return;
    const { requestId, reason } = params;
    if (!isRequestId(requestId)) return;
    if (subscriptions.delete(requestIdKey(requestId))) return; // (it ends, unanswered)
    const waiting = waitingForRoots.get(requestIdKey(requestId));
    if (waiting) {
      waitingForRoots.delete(requestIdKey(requestId));
      return waiting();
    }
    calls.cancel(requestId, typeof reason === "string" ? reason : "cancelled by the client");
  }

  // --- Dispatch ---------------------------------------------------------------------------

  function initialize(request: JsonRpcRequest, reply: Reply): void {
    const params = request.params;
    if (!isRecord(params) || typeof params.protocolVersion !== "string") {
      replyTo(
        reply,
        errorResponse(request.id, {
          code: INVALID_PARAMS,
          message: `initialize needs params with a "protocolVersion" string`,
        }),
      );
      return;
    }
    version = negotiateProtocolVersion(params.protocolVersion);
    const capabilities = params.capabilities;
    clientHasRoots = isRecord(capabilities) && isRecord(capabilities.roots);
    if (clientHasRoots && roots && rootsGate === undefined) gateOnRoots(roots.answered);
    // (A server's title came with 2025-06-18, as tools' titles did: older sessions get none.)
    const { title: _, ...untitled } = options.serverInfo;
    const result: Record<string, unknown> = {
      protocolVersion: version,
      capabilities: { tools: options.onRoots ? { listChanged: true } : {} },
      serverInfo: protocolFeatures(version).title ? options.serverInfo : untitled,
    };
    if (options.instructions !== undefined) result.instructions = options.instructions;
    replyTo(reply, successResponse(request.id, result));
  }

  /** A request of the stateless era, each served on its own with the server's roots. */
  function handleModern(request: JsonRpcRequest, reply: Reply): void {
    const refused = envelopeError(request);
    if (refused) return replyTo(reply, refused);
    switch (request.method) {
      case "server/discover":
        return replyTo(
          reply,
          successResponse(
            request.id,
            discoverResult(
              { ...options.serverInfo },
              options.standaloneInstructions ?? options.instructions,
            ),
          ),
        );
      case "tools/list":
        if (hasCursor(request)) return replyTo(reply, cursorRefused(request));
        return replyTo(
          reply,
          successResponse(request.id, {
            resultType: "complete",
            tools: listTools(MODERN_PROTOCOL_VERSION, modernTools),
            ...LIST_CACHING,
            _meta: modernMeta,
          }),
        );
      case "tools/call":
        return startCall(request, reply, modernTools, MODERN_PROTOCOL_VERSION);
      case "subscriptions/listen":
        return listen(request, reply);
      default:
        replyTo(
          reply,
          methodNotFound(
            request,
            `is not part of MCP ${MODERN_PROTOCOL_VERSION} as this server serves it; it offers ${MODERN_METHODS}`,
          ),
        );
    }
  }

  function handleRequest(request: JsonRpcRequest, reply: Reply, inBatch: boolean): void {
    if (isModern(request) && !inBatch) return handleModern(request, reply);
    switch (request.method) {
      case "initialize":
        if (inBatch) {
          replyTo(
            reply,
            errorResponse(request.id, {
              code: INVALID_REQUEST,
              message: `initialize must not be part of a batch; send it on a line of its own`,
            }),
          );
          return;
        }
        return initialize(request, reply);
      case "ping":
        return replyTo(reply, successResponse(request.id, {}));
      case "tools/list":
        if (hasCursor(request)) return replyTo(reply, cursorRefused(request));
        return replyTo(
          reply,
          successResponse(request.id, { tools: listTools(version ?? LATEST_PROTOCOL_VERSION) }),
        );
      case "tools/call":
        return rootsGate ? callAfterRoots(request, reply) : startCall(request, reply);
      default:
        replyTo(
          reply,
          methodNotFound(request, `is not supported; this server offers ${SUPPORTED_METHODS}`),
        );
    }
  }

  const ignoredNotifications = new Set<string>();

  function handleNotification(notification: JsonRpcNotification): void {
    switch (notification.method) {
      case "notifications/initialized":
        if (initialized) return;
        initialized = true;
        if (clientHasRoots) roots?.request();
        return;
      case "notifications/cancelled":
        return cancel(notification.params);
      case "notifications/roots/list_changed":
        if (initialized && clientHasRoots && roots) gateOnRoots(roots.request());
        return;
      default:
        // Log each unknown method once: a chatty client should not flood stderr.
        if (!ignoredNotifications.has(notification.method)) {
          ignoredNotifications.add(notification.method);
          log(`ignored notification ${JSON.stringify(notification.method)}`);
        }
    }
  }

  /** Handles one message (a line, or an element of a batch). */
  function handleMessage(value: unknown, reply: Reply, inBatch: boolean): void {
    const message = classifyMessage(value);
    switch (message.kind) {
      case "request":
        try {
          return handleRequest(message, reply, inBatch);
        } catch (error) {
          // Only a bug gets here (say, a tool schema JSON cannot represent). The request
          // still gets its one answer and the server goes on.
          log(`answering ${JSON.stringify(message.method)} failed: ${messageOf(error)}`);
          return replyTo(
            reply,
            errorResponse(message.id, {
              code: INTERNAL_ERROR,
              message: `internal error while answering ${message.method}: ${messageOf(error)}`,
            }),
          );
        }
      case "notification":
        handleNotification(message);
        return reply(undefined);
      case "response":
        if (roots) roots.handleResponse(message);
        else log(`ignored a response to an unknown request id ${JSON.stringify(message.id)}`);
        return reply(undefined);
      case "invalid":
        if (message.notification) {
          log(`ignored a malformed notification: ${message.reason}`);
          return reply(undefined);
        }
        return replyTo(
          reply,
          errorResponse(message.id, {
            code: INVALID_REQUEST,
            message: `invalid request: ${message.reason}`,
          }),
        );
    }
  }

  function handleBatch(batch: unknown[]): void {
    const features = protocolFeatures(version ?? LATEST_PROTOCOL_VERSION);
    if (!version || !features.batches) {
      send(errorResponse(null, {
        code: INVALID_REQUEST,
        message: `invalid request: JSON-RPC batches (arrays) are accepted only in a 2025-03-26 ` +
          `session, and this session ${version ? `speaks ${version}` : "is not initialized"}; ` +
          `send one message per line`,
      }));
      return;
    }
    if (batch.length === 0) {
      send(errorResponse(null, {
        code: INVALID_REQUEST,
        message: `invalid request: the batch is empty`,
      }));
      return;
    }
    // The batch is answered with one array, written once every element has settled.
    const answers: string[] = [];
    let pending = batch.length;
    for (const element of batch) {
      let done = false;
      handleMessage(element, (json) => {
        if (done) return;
        done = true;
        if (json !== undefined) answers.push(json);
        if (--pending === 0 && answers.length > 0) out.send(`[${answers.join(",")}]`);
      }, true);
    }
  }

  function replyAlone(json: string | undefined): void {
    if (json !== undefined) out.send(json);
  }

  function handleLine(line: string | OversizedLine): void {
    if (typeof line !== "string") {
      const why = line.kind === "oversized"
        ? `the line was too long (${line.bytes} bytes; the limit is ${maxLineBytes})`
        : `the line is not UTF-8 (${line.bytes} bytes), as JSON-RPC over stdio must be`;
      // (A notification gets no answer, not even an error.)
      if (line.notification) return log(`ignored a notification: ${why}`);
      send(errorResponse(line.id ?? null, {
        code: line.kind === "oversized" ? INVALID_REQUEST : PARSE_ERROR,
        message: line.kind === "oversized"
          ? `invalid request: ${why} and was discarded`
          : `parse error: ${why}; nothing in it was read`,
      }));
      return;
    }

    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = parseMessage(line);
    } catch (error) {
      // (JSON nested thousands deep overflows the parser's stack: bad input all the same.)
      const message = error instanceof SyntaxError
        ? error.message
        : error instanceof RangeError
        ? "the JSON is nested too deeply"
        : undefined;
      if (message === undefined) throw error;
      send(errorResponse(null, { code: PARSE_ERROR, message: `parse error: ${message}` }));
      return;
    }
    if (Array.isArray(value)) handleBatch(value);
    else handleMessage(value, replyAlone, false);
  }

  // --- The loop ---------------------------------------------------------------------------

  const lines = readMessageLines(input, { maxLineBytes })[Symbol.asyncIterator]();
  try {
    while (!out.broken) {
      const next = lines.next();
      // Racing the read against a broken output lets the loop end even while the input
      // still waits for bytes that will never matter. A fresh promise per step, not
      // Promise.race on one long-lived promise, which would keep a reaction per line.
      const step = await new Promise<IteratorResult<string | OversizedLine> | "broken">(
        (resolve, reject) => {
          wakeReader = resolve;
          next.then(resolve, reject);
        },
      );
      wakeReader = undefined;
      if (step === "broken") {
        next.catch(() => {});
        void lines.return(undefined).catch(() => {});
        break;
      }
      if (step.done) break;
      handleLine(step.value);
    }
  } catch (error) {
    // A failing input (stdin reset by the host) ends the session like end of input.
    log(`stopped reading: the input failed (${messageOf(error)})`);
  }

  // No answer can come any more: the calls waiting for the roots run with the tools as they are.
  openGate?.();
  await rootsGate;
  await calls.idle();
  // (The server ends: its subscriptions end gracefully, each answered, as the era asks.)
  for (const id of subscriptions.values()) send(subscriptionEnded(id, modernMeta));
  subscriptions.clear();
  await roots?.settled();
  await out.flushed();
}

/** Whether a list request names a cursor (this server's lists are never paged). */
function hasCursor(request: JsonRpcRequest): boolean {
  return isRecord(request.params) && request.params.cursor != null;
}

/** The answer to a cursor this server never gave: invalid params, as pagination says. */
function cursorRefused(request: JsonRpcRequest): Record<string, unknown> {
  return errorResponse(request.id, {
    code: INVALID_PARAMS,
    message: `invalid cursor ${
      JSON.stringify(isRecord(request.params) ? request.params.cursor : undefined)
    }: this server gives every tool in one list, and no cursor`,
  });
}
