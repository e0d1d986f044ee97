// Shared by the end-to-end tests: the compiled binary (built when missing or stale), a
// fresh temporary root, and a raw line-level session for protocol tests.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";

/** Absolute path of the project. */
export const PROJECT = resolve(import.meta.dirname ?? ".", "../..");
/** Absolute path of the compiled binary. */
export const BINARY = join(PROJECT, "dist", "linewise");

let built = false;

/**
 * The environment the command line runs in for a test: a home of its own, empty (one for all
 * the tests, left in place: a test runner may end its workers without an exit event), so that
 * the user's git global excludes file (which `linewise grep` honours, as ripgrep does) leaves
 * no file of a test out.
 */
export function cliEnv(): Record<string, string | undefined> {
  const home = join(tmpdir(), "linewise-test-home");
  mkdirSync(home, { recursive: true });
  const env: Record<string, string | undefined> = { ...process.env, HOME: home };
  delete env.XDG_CONFIG_HOME;
  return env;
}

/** Builds dist/linewise unless it is newer than every source. */
export function ensureBinary(): string {
  if (built) return BINARY;
  const deno = join(PROJECT, "node_modules", ".bin", "deno");
  const result = spawnSync(deno, ["run", "-A", "scripts/compile.ts", "--if-stale"], {
    cwd: PROJECT,
    encoding: "utf8",
    env: { ...process.env, PATH: `${join(PROJECT, "node_modules", ".bin")}:${process.env.PATH}` },
  });
  if (result.status !== 0) throw new Error(`building the binary failed:\n${result.stderr}`);
  built = true;
  return BINARY;
}

/** A fresh directory, removed by the returned function. */
export function tempRoot(): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "linewise-e2e-"));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A binary session spoken to line by line, for protocol tests the SDK client would not send. */
export class RawSession {
  readonly child: ChildProcess;
  readonly #lines: string[] = [];
  /** When each line arrived (`Date.now()`). */
  readonly #arrived: number[] = [];
  readonly #waiters: Array<() => void> = [];
  stderr = "";

  constructor(args: string[], env?: Record<string, string>) {
    this.child = spawn(ensureBinary(), args, {
      stdio: ["pipe", "pipe", "pipe"],
      env: env && { ...process.env, ...env },
    });
    createInterface({ input: this.child.stdout! }).on("line", (line) => {
      this.#lines.push(line);
      this.#arrived.push(Date.now());
      this.#waiters.splice(0).forEach((wake) => wake());
    });
    this.child.stderr!.on("data", (chunk) => this.stderr += chunk);
    // A server that ended (as it does once its stdout's reader is gone) fails the writes sent
    // after with EPIPE: its exit status says what happened, not an unheard "error" event.
    this.child.stdin!.on("error", () => {});
  }

  /** Sends raw text or bytes (add the newline yourself). */
  send(text: string | Uint8Array): void {
    this.child.stdin!.write(text);
  }

  /** Sends one JSON message as a line. */
  sendJson(message: unknown): void {
    this.send(JSON.stringify(message) + "\n");
  }

  /** The lines received so far, as they came. */
  get rawLines(): string[] {
    return [...this.#lines];
  }

  /** When the line at `index` of {@linkcode rawLines} arrived. */
  arrivedAt(index: number): number {
    return this.#arrived[index];
  }

  /** Waits until `count` lines have arrived in all, and returns them parsed. */
  async received(count: number, timeoutMs = 30000): Promise<unknown[]> {
    await this.until(() => this.#lines.length >= count, timeoutMs);
    return this.#lines.map((line) => JSON.parse(line));
  }

  /** Waits until a received line contains `text`, and returns every line parsed. */
  async receivedUntil(text: string, timeoutMs = 60000): Promise<unknown[]> {
    let checked = 0;
    await this.until(() => {
      const found = this.#lines.slice(checked).some((line) => line.includes(text));
      checked = this.#lines.length;
      return found;
    }, timeoutMs);
    return this.#lines.map((line) => JSON.parse(line));
  }

  async until(done: () => boolean, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      if (Date.now() > deadline) {
        throw new Error(`timed out after ${this.#lines.length} lines; stderr: ${this.stderr}`);
      }
      await new Promise<void>((wake) => {
        this.#waiters.push(wake);
        setTimeout(wake, 200);
      });
    }
  }

  /** Closes stdin and waits for the exit code. */
  async close(): Promise<number | null> {
    this.child.stdin!.end();
    if (this.child.exitCode !== null) return this.child.exitCode;
    return await new Promise((done) => this.child.on("exit", (code) => done(code)));
  }
}

/**
 * The live pattern helpers a server has started (Linux): its child processes, on any of its
 * threads, with the helper's environment variable (a killed helper not yet reaped has none).
 * Read through `sh` and `cat`, which Deno may run without --allow-all.
 *
 * @param pid the server's process id
 * @returns the helpers' process ids
 */
export function patternHelpers(pid: number): number[] {
  const script = `for child in $(cat /proc/${pid}/task/*/children 2>/dev/null); do
    tr '\\0' '\\n' < /proc/$child/environ 2>/dev/null | grep -qx LINEWISE_PATTERN_HELPER=1 &&
      echo $child; done`;
  const found = spawnSync("sh", ["-c", script], { encoding: "utf8" }).stdout;
  return found.split("\n").filter((line) => line !== "").map(Number);
}

/** Runs the binary as a command line (with `env` over {@linkcode cliEnv}) and returns its status and output. */
export function runCli(
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(ensureBinary(), args, {
    cwd,
    encoding: "utf8",
    env: { ...cliEnv(), ...env },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A request's answer, and how long it took. */
export interface Answered {
  message: { id: string; result?: Record<string, unknown>; error?: { message: string } };
  ms: number;
}

/**
 * Sends requests at once, then pings every 50 ms until each is answered.
 *
 * @returns each answer by id with its time, and each ping's round trip
 */
export async function callsWhilePinging(
  session: RawSession,
  requests: Array<{ id: string; method: string; params?: unknown }>,
  timeoutMs = 60_000,
): Promise<{ answers: Map<string, Answered>; pings: number[] }> {
  const sentAt = new Map<string, number>();
  const answers = new Map<string, Answered>();
  let seen = session.rawLines.length;
  const collect = () => {
    const lines = session.rawLines;
    for (; seen < lines.length; seen++) {
      const message = JSON.parse(lines[seen]);
      const sent = sentAt.get(message.id);
      if (sent !== undefined) {
        answers.set(message.id, { message, ms: session.arrivedAt(seen) - sent });
      }
    }
  };
  for (const request of requests) {
    sentAt.set(request.id, Date.now());
    session.sendJson({ jsonrpc: "2.0", ...request });
  }
  const pings: number[] = [];
  const started = Date.now();
  for (let p = 0; (collect(), answers.size < requests.length); p++) {
    if (Date.now() - started > timeoutMs) {
      throw new Error(`${answers.size} answers in ${timeoutMs} ms`);
    }
    const id = `ping-${p}-${started}`;
    const sent = Date.now();
    session.sendJson({ jsonrpc: "2.0", id, method: "ping" });
    await session.receivedUntil(`"${id}"`, 5000);
    pings.push(Date.now() - sent);
    await new Promise((wake) => setTimeout(wake, 50));
  }
  return { answers, pings };
}

/** The request that starts a 2025-06-18 session (id 0). */
export const INITIALIZE = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "c", version: "1" },
  },
};

/** Starts a 2025-06-18 session with the binary (with `env` added to this process's). */
export async function initialized(
  args: string[],
  env?: Record<string, string>,
): Promise<RawSession> {
  const session = new RawSession(args, env);
  session.sendJson(INITIALIZE);
  await session.received(1);
  session.sendJson({ jsonrpc: "2.0", method: "notifications/initialized" });
  return session;
}

/**
 * A result's text without the versions it names: read's and an edit's `[version …]` first
 * line and grep's ` @…` after a path (for tests about the rest of the text; the versions
 * themselves are tested in tests/e2e/bin_versions_test.ts and tests/tools/edit/versions_test.ts).
 */
export function unversioned(text: string): string {
  return text.replace(/^\[version [0-9a-f]{8}\]\n/, "").replace(/ @[0-9a-f]{8}$/gm, "");
}
