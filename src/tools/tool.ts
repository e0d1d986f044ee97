/**
 * The shape every linewise tool has, independent of any protocol: the MCP server lists and
 * calls these, the CLI calls them, and agent frameworks can wrap them directly.
 *
 * @module
 */

/** A JSON Schema object, as MCP's `inputSchema` and `outputSchema` carry it. */
export type JsonSchema = { type: "object"; [key: string]: unknown };

/** MCP tool annotations (hints for hosts; never trusted for security). */
export interface ToolAnnotations {
  /** The tool does not change anything. */
  readOnlyHint: boolean;
  /** The tool may destroy or overwrite data (meaningful only when not read-only). */
  destructiveHint?: boolean;
  /** Calling it again with the same arguments has no further effect. */
  idempotentHint: boolean;
  /** The tool reaches nothing outside the configured roots. */
  openWorldHint: false;
}

/** One block of text for the model. */
export interface TextContent {
  /** Always "text". */
  type: "text";
  /** The rows and notes the model reads. */
  text: string;
}

/** What a tool call returns: text for the model, structured data for programs. */
export interface ToolResult {
  /** What the model reads: rows and notes, never a JSON copy of `structuredContent`. */
  content: TextContent[];
  /** Paths, line numbers, totals, what was cut and where to continue; never file text. */
  structuredContent?: Record<string, unknown>;
  /** True when the call failed; `content` then says what was wrong and what to do. */
  isError?: boolean;
}

/** What the caller of a tool can pass besides the arguments. */
export interface CallContext {
  /** Aborted when the caller no longer wants the result (MCP `notifications/cancelled`). */
  signal?: AbortSignal;
  /** Reports progress of long work (MCP progress notifications). */
  progress?: (progress: number, total?: number, message?: string) => void;
  /**
   * The call stands alone (MCP 2026-07-28, whose requests may not rely on earlier ones): what
   * earlier calls showed is used only where the call names it (a `version`), never implied.
   */
  standalone?: boolean;
  /**
   * What the tool took as the call's request arrived ({@linkcode ToolDefinition.arrived}),
   * from a server that may start the call later; the server releases it once the call ends.
   */
  arrival?: CallArrival;
}

/**
 * What a tool keeps of the moment a call's request arrived: the session's mark then, held
 * (see `Session.hold`) until released. Releasing it again does nothing.
 */
export interface CallArrival {
  /** The session's mark as the request arrived. */
  mark: number;
  /** Lets the mark go. */
  release(): void;
}

/** A tool: its description for hosts and models, and the function that runs it. */
export interface ToolDefinition {
  /** The tool's name, e.g. "read". */
  name: string;
  /** A short human title, e.g. "Read lines". */
  title: string;
  /** What the tool does, written for a model. */
  description: string;
  /** JSON Schema of the arguments. */
  inputSchema: JsonSchema;
  /** JSON Schema of `structuredContent`. */
  outputSchema: JsonSchema;
  /** MCP annotations. */
  annotations: ToolAnnotations;
  /**
   * The most characters a result's text has (the output budget), for hosts that keep results
   * up to a size in the conversation and spill larger ones to a file
   * (`_meta["anthropic/maxResultSizeChars"]`).
   */
  maxResultChars?: number;
  /**
   * True when the tool's calls take turns of their own (grep over a store whose searches
   * wait their turn, see `FileStore.searchesTakeTurns`): a server then runs them without
   * holding one of its call slots, so that they never keep other calls waiting.
   * @default false
   */
  takesTurns?: boolean;
  /**
   * Takes what the tool must know of the moment a call's request arrives, for a server that
   * may start the call only later, once calls sent before it have ended (it runs a bounded
   * number at once): a numbered edit takes the session's mark, so that its line numbers
   * still refer to what the agent had seen when it sent the call, not to the results of the
   * calls ahead of it. The server passes it to {@linkcode call} as `context.arrival`.
   */
  arrived?(): CallArrival;
  /**
   * What the tool says instead where each request stands alone (MCP 2026-07-28, see
   * {@linkcode CallContext.standalone}): a description and arguments that rely on nothing an
   * earlier call showed (a numbered edit then needs `version` or `expected_text`).
   */
  standalone?: { description?: string; inputSchema?: JsonSchema };
  /**
   * Runs the tool. Never throws for bad arguments or failed operations: those come back as
   * a result with `isError: true`. Throws only when `context.signal` is aborted.
   */
  call(args: unknown, context?: CallContext): Promise<ToolResult>;
}
