// The stateless era of MCP (2026-07-28): a request that carries the protocol version in its
// `_meta` (or asks `server/discover`) is served on its own, with no `initialize` before it.
// Everything here is about the envelope and the shapes of that era's results; the tools are
// the same as in a legacy session.
import { errorResponse, INVALID_PARAMS, type JsonRpcRequest } from "./json_rpc.ts";
import { MODERN_PROTOCOL_VERSION } from "./protocol_versions.ts";

/** The `_meta` keys of the era. */
const META_VERSION = "io.modelcontextprotocol/protocolVersion";
const META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
const META_SERVER_INFO = "io.modelcontextprotocol/serverInfo";

/** The error for a protocol version the server does not serve. */
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;

/**
 * How long a client may keep `tools/list` and `server/discover`: the tools never change in
 * this era (its roots are the server's own), so an hour, and for anyone using this server.
 */
export const LIST_CACHING = { ttlMs: 3_600_000, cacheScope: "public" } as const;

/** Methods this server answers in the era. */
export const MODERN_METHODS = "server/discover, tools/list, tools/call and subscriptions/listen";

/**
 * The acknowledgment of `subscriptions/listen`, the subscription's first message: which of the
 * notifications asked for the server agreed to send. None: in this era the tools never
 * change (the roots are the server's own), and the server has no other kind.
 *
 * @param id the request's id, which names the subscription
 * @returns the notification to send
 */
export function subscriptionAcknowledged(id: string | number): Record<string, unknown> {
  return {
    jsonrpc: "2.0",
    method: "notifications/subscriptions/acknowledged",
    params: { _meta: { "io.modelcontextprotocol/subscriptionId": id }, notifications: {} },
  };
}

/**
 * The answer to `subscriptions/listen` that ends a subscription gracefully, as the server
 * ends (a transport that breaks carries none).
 *
 * @param id the request's id, which names the subscription
 * @param meta the `_meta` of every result (the server's info)
 * @returns the response to send
 */
export function subscriptionEnded(
  id: string | number,
  meta: Record<string, unknown>,
): Record<string, unknown> {
  return {
    jsonrpc: "2.0",
    id,
    result: {
      resultType: "complete",
      _meta: { ...meta, "io.modelcontextprotocol/subscriptionId": id },
    },
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The request's `_meta`, when it has one. */
function metaOf(request: JsonRpcRequest): Record<string, unknown> | undefined {
  const params = request.params;
  return isRecord(params) && isRecord(params._meta) ? params._meta : undefined;
}

/** Whether a request belongs to the stateless era: `server/discover`, or a versioned `_meta`. */
export function isModern(request: JsonRpcRequest): boolean {
  return request.method === "server/discover" || metaOf(request)?.[META_VERSION] !== undefined;
}

/**
 * What is wrong with a request's envelope, as the error response to send, or undefined when
 * it may be served: the version and the client's capabilities are required, and only
 * 2026-07-28 is served this way (the earlier versions are served after `initialize`).
 */
export function envelopeError(request: JsonRpcRequest): Record<string, unknown> | undefined {
  const meta = metaOf(request);
  const version = meta?.[META_VERSION];
  if (typeof version !== "string") {
    return errorResponse(request.id, {
      code: INVALID_PARAMS,
      message:
        `${request.method} needs params._meta["${META_VERSION}"] naming the protocol version (${MODERN_PROTOCOL_VERSION}); a client of an earlier version starts with initialize`,
    });
  }
  if (version !== MODERN_PROTOCOL_VERSION) {
    return errorResponse(request.id, {
      code: UNSUPPORTED_PROTOCOL_VERSION,
      message:
        `protocol version ${version} is not served per request; this server serves ${MODERN_PROTOCOL_VERSION} so, and earlier versions after initialize`,
      data: { supported: [MODERN_PROTOCOL_VERSION], requested: version },
    });
  }
  if (!isRecord(meta![META_CAPABILITIES])) {
    return errorResponse(request.id, {
      code: INVALID_PARAMS,
      message:
        `${request.method} needs params._meta["${META_CAPABILITIES}"], an object ({} for none)`,
    });
  }
  return undefined;
}

/**
 * The `_meta` every result of the era carries: the server's name and version (a client may
 * meet a result before, or without, `server/discover`).
 */
export function serverMeta(serverInfo: Record<string, unknown>): Record<string, unknown> {
  return { [META_SERVER_INFO]: serverInfo };
}

/** The result of `server/discover`. */
export function discoverResult(
  serverInfo: Record<string, unknown>,
  instructions: string | undefined,
): Record<string, unknown> {
  return {
    resultType: "complete",
    supportedVersions: [MODERN_PROTOCOL_VERSION],
    capabilities: { tools: {} },
    ...(instructions === undefined ? {} : { instructions }),
    ...LIST_CACHING,
    _meta: serverMeta(serverInfo),
  };
}
