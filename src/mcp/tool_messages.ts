/**
 * How tools and their results look on the wire, per protocol version: a client of an older
 * version gets only the fields its version defines.
 *
 * @module
 */

import type { ToolDefinition, ToolResult } from "../tools/tool.ts";
import { protocolFeatures, type ProtocolVersion } from "./protocol_versions.ts";

/**
 * Describes a tool for `tools/list`.
 *
 * 2024-11-05 gets name, description and inputSchema; 2025-03-26 adds the annotations (with
 * the title inside them, where that version keeps it); 2025-06-18 and later add the title
 * and the outputSchema. 2026-07-28, whose requests stand alone, gets what the tool says for
 * that (`ToolDefinition.standalone`) where it says something else. The outputSchema is never
 * sent to a client that will not get `structuredContent`, since a client that sees one
 * requires the other.
 *
 * @param tool The tool.
 * @param version The session's protocol version.
 * @returns The entry of the `tools` array.
 * @example
 * ```ts
 * import { toolListing } from "./tool_messages.ts";
 * import assert from "node:assert/strict";
 *
 * const tool = {
 *   name: "echo",
 *   title: "Echo",
 *   description: "Says it back.",
 *   inputSchema: { type: "object" as const },
 *   outputSchema: { type: "object" as const },
 *   annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false as const },
 *   call: () => Promise.resolve({ content: [] }),
 * };
 * assert.deepEqual(Object.keys(toolListing(tool, "2024-11-05")), ["name", "description", "inputSchema"]);
 * ```
 */
export function toolListing(
  tool: ToolDefinition,
  version: ProtocolVersion,
): Record<string, unknown> {
  const features = protocolFeatures(version);
  const alone = features.standalone ? tool.standalone : undefined;
  const listing: Record<string, unknown> = { name: tool.name };
  if (features.title) listing.title = tool.title;
  listing.description = alone?.description ?? tool.description;
  listing.inputSchema = alone?.inputSchema ?? tool.inputSchema;
  if (features.structuredContent) listing.outputSchema = tool.outputSchema;
  if (features.annotations) {
    listing.annotations = features.title
      ? tool.annotations
      : { title: tool.title, ...tool.annotations };
  }
  if (features.toolMeta && tool.maxResultChars !== undefined) {
    // (Claude Code keeps a result of up to this many characters in the conversation.)
    listing._meta = { "anthropic/maxResultSizeChars": tool.maxResultChars };
  }
  return listing;
}

/**
 * Turns a tool's result into a `tools/call` result for the session's version: the text
 * content always, `structuredContent` from 2025-06-18 on, `isError` when set.
 *
 * @param result What the tool returned, unchecked.
 * @param version The session's protocol version.
 * @returns The JSON-RPC result.
 * @throws {TypeError} When the tool returned something that is not a tool result.
 * @example
 * ```ts
 * import { callResult } from "./tool_messages.ts";
 * import assert from "node:assert/strict";
 *
 * const result = { content: [{ type: "text" as const, text: "hi" }], structuredContent: { n: 1 } };
 * assert.deepEqual(callResult(result, "2025-03-26"), { content: [{ type: "text", text: "hi" }] });
 * assert.deepEqual(callResult(result, "2025-06-18"), result);
 * ```
 */
export function callResult(
  result: ToolResult,
  version: ProtocolVersion,
  meta?: Record<string, unknown>,
): Record<string, unknown> {
  // The type says ToolResult, but a buggy tool is exactly what this guards against.
  const value: unknown = result;
  if (typeof value !== "object" || value === null || !Array.isArray(result.content)) {
    throw new TypeError(`a tool result must be an object with a "content" array`);
  }
  const features = protocolFeatures(version);
  const message: Record<string, unknown> = features.resultType
    ? { resultType: "complete", content: result.content }
    : { content: result.content };
  if (features.structuredContent && result.structuredContent !== undefined) {
    message.structuredContent = result.structuredContent;
  }
  if (result.isError === true) message.isError = true;
  if (features.resultType && meta !== undefined) message._meta = meta;
  return message;
}
