/**
 * Running tool calls for the server loop: concurrency, cancellation, progress, and turning
 * whatever a tool does into exactly one answer (or none, when cancelled).
 *
 * @module
 */

import { messageOf } from "./_error_text.ts";
import type { CallArrival, CallContext, ToolDefinition, ToolResult } from "../tools/tool.ts";
import { type JsonRpcId, requestIdKey, successResponse } from "./json_rpc.ts";
import {
  MODERN_PROTOCOL_VERSION,
  protocolFeatures,
  type ProtocolVersion,
} from "./protocol_versions.ts";
import { callResult } from "./tool_messages.ts";

/** Results given again (frozen), as serialized last, with the version they were for. */
const serialized = new WeakMap<ToolResult, { version: ProtocolVersion; text: string }>();

/**
 * The JSON of a tool call's answer. A result a tool gives again, frozen (a grep repeated,
 * answered with a kept result), is serialized once: its text runs to megabytes.
 */
function answerText(
  id: JsonRpcId,
  result: ToolResult,
  version: ProtocolVersion,
  meta: Record<string, unknown> | undefined,
): string {
  if (!Object.isFrozen(result)) {
    return JSON.stringify(successResponse(id, callResult(result, version, meta)));
  }
  let known = serialized.get(result);
  if (known?.version !== version) {
    known = { version, text: JSON.stringify(callResult(result, version, meta)) };
    serialized.set(result, known);
  }
  // (As JSON.stringify writes a successResponse: jsonrpc, id, result.)
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${known.text}}`;
}

/** A request's way back: a JSON text to send, or undefined for "no answer" (cancelled). */
export type Reply = (json: string | undefined) => void;

/** One accepted `tools/call`. */
export interface CallRequest {
  /** The request id, echoed in the answer and named by cancellations. */
  id: JsonRpcId;
  /** The tool to run. */
  tool: ToolDefinition;
  /** The arguments, unchecked (the tool checks them). */
  args: unknown;
  /** The session's version when the call came in; it shapes the result. */
  version: ProtocolVersion;
  /** The request's `_meta.progressToken`, when it had one. */
  progressToken: JsonRpcId | undefined;
  /** Where the answer goes. */
  reply: Reply;
  /**
   * What the tool took as the request arrived, where it waited before it could start (for the
   * client's roots); otherwise the tool's own is taken as the call starts or waits for a slot.
   */
  arrival?: CallArrival;
}

/** The calls of one session. */
export interface ToolCalls {
  /** Starts a call, or queues it; false (and nothing started) when its id is in use. */
  start(request: CallRequest): boolean;
  /** Whether a call with this id is running or waiting. */
  has(id: JsonRpcId): boolean;
  /** Aborts a call and suppresses its answer; unknown or finished ids are ignored. */
  cancel(id: JsonRpcId, reason: string): void;
  /** Aborts every call and answers none of them (the output is gone). */
  abandonAll(reason: unknown): void;
  /** Settles when no call is running or waiting. */
  idle(): Promise<void>;
}

/** What the calls need from the session. */
export interface ToolCallsOptions {
  /**
   * How many calls run at once; the rest wait their turn (calls of a tool that
   * `takesTurns` are not counted).
   */
  maxConcurrentCalls: number;
  /** Sends a notification (progress) to the client. */
  notify(message: Record<string, unknown>): void;
  /** Receives diagnostics. */
  log(message: string): void;
  /** The `_meta` of every result of 2026-07-28 (see `serverMeta`). */
  resultMeta?: Record<string, unknown>;
}

interface Call extends CallRequest {
  controller: AbortController;
  lastProgress: number;
  settled: boolean;
}

/**
 * Creates the call runner of one session.
 *
 * @param options The concurrency limit and the session's notify and log.
 * @returns The runner.
 */
export function createToolCalls(options: ToolCallsOptions): ToolCalls {
  const { maxConcurrentCalls, notify, log, resultMeta } = options;
  const calls = new Map<string, Call>();
  const waiting: Call[] = [];
  let running = 0;
  let whenIdle: (() => void) | undefined;

  function settle(call: Call, json: string | undefined): void {
    if (call.settled) return;
    call.settled = true;
    call.arrival?.release();
    calls.delete(requestIdKey(call.id));
    call.reply(json);
    if (calls.size === 0) whenIdle?.();
  }

  function progressReporter(call: Call): CallContext["progress"] {
    const token = call.progressToken;
    if (token === undefined) return undefined;
    const withMessage = protocolFeatures(call.version).progressMessage;
    return (progress, total, message) => {
      // MCP requires progress to increase; a tool repeating a value is not worth an error.
      if (call.settled || call.controller.signal.aborted) return;
      if (typeof progress !== "number" || !(progress > call.lastProgress)) return;
      call.lastProgress = progress;
      const params: Record<string, unknown> = { progressToken: token, progress };
      if (typeof total === "number" && Number.isFinite(total)) params.total = total;
      if (withMessage && typeof message === "string") params.message = message;
      notify({ jsonrpc: "2.0", method: "notifications/progress", params });
    };
  }

  async function run(call: Call): Promise<void> {
    const slot = !call.tool.takesTurns;
    if (slot) running++;
    const signal = call.controller.signal;
    let json: string | undefined;
    try {
      const result: ToolResult = await call.tool.call(call.args, {
        signal,
        progress: progressReporter(call),
        ...call.version === MODERN_PROTOCOL_VERSION && { standalone: true },
        ...call.arrival && { arrival: call.arrival },
      });
      json = answerText(call.id, result, call.version, resultMeta);
    } catch (error) {
      if (!signal.aborted) {
        // A tool rejects only when aborted; anything else is a bug. The model gets a plain
        // sentence, the stack goes to the log.
        const detail = error instanceof Error ? error.stack ?? error.message : String(error);
        log(`tool ${JSON.stringify(call.tool.name)} failed: ${detail}`);
        json = JSON.stringify(successResponse(call.id, {
          content: [{
            type: "text",
            text: `the ${call.tool.name} tool failed unexpectedly: ${messageOf(error)}. ` +
              `This is a bug in the server, not in your arguments; try again or another way.`,
          }],
          isError: true,
        }));
      }
    }
    if (slot) running--;
    // A cancelled call gets no answer, except a write tool that finished all the same: it
    // went past its commit point (a tool that stops for the cancel rejects), so the change
    // is made, and the client must hear of it (a cancelled request's receiver may answer
    // one it could not cancel). But not in 2026-07-28, whose stdio transport sends nothing
    // more for a cancelled request.
    const committed = json !== undefined && !call.tool.annotations.readOnlyHint &&
      call.version !== MODERN_PROTOCOL_VERSION;
    settle(call, signal.aborted && !committed ? undefined : json);
    const next = slot ? waiting.shift() : undefined;
    if (next) void run(next);
  }

  return {
    start(request: CallRequest): boolean {
      const key = requestIdKey(request.id);
      if (calls.has(key)) return false;
      const call: Call = {
        ...request,
        // (Taken now: a call that waits for a slot is still the call the agent sent now.)
        arrival: request.arrival ?? request.tool.arrived?.(),
        controller: new AbortController(),
        lastProgress: -Infinity,
        settled: false,
      };
      calls.set(key, call);
      if (running < maxConcurrentCalls || call.tool.takesTurns) void run(call);
      else waiting.push(call);
      return true;
    },
    has(id: JsonRpcId): boolean {
      return calls.has(requestIdKey(id));
    },
    cancel(id: JsonRpcId, reason: string): void {
      const call = calls.get(requestIdKey(id));
      // A cancellation may cross the answer on the wire; then there is nothing left to stop.
      if (!call) return;
      call.controller.abort(reason);
      const queued = waiting.indexOf(call);
      if (queued !== -1) {
        waiting.splice(queued, 1);
        settle(call, undefined);
      }
    },
    abandonAll(reason: unknown): void {
      for (const call of waiting.splice(0)) settle(call, undefined);
      for (const call of calls.values()) call.controller.abort(reason);
    },
    idle(): Promise<void> {
      if (calls.size === 0) return Promise.resolve();
      return new Promise((resolve) => {
        const previous = whenIdle;
        whenIdle = () => {
          whenIdle = undefined;
          previous?.();
          resolve();
        };
      });
    },
  };
}
