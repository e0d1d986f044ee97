/**
 * `linewise grep` as people and shell-only agents type `rg`: ripgrep's flags and output,
 * searched by the store directly (the agent budgets of the grep tool are off unless asked
 * for), with linewise's line numbers.
 *
 * @module
 */
import { codePointCount, InputError, type Matcher, type ScanRow, scanText } from "../core/mod.ts";
import {
  COLOURED,
  type MatchSpans,
  PLAIN,
  printed,
  rowBody,
  shownName,
  STOPPABLE_SPAN_CHARS,
} from "./_grep_print.ts";
import { noticesTo } from "../io/runtime.ts";
import { StoreError } from "../store/errors.ts";
import { compileGlob } from "../store/walk.ts";
import { fileShown, listFiles, walkRules } from "./_grep_walk.ts";
import { outputBuffer } from "./_stdout.ts";
import { grepPattern } from "./_grep_pattern.ts";
import {
  type FileMatches,
  type FileStore,
  type SearchQuery,
  type SearchResult,
  WHOLE_LINE_BYTES,
} from "../store/file_store.ts";
import { MemoryStore } from "../store/memory_store.ts";
import { STDIN_NAME, StdinError, type StdinRuns, type StdinSource } from "./_stdin.ts";
import { StreamedRows } from "./_streamed_rows.ts";
import { searchStream } from "../store/search_stream.ts";
import { DEFAULT_TIME_BUDGET_MS } from "../tools/options.ts";

/** What the grep command was asked. */
export interface GrepRequest {
  patterns: string[];
  paths: string[];
  /** Whether the paths were given (else the current directory is searched). */
  pathsGiven: boolean;
  /**
   * Whether the path `-` is standard input: named (`given`), or taken for the current
   * directory's search because standard input is a pipe or a file (`guessed`).
   */
  stdin?: "given" | "guessed";
  ignoreCase: boolean;
  fixed: boolean;
  /** A match has no word character right before or after it (`-w`). */
  word: boolean;
  /** A match is the whole line (`-x`; the last of `-w` and `-x` is the one set). */
  line: boolean;
  /** The lines that do not match are the ones found, whole (`-v`). */
  invert: boolean;
  filesWithMatches: boolean;
  /**
   * The files searched without a match instead (`--files-without-match`, unless an `-l`
   * after it or a `-c` says otherwise).
   */
  filesWithoutMatch: boolean;
  count: boolean;
  /** Each match alone on a line (`-o`; with `-c`, matches are counted instead of lines). */
  onlyMatching: boolean;
  /** `-c` counts matches, not lines (`--count-matches`, which sets `count` too). */
  countMatches: boolean;
  /** Nothing printed; the search stops at the first match (`-q`). */
  quiet: boolean;
  /** The most matching lines shown per file (`-m`). */
  maxCount: number | undefined;
  /** List the files that would be searched instead (`--files`: every word is a path). */
  files: boolean;
  /** The column of a line's first match, after its number (`--column`). */
  column: boolean;
  /** A line once for each of its matches, with its column (`--vimgrep`). */
  vimgrep: boolean;
  /** Paths that cannot be searched go unsaid (`--no-messages`); the status still tells. */
  noMessages: boolean;
  /** A NUL after each path printed, instead of what follows it (`-0`, for `xargs -0`). */
  nul: boolean;
  /** Line numbers on each row (`-N` takes them off). */
  lineNumbers: boolean;
  /** Each row's path (`-H`) or none (`-I`); undefined: unless one file is named alone. */
  filenames: boolean | undefined;
  before: number;
  after: number;
  globs: string[];
  /** File types (`-t`, see `file_types.ts`): a file must be of one. */
  types: string[];
  /** File types left out (`-T`). */
  typesNot: string[];
  /** How deep below each path a file may lie (`--max-depth`; 1: in it). */
  maxDepth: number | undefined;
  /** The largest file searched, in bytes (`--max-filesize`). */
  maxFilesize: number | undefined;
  /** Hidden files (`--hidden`), and what .gitignore excludes (`--no-ignore`). */
  hidden: boolean;
  noIgnore: boolean;
  heading: boolean;
  /** Colour as ripgrep's (paths magenta, line numbers green, matches bold red). */
  color: boolean;
  /**
   * Each file's rows written as soon as it is searched (`--line-buffered`; the default on a
   * terminal), rather than gathered into writes of {@linkcode OUTPUT_BUFFER_CHARS}.
   */
  lineBuffered: boolean;
  maxMatches: number | undefined;
  timeoutMs: number | undefined;
  /** The most lines printed (`--max-lines`: rows, counts or paths, as the tools' budget). */
  maxLines?: number;
  /** The most characters printed (`--max-chars`). */
  maxChars?: number;
  /** Show progress on stderr once a search has run this long (stderr is a terminal). */
  progressAfterMs?: number;
}

/** Where the command writes, and its standard input. */
export interface GrepOutput {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Writes what `stdout` holds back, if anything. */
  flush?(): void;
  /** Standard input, read for the path `-` (see `GrepRequest.stdin`). */
  stdin?: Pick<StdinSource, "open">;
  /** The pipe a path names, read as standard input is (`/dev/fd/63` of `<(cmd)`), if any. */
  pipe?(path: string): Pick<StdinSource, "open"> | undefined;
}

/**
 * Runs the search and prints it.
 *
 * @param store where the files are
 * @param request the flags and words
 * @param given where to write
 * @returns 0 something matched, 1 nothing did, 2 an error (or stopped before it could tell)
 */
export async function grepCommand(
  store: FileStore,
  request: GrepRequest,
  given: GrepOutput,
): Promise<number> {
  const buffer = outputBuffer(given.stdout, request.lineBuffered ? 0 : OUTPUT_BUFFER_CHARS);
  // (What is said on stderr comes after what was printed before it, for a reader of both.)
  const stderr = (text: string) => (buffer.flush(), given.stderr(text));
  // (The engine's notices, such as a worker that failed, come in the same order.)
  const routedBack = noticesTo((line) => stderr(`${line}\n`));
  try {
    return await grep(store, request, {
      stdout: buffer.write,
      stderr,
      flush: buffer.flush,
      stdin: given.stdin,
      pipe: given.pipe,
    });
  } finally {
    routedBack();
    buffer.flush();
  }
}

/**
 * The characters of output gathered into one write off a terminal: about ripgrep's 8 KiB, so

 * that a reader that stops early (`| head -1`) stops the search as soon.
 */
export const OUTPUT_BUFFER_CHARS = 8 * 1024;

async function grep(store: FileStore, request: GrepRequest, out: GrepOutput): Promise<number> {
  const refused = (message: string) => (out.stderr(`linewise: ${message}\n`), 2);
  // (Inverted, the lines found are not coloured as matches, as in ripgrep.)
  const paint = !request.color ? PLAIN : request.invert ? { ...COLOURED, match: String } : COLOURED;
  const rules = walkRules(request);
  // (What follows a path printed: a NUL with -0.)
  const after = (separator: string) => request.nul ? "\0" : separator;
  if (request.files) {
    // (-q lists nothing, as in ripgrep.)
    const listed = request.quiet ? { ...out, stdout: () => {} } : out;
    return "error" in rules
      ? refused(rules.error)
      : await listFiles(store, request.paths, rules, paint, listed, request.nul);
  }
  // (As ripgrep: a pattern file without a line matches nothing.)
  if (request.patterns.length === 0) return 1;
  const compiled = grepPattern(request, (engine) => {
    if (request.onlyMatching || request.vimgrep || request.countMatches) {
      const flag = request.countMatches
        ? "--count-matches"
        : request.onlyMatching
        ? "-o"
        : "--vimgrep";
      const does = request.countMatches || request.count ? "counts" : "shows";
      out.stderr(
        `linewise: ${flag} ${does} the first match alone of lines this pattern cannot be run on again safely (on the ${engine} engine, or longer than ${STOPPABLE_SPAN_CHARS} characters)\n`,
      );
    }
  });
  if ("error" in compiled) return refused(compiled.error);
  const { matcher, spans } = compiled;
  // (A pattern no engine bounds, scanned where it can be stopped (lookarounds or
  // backreferences with quantifiers, thousands of patterns that are not all fixed strings),
  // may take polynomial or exponential time on a line: without --timeout it stops at the
  // tools' default budget rather than never.)
  const unbounded = request.timeoutMs === undefined && matcher.stoppable !== undefined;
  const timeoutMs = unbounded ? DEFAULT_TIME_BUDGET_MS : request.timeoutMs;
  if ("error" in rules) return refused(rules.error);
  // (As ripgrep: -m 0 searches nothing.)
  if (request.maxCount === 0) return 1;
  const context = Math.max(request.before, request.after);
  // (-q prints nothing, and the search stops at the first match. --max-lines and --max-chars
  // stop the search once the output holds what they allow.)
  const spent = new AbortController();
  const budget = printBudget(request, (text) => out.stdout(text), () => spent.abort(SPENT));
  const print = request.quiet ? () => {} : budget.print;
  const shown = {
    numbers: request.lineNumbers,
    heading: request.heading,
    context: context > 0,
    onlyMatching: request.onlyMatching,
    // (A line without a match, -v's, has no column.)
    column: request.column && !request.invert,
    nul: request.nul,
    vimgrep: request.vimgrep && !request.invert,
    paint,
    spans,
  };
  // Standard input is searched as a file of its own, named as ripgrep names it, and so is a
  // pipe named on the line (`<(cmd)`, under its name): text as it comes, binary input read
  // whole (see `_stdin.ts`).
  const inputs = new Map<number, { store: FileStore } | { runs: StdinRuns }>();
  /** Opens the input of path `i`; why it could not be read, if it could not. */
  const open = async (
    i: number,
    source: Pick<StdinSource, "open">,
    name: string,
  ): Promise<string | undefined> => {
    const opened = await source.open();
    if ("error" in opened) return opened.error;
    if (!opened.binary) {
      inputs.set(i, { runs: opened });
      return undefined;
    }
    const read = await opened.whole();
    if ("error" in read) return read.error;
    inputs.set(i, { store: new MemoryStore({ [name]: read }) });
    return undefined;
  };
  const firstStdin = request.paths.indexOf("-");
  if (request.stdin !== undefined) {
    const error = await open(firstStdin, out.stdin!, STDIN_NAME);
    if (error !== undefined) return refused(error);
  }
  // (A second - reads what the first left: nothing, as in ripgrep.)
  const empty = new MemoryStore({ [STDIN_NAME]: "" });
  const givenStdin = inputs.has(firstStdin);
  for (const [i, path] of request.paths.entries()) {
    const pipe = path === "-" ? undefined : out.pipe?.(path);
    const error = pipe === undefined ? undefined : await open(i, pipe, path);
    if (error !== undefined) return refused(error);
  }
  const storeOf = (path: string, i: number) => {
    const input = inputs.get(i);
    if (input !== undefined && "store" in input) return input.store;
    return path === "-" && givenStdin ? empty : store;
  };
  const pathOf = (path: string) => path === "-" && givenStdin ? STDIN_NAME : path;
  const streaming = (i: number) => {
    const input = inputs.get(i);
    return input !== undefined && "runs" in input ? input.runs : undefined;
  };
  // As ripgrep: a file named on the line is searched whatever -g and -t say, and a search of
  // one file, named alone, prints its rows without its path (-H shows it, -I leaves every
  // path off).
  // (An input is shown as named, whatever it holds.)
  const files = await Promise.all(
    request.paths.map((path, i) =>
      inputs.has(i) ? pathOf(path) : fileShown(storeOf(path, i), pathOf(path))
    ),
  );
  const withPaths = request.filenames ?? !(files.length === 1 && files[0] !== undefined);
  let hits = 0; // (files with a match)
  let without = 0;
  let searched = 0;
  let stopped = false;
  let capped = false; // (by --max-matches: more matches exist)
  let first = true;
  let failed = false;
  for (const [i, path] of request.paths.entries()) {
    const shownFile = files[i];
    const named = shownFile !== undefined;
    const runs = streaming(i);
    let result: SearchResult;
    const progress = progressLine(out, request.progressAfterMs, path);
    const hit = new Set<string>();
    /** Prints a file without a match (--files-without-match). */
    const showWithout = (file: string) => {
      progress.clear();
      print(`${paint.path(shownName(file, request.nul))}${after("\n")}`);
      without++;
    };
    /** Prints a file's count or path (-c, -l), and notes it as one with a match. */
    const show = (file: FileMatches) => {
      // (Counted by the search, a file has no rows.)
      const matching = file.rows.filter((row) => row.match !== undefined)
        .slice(0, request.maxCount);
      if ((file.matchedLines ?? matching.length) === 0) return;
      hit.add(file.path);
      if (request.filesWithoutMatch) return;
      progress.clear();
      // (-o -c counts the matches, not the lines.)
      const count = file.matchedLines === undefined
        ? counted(matching, request, spans)
        : Math.min(file.matchedLines, request.maxCount ?? Infinity);
      // A name that could pass for rows or notes is shown quoted, as the tools show it.
      const shownPath = paint.path(shownName(file.path, request.nul));
      if (request.count) print(withPaths ? `${shownPath}${after(":")}${count}\n` : `${count}\n`);
      else print(`${shownPath}${after("\n")}`);
      first = false;
    };
    // Rows are printed as the search scans each file's chunks (see `_streamed_rows.ts`): those
    // of standard input as it comes, and a log of millions of matching lines without holding
    // them all. A count or a list of files is printed once a file is done.
    const printing = new Map<string, { rows: StreamedRows; lastLine?: number }>();
    const showRows = (path: string, rows: ScanRow[], lastLine: number | undefined) => {
      if (rows.some((row) => row.match !== undefined)) hit.add(path);
      progress.clear();
      if (lastLine === undefined && !first && (request.heading || context > 0)) {
        print(request.heading ? "\n" : "--\n");
      }
      const shownPath = withPaths ? shownName(path, request.nul) : undefined;
      print(printed(shownPath, rows, { ...shown, continuedAfter: lastLine }, print));
      for (const row of rows) if (row.piece) out.stderr(`linewise: ${partShown(path, row)}\n`);
      first = false;
    };
    /** Prints what is settled of a file's rows; at its end, the rest. */
    const rowsFound = (path: string, rows: ScanRow[], scanned?: number) => {
      let file = printing.get(path);
      if (file === undefined && rows.length === 0) return;
      if (file === undefined) printing.set(path, file = { rows: new StreamedRows(request) });
      const settled = scanned === undefined ? file.rows.end(rows) : file.rows.take(rows, scanned);
      if (scanned === undefined) printing.delete(path);
      if (settled.length === 0) return;
      showRows(path, settled, file.lastLine);
      file.lastLine = settled.at(-1)!.line;
    };
    const rowsPrinted = printsRows(request);
    try {
      // (A glob that cannot be read is refused also where no walk needs it.)
      if (rules.glob !== undefined) compileGlob(rules.glob);
      const query: SearchQuery = {
        ...rules,
        onProgress: progress.update,
        path: pathOf(path),
        matcher,
        // (-c counts lines, which the search may count without keeping them; -o -c and
        // --count-matches count the matches in them.)
        ...countsLines(request) ? { countOnly: true, context: 0 } : { context },
        glob: named ? undefined : rules.glob,
        // (-q stops at the first match.)
        maxMatches: request.quiet ? 1 : request.maxMatches ?? Infinity,
        // (-m: each file's scan stops after its last line shown; -q, -l and
        // --files-without-match need a file's first matching line alone, unless -c counts.)
        maxMatchesPerFile: firstAlone(request) ? 1 : request.maxCount,
        deadline: timeoutMs === undefined ? undefined : Date.now() + timeoutMs,
        // (Each file is printed as the search finishes it: `… | head` ends the command at
        // once, and the matches are not held.)
        onFile: rowsPrinted ? (file) => rowsFound(file.path, file.rows) : show,
        onRows: rowsPrinted
          ? (file, rows, scanned) => {
            rowsFound(file, rows, scanned);
            if (runs !== undefined) out.flush?.(); // (before the next run is waited for)
          }
          : undefined,
        signal: spent.signal,
        // (A file named on the line is listed whether binary or not, below.)
        onNoMatch: !request.filesWithoutMatch || named ? undefined : showWithout,
      };
      result = runs !== undefined
        ? await searchStream(query, { path: pathOf(path), runs: runs.runs() })
        : await storeOf(path, i).search(query);
    } catch (error) {
      progress.clear();
      // (Cut at the output's budget: what was printed stands.)
      if (error === SPENT) {
        hits += hit.size;
        break;
      }
      // (Standard input that cannot be read on: what was printed stands.)
      if (error instanceof StdinError) {
        out.stderr(`linewise: ${error.message}\n`);
        failed = true;
        continue;
      }
      // A glob that cannot be read is the command's mistake: said once, as ripgrep says it.
      if (error instanceof InputError) {
        out.stderr(`linewise: ${error.message}\n`);
        return 2;
      }
      // As ripgrep: a path that cannot be searched is said (unless --no-messages), and the
      // others are searched.
      if (!(error instanceof StoreError)) throw error;
      if (!request.noMessages) out.stderr(`linewise: ${error.message}\n`);
      failed = true;
      continue;
    }
    progress.clear();
    if (result.stopped === "time") stopped = true;
    // (-q's own cap of one match is no --max-matches.)
    if (result.stopped === "max_matches" && request.maxMatches !== undefined && !request.quiet) {
      capped = true;
    }
    searched += result.filesSearched + result.binaryFilesSkipped;
    // As ripgrep: a binary file named on the line is looked through, and said to match.
    if (named && hit.size === 0 && result.files.length === 0 && result.binaryFilesSkipped > 0) {
      const looked = await binaryMatches(storeOf(path, i), pathOf(path), matcher, out);
      // (One too large to look through is an error, said, as ripgrep's errors are: status 2.)
      if (looked === "too_large") failed = true;
      const binary = looked === "too_large" ? undefined : looked;
      const count = binary === undefined ? 0 : counted(binary.rows, request, spans);
      if (count > 0) hit.add(shownFile);
      if (binary !== undefined && count > 0 && !request.filesWithoutMatch) {
        const shown = paint.path(shownName(shownFile, request.nul));
        const said = `binary file matches (found "\\0" byte around offset ${binary.offset})`;
        // (-c outweighs -l, as in ripgrep.)
        if (request.count) print(withPaths ? `${shown}${after(":")}${count}\n` : `${count}\n`);
        else if (request.filesWithMatches) print(`${shown}${after("\n")}`);
        else print(withPaths ? `${shown}${after(":")} ${said}\n` : `${said}\n`);
        first = false;
      }
    }
    // (Files the search did not hand over as it went.)
    for (const file of result.files) {
      if (rowsPrinted) rowsFound(file.path, file.rows);
      else show(file);
    }
    if (named && request.filesWithoutMatch && !hit.has(shownFile)) showWithout(shownFile);
    hits += hit.size;
    if (request.quiet && hits > 0) break;
  }
  if (stopped && unbounded) {
    out.stderr(
      `linewise: stopped by the time budget: ${
        DEFAULT_TIME_BUDGET_MS / 1000
      } s for a pattern that may backtrack without end (--timeout sets another)\n`,
    );
  } else if (stopped) out.stderr("linewise: stopped by the time budget (--timeout)\n");
  if (capped) {
    out.stderr(`linewise: stopped at --max-matches ${request.maxMatches}: more matches exist\n`);
  }
  if (budget.cut !== undefined) {
    out.stderr(`linewise: stopped at ${budget.cut}: more output exists\n`);
  }
  // (As ripgrep: a search of the current directory that had no file left to search is told.)
  if (
    !request.pathsGiven && !request.stdin && !stopped && !failed && hits === 0 && searched === 0
  ) {
    return refused(
      "no files were searched: the filters left none (-g, -t, -T, --max-depth, --max-filesize, hidden names or the ignore files)",
    );
  }
  // (With --files-without-match, a file printed is what was found; with -q too, a match, as
  // in ripgrep.)
  const found = request.filesWithoutMatch && !request.quiet ? without : hits;
  // (As ripgrep: with -q, a match found outweighs a path that could not be searched.)
  if (request.quiet && found > 0) return 0;
  if (failed || ((stopped || capped || budget.cut !== undefined) && found === 0)) return 2;
  return found > 0 ? 0 : 1;
}

/** What is said of a row that is a part of its line (one over `WHOLE_LINE_BYTES`). */
function partShown(path: string, { line, text, piece }: ScanRow): string {
  const { from, codePoints, terminator } = piece!;
  const shown = codePointCount(text, 0, text.length - terminator.length);
  return `${path}:${line}: the line is over ${WHOLE_LINE_BYTES / 1024 / 1024} MiB, too long ` +
    `to hold: shown are ${shown} of its ${codePoints} characters, from character ${from}`;
}

/** Why a search stopped at the output's budget (the abort's reason). */
const SPENT = new Error("the output's budget is spent");

/**
 * Output within `--max-lines` and `--max-chars`: whole lines, as many as both allow; the
 * first that does not fit is cut with the rest, and `spent` is called once.
 *
 * @returns the writer, and which budget cut the output (undefined while none has)
 */
function printBudget(
  request: Pick<GrepRequest, "maxLines" | "maxChars">,
  write: (text: string) => void,
  spent: () => void,
): { print(text: string): void; readonly cut: string | undefined } {
  const { maxLines = Infinity, maxChars = Infinity } = request;
  let lines = 0;
  let chars = 0;
  let cut: string | undefined;
  return {
    get cut() {
      return cut;
    },
    print(text) {
      if (cut !== undefined) return;
      if (maxLines === Infinity && maxChars === Infinity) return write(text);
      let end = 0;
      while (end < text.length) {
        const newline = text.indexOf("\n", end);
        const next = newline === -1 ? text.length : newline + 1;
        if (lines + 1 > maxLines || chars + next - end > maxChars) {
          cut = lines + 1 > maxLines ? `--max-lines ${maxLines}` : `--max-chars ${maxChars}`;
          break;
        }
        lines++;
        chars += next - end;
        end = next;
      }
      if (end > 0) write(text.slice(0, end));
      if (cut !== undefined) spent();
    },
  };
}

/** Whether grep prints rows (not counts, nor files, nor nothing with `-q`). */
function printsRows(request: GrepRequest): boolean {
  return !request.count && !request.filesWithMatches && !request.filesWithoutMatch &&
    !request.quiet;
}

/** Whether grep prints how many lines of each file match (`-c`, without `-o`). */
function countsLines(request: GrepRequest): boolean {
  return request.count && !request.onlyMatching && !request.countMatches;
}

/**
 * Whether a file's first matching line alone tells what grep prints: with `-q`, `-l` or
 * `--files-without-match` (unless `-c`, which outweighs them, counts, or `--max-matches`
 * counts), whether a file matches.
 */
function firstAlone(request: GrepRequest): boolean {
  // (--max-matches counts every matching line, as it did before: not the first alone.)
  return request.quiet ||
    (!request.count && request.maxMatches === undefined &&
      (request.filesWithMatches || request.filesWithoutMatch));
}

/**
 * A progress line on stderr (a terminal), rewritten in place at most every 100 ms once the
 * search has run `afterMs`, and wiped when it ends; nothing without `afterMs`.
 */
function progressLine(out: GrepOutput, afterMs: number | undefined, path: string): {
  update: ((done: number, total?: number) => void) | undefined;
  clear: () => void;
} {
  if (afterMs === undefined) return { update: undefined, clear: () => {} };
  const started = Date.now();
  let shownAt = 0;
  let shown = false;
  return {
    update(done, total) {
      const now = Date.now();
      if (now - started < afterMs || now - shownAt < 100) return;
      shownAt = now;
      shown = true;
      const of = total === undefined ? "" : ` of ${total}`;
      out.stderr(`\r\x1b[Klinewise: searching ${path}: ${done}${of} files`);
    },
    clear() {
      if (shown) out.stderr("\r\x1b[K");
      shown = false;
    },
  };
}

/** The most of a binary file named on the line that is looked through. */
const BINARY_BYTES = 64 * 1024 * 1024;

/**
 * How many lines of a binary file match (its bytes read as UTF-8, each line by the line
 * rule), and where its first NUL is; undefined when it is gone, and "too_large" (said on
 * stderr) when it is too large to look through.
 */
async function binaryMatches(
  store: FileStore,
  path: string,
  matcher: Matcher,
  out: GrepOutput,
): Promise<{ rows: ScanRow[]; offset: number } | "too_large" | undefined> {
  let bytes: Uint8Array;
  try {
    bytes = await store.readBytes(path, { maxBytes: BINARY_BYTES });
  } catch (error) {
    if (!(error instanceof StoreError)) throw error;
    if (error.code !== "too_large") return undefined;
    out.stderr(`linewise: ${path}: a binary file over 64 MiB, not searched\n`);
    return "too_large";
  }
  const rows: ScanRow[] = [];
  scanText(new TextDecoder().decode(bytes), matcher, (row) => {
    if (row.match !== undefined) rows.push(row);
  });
  return { rows, offset: bytes.indexOf(0) };
}

/**
 * How many of a file's matching rows `-c` counts: its first `-m` lines, or with `-o` their
 * matches.
 */
function counted(rows: readonly ScanRow[], request: GrepRequest, spans: MatchSpans): number {
  const first = rows.slice(0, request.maxCount);
  if (!request.onlyMatching && !request.countMatches) return first.length;
  return first.reduce((sum, row) => sum + spans(rowBody(row.text), row).length, 0);
}
