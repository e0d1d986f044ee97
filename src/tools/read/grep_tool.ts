// The grep tool: matching lines across files, numbered exactly as read numbers them.
import { setImmediate } from "node:timers";
import {
  appendNote,
  appendNotes,
  formatRow,
  quotePath,
  rowPrefix,
  shownWhole,
} from "../../core/mod.ts";
import { eachRow, shownRows } from "../../store/flat_rows.ts";
import type { FileStore, SearchResult } from "../../store/file_store.ts";
import { ArgumentError, checkArgs } from "../_args.ts";
import { isAnchored, rebasedGlobs } from "./_absolute_globs.ts";
import {
  capped,
  leftOutNotes,
  ok,
  pageNote,
  rowChars,
  SKIPPED_FIELD,
  skippedField,
  skippedNote,
  unreadableNote,
} from "../_results.ts";
import type { Session } from "../_session.ts";
import { searchedVersions } from "./_shown.ts";
import { VERSION_DIGITS } from "../../versions/mod.ts";
import { LINE_RULE, type Settings } from "../options.ts";
import { compilePattern } from "../../match/safe_matcher.ts";
import type { CallContext, ToolDefinition, ToolResult } from "../tool.ts";

interface GrepArgs {
  pattern: string;
  path: string;
  glob?: string | string[];
  literal: boolean;
  ignore_case: boolean;
  context: number;
  max_matches: number;
  include_ignored: boolean;
  output: "content" | "files" | "count";
  offset: number;
}

/**
 * Matching lines a files or count grep looks for unless max_matches says otherwise: all of
 * them, within the time budget (such a grep keeps no rows: `SearchQuery.countOnly`).
 */
const COUNTING_MATCHES = Infinity;

const inputSchema = {
  type: "object" as const,
  properties: {
    pattern: { type: "string", description: "JavaScript regex (flags u, s), or text if literal." },
    path: { type: "string", default: "." },
    glob: { type: ["string", "array"], items: { type: "string" } },
    literal: { type: "boolean", default: false },
    ignore_case: { type: "boolean", default: false },
    context: { type: "integer", minimum: 0, default: 0 },
    max_matches: { type: "integer", minimum: 1, default: 200 },
    include_ignored: { type: "boolean", default: false },
    output: {
      type: "string",
      enum: ["content", "files", "count"],
      default: "content",
      description: "files: path\\tcount per file; count: totals.",
    },
    offset: { type: "integer", minimum: 0, default: 0 },
  },
  required: ["pattern"],
};

const outputSchema = {
  type: "object" as const,
  properties: {
    files: {
      type: "array",
      items: {
        type: "object",
        properties: {
          path: { type: "string" },
          lines: {
            type: "array",
            items: { type: "integer" },
            description: "Matching line numbers.",
          },
          count: { type: "integer", description: "Matching lines (output files)." },
          invalid_utf8: { type: "boolean" },
          version: { type: "string", description: "The file's version (edits may refer to it)." },
        },
        required: ["path"],
      },
    },
    matched_lines: { type: "integer", description: "Matching lines shown." },
    files_searched: { type: "integer" },
    binary_files_skipped: { type: "integer" },
    stopped: {
      type: "string",
      enum: ["max_matches", "time", "output_budget"],
      description: "Why the search stopped early, if it did.",
    },
    files_not_searched: { type: "integer" },
    unreadable: { type: "integer", description: "Directories and files that could not be read." },
    skipped: SKIPPED_FIELD,
    engine: { type: "string", enum: ["literal", "native", "linear", "stoppable"] },
  },
  required: ["files", "matched_lines", "files_searched", "binary_files_skipped"],
};

/** Files of one result that get their versions. */
const VERSIONED_FILES = 50;

/** The grep tool. */
export function grepTool(store: FileStore, settings: Settings, session: Session): ToolDefinition {
  const layOut = renderer(settings);
  return {
    name: "grep",
    title: "Search lines",
    description: [
      "Shows lines matching a pattern as `<n>\\t<line>` (context `<n>-\\t<line>`) under each file's path.",
      LINE_RULE,
      "A match never spans lines; ^ and $ are the line's ends. Hidden, .gitignore'd and binary files are skipped unless include_ignored.",
      `Stops at max_matches or after ${settings.timeBudgetMs / 1000} s, saying so.`,
    ].join(" "),
    inputSchema,
    outputSchema,
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    takesTurns: store.searchesTakeTurns === true,
    call(args, context) {
      const checked = checkArgs<GrepArgs>(inputSchema, args);
      // (Counting wants every match, within the time budget, unless max_matches is given.)
      const counting = (args as { max_matches?: unknown }).max_matches === undefined;
      if (![checked.glob ?? []].flat().some(isAnchored)) return answer(checked, counting, context);
      return rebasedGlobs(store, checked.glob!, checked.path)
        .then((glob) => answer({ ...checked, glob }, counting, context));
    },
  };

  function answer(
    checked: GrepArgs,
    counting: boolean,
    context: CallContext | undefined,
  ): Promise<ToolResult> {
    if (checked.output === "content") {
      return grep(store, settings, session, layOut, checked, context);
    }
    if (checked.offset > 0 && checked.output === "count") {
      throw new ArgumentError(
        `offset continues the rows of output "content" and the files of "files"; "count" has none to skip`,
      );
    }
    return counted(store, settings, {
      ...checked,
      max_matches: counting ? COUNTING_MATCHES : checked.max_matches,
    }, context);
  }
}

/** The last grep's turn to compile its pattern (see {@linkcode compilingTurn}). */
let lastTurn: Promise<void> = Promise.resolve();

/**
 * Waits for this grep's turn to compile its pattern: one grep a turn of the event loop, after
 * the requests that came with it. Compiling a regex takes up to a millisecond (one with
 * unbounded repeats builds its linear-time engine too): 50 greps sent at once, compiled as
 * they came, held back a small read sent after them by 20 ms.
 */
function compilingTurn(): Promise<void> {
  const turn = lastTurn.then(() => new Promise<void>((resolve) => setImmediate(resolve)));
  lastTurn = turn;
  return turn;
}

/**
 * Runs the search a grep asks for (without context when only counting; `laidOut` for a grep
 * whose rows are shown).
 */
async function search(
  store: FileStore,
  settings: Settings,
  args: GrepArgs,
  context: CallContext,
  laidOut = false,
): Promise<{ result: SearchResult; engine: string }> {
  await compilingTurn();
  const { matcher, engine } = compilePattern(args.pattern, {
    literal: args.literal,
    ignoreCase: args.ignore_case,
  });
  const result = await store.search({
    path: args.path,
    glob: args.glob,
    includeIgnored: args.include_ignored,
    matcher,
    // (Counting, the rows are not wanted: a store may count the lines without them.)
    ...args.output === "content" ? { context: args.context } : { context: 0, countOnly: true },
    // (An offset skips that many matching lines of what is found.)
    maxMatches: args.max_matches + args.offset,
    deadline: Date.now() + settings.timeBudgetMs,
    rowCut: settings.cut,
    // (The files that get versions: a store that reads them as it searches saves reading
    // them again here. The search stops past the rows the output budget can show, unless an
    // offset skips rows first.)
    ...laidOut
      ? {
        digests: {
          afterMatches: args.offset,
          files: VERSIONED_FILES,
          maxBytes: settings.maxEditBytes,
        },
        ...args.offset === 0 ? { maxChars: rowChars(settings) } : {},
      }
      : {},
    signal: context.signal,
    onProgress: context.progress && ((done, total) => context.progress!(done, total)),
  });
  return { result, engine };
}

/**
 * The result without its first `offset` matching lines (and the context rows around them,
 * up to the first row after the last one's after-context).
 */
function skipMatches(result: SearchResult, offset: number, context: number): SearchResult {
  if (offset === 0) return result;
  let left = offset;
  const files = [];
  for (const file of result.files) {
    if (left === 0) {
      files.push(file);
      continue;
    }
    const matches = file.rows.filter((row) => row.match).length;
    if (matches <= left) {
      left -= matches;
      continue;
    }
    const matching = file.rows.filter((row) => row.match);
    const last = matching[left - 1].line;
    const first = matching[left].line; // (the first shown: its context before it stays)
    files.push({
      ...file,
      rows: file.rows.filter((row) =>
        row.match ? row.line > last : row.line > last + context || row.line >= first - context
      ),
    });
    left = 0;
  }
  return { ...result, files, matchedLines: Math.max(0, result.matchedLines - offset) };
}

/** The note for a search that ran to the end and found nothing. */
function noMatch(args: GrepArgs, result: SearchResult): string {
  // (A store that does not count what its walk left out gets the hint without numbers.)
  const wider = args.include_ignored || result.skipped !== undefined
    ? ""
    : "; hidden and .gitignore'd files were not searched: include_ignored=true searches them";
  return `no match for ${JSON.stringify(args.pattern)} in ${
    quotePath(args.path)
  } (${result.filesSearched} ${result.filesSearched === 1 ? "file" : "files"} searched)${wider}`;
}

/** The facts every grep result gives about the search itself. */
function searchFacts(result: SearchResult, engine: string): Record<string, unknown> {
  const facts: Record<string, unknown> = {
    files_searched: result.filesSearched,
    binary_files_skipped: result.binaryFilesSkipped,
    files_not_searched: result.filesNotSearched,
    engine,
  };
  if (result.unreadable) facts.unreadable = result.unreadable;
  return { ...facts, ...skippedField(result.skipped) };
}

/**
 * A grep with output "files" (each file with its count of matching lines, `path\tcount`) or
 * "count" (the totals alone): no rows, so no versions either.
 */
async function counted(
  store: FileStore,
  settings: Settings,
  args: GrepArgs,
  context: CallContext = {},
): Promise<ToolResult> {
  const { result, engine } = await search(store, settings, args, context);
  const all = result.files.map((file) => ({
    path: quotePath(file.path),
    count: file.matchedLines ?? file.rows.filter((row) => row.match).length,
  }));
  // (The files listed go on from an offset, as glob's do.)
  const files = args.output === "files" ? all.slice(args.offset) : all;
  const listed = args.output === "files"
    ? capped(files.map((f) => `${f.path}\t${f.count}`), settings)
    : { text: "", count: files.length };
  const budgetHit = listed.count < files.length;
  const shown = { files: files.slice(0, listed.count), matchedLines: 0 };
  shown.matchedLines = shown.files.reduce((sum, f) => sum + f.count, 0);
  let text = listed.text;
  if (args.output === "count") {
    const lines = shown.matchedLines;
    text = `${lines} matching ${lines === 1 ? "line" : "lines"} in ${files.length} ${
      files.length === 1 ? "file" : "files"
    }\n`;
  }
  const stopped = budgetHit ? "output_budget" : result.stopped;
  if (result.files.length === 0 && !stopped) text = appendNote(text, noMatch(args, result));
  const said = stopped === "time" ? stopped : undefined;
  for (const note of stopNotes(result, shown, said, args)) text = appendNote(text, note);
  // (Counts stopped at max_matches are of the lines found so far: no offset goes on from them.)
  if (result.stopped === "max_matches") {
    text = appendNote(
      text,
      `stopped at max_matches=${args.max_matches}: the counts are of the first ${args.max_matches} matching lines, and more exist: raise max_matches to count them all, or narrow the search`,
    );
  }
  if (args.output === "files" && (budgetHit || args.offset > 0)) {
    text = appendNote(text, pageNote("files", args.offset, args.offset + listed.count, all.length));
  }
  const structured: Record<string, unknown> = {
    files: args.output === "files" ? shown.files : [],
    matched_lines: shown.matchedLines,
    ...searchFacts(result, engine),
  };
  if (stopped) structured.stopped = stopped;
  return ok(text, structured);
}

async function grep(
  store: FileStore,
  settings: Settings,
  session: Session,
  layOut: Renderer,
  args: GrepArgs,
  context: CallContext = {},
): Promise<ToolResult> {
  const searched = await search(store, settings, args, context, true);
  const { engine } = searched;
  const result = skipMatches(searched.result, args.offset, args.context);
  // The first files the budget lets through get their versions (each costs reading the file
  // again, so not every file gets one); the session records every file shown.
  const laidOut = layOut(result, args.context);
  const versioned = Math.min(laidOut.files.length, VERSIONED_FILES);
  const found = await searchedVersions(store, session, settings, result.files.slice(0, versioned));
  for (let i = 0; i < laidOut.files.length; i++) {
    session.showed(result.files[i].path, undefined, found[i]?.version, {
      identity: found[i]?.identity,
    });
  }
  const versions = found.map((f) => f.version);
  // A kept result (frozen: every identical search gets the same one) asked for alike, with
  // the versions it carried last time, gets the same answer, which the server has serialized
  // already. (Searches alike may be asked in other words: a path of "." or "./".)
  const key = JSON.stringify([versions, args]);
  const given = answers.get(laidOut);
  if (given?.key === key) return given.answer;
  const answer = answerOf(searched.result, result, withVersions(laidOut, versions), args, engine);
  if (Object.isFrozen(result)) answers.set(laidOut, { key, answer: frozen(answer) });
  return answer;
}

/** Answers given with laid-out kept results, by the versions they carried and the arguments. */
const answers = new WeakMap<LaidOut, { key: string; answer: ToolResult }>();

/** The answer of a grep: the files shown, and the notes on what was not. */
function answerOf(
  found: SearchResult,
  result: SearchResult,
  shown: Rendered,
  args: GrepArgs,
  engine: string,
): ToolResult {
  const stopped = shown.budgetHit ? "output_budget" : result.stopped;
  const notes: string[] = [];
  // "No match" only for a search that ran to the end; a stopped one says so below.
  if (result.files.length === 0 && !stopped) {
    notes.push(
      args.offset > 0 && found.matchedLines > 0
        ? `offset ${args.offset} is past the ${found.matchedLines} matching lines there are`
        : noMatch(args, result),
    );
  }
  if (shown.files.length > VERSIONED_FILES) {
    notes.push(
      `the first ${VERSIONED_FILES} files carry their versions; read any other before editing it by line number`,
    );
  }
  notes.push(...stopNotes(result, shown, stopped, args));
  const text = appendNotes(shown.pieces, notes);
  const structured: Record<string, unknown> = {
    files: shown.files,
    matched_lines: shown.matchedLines,
    ...searchFacts(result, engine),
  };
  if (stopped) structured.stopped = stopped;
  return ok(text, structured);
}

/** An answer given again, frozen so that no one changes it for the next. */
function frozen(answer: ToolResult): ToolResult {
  for (const piece of answer.content) Object.freeze(piece);
  Object.freeze(answer.content);
  if (answer.structuredContent !== undefined) Object.freeze(answer.structuredContent);
  return Object.freeze(answer);
}

interface Rendered {
  /** The text, in pieces (joined once, with the notes: it may run to megabytes). */
  pieces: string[];
  files: Array<{ path: string; lines: number[]; invalid_utf8?: boolean; version?: string }>;
  matchedLines: number;
  budgetHit: boolean;
}

/** {@linkcode Rendered} before the versions: each file's text, split where its version goes. */
interface LaidOut extends Omit<Rendered, "pieces"> {
  blocks: { head: string; body: string }[];
}

/** What a version adds to a file's header line (` @` and its digits). */
const VERSION_CHARS = 2 + VERSION_DIGITS;

/**
 * Lays out files and rows under the output budget, with room left in the header of each of
 * the first {@linkcode VERSIONED_FILES} files for its version (found only for the files
 * shown, so afterwards: see {@linkcode withVersions}).
 */
function render(result: SearchResult, context: number, settings: Settings): LaidOut {
  const separators = context > 0;
  const maxChars = rowChars(settings);
  const rowOptions = { cut: settings.cut };
  const out: LaidOut = { blocks: [], files: [], matchedLines: 0, budgetHit: false };
  let length = 0; // of the text so far, the versions' room included
  let rowCount = 0;
  // Tracked, not read back with endsWith: that would flatten the growing text every file.
  let endsWithNewline = true;
  for (const file of result.files) {
    // A blank line between files; a last row without a terminator first ends its line, so
    // the next path does not join it (and a listing's last row stays verbatim).
    const gap: string = length === 0 ? "" : endsWithNewline ? "\n" : "\n\n";
    const path = quotePath(file.path);
    const head = gap + path;
    // (A file that is not valid UTF-8 gets no version.)
    const room = out.files.length < VERSIONED_FILES && !file.invalidUtf8 ? VERSION_CHARS : 0;
    let block = "\n";
    // (The block's end is told by its last piece: asking the block would flatten it.)
    let last = block;
    let lines: number[] = [];
    let previous = -1; // the line of the row before
    // (The block up to the last row a shown match owns: itself, or its context after it.)
    let owned = { length: block.length, last };
    let lastMatch = -Infinity;
    // (A file whose rows all fit is taken whole, where it can be: one piece, not a row each.)
    const whole = separators ? undefined : shownRows(file, rowOptions.cut);
    if (
      whole !== undefined && rowCount + whole.count <= settings.maxLines &&
      length + head.length + room + block.length + whole.text.length <= maxChars
    ) {
      block += whole.text;
      last = whole.text;
      rowCount += whole.count;
      lines = whole.matchLines;
    } else {
      // (Rows still flat stay so: no object is made of rows only shown.)
      eachRow(file, (line, text, start, end, piece) => {
        const match = start !== -1;
        let shown = shownWhole(text, piece, rowOptions.cut)
          ? rowPrefix(line, !match) + text
          : formatRow(
            match
              ? { line, text, match: { start, end }, piece }
              : { line, text, context: true, piece },
            rowOptions,
          ).text;
        if (separators && previous !== -1 && line > previous + 1) shown = "--\n" + shown;
        // The first row is always shown, so that a result makes progress on any budget, and so
        // is the first matching row: context rows before it give way (an offset to continue
        // from would otherwise name the same call again).
        if (
          rowCount >= settings.maxLines ||
          (rowCount > 0 && length + head.length + room + block.length + shown.length > maxChars)
        ) {
          out.budgetHit = true;
          if (out.matchedLines > 0 || lines.length > 0) return false;
          if (!match) return true;
        }
        block += shown;
        last = shown;
        rowCount++;
        if (match) lines.push(line), lastMatch = line;
        if (match || line <= lastMatch + context) owned = { length: block.length, last };
        previous = line;
        return true;
      });
      // (Cut by the budget, a block ends with its last match's own context: the rows after it
      // lead up to a match not shown, and the offset that continues shows them with it.)
      if (out.budgetHit && block.length > owned.length) {
        block = block.slice(0, owned.length);
        last = owned.last;
      }
    }
    if (lines.length > 0) {
      out.blocks.push({ head, body: block });
      length += head.length + room + block.length;
      endsWithNewline = last.endsWith("\n");
      out.files.push({ path, lines, ...(file.invalidUtf8 ? { invalid_utf8: true } : {}) });
      out.matchedLines += lines.length;
    }
    if (out.budgetHit) break;
  }
  return out;
}

type Renderer = (result: SearchResult, context: number) => LaidOut;

/**
 * {@linkcode render} with one tool's settings, laying out each result once: a kept result
 * (frozen: every identical search gets the same one) need not be laid out again, its
 * thousands of rows for a grep repeated.
 */
function renderer(settings: Settings): Renderer {
  const laidOut = new WeakMap<SearchResult, { context: number; laidOut: LaidOut }>();
  return (result, context) => {
    const known = laidOut.get(result);
    if (known?.context === context) return known.laidOut;
    const fresh = render(result, context, settings);
    laidOut.set(result, { context, laidOut: fresh });
    return fresh;
  };
}

/** The laid-out files with their versions (`versions[i]` for the i-th file shown). */
function withVersions(laidOut: LaidOut, versions: ReadonlyArray<string | undefined>): Rendered {
  const { blocks, ...rest } = laidOut;
  const pieces: string[] = [];
  const files = laidOut.files.map((file, i) => {
    const version = versions[i];
    pieces.push(blocks[i].head, version ? ` @${version}` : "", blocks[i].body);
    return version ? { ...file, version } : file;
  });
  return { ...rest, pieces, files };
}

function stopNotes(
  result: SearchResult,
  shown: { files: ReadonlyArray<{ path: string; invalid_utf8?: boolean }>; matchedLines: number },
  stopped: string | undefined,
  args: GrepArgs,
): string[] {
  // (The note on how the search stopped, and how to go on, comes last: the answer ends with it.)
  const stop: string[] = [];
  const notes: string[] = [];
  const where = `${shown.matchedLines} matching ${
    shown.matchedLines === 1 ? "line" : "lines"
  } in ${shown.files.length} ${shown.files.length === 1 ? "file" : "files"}`;
  const notSearched = result.filesNotSearched;
  const left =
    (notSearched > 0
      ? `; ${notSearched} ${notSearched === 1 ? "file" : "files"} not searched`
      : "") + (result.walkUnfinished ? "; the rest of the tree was not walked" : "");
  // (Only context rows may have been cut: then every match is shown, and the note says so.)
  const hiddenMatches = result.matchedLines > shown.matchedLines ||
    result.stopped === "max_matches";
  if (stopped === "output_budget" && hiddenMatches) {
    stop.push(
      `output budget reached: showing ${where}; more matches exist: continue with offset=${
        args.offset + shown.matchedLines
      }, or narrow the search`,
    );
  } else if (stopped === "output_budget") {
    stop.push(
      `output budget reached: showing ${
        args.offset > 0 ? "the last" : "all"
      } ${where}, but some of their context lines are cut. Ask for less context, or read the lines with read`,
    );
  } else if (stopped === "max_matches") {
    stop.push(
      `stopped at max_matches=${args.max_matches}: showing ${where}; more matches exist${left}. Continue with offset=${
        args.offset + shown.matchedLines
      }, or narrow the search`,
    );
  } else if (stopped === "time" && result.neverStarted) {
    stop.push(
      "stopped by the time budget before the search could start: other searches had the server's turns. Try again, or narrow the search with path or glob",
    );
  } else if (stopped === "time" && result.patternStopped) {
    stop.push(
      `stopped by the time budget: the pattern was still matching (lookarounds, backreferences or a very large pattern run where they can be stopped); showing ${where} from the ${result.filesSearched} ${
        result.filesSearched === 1 ? "file" : "files"
      } searched to the end${left}. Simplify the pattern, or narrow the search with path or glob`,
    );
  } else if (stopped === "time") {
    stop.push(
      `stopped by the time budget: showing ${where}${left}. Narrow the search with path or glob`,
    );
  }
  const invalid = shown.files.filter((f) => f.invalid_utf8).map((f) => f.path);
  if (invalid.length > 0) {
    notes.push(
      `not valid UTF-8 (shown with U+FFFD; edit tools refuse them): ${invalid.join(", ")}`,
    );
  }
  if (result.binaryFilesSkipped > 0) {
    notes.push(
      `${result.binaryFilesSkipped} binary ${
        result.binaryFilesSkipped === 1 ? "file" : "files"
      } skipped`,
    );
  }
  const unreadable = unreadableNote(result.unreadable ?? 0);
  if (unreadable) notes.push(unreadable);
  const skipped = args.include_ignored ? undefined : skippedNote(result.skipped, "searches them");
  if (skipped) notes.push(skipped);
  notes.push(...leftOutNotes(result.skipped));
  return [...notes, ...stop];
}
