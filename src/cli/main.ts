/**
 * The command line: `linewise serve` runs the MCP server; `read`, `grep`, `glob`, `list` and
 * `call` run one tool and print its text (or `--json`, its structured result). Nothing
 * runs at import time: the binary's entry calls {@linkcode main}.
 *
 * @module
 */
import process from "node:process";
import { parseArgs } from "node:util";
import { serveStdio } from "../mcp/stdio.ts";
import { DEFAULT_MAX_LINE_BYTES } from "../mcp/message_lines.ts";
import { DEFAULT_MAX_EDIT_BYTES } from "../store/base_store.ts";
import { DirectoryStore } from "../disk/directory_store.ts";
import { StoreError } from "../store/errors.ts";
import { Sandbox } from "../disk/sandbox.ts";
import { createTools, instructions, type ToolDefinition, type ToolOptions } from "../tools/mod.ts";
import { MemoryStore } from "../store/memory_store.ts";
import { VERSION } from "../version.ts";
import { RUNTIME, runtimeDescription } from "../io/runtime.ts";
import { USAGE } from "./usage.ts";
import { grepCommand } from "./grep_command.ts";
import { STDIN_NAME, type StdinSource } from "./_stdin.ts";
import { grepRequest, notTaken, refuseRipgrepOnly, stdinAsked } from "./_grep_request.ts";
import { count, OPTIONS, seconds, UsageError, type Values, withValuesJoined } from "./_options.ts";
import { TYPE_LIST } from "./file_types.ts";
import { defaultCacheDir } from "../search/index/_index_cache.ts";

/** Where the command line writes. */
export interface CliIo {
  /** Standard output. */
  stdout: (text: string) => void;
  /** Standard error. */
  stderr: (text: string) => void;
  /**
   * Ends the process once `serve` is over, or after an internal error (a thread started
   * before it would keep the process alive). A server's stdin may still hold a pending read
   * (under Deno it cannot be cancelled) that would keep the process alive. Other commands
   * return their status instead, so that all their output reaches a slow reader.
   */
  exit?: (status: number) => void;
  /** Whether standard output is a terminal (grep then prints a heading per file). */
  stdoutIsTerminal?: boolean;
  /** Whether standard error is a terminal (a long grep then shows its progress there). */
  stderrIsTerminal?: boolean;
  /**
   * How long a grep runs before it shows progress on a terminal, in milliseconds.
   * @default 1000
   */
  progressAfterMs?: number;
  /** Standard input, which grep searches for `-` (none: `-` is refused). */
  stdin?: StdinSource;
  /** The pipe a path grep is given names (`/dev/fd/63` of `<(cmd)`), read as standard input is. */
  pipe?: (path: string) => Pick<StdinSource, "open"> | undefined;
}

/** Signals that stop a server (SIGKILL cannot be caught: the next server cleans up). */
const STOP_SIGNALS = ["SIGTERM", "SIGINT", "SIGHUP"] as const;

/**
 * Runs the command line.
 *
 * @param argv the arguments after the program name
 * @param io where to write
 * @returns the exit status: 0 success, 1 tool error, 2 usage error
 * @example
 * ```ts
 * import { main } from "./main.ts";
 * import assert from "node:assert/strict";
 * let out = "";
 * const status = await main(["--version"], { stdout: (t) => out += t, stderr: () => {} });
 * assert.equal(status, 0);
 * assert.match(out, /^linewise \d/);
 * ```
 */
export async function main(argv: string[], io: CliIo): Promise<number> {
  try {
    return await run(argv, io);
  } catch (error) {
    if (error instanceof UsageError || isParseError(error)) {
      const message = notTaken(error as Error, argv) ?? (error as Error).message;
      io.stderr(`linewise: ${message}\nTry 'linewise --help'.\n`);
      return 2;
    }
    // A bug: one sentence, and the stack for the report.
    const detail = error instanceof Error ? error.stack ?? error.message : String(error);
    io.stderr(`linewise: internal error: ${messageOf(error)}; please report it\n${detail}\n`);
    // (A thread started before the failure would keep the process alive, a server that
    // never answers.)
    io.exit?.(1);
    return 1;
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function run(argv: string[], io: CliIo): Promise<number> {
  // (`deno task start -- grep X` passes the "--" on: it separates nothing here.)
  const words = argv[0] === "--" ? argv.slice(1) : argv;
  const { values, positionals, tokens } = parseArgs({
    args: withValuesJoined(words),
    options: OPTIONS,
    allowPositionals: true,
    strict: true,
    tokens: true,
  });
  if (values.help) {
    const all = createTools(new MemoryStore({}), {});
    if (positionals[0] === "call" && positionals[1] !== undefined) {
      const tool = all.find((t) => t.name === positionals[1]);
      if (!tool) throw new UsageError(`unknown tool ${JSON.stringify(positionals[1])}`);
      return print(io, toolHelp(tool));
    }
    return print(
      io,
      `${USAGE}\nTools (linewise call TOOL --help): ${all.map((t) => t.name).join(", ")}\n`,
    );
  }
  if (values.version) return print(io, `linewise ${VERSION} (${runtimeDescription()})\n`);
  const [command, ...rest] = positionals;
  if (command === undefined) throw new UsageError("no command given");
  const toolOptions: ToolOptions = {
    log: (message) => io.stderr(`linewise: ${message}\n`),
    readOnly: values["read-only"] ?? false,
    maxLines: count(values["max-lines"], "--max-lines", 1),
    maxChars: count(values["max-chars"], "--max-chars", 1000),
    maxEditBytes: count(values["max-edit-bytes"], "--max-edit-bytes", 1),
    timeBudgetMs: seconds(values.timeout, "--timeout"),
    force: values.force ?? false,
  };
  // serve also takes its roots as arguments, as the reference filesystem server does (and
  // as an MCP bundle passes a list of directories).
  const given = [...(values.root ?? []), ...(command === "serve" ? rest : [])];
  const sandbox = await sandboxOf(given.length > 0 ? given : ["."], values.deny ?? [], io);
  // (The command line's walks honour the .gitignore files above its root, and ripgrep's own
  // ignore files, as ripgrep's do.)
  const storeOptions = {
    ...toolOptions,
    searchThreads: count(values.threads, "--threads", 1),
    outerIgnores: true,
    ripgrepIgnores: values["no-ignore-dot"]
      ? [".rgignore" as const]
      : [".rgignore" as const, ".ignore" as const],
    globalExcludes: !values["no-ignore-global"],
  };
  const tools = (s: Sandbox) => createTools(new DirectoryStore(s, storeOptions), toolOptions);
  if (command === "serve") {
    // A server lives long enough for repeated searches: its store keeps a search index,
    // replaced (and the old one's watcher stopped) when the client's roots change. Searches
    // run on a thread of their own, so that this one is always free to answer.
    const serverStore = {
      ...storeOptions,
      outerIgnores: false, // (a server's roots are its world, and its walks SPEC §3's)
      ripgrepIgnores: undefined, // (nor ripgrep's files; the global one comes with those above)
      searchIndex: true,
      searchThread: true,
      searchIndexCache: values["no-cache"] ? undefined : defaultCacheDir(),
      searchIndexCacheTag: VERSION,
    };
    let store = new DirectoryStore(sandbox, serverStore);
    // Stopped by a signal, the server first stops its index (which removes the watcher's
    // private directory) and removes the temporary files of writes it will not finish, then
    // lets the signal end the process as it would have.
    const onSignal = (signal: NodeJS.Signals) => {
      store.close();
      DirectoryStore.removeTempFilesInFlight();
      for (const name of STOP_SIGNALS) process.off(name, onSignal);
      process.kill(process.pid, signal);
    };
    for (const name of STOP_SIGNALS) process.once(name, onSignal);
    try {
      await serveStdio({
        tools: createTools(store, toolOptions),
        serverInfo: { name: "linewise", version: VERSION, title: "linewise file tools" },
        instructions: instructions(toolOptions.readOnly!),
        standaloneInstructions: instructions(toolOptions.readOnly!, true),
        onRoots: async (paths) => {
          const narrowed = await sandbox.narrow(paths);
          // (Nothing intersects: the server's roots are in force, again if a narrowing was.)
          if (narrowed === undefined && store.sandbox === sandbox) return undefined;
          if (narrowed === undefined) {
            io.stderr(
              `linewise: none of the client's roots (${
                paths.join(", ")
              }) lies within the server's roots; the server's roots are in force again\n`,
            );
          }
          store.close();
          store = new DirectoryStore(narrowed ?? sandbox, serverStore);
          return createTools(store, toolOptions);
        },
        log: (message) => io.stderr(`linewise: ${message}\n`),
        maxLineBytes: messageLineBytes(toolOptions.maxEditBytes),
      });
    } finally {
      // (Closed before the listeners go: a signal in between would find none.)
      store.close();
      for (const name of STOP_SIGNALS) process.off(name, onSignal);
    }
    io.exit?.(0);
    return 0;
  }
  if (command === "grep" && values["type-list"]) return print(io, TYPE_LIST);
  if (command === "grep" && !values.json) {
    return await grepCommand(
      new DirectoryStore(sandbox, storeOptions),
      grepRequest(rest, values, tokens, io),
      io,
    );
  }
  if (command === "grep") refuseRipgrepOnly(values);
  const [name, called] = toolCall(command, rest, values);
  // (grep --json searches standard input as grep does, with the tool over it alone.)
  const input = command === "grep" ? await grepInput(rest, values, io) : undefined;
  if (input !== undefined && "error" in input) {
    io.stderr(`linewise: ${input.error}\n`);
    return 2;
  }
  // (Its one file is searched whatever -g says, as a file named on the line is.)
  const args = input === undefined
    ? called
    : { ...called as object, path: STDIN_NAME, glob: undefined };
  const tool = (input === undefined ? tools(sandbox) : createTools(input, toolOptions))
    .find((t) => t.name === name);
  if (!tool) {
    throw new UsageError(
      `unknown tool ${JSON.stringify(name)}${
        toolOptions.readOnly ? " (write tools are off in --read-only mode)" : ""
      }`,
    );
  }
  // (undo takes back the edits of the session that made them: a run of the command line is a
  // session of one call, so it has none.)
  if (name === "undo") {
    throw new UsageError(
      "undo takes back edits made in the same session (linewise serve); each run of the command line is a session of its own, with none to take back",
    );
  }
  if (!toolOptions.force) refuseUncheckedNumbers(name, args);
  const result = await tool.call(args);
  const said = result.content.map((c) => c.text).join("");
  // (The CLI's read takes START:END, not the tool's start_line and end_line; its glob and
  // list take --include-ignored.)
  const text = command === "read" && result.isError
    ? inCliWords(said, rest[0])
    : command === "glob" || command === "list"
    ? skippedInCliWords(said)
    : said;
  // (Here grep is grep --json; its status is ripgrep's, as grepCommand's.)
  const grep = command === "grep";
  if (result.isError) {
    io.stderr(`linewise: ${text}\n`);
    return grep ? 2 : 1;
  }
  io.stdout(values.json ? JSON.stringify(result.structuredContent ?? {}, null, 2) + "\n" : text);
  const found = result.structuredContent as { matched_lines?: number; stopped?: string };
  if (grep && found.matched_lines === 0) return found.stopped === undefined ? 1 : 2;
  return 0;
}

/**
 * The command line has no session to remember what it showed: a numbered edit there carries
 * expected_text or version, or --force says to apply it unchecked.
 */
function refuseUncheckedNumbers(name: string, args: unknown): void {
  if (name !== "replace_lines" && name !== "insert_lines") return;
  const a = (args ?? {}) as { version?: unknown; expected_text?: unknown; edits?: unknown };
  if (a.version !== undefined) return;
  const edits = name === "replace_lines" ? a.edits : [a];
  if (
    Array.isArray(edits) && edits.length > 0 &&
    edits.every((e) => (e as { expected_text?: unknown })?.expected_text !== undefined)
  ) return;
  throw new UsageError(
    `${name} on the command line needs "version" (read and grep print it, as [version 1a2b3c4d]) or "expected_text" for its lines, since there is no session that saw them; or pass --force to apply it unchecked`,
  );
}

/** The sandbox of the options; a root or deny rule that cannot be used is a usage error. */
async function sandboxOf(roots: string[], deny: string[], io: CliIo): Promise<Sandbox> {
  try {
    const warn = (message: string) => io.stderr(`linewise: ${message}\n`);
    return await Sandbox.create({ roots, deny, warn });
  } catch (error) {
    if (error instanceof TypeError || error instanceof StoreError) {
      // From source, Deno refuses what its --allow-read and --allow-write do not name.
      const hint = RUNTIME === "deno" && error instanceof StoreError && error.code === "permission"
        ? " (Deno may use only the folders its --allow-read and --allow-write name; " +
          "deno task start names the current one: run deno run --allow-read=DIR " +
          "--allow-write=DIR src/cli/bin.ts for another)"
        : "";
      // (The tools' advice to look with glob or list is no help for an option's folder.)
      const said = error.message.replace(/; check the path with glob or list$/, "");
      throw new UsageError(`--root or --deny cannot be used: ${said}${hint}`);
    }
    throw error;
  }
}

/** Maps a subcommand and its words to a tool name and arguments. */
function toolCall(command: string, rest: string[], values: Values): [string, unknown] {
  switch (command) {
    case "read": {
      expectArgs(rest, 1, 2, "read takes FILE [START[:END]]");
      return ["read", { path: rest[0], ...lineRange(rest[1]) }];
    }
    case "grep": {
      // (Only grep --json comes here: the grep tool, which takes one path.)
      expectArgs(
        rest,
        1,
        2,
        "grep --json takes PATTERN [PATH]: one path, as the grep tool takes it (without --json, grep takes several)",
      );
      return ["grep", {
        pattern: rest[0],
        path: rest[1] ?? ".",
        glob: values.glob?.[0],
        literal: values["fixed-strings"] ?? false,
        ignore_case: values["ignore-case"] ?? false,
        context: count(values.context, "-C", 0) ?? 0,
        max_matches: count(values["max-matches"], "--max-matches", 1),
        include_ignored: values["include-ignored"] ?? false,
      }];
    }
    case "glob":
      expectArgs(rest, 1, 2, "glob takes PATTERN [PATH]");
      return ["glob", {
        pattern: rest[0],
        path: rest[1] ?? ".",
        include_ignored: values["include-ignored"] ?? false,
      }];
    case "list":
      expectArgs(rest, 0, 1, "list takes [PATH]");
      return ["list", {
        path: rest[0] ?? ".",
        depth: count(values.depth, "--depth", 1),
        include_ignored: values["include-ignored"] ?? false,
      }];
    case "call": {
      expectArgs(rest, 1, 2, "call takes TOOL 'JSON-ARGS'");
      try {
        return [rest[0], JSON.parse(rest[1] ?? "{}")];
      } catch (error) {
        throw new UsageError(`JSON-ARGS is not valid JSON: ${(error as Error).message}`);
      }
    }
    default:
      throw new UsageError(`unknown command ${JSON.stringify(command)}`);
  }
}

/** A read error in the command line's words: START and END, and a range to type. */
function inCliWords(text: string, file: string): string {
  return text
    .replace(
      /read from start_line=(\d+) to (\d+)/,
      (_, a, b) => `try: linewise read ${file} ${a}:${b}`,
    )
    .replace(/end_line >= start_line/g, "END >= START")
    .replace(/start_line/g, "START").replace(/end_line/g, "END");
}

/**
 * A walk's note of what it left out, in the command line's words: the option that shows them,
 * and "ignored" for what any of the ignore files it reads (`.gitignore`, `.ignore`,
 * `.rgignore`, git's excludes) left out. The note is the last line; a path that could pass
 * for one is printed quoted.
 */
function skippedInCliWords(text: string): string {
  return text.replace(
    /^\[(.*) left out; include_ignored=true shows them\]\n$/m,
    (_, what: string) =>
      `[${what.replace(".gitignore'd", "ignored")} left out; --include-ignored shows them]\n`,
  );
}

/** A tool's description and arguments, for `linewise call TOOL --help`. */
function toolHelp(tool: ToolDefinition): string {
  const schema = tool.inputSchema as {
    properties?: Record<string, { type?: string; description?: string; default?: unknown }>;
    required?: string[];
  };
  const lines = [`linewise call ${tool.name} 'JSON-ARGS': ${tool.description}`, "", "Arguments:"];
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const required = schema.required?.includes(name) ? ", required" : "";
    const fallback = property.default === undefined
      ? ""
      : `, default ${JSON.stringify(property.default)}`;
    lines.push(
      `  ${name} (${property.type ?? "any"}${required}${fallback}): ${property.description ?? ""}`,
    );
  }
  return lines.join("\n") + "\n";
}

/** "10:20" → lines 10 to 20; "10" → 10 to the end; "10:" likewise. */
function lineRange(spec: string | undefined): { start_line?: number; end_line?: number } {
  if (spec === undefined) return {};
  const match = /^(\d+)(?::(\d*))?$/.exec(spec);
  if (!match) throw new UsageError(`line range ${JSON.stringify(spec)} is not START or START:END`);
  const start = Number(match[1]);
  return match[2] ? { start_line: start, end_line: Number(match[2]) } : { start_line: start };
}

function expectArgs(rest: string[], min: number, max: number, message: string): void {
  if (rest.length < min || rest.length > max) throw new UsageError(message);
}

function print(io: CliIo, text: string): number {
  io.stdout(text);
  return 0;
}

function isParseError(error: unknown): boolean {
  return error instanceof TypeError && "code" in error &&
    String(error.code).startsWith("ERR_PARSE_ARGS");
}

/**
 * The longest message line the server reads: one that carries the largest text the edit
 * tools take (`--max-edit-bytes`) written as JSON, whose escapes make text longer (half again
 * is more than code or prose needs), with the default's room for the rest.
 */
function messageLineBytes(maxEditBytes = DEFAULT_MAX_EDIT_BYTES): number {
  return Math.ceil(maxEditBytes * 1.5) + DEFAULT_MAX_LINE_BYTES;
}

/**
 * Standard input as a store of one file (`<stdin>`), when `grep --json` searches it (see
 * `stdinAsked`), or why it could not be read.
 */
async function grepInput(
  rest: readonly string[],
  values: Values,
  io: CliIo,
): Promise<MemoryStore | { error: string } | undefined> {
  if (stdinAsked(rest.slice(1), values, io) === undefined) return undefined;
  const read = await io.stdin!.read();
  return "error" in read ? read : new MemoryStore({ [STDIN_NAME]: read });
}
