// Shared by the end-to-end tests that drive a server as a host does: the official MCP SDK
// client, connected over stdio to `linewise serve` (the compiled binary unless told otherwise).
// @ts-types="../../node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.d.ts"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="../../node_modules/@modelcontextprotocol/sdk/dist/esm/client/stdio.d.ts"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ensureBinary } from "./binary.ts";

/** How {@linkcode sdkSession} starts the server. */
export interface SdkSessionOptions {
  /** The client's name (the server logs it). */
  name?: string;
  /** The program to run with `args` (default: the compiled binary). */
  command?: string;
  /** Its environment (default: the SDK's, a few safe variables of this process's). */
  env?: Record<string, string>;
  /** Its working directory. */
  cwd?: string;
  /** Takes what it writes to stderr (otherwise dropped). */
  onStderr?: (chunk: string) => void;
}

/**
 * Starts a server and connects the SDK client to it.
 *
 * @param args the program's arguments (`serve --root DIR …` for the binary)
 * @param options the client's name, and how the server is started
 * @returns the connected client, and its transport (the server's pid)
 */
export async function sdkSession(
  args: string[],
  options: SdkSessionOptions = {},
): Promise<{ client: Client; transport: StdioClientTransport }> {
  const transport = new StdioClientTransport({
    command: options.command ?? ensureBinary(),
    args,
    env: options.env,
    cwd: options.cwd,
    stderr: "pipe",
  });
  const onStderr = options.onStderr;
  if (onStderr !== undefined) transport.stderr?.on("data", (chunk) => onStderr(String(chunk)));
  const client = new Client({ name: options.name ?? "linewise-e2e", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport };
}
