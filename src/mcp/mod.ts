/**
 * The MCP server: the stdio edge, the loop it runs, and the pieces of the protocol it
 * speaks (framing, JSON-RPC messages, protocol versions).
 *
 * @example
 * ```ts ignore
 * import { serveStdio } from "./mod.ts";
 *
 * await serveStdio({ tools: [], serverInfo: { name: "example", version: "1.0.0" } });
 * ```
 *
 * @module
 */

export { serveStdio } from "./stdio.ts";
export { type LineOutput, serveLines, type ServerInfo, type ServerOptions } from "./server.ts";
export {
  DEFAULT_MAX_LINE_BYTES,
  type MessageLinesOptions,
  type OversizedLine,
  readMessageLines,
} from "./message_lines.ts";
export type { JsonRpcId, RawNumber } from "./json_rpc.ts";
export {
  LATEST_PROTOCOL_VERSION,
  MODERN_PROTOCOL_VERSION,
  negotiateProtocolVersion,
  type ProtocolVersion,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "./protocol_versions.ts";
