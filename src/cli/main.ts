/**
 * The command line: `linewise serve` runs the MCP server; `read`, `grep`, `glob`, `list` and
 * `call` run one tool and print its text (or `--json`, its structured result). Nothing
 * runs at import time: the binary's entry calls {@linkcode main}.
 *
 * @module
 */
import * as fs from "node:fs";
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
import { grepCommand, type GrepRequest } from "./grep_command.ts";
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
}

/** Signals that stop a server (SIGKILL cannot be caught: the next server cleans up). */
const STOP_SIGNALS = ["SIGTERM", "SIGINT", "SIGHUP"] as const;

/** A usage mistake: exit status 2. */
class UsageError extends Error {}

const OPTIONS = {
  root: { type: "string", multiple: true },
  deny: { type: "string", multiple: true },
  "read-only": { type: "boolean" },
  force: { type: "boolean" },
  json: { type: "boolean" },
  "max-lines": { type: "string" },
  "max-chars": { type: "string" },
  "max-edit-bytes": { type: "string" },
  timeout: { type: "string" },
  threads: { type: "string", short: "j" },
  "no-cache": { type: "boolean" },
  "ignore-case": { type: "boolean", short: "i" },
  "case-sensitive": { type: "boolean", short: "s" },
  "smart-case": { type: "boolean", short: "S" },
  unrestricted: { type: "boolean", short: "u", multiple: true },
  "fixed-strings": { type: "boolean", short: "F" },
  // (-P asks for ripgrep's other engine: linewise's one already takes lookarounds and
  // backreferences, as JavaScript does. It changes nothing.)
  pcre2: { type: "boolean", short: "P" },
  "line-regexp": { type: "boolean", short: "x" },
  "invert-match": { type: "boolean", short: "v" },
  file: { type: "string", short: "f", multiple: true },
  context: { type: "string", short: "C" },
  "after-context": { type: "string", short: "A" },
  "before-context": { type: "string", short: "B" },
  regexp: { type: "string", short: "e", multiple: true },
  "word-regexp": { type: "boolean", short: "w" },
  "files-with-matches": { type: "boolean", short: "l" },
  "files-without-match": { type: "boolean" },
  count: { type: "boolean", short: "c" },
  "only-matching": { type: "boolean", short: "o" },
  "count-matches": { type: "boolean" },
  quiet: { type: "boolean", short: "q" },
  "max-count": { type: "string", short: "m" },
  "line-number": { type: "boolean", short: "n" },
  "no-line-number": { type: "boolean", short: "N" },
  "with-filename": { type: "boolean", short: "H" },
  "no-filename": { type: "boolean", short: "I" },
  heading: { type: "boolean" },
  "no-heading": { type: "boolean" },
  color: { type: "string" },
  hidden: { type: "boolean", short: "." },
  "no-ignore": { type: "boolean" },
  "no-ignore-dot": { type: "boolean" },
  "no-ignore-global": { type: "boolean" },
  files: { type: "boolean" },
  glob: { type: "string", short: "g", multiple: true },
  type: { type: "string", short: "t", multiple: true },
  "type-not": { type: "string", short: "T", multiple: true },
  "type-list": { type: "boolean" },
  "max-depth": { type: "string" },
  "max-filesize": { type: "string" },
  sort: { type: "string" },
  "max-matches": { type: "string" },
  "include-ignored": { type: "boolean" },
  depth: { type: "string" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "V" },
} as const;

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

/**
 * The words with each option that takes a value joined to the next word when that starts
 * with `-` (`-e ->next` as `--regexp=->next`): it takes it, as in ripgrep, where `-e` is how
 * a pattern starting with `-` is given; `parseArgs` would refuse it as ambiguous.
 */
function withValuesJoined(words: string[]): string[] {
  const joined: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i];
    if (word === "--") return [...joined, ...words.slice(i)];
    const name = word.startsWith("--") ? word.slice(2) : SHORT_NAMES.get(word);
    const takesValue = name !== undefined &&
      OPTIONS[name as keyof typeof OPTIONS]?.type === "string";
    if (takesValue && words[i + 1]?.startsWith("-")) joined.push(`--${name}=${words[++i]}`);
    else joined.push(word);
  }
  return joined;
}

/** Each short option (`-e`) by the name of its long one. */
const SHORT_NAMES = new Map<string, string>(
  Object.entries(OPTIONS).flatMap(([name, option]) =>
    "short" in option ? [[`-${option.short}`, name] as const] : []
  ),
);

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
    maxChars: count(values["max-chars"], "--max-chars", 200),
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
      grepRequest(rest, values, optionsInOrder(tokens), io),
      io,
    );
  }
  if (command === "grep") refuseRipgrepOnly(values);
  const [name, args] = toolCall(command, rest, values);
  const tool = tools(sandbox).find((t) => t.name === name);
  if (!tool) {
    throw new UsageError(
      `unknown tool ${JSON.stringify(name)}${
        toolOptions.readOnly ? " (write tools are off in --read-only mode)" : ""
      }`,
    );
  }
  if (!toolOptions.force) refuseUncheckedNumbers(name, args);
  const result = await tool.call(args);
  const said = result.content.map((c) => c.text).join("");
  // (The CLI's read takes START:END, not the tool's start_line and end_line.)
  const text = command === "read" && result.isError ? inCliWords(said, rest[0]) : said;
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

type Values = ReturnType<
  typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>
>["values"];

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
      throw new UsageError(`--root or --deny cannot be used: ${error.message}${hint}`);
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
      expectArgs(rest, 1, 2, "grep takes PATTERN [PATH]");
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

/** grep --json runs the grep tool, which has none of ripgrep's own flags: they are refused. */
function refuseRipgrepOnly(values: Values): void {
  const flags: Array<[keyof Values, string]> = [
    ["regexp", "-e"],
    ["file", "-f"],
    ["word-regexp", "-w"],
    ["line-regexp", "-x"],
    ["invert-match", "-v"],
    ["count-matches", "--count-matches"],
    ["files-with-matches", "-l"],
    ["files-without-match", "--files-without-match"],
    ["count", "-c"],
    ["only-matching", "-o"],
    ["quiet", "-q"],
    ["max-count", "-m"],
    ["files", "--files"],
    ["smart-case", "-S"],
    ["case-sensitive", "-s"],
    ["unrestricted", "-u"],
    ["no-line-number", "-N"],
    ["with-filename", "-H"],
    ["no-filename", "-I"],
    ["after-context", "-A"],
    ["before-context", "-B"],
    ["type", "-t"],
    ["type-not", "-T"],
    ["max-depth", "--max-depth"],
    ["max-filesize", "--max-filesize"],
    ["hidden", "--hidden"],
    ["no-ignore", "--no-ignore"],
    ["heading", "--heading"],
    ["color", "--color"],
  ];
  const given = flags.filter(([key]) => values[key] !== undefined).map(([, flag]) => flag);
  if ((values.glob?.length ?? 0) > 1) given.push("-g more than once");
  if (given.length > 0) {
    throw new UsageError(
      `grep --json gives the grep tool's result, which takes no ${given.join(", ")}`,
    );
  }
}

/** The options given, in their order (what ripgrep's flags that override others need). */
function optionsInOrder(tokens: ReadonlyArray<{ kind: string; name?: string; value?: string }>) {
  return tokens.flatMap((token) =>
    token.kind === "option" ? [{ name: token.name!, value: token.value }] : []
  );
}

/**
 * The context lines asked for, as ripgrep 13 reads -A, -B and -C: a -C overrides an -A or -B
 * given before it, and an -A or -B overrides a -C given before it (the other side is then 0).
 */
function contextOf(given: ReadonlyArray<{ name: string; value?: string }>) {
  let after: number | undefined;
  let before: number | undefined;
  let both: number | undefined;
  for (const { name, value } of given) {
    if (name === "context") [both, after, before] = [count(value, "-C", 0), undefined, undefined];
    else if (name === "after-context") [after, both] = [count(value, "-A", 0), undefined];
    else if (name === "before-context") [before, both] = [count(value, "-B", 0), undefined];
  }
  return { before: before ?? both ?? 0, after: after ?? both ?? 0 };
}

/**
 * Whether a grep ignores case, as ripgrep reads -i, -s and -S: the last of them decides, and
 * -S ignores case when no pattern holds an upper-case letter of its own (one a `\x46` spells
 * too; not one in an escape such as `\S` or `\p{Lu}`, unless -F makes it a fixed string).
 */
function ignoresCase(
  given: ReadonlyArray<{ name: string }>,
  patterns: readonly string[],
  fixed: boolean,
): boolean {
  const last = lastOf(given, "ignore-case", "case-sensitive", "smart-case");
  if (last !== "smart-case") return last === "ignore-case";
  const own = (pattern: string) =>
    fixed ? pattern : pattern
      .replace(/\\[pP](?:\{[^}]*\}|[A-Za-z])/g, "")
      .replace(/\\x\{([0-9a-fA-F]+)\}|\\x([0-9a-fA-F]{2})/g, (_, wide, two) =>
        String.fromCodePoint(parseInt(wide ?? two, 16)))
      .replace(/\\[A-Za-z]/g, "");
  return !patterns.some((pattern) => /\p{Lu}/u.test(own(pattern)));
}

/** Which of some options that override each other was given last, if any. */
function lastOf(
  given: ReadonlyArray<{ name: string }>,
  ...names: string[]
): string | undefined {
  return given.findLast(({ name }) => names.includes(name))?.name;
}

/** The grep command's flags and words, as ripgrep reads them. */
function grepRequest(
  rest: string[],
  values: Values,
  given: ReadonlyArray<{ name: string; value?: string }>,
  io: CliIo,
): GrepRequest {
  const patterns = [...values.regexp ?? [], ...(values.file ?? []).flatMap(patternsIn)];
  const words = [...rest];
  if (patterns.length === 0 && !values.files && values.file === undefined) {
    if (words.length === 0) throw new UsageError("grep takes PATTERN [PATH]... (or -e PATTERN)");
    patterns.push(words.shift()!);
  }
  // (-u leaves the ignore files out, -uu hidden names too; -uuu would search binary files.)
  const unrestricted = values.unrestricted?.length ?? 0;
  if (unrestricted >= 3) {
    throw new UsageError(
      "grep takes -u and -uu, not -uuu: binary files a walk meets are passed over (one named on the line is looked through)",
    );
  }
  // (The last of --heading and --no-heading decides, as in ripgrep.)
  const heading = lastOf(given, "heading", "no-heading");
  const filenames = lastOf(given, "with-filename", "no-filename");
  // (Files print in path order, what --sort path asks.)
  if (values.sort !== undefined && values.sort !== "path" && values.sort !== "none") {
    throw new UsageError(
      `--sort takes path or none, got ${
        JSON.stringify(values.sort)
      }: linewise prints files in path order`,
    );
  }
  const whole = lastOf(given, "word-regexp", "line-regexp");
  // (The last of -l and --files-without-match decides; -c outweighs both.)
  const listing = lastOf(given, "files-with-matches", "files-without-match");
  const counting = (values.count || values["count-matches"]) ?? false;
  // (The last of -c and --count-matches decides what is counted.)
  const counted = lastOf(given, "count", "count-matches");
  return {
    patterns,
    paths: words.length > 0 ? words : ["."],
    pathsGiven: words.length > 0,
    ignoreCase: ignoresCase(given, patterns, values["fixed-strings"] ?? false),
    fixed: values["fixed-strings"] ?? false,
    word: whole === "word-regexp",
    line: whole === "line-regexp",
    invert: values["invert-match"] ?? false,
    filesWithMatches: values["files-with-matches"] ?? false,
    filesWithoutMatch: listing === "files-without-match" && !counting,
    count: counting,
    onlyMatching: values["only-matching"] ?? false,
    countMatches: counted === "count-matches",
    quiet: values.quiet ?? false,
    maxCount: count(values["max-count"], "-m", 0),
    files: values.files ?? false,
    // (The last of -n and -N, and of -H and -I, decides, as in ripgrep.)
    lineNumbers: lastOf(given, "line-number", "no-line-number") !== "no-line-number",
    filenames: filenames === undefined ? undefined : filenames === "with-filename",
    ...contextOf(given),
    globs: values.glob ?? [],
    types: values.type ?? [],
    typesNot: values["type-not"] ?? [],
    maxDepth: count(values["max-depth"], "--max-depth", 0),
    maxFilesize: bytesOf(values["max-filesize"], "--max-filesize"),
    hidden: (values.hidden || values["include-ignored"] || unrestricted >= 2) ?? false,
    noIgnore: (values["no-ignore"] || values["include-ignored"] || unrestricted >= 1) ?? false,
    heading: heading === undefined ? io.stdoutIsTerminal ?? false : heading === "heading",
    color: colorOf(values.color, io),
    progressAfterMs: io.stderrIsTerminal ? io.progressAfterMs ?? 1000 : undefined,
    maxMatches: count(values["max-matches"], "--max-matches", 1),
    timeoutMs: seconds(values.timeout, "--timeout"),
  };
}

/**
 * The patterns of a pattern file (`-f`; `-` is standard input), one a line, as ripgrep reads
 * them: an empty line is a pattern that matches every line, and a file without a line has
 * none.
 */
function patternsIn(file: string): string[] {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(
      fs.readFileSync(file === "-" ? 0 : file),
    );
  } catch (error) {
    const code = (error as { code?: string }).code;
    const why = error instanceof TypeError
      ? "its bytes are not UTF-8"
      : FILE_ERRORS[code ?? ""] ?? messageOf(error);
    throw new UsageError(`-f ${file}: ${why}`);
  }
  // (A \r ends a pattern's line only before a \n, as in ripgrep.)
  const lines = text.split("\n").map((line, i, all) =>
    i < all.length - 1 && line.endsWith("\r") ? line.slice(0, -1) : line
  );
  if (text.endsWith("\n") || text === "") lines.pop();
  return lines;
}

/** What a pattern file that cannot be read is, by the error's code. */
const FILE_ERRORS: Record<string, string> = {
  ENOENT: "no such file",
  EISDIR: "a directory, not a file",
  EACCES: "permission denied",
};

/** Whether grep colours its output: `--color auto` (the default: on a terminal), always, never. */
function colorOf(when: string | undefined, io: CliIo): boolean {
  if (when === undefined || when === "auto") return io.stdoutIsTerminal ?? false;
  if (when === "always" || when === "never") return when === "always";
  throw new UsageError(`--color takes auto, always or never, got ${JSON.stringify(when)}`);
}

/** "10:20" → lines 10 to 20; "10" → 10 to the end; "10:" likewise. */
function lineRange(spec: string | undefined): { start_line?: number; end_line?: number } {
  if (spec === undefined) return {};
  const match = /^(\d+)(?::(\d*))?$/.exec(spec);
  if (!match) throw new UsageError(`line range ${JSON.stringify(spec)} is not START or START:END`);
  const start = Number(match[1]);
  return match[2] ? { start_line: start, end_line: Number(match[2]) } : { start_line: start };
}

function count(value: string | undefined, name: string, minimum: number): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < minimum) {
    throw new UsageError(
      `${name} takes a whole number of ${minimum} or more, got ${JSON.stringify(value)}`,
    );
  }
  return Number(value);
}

/** A size as ripgrep writes one: digits, then K, M or G (of 1,024) if any. */
function bytesOf(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const size = /^(\d+)([KMG]?)$/.exec(value);
  if (size === null) {
    throw new UsageError(
      `${name} takes digits and K, M or G if any (as 10K or 2M), got ${JSON.stringify(value)}`,
    );
  }
  return Number(size[1]) * 1024 ** " KMG".indexOf(size[2] || " ");
}

/** "2.5" seconds as milliseconds. */
function seconds(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+(?:\.\d+)?$/.test(value) || Number(value) <= 0) {
    throw new UsageError(`${name} takes a number of seconds above 0, got ${JSON.stringify(value)}`);
  }
  return Math.round(Number(value) * 1000);
}

function expectArgs(rest: string[], min: number, max: number, message: string): void {
  if (rest.length < min || rest.length > max) throw new UsageError(message);
}

function print(io: CliIo, text: string): number {
  io.stdout(text);
  return 0;
}

/**
 * For a grep given an option it does not know (one of ripgrep's, most likely), what it says
 * instead of the parser's advice on positionals: which option, and for the ones people
 * reach for, why linewise has none.
 */
function notTaken(error: Error, argv: readonly string[]): string | undefined {
  const option = /^Unknown option '([^']+)'/.exec(error.message)?.[1];
  if (option === undefined || commandOf(argv) !== "grep") return undefined;
  const why = NOT_TAKEN[option];
  return `grep does not take ${option}${
    why ? `: ${why}` : " (linewise --help lists what it takes)"
  }`;
}

/** The command word of a line the parser refused: the first word that is no option's. */
function commandOf(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i];
    if (!word.startsWith("-")) return word;
    const name = word.startsWith("--") ? word.slice(2) : SHORT_NAMES.get(word);
    if (OPTIONS[name as keyof typeof OPTIONS]?.type === "string") i++; // (its value)
  }
  return undefined;
}

/** Why grep has no such option, for ripgrep's that people reach for. */
const NOT_TAKEN: Record<string, string> = {
  "-U": "a match lies within a line, by linewise's line rule",
  "--multiline": "a match lies within a line, by linewise's line rule",
  "-a": "binary files a walk meets are passed over; one named on the line is looked through",
  "--text": "binary files a walk meets are passed over; one named on the line is looked through",
  "-L": "a walk searches links to files within the root and enters no linked directory",
  "--follow": "a walk searches links to files within the root and enters no linked directory",
};

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
