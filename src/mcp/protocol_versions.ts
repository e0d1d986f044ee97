/**
 * The MCP protocol versions the server speaks, and what each one allows on the wire.
 *
 * @module
 */

/** Every MCP version the server can speak, newest first. */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly ProtocolVersion[] = [
  "2025-11-25",
  "2025-06-18",
  "2025-03-26",
  "2024-11-05",
];

/** An MCP protocol version the server speaks. */
export type ProtocolVersion =
  | "2024-11-05"
  | "2025-03-26"
  | "2025-06-18"
  | "2025-11-25"
  | "2026-07-28";

/**
 * The stateless era's version (no `initialize`: each request carries it in `_meta`). It is
 * never negotiated by `initialize`, which answers with a legacy version.
 */
export const MODERN_PROTOCOL_VERSION: ProtocolVersion = "2026-07-28";

/** The version answered when the client asks for one the server does not know. */
export const LATEST_PROTOCOL_VERSION: ProtocolVersion = "2025-11-25";

/** What a protocol version allows, as far as this server is concerned. */
export interface ProtocolFeatures {
  /** JSON-RPC batches (arrays): only 2025-03-26 had them; 2025-06-18 removed them. */
  batches: boolean;
  /** Tool annotations in `tools/list` (since 2025-03-26). */
  annotations: boolean;
  /** A `message` in progress notifications (since 2025-03-26). */
  progressMessage: boolean;
  /** A top-level tool `title` (since 2025-06-18). */
  title: boolean;
  /** `outputSchema` in `tools/list` and `structuredContent` in results (since 2025-06-18). */
  structuredContent: boolean;
  /** `_meta` on a tool in `tools/list` (since 2025-06-18). */
  toolMeta: boolean;
  /** `resultType` on every result, `ttlMs` and `cacheScope` on lists (2026-07-28). */
  resultType: boolean;
  /**
   * Each request stands alone, relying on none before it (2026-07-28): tools say what they
   * need for that (`ToolDefinition.standalone`).
   */
  standalone: boolean;
}

/**
 * Picks the session's version: the client's when the server speaks it, else the newest.
 * The client then decides whether it can live with that (MCP version negotiation).
 *
 * @param requested The `protocolVersion` from the client's `initialize`, of any type.
 * @returns The version to answer with and to speak from then on.
 * @example
 * ```ts
 * import { negotiateProtocolVersion } from "./protocol_versions.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(negotiateProtocolVersion("2025-03-26"), "2025-03-26");
 * assert.equal(negotiateProtocolVersion("1999-01-01"), "2025-11-25");
 * ```
 */
export function negotiateProtocolVersion(requested: unknown): ProtocolVersion {
  const known = SUPPORTED_PROTOCOL_VERSIONS.find((version) => version === requested);
  return known ?? LATEST_PROTOCOL_VERSION;
}

/**
 * Tells what a protocol version allows.
 *
 * @param version A supported version.
 * @returns Its features.
 * @example
 * ```ts
 * import { protocolFeatures } from "./protocol_versions.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(protocolFeatures("2025-03-26").batches, true);
 * assert.equal(protocolFeatures("2025-06-18").batches, false);
 * ```
 */
export function protocolFeatures(version: ProtocolVersion): ProtocolFeatures {
  // The versions are ISO dates, so string order is release order.
  return {
    batches: version === "2025-03-26",
    annotations: version >= "2025-03-26",
    progressMessage: version >= "2025-03-26",
    title: version >= "2025-06-18",
    structuredContent: version >= "2025-06-18",
    toolMeta: version >= "2025-06-18",
    resultType: version >= MODERN_PROTOCOL_VERSION,
    standalone: version >= MODERN_PROTOCOL_VERSION,
  };
}
