/**
 * Scans for a pattern that may run without end (lookarounds and backreferences have no
 * linear-time engine) where it can be stopped, so that it neither outlives its time budget
 * nor holds up the thread that answers requests: in a helper process, which can be killed.
 * A worker cannot be stopped in the middle of a match, neither under Bun nor under Deno
 * (whose `terminate()` leaves it matching, a core busy, until the process ends:
 * denoland/deno#35657); a worker is used only under Deno without the permission to run
 * itself, or with its modules from the network. A helper whose scan runs past its deadline,
 * or is cancelled, is killed; an idle one is kept warm for the next scan for a while, and
 * never keeps the process alive.
 *
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process";
import process from "node:process";
import { PatternStoppedError, type StoppableScan } from "../core/mod.ts";
import {
  isCompiledBinary,
  moduleProcess,
  PROCESS_MODULES,
  startWorker,
  workerFailureReason,
} from "../io/runtime.ts";
import type { ScanReply, ScanRequest } from "./_pattern_scan.ts";
import { PATTERN_HELPER_ENV, PATTERN_PARENT_ENV } from "./pattern_helper.ts";

/** Helpers kept warm between scans at most. */
const MAX_IDLE = 2;
/** How long an idle helper is kept. */
const IDLE_MS = 30_000;

/** A process or worker that answers scan requests one at a time. */
interface Helper {
  send(request: ScanRequest): Promise<ScanReply>;
  kill(): void;
  /** Whether it may keep the process alive (only while it works). */
  hold(held: boolean): void;
}

/**
 * A helper process: this binary run again, or the helper module under the runtime that runs
 * this one. It is told this process's id, and dies with it.
 */
class ProcessHelper implements Helper {
  readonly #child: ChildProcess;
  #buffer = "";
  #waiting: { resolve: (reply: ScanReply) => void; reject: (error: Error) => void } | undefined;

  constructor(command: string, args: string[]) {
    const parent = String(process.pid);
    // (The module gets it as its last argument: Deno lets a process read only the environment
    // it was given the permission to read.)
    const compiled = isCompiledBinary();
    this.#child = spawn(command, compiled ? args : [...args, parent], {
      env: compiled
        ? { ...process.env, [PATTERN_HELPER_ENV]: "1", [PATTERN_PARENT_ENV]: parent }
        : undefined,
      stdio: ["pipe", "pipe", "inherit"],
    });
    this.#child.stdout!.setEncoding("utf8");
    this.#child.stdout!.on("data", (chunk: string) => this.#take(chunk));
    const ended = (why: string) => {
      this.#waiting?.reject(new Error(`the pattern helper process ${why}`));
      this.#waiting = undefined;
    };
    this.#child.on("exit", (code, signal) => ended(`ended (${signal ?? code})`));
    this.#child.on("error", (error) => ended(`failed: ${error.message}`));
    this.#child.stdin!.on("error", () => {}); // (a helper killed mid-write: the exit says it)
  }

  send(request: ScanRequest): Promise<ScanReply> {
    return new Promise((resolve, reject) => {
      this.#waiting = { resolve, reject };
      this.#child.stdin!.write(JSON.stringify(request) + "\n");
    });
  }

  kill(): void {
    this.#child.kill("SIGKILL");
  }

  hold(held: boolean): void {
    for (const handle of [this.#child, this.#child.stdin, this.#child.stdout]) {
      const refable = handle as { ref?: () => void; unref?: () => void } | null;
      if (held) refable?.ref?.();
      else refable?.unref?.();
    }
  }

  #take(chunk: string): void {
    this.#buffer += chunk;
    const end = this.#buffer.indexOf("\n");
    if (end === -1) return;
    const line = this.#buffer.slice(0, end);
    this.#buffer = this.#buffer.slice(end + 1);
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.resolve(JSON.parse(line) as ScanReply);
  }
}

/** A helper worker: terminated, it stops a match only where the runtime does (see above). */
class WorkerHelper implements Helper {
  readonly #worker: Worker;

  constructor() {
    const worker = startWorker("pattern");
    if (worker === undefined) throw new Error("the pattern worker did not start");
    this.#worker = worker;
  }

  send(request: ScanRequest): Promise<ScanReply> {
    return new Promise((resolve, reject) => {
      this.#worker.onmessage = (event: MessageEvent<ScanReply>) => resolve(event.data);
      this.#worker.onerror = (event) => {
        event.preventDefault(); // (Deno would otherwise end the process)
        reject(new Error(`the pattern helper worker failed: ${workerFailureReason(event)}`));
      };
      this.#worker.postMessage(request);
    });
  }

  kill(): void {
    this.#worker.terminate();
  }

  hold(held: boolean): void {
    const refable = this.#worker as { ref?: () => void; unref?: () => void };
    if (held) refable.ref?.();
    else refable.unref?.();
  }
}

const idle: { helper: Helper; timer: ReturnType<typeof setTimeout> }[] = [];
let lastId = 0;

function acquire(): Helper {
  const warm = idle.pop();
  if (warm !== undefined) {
    clearTimeout(warm.timer);
    warm.helper.hold(true);
    return warm.helper;
  }
  if (isCompiledBinary()) return new ProcessHelper(process.execPath, []);
  const run = moduleProcess(PROCESS_MODULES.patternHelper);
  return run === undefined ? new WorkerHelper() : new ProcessHelper(...run);
}

function release(helper: Helper): void {
  if (idle.length >= MAX_IDLE) return helper.kill();
  helper.hold(false);
  const timer = setTimeout(() => {
    const at = idle.findIndex((entry) => entry.helper === helper);
    if (at !== -1) idle.splice(at, 1);
    helper.kill();
  }, IDLE_MS);
  (timer as { unref?: () => void }).unref?.();
  idle.push({ helper, timer });
}

/**
 * A scan for a pattern, run in a helper that is killed at the deadline or on abort.
 *
 * @param source the pattern (JavaScript syntax, flags u and s)
 * @param ignoreCase match regardless of case
 * @returns the scan
 */
export function stoppableScan(source: string, ignoreCase: boolean): StoppableScan {
  return {
    async scan(text, options, stop) {
      stop.signal?.throwIfAborted();
      const left = stop.deadline === undefined ? Infinity : stop.deadline - Date.now();
      if (left <= 0) throw new PatternStoppedError();
      const helper = acquire();
      let timer: ReturnType<typeof setTimeout> | undefined;
      let onAbort: (() => void) | undefined;
      const stopped = new Promise<never>((_, reject) => {
        if (left !== Infinity) timer = setTimeout(() => reject(new PatternStoppedError()), left);
        onAbort = () => reject(stop.signal!.reason);
        stop.signal?.addEventListener("abort", onAbort, { once: true });
      });
      try {
        const request: ScanRequest = { id: ++lastId, source, ignoreCase, text, ...options };
        const reply = await Promise.race([helper.send(request), stopped]);
        if (reply.rows === undefined) throw new Error(`the pattern helper failed: ${reply.error}`);
        release(helper);
        return reply.rows;
      } catch (error) {
        helper.kill(); // (stopped, cancelled or broken: it may still be matching)
        throw error;
      } finally {
        clearTimeout(timer);
        if (onAbort) stop.signal?.removeEventListener("abort", onAbort);
      }
    },
  };
}
