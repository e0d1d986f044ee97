/**
 * The FileStore contract: everything the tools need from a file system, and nothing more.
 * Paths given to a store are the user's paths (relative to the first root, or absolute
 * inside a root); paths a store returns are display paths (relative to the first root,
 * absolute when in another root), always with `/` separators.
 *
 * Every method refuses, with a {@linkcode StoreError} subclass, a path outside the roots
 * or matched by a deny rule (the same refusal whether or not the file exists), and never
 * opens a directory, FIFO, socket or device as a file.
 *
 * @module
 */
import type { LinePiece, Matcher, ScanRow } from "../core/mod.ts";

/** What kind of thing a path names. Symlinks are reported as what they point to. */
export type EntryKind = "file" | "directory" | "other";

/** What {@linkcode FileStore.stat} reports. */
export interface FileInfo {
  /** Display path. */
  path: string;
  /** Kind of the resolved target. */
  kind: EntryKind;
  /** Size in bytes. */
  size: number;
  /** Modification time in milliseconds since the epoch. */
  mtimeMs: number;
  /**
   * A token that is the same only while the file's content is: set by a store that can
   * promise that (the directory store from device, inode, size and times, for a file whose
   * status has not changed for a second, since a change within the timestamp granularity
   * could otherwise go unseen), so that a caller may keep what it read under it.
   */
  identity?: string;
}

/** One entry of {@linkcode FileStore.list}. */
export interface ListEntry {
  /** Display path. */
  path: string;
  /** Kind of the entry (a symlink to a directory is a "directory", but is not descended into). */
  kind: EntryKind;
  /** Size in bytes (0 for directories). */
  size: number;
}

/** A whole file decoded as UTF-8 (the BOM, if any, kept as U+FEFF at the start). */
export interface TextFile {
  /** Display path. */
  path: string;
  /** The decoded text; invalid bytes are U+FFFD. */
  text: string;
  /** True when the bytes were not valid UTF-8. */
  invalidUtf8: boolean;
  /** Size in bytes. */
  size: number;
}

/** Which lines {@linkcode FileStore.readLines} should return. */
export interface LineRangeOptions {
  /** First line, 1-based. */
  start: number;
  /** Last line wanted, inclusive; omitted: to the end. */
  end?: number;
  /** Return at most this many lines. */
  maxLines: number;
  /**
   * Stop after the line that brings the returned text past this many characters, counting
   * each line as at most `cut + 1` characters (longer lines are cut when formatted); at
   * least one line is always returned when one exists.
   */
  maxChars: number;
  /** The long-line cut, in code points. */
  cut: number;
  /**
   * The column (1-based) from which a line is wanted when it is cut: a store that returns
   * only part of a very long line (see {@linkcode LineRange.pieces}) keeps its code points
   * from here.
   * @default 1
   */
  column?: number;
}

/** Lines read from a file, without reading more of it than needed. */
export interface LineRange {
  /** Display path. */
  path: string;
  /** The lines verbatim (terminators kept), from `start`; line 1 never contains the BOM. */
  lines: string[];
  /** Number of the first line returned (the requested start). */
  start: number;
  /** The file's line count when known (always known when the end of file was reached). */
  total?: number;
  /** True when lines exist after the last one returned and at or before the requested end. */
  more: boolean;
  /** True when the bytes read were not valid UTF-8 (shown as U+FFFD). */
  invalidUtf8: boolean;
  /**
   * Lines too long to hold that are returned only in part: for each, its index in `lines`,
   * where that part starts, the line's length and its terminator (`lines[index]` holds at
   * least `cut + 1` code points from `column`, or up to the line's end, and then its
   * terminator). A store may return any line whole instead.
   */
  pieces?: Array<{ index: number } & LinePiece>;
}

/** Options of {@linkcode FileStore.list}. */
export interface ListOptions {
  /** How many levels (1: the directory's own entries); default 1. */
  depth?: number;
  /** Include hidden and .gitignore'd entries; default false. */
  includeIgnored?: boolean;
  /** Told of each directory that could not be read (it is skipped). */
  onUnreadable?: (display: string) => void;
  /**
   * Told of each entry left out as hidden or .gitignore'd (a directory once), and of each
   * symlink left out as one that cannot be followed (`links`).
   */
  onSkipped?: (display: string, why: SkipReason) => void;
}

/** Which files a walk covers (grep, glob). */
export interface WalkOptions {
  /** File or directory to walk; default ".". */
  path?: string;
  /**
   * ripgrep/.gitignore-style glob: without `/` it matches a file name at any depth, with
   * `/` the path relative to `path`. Several: ripgrep's `-g` rules (`!` excludes, a later one
   * overrides; see `compileGlob`).
   */
  glob?: string | readonly string[];
  /**
   * Let `glob` decide before the .gitignore rules and hidden names, as ripgrep's `-g` does
   * (the command line's): a file a glob takes is searched even when ignored or hidden, a
   * directory a glob takes is entered (`.git/` still never), and a glob with a `/` matches
   * the path from the root, not from `path`. Default false: the globs pick among the files
   * the rules leave, as the tools' do.
   */
  globsFirst?: boolean;
  /**
   * Globs of file types asked for (ripgrep's `-t`, the command line's): a hidden file one of
   * them takes is searched all the same (see `WalkFilesOptions.revealTypes`); `glob` picks the
   * files.
   */
  revealTypes?: readonly string[];
  /**
   * Globs of file types left out (ripgrep's `-T`, the command line's): files they match are
   * not walked, directories of such names are (see `WalkFilesOptions.hideTypes`).
   */
  hideTypes?: readonly string[];
  /**
   * Globs of file types asked for beside `glob`s that decide first and only leave files out
   * (ripgrep's `-t` beside `-g '!…'`, the command line's): a file must match one of them too.
   */
  onlyTypes?: readonly string[];
  /**
   * How many directories deep below `path` a file may lie (ripgrep's `--max-depth`, the
   * command line's): 1 for its own files, 0 for none.
   */
  maxDepth?: number;
  /**
   * The largest file walked, in bytes (ripgrep's `--max-filesize`, the command line's); a
   * file given as `path` is searched whatever its size.
   */
  maxFileSize?: number;
  /** Include hidden and .gitignore'd files (`.git/` is always skipped). */
  includeIgnored?: boolean;
  /** Include hidden files alone (ripgrep's `--hidden`); default `includeIgnored`. */
  includeHidden?: boolean;
  /** Include .gitignore'd files alone (ripgrep's `--no-ignore`); default `includeIgnored`. */
  includeGitignored?: boolean;
  /**
   * Told of each directory (and, in a search, each file) that could not be read: a walk
   * skips it and goes on with the rest.
   */
  onUnreadable?: (display: string) => void;
  /**
   * Told of each entry left out as hidden or .gitignore'd (a directory once, not what is
   * in it; never `.git`), and of each symlink that cannot be followed. Walks of `glob` tell
   * of them; a search counts them in `SearchResult.skipped` instead.
   */
  onSkipped?: (display: string, why: SkipReason) => void;
}

/**
 * The longest line a search without a `rowCut` gives whole (256 MiB); a longer one is passed
 * over as it is read, and its row is a part of it (`ScanRow.piece`).
 */
export const WHOLE_LINE_BYTES = 256 * 1024 * 1024;

/** A search over files: {@linkcode WalkOptions} plus what to look for and when to stop. */
export interface SearchQuery extends WalkOptions {
  /** The matcher from the core (literal, RegExp, or an injected engine). */
  matcher: Matcher;
  /** Context lines before and after each match; default 0. */
  context?: number;
  /** Stop after this many matching lines; default 200. */
  maxMatches?: number;
  /**
   * Take at most this many matching lines from each file (ripgrep's `-m`, the command line's):
   * a file's scan stops once the context after its last one is taken. A match within that
   * context is given as it is (as ripgrep 13 shows it) but not counted. Omit for no limit.
   */
  maxMatchesPerFile?: number;
  /**
   * Only how many lines of each file match is wanted (`FileMatches.matchedLines`): a store
   * may leave the rows out, and need not hold the lines' text meanwhile. Context and
   * `maxChars` then do not apply.
   */
  countOnly?: boolean;
  /**
   * Characters of matching rows that an answer can show (a row counted as at most `rowCut`
   * characters): once the rows found hold more, the search takes one matching line more,
   * which no answer within that budget shows, and stops as at `maxMatches`. Omit to search on.
   */
  maxChars?: number;
  /** Stop with `stopped: "time"` at this `Date.now()` value. */
  deadline?: number;
  /**
   * The cut rows will be shown with (`formatRow`): a store may then give, for a line much
   * longer, only the part shown, as a `piece` (the search thread does, so as not to copy
   * megabytes of minified lines between threads). Omit to get whole lines, each up to
   * {@linkcode WHOLE_LINE_BYTES}: a longer one's row is still a `piece` of it.
   */
  rowCut?: number;
  /**
   * Files whose digest the result should carry with their identity (`FileMatches.sha1` and
   * `identity`), when the store can read them cheaply: the first `files` files with a
   * matching line past the first `afterMatches` matching lines, of at most `maxBytes`. A
   * store may leave any of them without.
   */
  digests?: { afterMatches: number; files: number; maxBytes: number };
  /** Abort: the search rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Called now and then with the number of files searched so far. */
  onProgress?: (filesSearched: number, filesTotal?: number) => void;
  /**
   * Given each file's matches as the search finishes it, in path order, instead of in the
   * result's `files` (its counts still count them): a caller may show them while the search
   * goes on, and need not hold them all. A store may leave it uncalled and give them in
   * `files`, as the directory store's search thread does.
   */
  onFile?: (file: FileMatches) => void;
  /**
   * With `onFile`: given a file's rows as each chunk of it is scanned, with the lines of it
   * scanned so far, before the file is done; its matches for `onFile` then hold only the rows
   * found after. A file of millions of matching lines (a log) need not be held whole. A store
   * may give a file's rows at once, or leave it uncalled, as `onFile`.
   */
  onRows?: (path: string, rows: ScanRow[], linesScanned: number) => void;
  /**
   * Told of each text file the search went through without a match, in path order (not of
   * a binary file, one it could not read, or one left unsearched once it stopped), as
   * ripgrep's `--files-without-match` lists them. A store may leave it uncalled, as the
   * directory store's search thread does.
   */
  onNoMatch?: (path: string) => void;
}

/** How many entries a walk left out, by why. */
export interface SkippedEntries {
  /** Hidden names (and hidden directories, once each). */
  hidden: number;
  /** What `.gitignore` files exclude (a directory once). */
  ignored: number;
  /**
   * Symlinks that cannot be followed: they lead outside the roots, nowhere, or to a path
   * no tool shows (one counted here says nothing of which). A store without symlinks may
   * leave it out.
   */
  links?: number;
  /**
   * FIFOs, sockets and devices a search or glob passed over: they hold no text to read (a
   * listing shows them). A store without them may leave it out.
   */
  special?: number;
}

/** Why a walk left an entry out. */
export type SkipReason = keyof SkippedEntries;

/** Nothing left out yet. */
export function noneSkipped(): SkippedEntries {
  return { hidden: 0, ignored: 0, links: 0, special: 0 };
}

/** Counts what a walk leaves out, as a `WalkOptions.onSkipped` callback fills it. */
export function skippedCounter(): {
  counts: SkippedEntries;
  count: (display: string, why: SkipReason) => void;
} {
  const counts = noneSkipped();
  return { counts, count: (_display, why) => void counts[why]++ };
}

/** The matches of one file. */
export interface FileMatches {
  /** Display path. */
  path: string;
  /** Matching and context rows in line order. */
  rows: ScanRow[];
  /** True when the file was not valid UTF-8 (shown as U+FFFD). */
  invalidUtf8: boolean;
  /**
   * How many of its lines matched, when the rows were left out (`SearchQuery.countOnly`);
   * otherwise the rows with a `match` tell it.
   */
  matchedLines?: number;
  /**
   * The SHA-1 (hex) of the file's bytes the rows were found in, when the store knows it
   * without reading the file again (a directory store's search index read it whole, and the
   * search found it as it was then), or read it again for `SearchQuery.digests`.
   */
  sha1?: string;
  /**
   * With `sha1`, the file's identity (as `FileInfo.identity`) when the bytes of that digest
   * were read: the version of the digest belongs to that identity.
   */
  identity?: string;
}

/** What {@linkcode FileStore.search} found. */
export interface SearchResult {
  /** Files with matches, in path order. */
  files: FileMatches[];
  /** Matching lines reported (context rows not counted). */
  matchedLines: number;
  /** Files read and scanned. */
  filesSearched: number;
  /** Files skipped because they are binary (NUL in the first 8 KiB). */
  binaryFilesSkipped: number;
  /** Why the search stopped early, if it did. */
  stopped?: "max_matches" | "time";
  /** Files the walk found that were not searched because the search stopped. */
  filesNotSearched: number;
  /** Directories and files that could not be read, skipped (0 when omitted). */
  unreadable?: number;
  /**
   * Entries the walk left out as hidden or .gitignore'd (a directory once), and symlinks it
   * could not follow, when the store counts them (omitted when it does not).
   */
  skipped?: SkippedEntries;
  /**
   * True when the pattern itself was stopped at the deadline (one that may run without end,
   * scanned where it can be stopped): `stopped` is then "time".
   */
  patternStopped?: boolean;
  /**
   * True when the time budget ran out before the search could start, while other searches
   * had their turn (`stopped` is then "time", and nothing was searched).
   */
  neverStarted?: boolean;
  /**
   * True when the time budget ran out during the walk: files beyond those counted in
   * `filesNotSearched` were not even found (`stopped` is then "time").
   */
  walkUnfinished?: boolean;
}

/** An edit computed from a file's current text: the new text (omit to write nothing) and a value to return. */
export interface EditOutcome<T> {
  /** The whole new text, or undefined to leave the file as it is (dry runs, no-ops). */
  text?: string;
  /** Returned by {@linkcode FileStore.update}. */
  value: T;
}

/** Options of {@linkcode FileStore.write}. */
export interface WriteOptions {
  /** Replace an existing file (keeping its mode); default false. */
  overwrite?: boolean;
  /**
   * The file's execute bits, as git's modes give them (what `patch` applies): true sets them
   * where the mode has read bits (100755; a new file gets 0o777 less the umask), false clears
   * them (100644). Default: a new file gets 0o666 less the umask, a replaced one keeps its
   * mode. A store without modes (the memory store) ignores it.
   */
  executable?: boolean;
  /**
   * Aborted before the new content is put in place: nothing is written, and the call
   * rejects with the signal's reason. Once the content is in place the write is done.
   */
  signal?: AbortSignal;
}

/** Options of {@linkcode FileStore.update}. */
export interface UpdateOptions {
  /**
   * As {@linkcode WriteOptions.executable}, for the file written; with it, an edit that
   * leaves the text as it is writes it again, to change the mode.
   */
  executable?: boolean;

  /** Largest file read whole; default the store's edit cap. */
  maxBytes?: number;
  /** As for {@linkcode WriteOptions.signal}. */
  signal?: AbortSignal;
}

/** Options of {@linkcode FileStore.delete}. */
export interface DeleteOptions {
  /**
   * The text the file must have for the delete to go ahead (read under its lock, up to the
   * store's edit cap); a file with other text, or binary or invalid UTF-8, is kept.
   */
  expected?: string;
  /** Largest file read for `expected`; default the store's edit cap. */
  maxBytes?: number;
  /** Aborted before the file is removed: nothing is removed. */
  signal?: AbortSignal;
}

/** Options of {@linkcode FileStore.move}. */
export interface MoveOptions {
  /** Replace an existing file at `to`; default false. */
  overwrite?: boolean;
  /** Aborted before the rename: nothing is moved. */
  signal?: AbortSignal;
}

/** What {@linkcode FileStore.move} did. */
export interface MoveResult {
  /** Display path it had. */
  from: string;
  /** Display path it has now. */
  to: string;
  /** What was moved. */
  kind: "file" | "directory";
}

/** What {@linkcode FileStore.write} did. */
export interface WriteResult {
  /** Display path of the file written. */
  path: string;
  /** True when the file did not exist before. */
  created: boolean;
}

/** The file access every tool is built on. */
export interface FileStore {
  /**
   * True when searches take turns of their own (a few run at once, the others wait in
   * order, each within its deadline), so that a caller need not bound how many it starts.
   */
  readonly searchesTakeTurns?: boolean;
  /** Kind, size and mtime of a path. */
  stat(path: string): Promise<FileInfo>;
  /**
   * A whole file's bytes. Refuses directories and other non-files ({@linkcode NotAFileError})
   * and, when `maxBytes` is given, larger files ({@linkcode FileTooLargeError}).
   */
  readBytes(path: string, options?: { maxBytes?: number }): Promise<Uint8Array>;
  /**
   * A whole file as text. Refuses binary files ({@linkcode BinaryFileError}, with the size)
   * and files over `maxBytes` ({@linkcode FileTooLargeError}).
   */
  readText(path: string, options?: { maxBytes?: number }): Promise<TextFile>;
  /** Lines of a file of any size, reading no more of it than the range and budget need. */
  readLines(path: string, options: LineRangeOptions): Promise<LineRange>;
  /**
   * Entries under a directory to `depth` levels (default 1), by the walk rules (hidden and
   * .gitignore'd entries only with `includeIgnored`; `.git` never; symlinked directories
   * listed but not entered): at each level directories first, then the rest, each by name,
   * a directory's entries right after it.
   */
  list(path: string, options?: ListOptions): Promise<ListEntry[]>;
  /** Files under `options.path` matching `options.glob`, in path order (as `search`). */
  glob(options: WalkOptions): Promise<string[]>;
  /**
   * Proposes the files a search should read: every file the walk of `query` (path, glob,
   * includeIgnored, deny rules) would visit, and possibly more, never fewer. `search`
   * filters the candidates again, so an index-backed store may use `query.matcher`'s
   * `requiredLiteral` as a hint. Display paths, in any order.
   */
  findMatchingFiles(query: SearchQuery): Promise<string[]>;
  /**
   * Searches files line by line with the core scanner; numbers match `readLines`. Files in
   * path order (segment by segment, each by UTF-16 code units); binary files skipped and
   * counted; at most `maxMatches` matching lines, with `stopped: "max_matches"` only when
   * another matching line exists.
   */
  search(query: SearchQuery): Promise<SearchResult>;
  /**
   * Creates a file (and missing parent directories) with exactly `text`, atomically.
   * Refuses an existing file unless `overwrite` ({@linkcode FileExistsError}).
   */
  write(path: string, text: string, options?: WriteOptions): Promise<WriteResult>;
  /**
   * Reads a text file, computes an edit with `edit` (given the text, the file's display path
   * and the bytes read, which it must not change; it may take its time, holding the file's
   * lock), and writes the result atomically.
   * Calls for one file are serialised; a file changed on disk meanwhile is never silently
   * overwritten. Refuses binary files, invalid UTF-8 ({@linkcode InvalidUtf8Error}) and files
   * over `maxBytes`. Keeps the file mode; writing through an in-root symlink writes its target.
   */
  update<T>(
    path: string,
    edit: (
      text: string,
      display: string,
      bytes: Uint8Array,
    ) => EditOutcome<T> | Promise<EditOutcome<T>>,
    options?: UpdateOptions,
  ): Promise<T>;
  /**
   * Deletes a file (never a directory) and returns its display path. With `expected`, only
   * while its whole text is that, checked under the file's lock as {@linkcode update} checks
   * (for a symlink, its target's text): otherwise nothing is deleted
   * ({@linkcode FileChangedError}).
   */
  delete(path: string, options?: DeleteOptions): Promise<string>;
  /**
   * Renames a file or directory (a symlink itself, as `mv` does) within the roots; both
   * names must pass the roots and deny rules. An existing `to` is refused
   * ({@linkcode FileExistsError}) unless `overwrite`, which replaces a file, never a
   * directory. Missing parent directories of `to` are created.
   */
  move(from: string, to: string, options?: MoveOptions): Promise<MoveResult>;
}
