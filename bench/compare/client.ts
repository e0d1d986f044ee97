// A raw JSON-lines MCP client for the benchmarks (no SDK), so that client overhead stays out
// of the per-call numbers.
import { type ChildProcess, spawn } from "node:child_process";
import * as fs from "node:fs";
import { BINARY } from "./support.ts";

export class McpClient {
  readonly child: ChildProcess;
  /** The pieces of the line being received. */
  readonly #parts: string[] = [];
  #next = 1;
  readonly #pending = new Map<number, (message: Record<string, unknown>) => void>();
  #stderr = ""; // the last of it, for the error when the server ends early
  #exited: string | undefined;

  constructor(command: string, args: string[]) {
    this.child = spawn(command, args, { stdio: ["pipe", "pipe", "pipe"] });
    this.child.stderr!.on("data", (chunk) => {
      this.#stderr = (this.#stderr + chunk).slice(-2000);
    });
    // A server that ends (a bad option, a crash) fails what waits for it, not hangs the run.
    this.child.stdin!.on("error", () => {}); // (a write after it ended: the exit says why)
    // ("close", not "exit": the replies it wrote before it ended are read first.)
    this.child.on("close", (code, signal) => {
      this.#exited = `the server ended (${signal ?? `exit ${code}`}): ${this.#stderr.trim()}`;
      for (const resolve of this.#pending.values()) {
        resolve({ error: { message: this.#exited } });
      }
      this.#pending.clear();
    });
    this.child.stdout!.setEncoding("utf8");
    // (Only each new chunk is looked through for the end of a line, and the pieces of a
    // line of megabytes are joined once: the client's own cost stays out of the timings.)
    this.child.stdout!.on("data", (chunk: string) => {
      let rest = chunk;
      for (let nl = rest.indexOf("\n"); nl !== -1; nl = rest.indexOf("\n")) {
        this.#parts.push(rest.slice(0, nl));
        rest = rest.slice(nl + 1);
        const line = this.#parts.join("");
        this.#parts.length = 0;
        if (line.trim() === "") continue;
        const message = JSON.parse(line);
        const resolve = this.#pending.get(message.id);
        if (resolve) {
          this.#pending.delete(message.id);
          resolve(message);
        }
      }
      if (rest !== "") this.#parts.push(rest);
    });
  }

  /**
   * Spawns a server and times spawn → initialize response. linewise's servers run with
   * `--no-cache` (as on a tree never seen) unless `cache` is set (see known.ts).
   */
  static async start(
    command: string,
    args: string[],
    options: { cache?: boolean } = {},
  ): Promise<{ client: McpClient; ms: number }> {
    const started = performance.now();
    const serve = args.indexOf("serve");
    const ours = [command, ...args].includes(BINARY) && serve !== -1;
    const client = new McpClient(
      command,
      ours && !options.cache
        ? [...args.slice(0, serve + 1), "--no-cache", ...args.slice(serve + 1)]
        : args,
    );
    const response = await client.request("initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "linewise-bench", version: "1" },
    });
    if (response.error) throw new Error(`initialize failed: ${JSON.stringify(response.error)}`);
    const ms = performance.now() - started;
    client.notify("notifications/initialized");
    return { client, ms };
  }

  request(method: string, params: unknown): Promise<Record<string, unknown>> {
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      if (this.#exited !== undefined) return reject(new Error(this.#exited));
      this.#pending.set(id, resolve);
      this.child.stdin!.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
    });
  }

  notify(method: string): void {
    this.child.stdin!.write(JSON.stringify({ jsonrpc: "2.0", method }) + "\n");
  }

  /** Calls a tool; returns the result and the round trip in ms. */
  async call(name: string, args: unknown) {
    const started = performance.now();
    const response = await this.request("tools/call", { name, arguments: args });
    const ms = performance.now() - started;
    const result = response.result as {
      content: { text: string }[];
      structuredContent?: Record<string, unknown>;
      isError?: boolean;
    };
    if (!result) throw new Error(`${name} failed: ${JSON.stringify(response.error)}`);
    if (result.isError) throw new Error(`${name} failed: ${result.content[0]?.text}`);
    return { result, ms };
  }

  /**
   * Waits until the server process stops using the CPU (its search index builds in the
   * background after a grep); returns how long that took, in ms.
   */
  async idle(): Promise<number> {
    const started = performance.now();
    const cpu = () => {
      const fields = fs.readFileSync(`/proc/${this.child.pid}/stat`, "utf8").split(") ")[1]
        .split(" ");
      return Number(fields[11]) + Number(fields[12]); // utime + stime, in clock ticks
    };
    let last = cpu();
    let quiet = 0;
    while (quiet < 3) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const now = cpu();
      quiet = now === last ? quiet + 1 : 0;
      last = now;
    }
    return performance.now() - started - 300;
  }

  /** Peak and current resident memory of the server process, in MiB (Linux). */
  memory(): { peak: number; now: number } | undefined {
    try {
      const status = fs.readFileSync(`/proc/${this.child.pid}/status`, "utf8");
      const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1]);
      return { peak: kb("VmHWM") / 1024, now: kb("VmRSS") / 1024 };
    } catch {
      return undefined;
    }
  }

  async close(): Promise<void> {
    const exited = new Promise((resolve) => this.child.once("exit", resolve));
    this.child.stdin!.end();
    await exited;
  }
}

export function linewise(root: string, extra: string[] = [], cache = false) {
  return McpClient.start(BINARY, [
    "serve",
    "--root",
    root,
    "--max-lines",
    "1000000",
    "--max-chars",
    "100000000",
    ...extra,
  ], { cache });
}
