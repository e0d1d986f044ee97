/**
 * Which runtime this is, and what that means for the rest: asked here, never by sniffing
 * globals elsewhere.
 *
 * @module
 */
import { createRequire } from "node:module";
import process from "node:process";
import { fileURLToPath } from "node:url";

/** The runtimes linewise runs on. */
export type RuntimeName = "bun" | "deno" | "node";

/** This runtime. */
export const RUNTIME: RuntimeName = "Bun" in globalThis
  ? "bun"
  : "Deno" in globalThis
  ? "deno"
  : "node";

/**
 * This runtime and its version, and whether this is the compiled binary: what `--version`
 * tells beside linewise's own version.
 *
 * @returns as "bun 1.4.5, compiled", "node 20.20.2" or "deno 2.9.6"
 * @example
 * ```ts
 * import { runtimeDescription } from "./runtime.ts";
 * import assert from "node:assert/strict";
 * assert.match(runtimeDescription(), /^(bun|deno|node) \d/);
 * ```
 */
export function runtimeDescription(): string {
  const versions = process.versions as Record<string, string | undefined>;
  const version = versions[RUNTIME] ?? versions.node;
  return `${RUNTIME} ${version}${isCompiledBinary() ? ", compiled" : ""}`;
}

/** A hasher that hashes in one call, in hex (Bun's `CryptoHasher`). */
export interface NativeHasher {
  hash(algorithm: "sha1" | "sha256", input: Uint8Array | string, encoding: "hex"): string;
}

/** Bun's native hasher, where this is Bun: digests without loading `node:crypto`. */
export const NATIVE_HASHER: NativeHasher | undefined = RUNTIME === "bun"
  ? (globalThis as unknown as { Bun: { CryptoHasher: NativeHasher } }).Bun.CryptoHasher
  : undefined;

/**
 * A Node built-in module, loaded when first asked for instead of when the module that needs
 * it is: a thread evaluates every static import of its graph before it runs, and a search
 * thread or reading worker started 2.6 ms later in the compiled binary with `node:zlib` and
 * `node:crypto` among them (the time from `new Worker` to its first line, 2 cores). Node
 * before 20.16 has no `process.getBuiltinModule`, and gets it through `require`.
 *
 * @param name as `node:zlib`
 * @returns the module
 * @example
 * ```ts
 * import { builtin } from "./runtime.ts";
 * import assert from "node:assert/strict";
 * const zlib = builtin<typeof import("node:zlib")>("node:zlib");
 * assert.equal(typeof zlib.crc32, "function");
 * ```
 */
export function builtin<T>(name: `node:${string}`): T {
  const load = (process as { getBuiltinModule?: (name: string) => unknown }).getBuiltinModule ??
    (required ??= createRequire(import.meta.url));
  return load(name) as T;
}

/** `require` where `process.getBuiltinModule` is missing, once made. */
let required: ((name: string) => unknown) | undefined;

/**
 * Whether this is a binary made by `bun build --compile`: its modules are embedded in it,
 * not files on disk, so another entry point is reached by running the binary itself.
 *
 * @returns true in such a binary
 */
export function isCompiledBinary(): boolean {
  const main = (globalThis as { Bun?: { main?: unknown } }).Bun?.main;
  return typeof main === "string" && /[$~]bunfs|~BUN/i.test(main);
}

/**
 * The JavaScriptCore options of a compiled binary that searches: the optimizing tiers (DFG,
 * then FTL) compile a function once it has run ten times longer (the top tier about fifteen)
 * than the engine's defaults ask. A search's functions are hot for a few hundred milliseconds,
 * and compiling them then took the CPU the search needed on a machine of few cores; the index
 * build, hot for seconds, still reaches the top tier (measured in docs/decisions.md).
 */
export const SEARCH_JIT_ENV: Readonly<Record<string, string>> = {
  BUN_JSC_thresholdForFTLOptimizeAfterWarmUp: "1000000",
  BUN_JSC_thresholdForOptimizeAfterWarmUp: "10000",
};

/**
 * Runs the compiled binary again, as the same process (`execve` keeps its id, its parent and
 * its standard streams), with {@linkcode SEARCH_JIT_ENV}: the engine reads its options from
 * the environment before any script runs, so they hold only for a new process image. Returns
 * at once when they are set already (by the relaunch, or by the user, whose values win), when
 * this is not the compiled binary, or when the runtime cannot replace its image; the engine's
 * defaults then hold, with the same answers.
 *
 * @param args the command line's arguments (without the executable)
 */
export function relaunchForSearch(args: readonly string[]): void {
  if (!isCompiledBinary()) return;
  if (Object.keys(SEARCH_JIT_ENV).some((name) => process.env[name] !== undefined)) return;
  const { execve } = process as { execve?: (file: string, args: string[], env: object) => void };
  if (typeof execve !== "function") return;
  try {
    execve.call(process, process.execPath, [process.execPath, ...args], {
      ...process.env,
      ...SEARCH_JIT_ENV,
    });
  } catch {
    // (The binary could not be run again: this one goes on as it is.)
  }
}

/**
 * The modules that run as workers, by their path below `src/`: the one place that names
 * them (scripts/compile.ts makes each an entry point of the binary, which embeds a worker
 * only then).
 */
export const WORKER_MODULES = {
  /** Reads and examines files beside a search (`search/_search_pool.ts`). */
  search: "search/_search_worker.ts",
  /** The directory store's search thread (`disk/_search_thread.ts`). */
  searchThread: "disk/_search_thread_main.ts",
  /** Scans for patterns that may run without end where no process may (`moduleProcess`). */
  pattern: "match/_pattern_worker.ts",
  /** Watches the roots for the search index (`search/index/_tree_watcher.ts`). */
  watch: "search/index/_watch_thread.ts",
  /** Computes an edit of a large file (`tools/edit/_edit_thread.ts`). */
  edit: "tools/edit/_edit_worker.ts",
} as const;

/**
 * The modules that run as processes of their own, by their path below `src/`: the one place
 * that names them (scripts/build_npm.ts makes each an entry of the npm build). The binary
 * runs itself instead, with an environment variable that sends it to the same code.
 */
export const PROCESS_MODULES = {
  /** Scans for patterns that may run without end, where killing it stops them. */
  patternHelper: "match/_pattern_helper_main.ts",
} as const;

/** How this project's modules end as they run: `.ts` from source, `.js` in the npm build. */
const MODULE_EXTENSION = import.meta.url.endsWith(".js") ? ".js" : ".ts";

/**
 * The URL of one of this project's modules, by its path below `src/` as the source names it
 * (as {@linkcode PROCESS_MODULES} and {@linkcode WORKER_MODULES} do): the same file from
 * source and in the npm build, whose modules are JavaScript.
 *
 * @param pathBelowSrc the module's path below `src/`
 * @returns its URL
 * @example
 * ```ts
 * import { moduleUrl } from "./runtime.ts";
 * import assert from "node:assert/strict";
 * assert.match(moduleUrl("io/runtime.ts").pathname, /\/src\/io\/runtime\.ts$/);
 * ```
 */
export function moduleUrl(pathBelowSrc: string): URL {
  return new URL(`../${pathBelowSrc.replace(/\.ts$/, MODULE_EXTENSION)}`, import.meta.url);
}

/** The name of a worker module. */
export type WorkerName = keyof typeof WORKER_MODULES;

/** Whether this runtime has web workers (Bun and Deno do, Node has none). */
export const HAS_WORKERS: boolean = typeof Worker === "function";

/** Whether searches may share memory between threads (`SharedArrayBuffer`). */
export const HAS_SHARED_MEMORY: boolean = typeof SharedArrayBuffer === "function";

/**
 * Starts a worker. In a binary of `bun build --compile`, where `import.meta.url` still names
 * a source file that need not exist, the module is named by its path below `src/`; elsewhere
 * by its file.
 *
 * @param name which worker
 * @param module another module in its place (tests give one that misbehaves)
 * @returns the worker, or undefined where the runtime has none, or when it cannot start
 * (said once on stderr: the work is then done on the caller's thread)
 * @example
 * ```ts
 * import { HAS_WORKERS, startWorker } from "./runtime.ts";
 * import assert from "node:assert/strict";
 * const worker = startWorker("search");
 * assert.equal(worker !== undefined, HAS_WORKERS);
 * worker?.terminate();
 * ```
 */
export function startWorker(name: WorkerName, module?: URL): Worker | undefined {
  if (!HAS_WORKERS) return undefined;
  const path = WORKER_MODULES[name];
  const specifier = module?.href ?? (isCompiledBinary() ? `./${path}` : moduleUrl(path).href);
  try {
    return new Worker(specifier, { type: "module" });
  } catch (error) {
    sayOnce(
      name,
      `the ${name} worker did not start (${workerFailureReason(error)}); working without it`,
    );
    return undefined;
  }
}

/**
 * Says once on stderr that a worker failed after it started: an error it did not catch
 * (also a module that cannot be loaded, which `new Worker` does not throw for), or a message
 * that could not be passed. The caller goes on without it, on its own thread; said, so that
 * a binary whose worker is broken is not just silently slower.
 *
 * @param name which worker
 * @param cause the worker's `error` or `messageerror` event, or what was thrown
 */
export function reportWorkerFailure(name: WorkerName, cause: unknown): void {
  sayOnce(name, `the ${name} worker failed (${workerFailureReason(cause)}); working without it`);
}

/** The workers that failed, each said once (the next failure is most likely the same). */
const failedWorkers = new Set<WorkerName>();

function sayOnce(name: WorkerName, text: string): void {
  if (failedWorkers.has(name)) return;
  failedWorkers.add(name);
  notice(text);
}

/** The routes {@linkcode noticesTo} set, the latest last; none: stderr. */
const noticeRoutes: Array<(line: string) => void> = [];

/**
 * Says one of the engine's notices (a worker failed, the index gives up on something) as a
 * line `linewise: text` on stderr, or through the route {@linkcode noticesTo} set.
 *
 * @param text what to say
 */
export function notice(text: string): void {
  const line = `linewise: ${text}`;
  const route = noticeRoutes.at(-1);
  if (route === undefined) console.error(line);
  else route(line);
}

/**
 * Routes this thread's notices through `say` until the returned function is called: the
 * command line's grep says them after the rows it printed before them, as it says its own
 * messages (its rows wait in a buffer that stderr does not see).
 *
 * @param say takes a notice's line (without its line feed)
 * @returns what takes this route away again (in any order, as two greps may overlap)
 */
export function noticesTo(say: (line: string) => void): () => void {
  const route = (line: string) => say(line);
  noticeRoutes.push(route);
  return () => {
    const at = noticeRoutes.indexOf(route);
    if (at !== -1) noticeRoutes.splice(at, 1);
  };
}

/**
 * What went wrong with a worker, in one line, from an error, an `error` event or a
 * `messageerror` event.
 *
 * @param cause what the worker or its event gave
 * @returns e.g. "ReferenceError: x is not defined"
 */
export function workerFailureReason(cause: unknown): string {
  if (cause instanceof Error) return oneLine(cause.message);
  const message = (cause as { message?: unknown } | undefined)?.message;
  if (typeof message === "string" && message.trim() !== "") return oneLine(message);
  const type = (cause as { type?: unknown } | undefined)?.type;
  if (type === "messageerror") return "a message could not be passed";
  return typeof type === "string" ? `its ${type} event` : String(cause);
}

/**
 * The line of a message that says what failed: an `error: ...` line where there is one,
 * else the error's own line (Bun's message of a worker's error starts with the failing line
 * of code, which in the compiled binary is a whole bundle's line), else the first.
 */
function oneLine(message: string): string {
  const lines = message.split("\n").map((line) => line.trim()).filter((line) => line !== "");
  const error = lines.find((line) => line.startsWith("error: "));
  if (error !== undefined) return error.slice("error: ".length);
  const own = lines.find((line) => /^(?:[A-Z]\w*)?(?:Error|Exception)\b/.test(line));
  return own ?? lines[0] ?? message;
}

/**
 * How a module of this project's is run in a process of its own (as `node file`, `bun file`,
 * `deno run file`), or undefined where it cannot be: under Deno without the permission to run
 * itself, or with the modules loaded from the network (a JSR import).
 *
 * @param pathBelowSrc the module's path below `src/`
 * @returns the command and its arguments, the module's path last
 */
export function moduleProcess(pathBelowSrc: string): [string, string[]] | undefined {
  const url = moduleUrl(pathBelowSrc);
  if (url.protocol !== "file:") return undefined;
  const file = fileURLToPath(url);
  if (RUNTIME !== "deno") return [process.execPath, [file]];
  const deno = (globalThis as { Deno?: DenoPermissions }).Deno!;
  try {
    const command = deno.execPath();
    if (deno.permissions.querySync({ name: "run", command }).state !== "granted") return undefined;
    return [command, ["run", "--quiet", "--no-prompt", "--allow-ffi", file]];
  } catch {
    return undefined; // (Deno.execPath() needs the permission to read it)
  }
}

/** The part of the Deno namespace that {@linkcode moduleProcess} asks. */
interface DenoPermissions {
  execPath(): string;
  permissions: { querySync(descriptor: { name: "run"; command: string }): { state: string } };
}

/**
 * Collects garbage now, where the runtime lets a program ask (Bun); elsewhere does nothing.
 * For a background thread between jobs: what a search of a large tree leaves (its walk is
 * large) is otherwise collected at the collector's own pace, and the garbage of a few
 * searches piles up meanwhile.
 *
 * @example
 * ```ts
 * import { collectGarbage } from "./runtime.ts";
 * collectGarbage();
 * ```
 */
export function collectGarbage(): void {
  (globalThis as { Bun?: { gc(force: boolean): void } }).Bun?.gc(true);
}

let idleCollection: ReturnType<typeof setTimeout> | undefined;

/**
 * {@linkcode collectGarbage} once this thread has had nothing to do for `ms` milliseconds
 * (each call starts the wait again): for a worker that is handed job after job.
 *
 * @param ms how long the thread must have been idle
 * @example
 * ```ts
 * import { collectGarbageWhenIdle } from "./runtime.ts";
 * collectGarbageWhenIdle(10);
 * ```
 */
export function collectGarbageWhenIdle(ms = 200): void {
  if (RUNTIME !== "bun") return;
  clearTimeout(idleCollection);
  idleCollection = setTimeout(collectGarbage, ms);
  (idleCollection as { unref?: () => void }).unref?.();
}

/**
 * Calls off the collection {@linkcode collectGarbageWhenIdle} set up: the thread has work
 * again (a forced collection in the middle of a search made it wait as long as the
 * collection took).
 */
export function cancelIdleCollection(): void {
  clearTimeout(idleCollection);
  idleCollection = undefined;
}

/**
 * Whether a worker started by another worker takes this runtime far longer to start than one
 * the main thread starts: Deno 2.9 took 0.5 s for an empty module and 1.1 s for the search
 * worker started from the search thread, against 77 ms for the same from the main thread.
 */
export const NESTED_WORKERS_START_SLOWLY: boolean = RUNTIME === "deno";

/**
 * Whether this runtime's file watcher keeps the order `TreeWatcher.sync` relies on: Bun's
 * does (one inotify descriptor, events delivered in order); Deno's and Node's `fs.watch`
 * run a watcher per call, with no order between them.
 */
export const WATCH_ORDER_KEPT: boolean = RUNTIME === "bun";

interface Jsc {
  noFTL(fn: unknown): unknown;
}

const jsc = RUNTIME === "bun"
  ? (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule?.("bun:jsc") as
    | Jsc
    | undefined
  : undefined;

/**
 * Keeps JavaScriptCore's top tier (FTL) off functions that run hot only in bursts and spend
 * each call in system calls: a first search calls them often enough, in a short enough
 * time, for the JIT to compile them in the top tier, which costs
 * more CPU than it can save there (the time is the kernel's), and on few cores competes
 * with the search itself (measured in bench/: the first greps were faster without it). The
 * lower tiers still compile these functions. Only Bun runs JavaScriptCore; elsewhere this
 * does nothing. Plain functions only: the body of an async function or generator is compiled
 * apart from the function object, out of reach (such a hot body still reached the top tier),
 * so one is refused rather than seem kept off.
 *
 * @param functions the functions (methods are taken from their prototype)
 * @throws TypeError for an async function or a generator
 * @example
 * ```ts
 * import { keepOffTopTier } from "./runtime.ts";
 * keepOffTopTier(function hot() {});
 * ```
 */
export function keepOffTopTier(...functions: unknown[]): void {
  for (const fn of functions) {
    const kind = (fn as { constructor?: { name?: string } })?.constructor?.name;
    if (kind !== "Function") {
      throw new TypeError(`keepOffTopTier() takes plain functions, not ${kind ?? typeof fn}`);
    }
  }
  if (jsc === undefined) return;
  for (const fn of functions) jsc.noFTL(fn);
}

/**
 * Whether a string of megabytes crosses threads faster in a message of strings and numbers
 * alone than inside an object: Bun hands such a message over as it is and serializes any
 * other (a search result of 5 M characters of rows, on the posting thread: 0.5 ms as its
 * strings and then the rest, 32-74 ms whole), where Deno posted the same whole in 0.7-5 ms
 * and its strings alone in 29-75 (`bench/post_strings.ts`).
 */
export const STRINGS_POST_APART: boolean = RUNTIME === "bun";
