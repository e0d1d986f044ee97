/**
 * JSON-RPC 2.0 messages: telling requests, notifications and responses apart, and building
 * the replies. Nothing here does I/O.
 *
 * @module
 */

/** A request id: JSON-RPC allows strings and numbers (MCP forbids `null`). */
export type JsonRpcId = string | number | RawNumber;

/**
 * A number id as the peer wrote it, where a JavaScript number would not give the same text
 * back (`123456789012345678901234567890`, `1e400`, `1.0`): `JSON.stringify` writes its text
 * as it is (`JSON.rawJSON`), so the answer carries the id exactly as sent.
 */
export interface RawNumber {
  /** The number's JSON text. */
  readonly rawJSON: string;
}

interface RawJson {
  rawJSON(text: string): RawNumber;
  isRawJSON(value: unknown): value is RawNumber;
}
const RAW = JSON as unknown as Partial<RawJson>;
/**
 * Whether this JSON can keep a number's text (Node 21+, Bun, Deno). On Node 20 an id that a
 * number cannot write back the same is answered as the number it parses to.
 */
const KEEPS_NUMBER_TEXT = typeof RAW.rawJSON === "function" && typeof RAW.isRawJSON === "function";

/**
 * Parses one line of JSON-RPC: a message or a batch, with each number id (`id`, and the
 * `requestId` of a cancellation) kept as the peer wrote it when a number would not write
 * it back the same.
 *
 * @param line the line
 * @returns the parsed value
 * @throws {SyntaxError} when the line is not JSON
 * @example
 * ```ts
 * import { parseMessage } from "./json_rpc.ts";
 * import assert from "node:assert/strict";
 * const message = parseMessage('{"jsonrpc":"2.0","id":123456789012345678901234567890}');
 * assert.equal(JSON.stringify(message), '{"jsonrpc":"2.0","id":123456789012345678901234567890}');
 * ```
 */
export function parseMessage(line: string): unknown {
  // Where each inexact id number was met: its holder and its text (the reviver sees holders
  // at every depth; only the message's own id, its params' requestId and its progress token
  // are ids).
  const inexact: Array<[object, string, string]> = [];
  const value = JSON.parse(
    line,
    function (this: object, key: string, found: unknown, context?: { source?: string }) {
      if (
        IDS.has(key) && typeof found === "number" && context?.source !== undefined &&
        exactNumber(found, context.source) !== found
      ) {
        inexact.push([this, key, context.source]);
      }
      return found;
    },
  );
  if (inexact.length === 0) return value;
  for (const message of Array.isArray(value) ? value : [value]) {
    if (!isRecord(message)) continue;
    const params = message.params;
    const meta = isRecord(params) ? params._meta : undefined;
    for (const [holder, key, source] of inexact) {
      if (
        (holder === message && key === "id") || (holder === params && key === "requestId") ||
        (holder === meta && key === "progressToken")
      ) {
        (holder as Record<string, unknown>)[key] = (RAW as RawJson).rawJSON(source);
      }
    }
  }
  return value;
}

/** The keys whose numbers are ids, echoed as sent. */
const IDS = new Set(["id", "requestId", "progressToken"]);

/**
 * A number of a message as it is echoed: itself, or its text kept (where this JSON can keep
 * it) when the number would not write that text back.
 *
 * @param value the number parsed
 * @param source its JSON text
 * @returns the number, or its text as a {@linkcode RawNumber}
 */
export function exactNumber(value: number, source: string): number | RawNumber {
  return !KEEPS_NUMBER_TEXT || JSON.stringify(value) === source
    ? value
    : (RAW as RawJson).rawJSON(source);
}

/** Invalid JSON was received. */
export const PARSE_ERROR: number = -32700;
/** The JSON is not a valid request object. */
export const INVALID_REQUEST: number = -32600;
/** The method does not exist or is not available. */
export const METHOD_NOT_FOUND: number = -32601;
/** The method exists but its parameters are wrong (MCP: also an unknown tool). */
export const INVALID_PARAMS: number = -32602;
/** The server failed while answering. */
export const INTERNAL_ERROR: number = -32603;

/** The parameters of a request or notification: JSON-RPC allows an object or an array. */
export type JsonRpcParams = Record<string, unknown> | unknown[];

/** A request: it has an id and expects exactly one response. */
export interface JsonRpcRequest {
  /** Always "request". */
  kind: "request";
  /** Echoed in the response. */
  id: JsonRpcId;
  /** The method name, e.g. "tools/call". */
  method: string;
  /** The parameters, when given. */
  params?: JsonRpcParams;
}

/** A notification: no id, never answered. */
export interface JsonRpcNotification {
  /** Always "notification". */
  kind: "notification";
  /** The method name, e.g. "notifications/cancelled". */
  method: string;
  /** The parameters, when given. */
  params?: JsonRpcParams;
}

/** The error object of an error response. */
export interface JsonRpcErrorObject {
  /** One of the JSON-RPC error codes, e.g. -32601. */
  code: number;
  /** A sentence saying what was wrong. */
  message: string;
  /** Anything else the sender added. */
  data?: unknown;
}

/** A response from the peer to a request we sent. Never answered. */
export interface JsonRpcResponse {
  /** Always "response". */
  kind: "response";
  /** The id of our request, or null when the peer could not read it. */
  id: JsonRpcId | null;
  /** The result, on success. */
  result?: unknown;
  /** The error, on failure. */
  error?: JsonRpcErrorObject;
}

/** Something that is not a valid message. */
export interface InvalidMessage {
  /** Always "invalid". */
  kind: "invalid";
  /** The id to answer with: the message's own when it had a usable one, else null. */
  id: JsonRpcId | null;
  /** What is wrong, as a sentence fragment for the error message. */
  reason: string;
  /** True when it was meant as a notification (no id): those are never answered. */
  notification: boolean;
}

/** What {@linkcode classifyMessage} makes of one parsed JSON value. */
export type IncomingMessage =
  | JsonRpcRequest
  | JsonRpcNotification
  | JsonRpcResponse
  | InvalidMessage;

/** A JSON-RPC message as written to the peer. */
export type OutgoingMessage = Record<string, unknown>;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isId(value: unknown): value is JsonRpcId {
  return typeof value === "string" || (typeof value === "number" && Number.isFinite(value)) ||
    (KEEPS_NUMBER_TEXT && (RAW as RawJson).isRawJSON(value));
}

/**
 * Whether a value is a request id (a string, a number, or a number kept as written).
 *
 * @param value any value
 * @returns true for an id
 */
export function isRequestId(value: unknown): value is JsonRpcId {
  return isId(value);
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return "a string";
  return `a ${typeof value}`;
}

function invalid(id: JsonRpcId | null, reason: string, notification = false): InvalidMessage {
  return { kind: "invalid", id, reason, notification };
}

/**
 * Classifies one parsed JSON value (not a batch) as a request, a notification, a response
 * to one of our requests, or an invalid message.
 *
 * An object with a `method` and no `id` counts as a notification even when something else is
 * wrong with it, so that it is never answered; an object with `result` or `error` and no
 * `method` counts as a response, so that a reply is never answered with another reply.
 *
 * @param value The value parsed from one line (or one element of a batch).
 * @returns The classified message.
 * @example
 * ```ts
 * import { classifyMessage } from "./json_rpc.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(classifyMessage({ jsonrpc: "2.0", id: 1, method: "ping" }).kind, "request");
 * assert.equal(classifyMessage({ jsonrpc: "1.0", id: 1, method: "ping" }).kind, "invalid");
 * ```
 */
export function classifyMessage(value: unknown): IncomingMessage {
  if (!isRecord(value)) {
    return invalid(null, `a message must be a JSON object, got ${describe(value)}`);
  }
  const hasId = "id" in value;
  const id = isId(value.id) ? value.id : null;
  const params = value.params;
  const paramsOk = params === undefined || typeof params === "object" && params !== null;
  const versionOk = value.jsonrpc === "2.0";

  if ("method" in value) {
    const method = value.method;
    const notification = !hasId;
    if (!versionOk) {
      return invalid(
        id,
        `"jsonrpc" must be "2.0", got ${JSON.stringify(value.jsonrpc)}`,
        notification,
      );
    }
    if (hasId && id === null) {
      return invalid(null, `"id" must be a string or a number, got ${describe(value.id)}`);
    }
    if (typeof method !== "string") {
      return invalid(id, `"method" must be a string, got ${describe(method)}`, notification);
    }
    if (!paramsOk) {
      return invalid(
        id,
        `"params" must be an object or an array, got ${describe(params)}`,
        notification,
      );
    }
    const base = params === undefined ? { method } : { method, params: params as JsonRpcParams };
    return id === null ? { kind: "notification", ...base } : { kind: "request", id, ...base };
  }

  if ("result" in value || "error" in value) {
    const error = value.error;
    const response: JsonRpcResponse = { kind: "response", id };
    if ("result" in value) response.result = value.result;
    if (isRecord(error)) {
      response.error = {
        code: typeof error.code === "number" ? error.code : INTERNAL_ERROR,
        message: typeof error.message === "string" ? error.message : "(no message)",
        data: error.data,
      };
    }
    return response;
  }

  if (!versionOk) {
    return invalid(id, `"jsonrpc" must be "2.0", got ${JSON.stringify(value.jsonrpc)}`);
  }
  return invalid(id, `the "method" member is missing`);
}

/**
 * Turns an id into a map key that keeps `1` and `"1"` apart (they are different ids).
 *
 * @param id A request id.
 * @returns The key.
 * @example
 * ```ts
 * import { requestIdKey } from "./json_rpc.ts";
 * import assert from "node:assert/strict";
 *
 * assert.notEqual(requestIdKey(1), requestIdKey("1"));
 * ```
 */
export function requestIdKey(id: JsonRpcId): string {
  if (typeof id === "string") return `s${id}`;
  return typeof id === "number" ? `n${id}` : `n${id.rawJSON}`;
}

/**
 * Builds a success response.
 *
 * @param id The request's id.
 * @param result The result object.
 * @returns The response message.
 * @example
 * ```ts
 * import { successResponse } from "./json_rpc.ts";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(successResponse(7, {}), { jsonrpc: "2.0", id: 7, result: {} });
 * ```
 */
export function successResponse(id: JsonRpcId, result: unknown): OutgoingMessage {
  return { jsonrpc: "2.0", id, result };
}

/**
 * Builds an error response.
 *
 * @param id The request's id, or null when it could not be read.
 * @param error A JSON-RPC error code such as {@linkcode METHOD_NOT_FOUND} and a sentence
 *   saying what was wrong and what to do.
 * @returns The response message.
 * @example
 * ```ts
 * import { errorResponse, PARSE_ERROR } from "./json_rpc.ts";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(errorResponse(null, { code: PARSE_ERROR, message: "parse error" }), {
 *   jsonrpc: "2.0",
 *   id: null,
 *   error: { code: -32700, message: "parse error" },
 * });
 * ```
 */
export function errorResponse(id: JsonRpcId | null, error: JsonRpcErrorObject): OutgoingMessage {
  return { jsonrpc: "2.0", id, error };
}
