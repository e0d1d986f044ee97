/**
 * The walk behind grep, glob and list (SPEC §3 "Walks"): sorted, one directory at a time,
 * honouring `.gitignore` files (nested ones too, with or without a `.git` directory; and where
 * the store reads them as ripgrep does, `.ignore` and `.rgignore`: `WalkSource.ripgrepIgnores`),
 * skipping hidden names unless `includeIgnored`, always skipping `.git`, and never
 * descending into a symlinked directory. It works on any store through
 * {@linkcode WalkSource}; deny rules are the source's job (it never lists a denied entry).
 *
 * @module
 */
import { setImmediate } from "node:timers";
import { boundedTest } from "../match/bounded_matcher.ts";
import { globToRegex } from "../match/glob_regex.ts";
import { InputError } from "../core/mod.ts";
import { type IgnoreRank, IgnoreRules } from "./_ignore_rules.ts";
export type { IgnoreRank } from "./_ignore_rules.ts";
import { joinDisplay, segments } from "./_paths.ts";
import { StoreError } from "./errors.ts";
import type { EntryKind, SkipReason } from "./file_store.ts";

/** One entry of one directory, as a {@linkcode WalkSource} lists it. */
export interface DirEntry {
  /** The entry's name (no separators). */
  name: string;
  /** What it is; a symlink is reported as what it points to. */
  kind: EntryKind;
  /** Size in bytes (0 for directories). */
  size: number;
  /** True when the entry is a symlink (a symlinked directory is listed but never entered). */
  symlink: boolean;
  /** The store's key for the entry when it is not `child(dir, name).key` (a symlink's real target). */
  key?: string;
  /**
   * True for a symlink the listing left out (see {@linkcode addLeftOutLinks}): where the walk
   * would show it, it is counted as left out instead.
   */
  leftOut?: true;
}

/** A place in a store: the store's own key for it and its display path. */
export interface WalkNode {
  /** Whatever the store uses to find it again (for the directory store, the absolute path). */
  key: string;
  /** The display path. */
  display: string;
}

/** An ignore file outside a root (see {@linkcode WalkSource.outerIgnoreFiles}). */
export interface OuterIgnoreFile {
  /**
   * The root's path from the file's directory (`sub/dir/`); undefined for a file that applies
   * as if it were in the root (git's global excludes file, whose rules ripgrep anchors where it
   * runs).
   */
  prefix?: string;
  /** The file's text. */
  text: string;
  /** How far its rules outweigh others' (git's, 0, unless said). */
  rank?: IgnoreRank;
  /** Whether it holds across the top of a repository inside the tree (the global file). */
  everywhere?: boolean;
}

/** What a walk needs from a store. */
export interface WalkSource {
  /**
   * The entries of one directory, in any order, without denied entries and without
   * symlinks that lead outside the roots, to denied paths, or nowhere. Sizes of files may be
   * left 0 unless `sizes` is set (a stat per file costs). Where `links` is given, every
   * symlink the directory holds is added to it (a store without symlinks adds none).
   */
  listDirectory(
    dir: WalkNode,
    options: { sizes: boolean; links?: LinkLead[] },
  ): Promise<DirEntry[]>;
  /** The node of an entry of `dir`. */
  child(dir: WalkNode, name: string): WalkNode;
  /**
   * The text of the `.gitignore` (or of `name`) in `dir`, or undefined when there is none; a
   * symlink is read through when it leads to a file within the roots, as a walk follows one.
   */
  readIgnoreFile(dir: WalkNode, name?: string): Promise<IgnoreFileText | undefined>;
  /** The directories from the top of the node's root down to its parent, outermost first. */
  ancestors(node: WalkNode): WalkNode[];
  /**
   * The `.gitignore` files above the node's root that apply to it, outermost first: each
   * file's text, and the root's path from that file's directory (`sub/dir/`). Only where the
   * store reads them (the command line, as ripgrep does, up to the repository).
   */
  outerIgnoreFiles?(node: WalkNode): OuterIgnoreFile[];
  /**
   * Where the store reads ignore files as ripgrep does (the command line): the files it reads
   * beside `.gitignore` in each directory and in every directory above the root
   * (`outerIgnoreFiles` gives those), with their ranks (ripgrep's `.rgignore` and `.ignore`),
   * and a `!` rule of any ignore file then takes back a hidden name too. Undefined elsewhere:
   * the walks of SPEC §3.
   */
  ripgrepIgnores?: ReadonlyArray<{ name: string; rank: IgnoreRank }>;
  /**
   * Whether a directory is the top of a repository whose rules stand alone, where the store
   * reads repositories as ripgrep does (the command line): the rules from above it stop there,
   * and its `info/exclude` (the text, if any) applies from it. Undefined elsewhere.
   */
  repositoryAt?(dir: WalkNode): { exclude: string | undefined } | undefined;
}

/** An ignore file as {@linkcode WalkSource.readIgnoreFile} read it. */
export interface IgnoreFileText {
  /** Its text. */
  text: string;
  /**
   * Whether it may change with no change heard of it by its name: read through a symlink (its
   * target may change with no change to `dir`), or (a directory store's) a file with other
   * names, which a write through one of those changes.
   */
  linked: boolean;
}

/** What a walk tells of each directory it listed ({@linkcode WalkFilesOptions.onDirectory}). */
export interface ListedDirectory {
  /** Whether its own `.gitignore` was read. */
  ignoreFile: boolean;
  /**
   * Whether an ignore file the walk read there was a symlink (for the start, one in a directory
   * above it too): the file it leads to may change with no change to the directories listed.
   */
  linkedIgnoreFile: boolean;
  /**
   * The symlinks it holds, each with where it led for the walk: what the walk shows of one
   * depends on where it leads, which may lie in a directory the walk did not list.
   */
  links: readonly LinkLead[];
}

/** A symlink a listing held ({@linkcode WalkSource.listDirectory}'s `links`). */
export interface LinkLead {
  /** Its name in the directory. */
  name: string;
  /**
   * The kind and real path of what it led to (`file:/root/a/b`), or empty when the listing
   * left it out (it led outside the roots, nowhere, or to a denied path).
   */
  lead: string;
}

/** Options of {@linkcode walkFiles}. */
export interface WalkFilesOptions {
  /** Globs the files must match (see {@linkcode compileGlob}); all files when omitted. */
  glob?: string | readonly string[];
  /**
   * Let the globs decide before the ignore rules and hidden names, as ripgrep's `-g` does: a
   * file a glob takes is walked even when ignored or hidden, a directory a glob takes is
   * entered (`.git` still never; see {@linkcode compileGlobsFirst}), and a glob with a `/`
   * matches the path from the root, as printed, not from the start. Otherwise the globs pick
   * among the files the rules leave, matched from the start.
   * @default false
   */
  globsFirst?: boolean;
  /**
   * Globs of file types asked for (ripgrep's `-t`): a hidden file one of them takes is walked
   * all the same, as ripgrep walks the files of a type asked for (a hidden directory is still
   * passed over, and the ignore rules still hold). Which files the types keep is `glob`'s
   * business.
   */
  revealTypes?: readonly string[];
  /**
   * Globs of file types left out (ripgrep's `-T`): files they match are not walked, and
   * directories of such names are (`-T sh` still walks a `profile/`).
   */
  hideTypes?: readonly string[];
  /**
   * Globs of file types asked for beside globs that decide first and only leave files out
   * (ripgrep's `-t` beside `-g '!…'`): a file must match one of them too.
   */
  onlyTypes?: readonly string[];
  /**
   * How many directories deep below the start a file may lie (ripgrep's `--max-depth`): 1
   * for the start's own files, 0 for none. Deeper directories are not listed.
   */
  maxDepth?: number;
  /**
   * The largest file walked, in bytes (ripgrep's `--max-filesize`): a larger one is passed
   * over. The walk then lists each directory with its files' sizes (a stat per file).
   */
  maxFileSize?: number;
  /**
   * Include hidden and .gitignore'd files (`.git` is skipped all the same).
   * @default false
   */
  includeIgnored?: boolean;
  /**
   * Include hidden files and directories (ripgrep's `--hidden`).
   * @default includeIgnored
   */
  includeHidden?: boolean;
  /**
   * Include what `.gitignore` files exclude (ripgrep's `--no-ignore`).
   * @default includeIgnored
   */
  includeGitignored?: boolean;
  /** Told of each directory the walk could not open (unreadable, a name too long, ...). */
  onUnreadable?: (display: string) => void;
  /**
   * Told of each entry the walk leaves out as hidden or as .gitignore'd (a directory once,
   * not its contents; `.git` is not told of), and of each symlink it cannot follow (`links`),
   * with its key (a symlink's own, not its target's).
   */
  onSkipped?: (display: string, why: SkipReason, key: string) => void;
  /**
   * Told of each directory listed (the start too), and of the ignore files read there: what
   * the walk's files depend on.
   */
  onDirectory?: (dir: WalkNode, listed: ListedDirectory) => void;
}

/** One entry found by {@linkcode walkEntries}. */
export interface WalkEntry extends WalkNode {
  /** What it is. */
  kind: EntryKind;
  /** Size in bytes (0 for directories). */
  size: number;
  /** 1 for the start directory's own entries, 2 for theirs, and so on. */
  depth: number;
}

/**
 * Compiles ripgrep/.gitignore-style globs: a pattern without `/` matches a file name at any
 * depth (`*.ts`); a pattern with `/` matches the path relative to the walk's start
 * (`src/**\/*.ts`; a leading `/` or `./` anchors it there too). Hidden names match like
 * any other (whether they are walked at all is `includeIgnored`'s business). As ripgrep's
 * `-g`: a glob that starts with `!` excludes what it matches, and the files under a directory
 * it matches (`!node_modules`), a later glob overrides an earlier one, and when there is a
 * glob without `!`, a path must match one.
 *
 * @param globs the glob, or several
 * @returns a test on paths relative to the walk's start
 * @throws {InputError} when a pattern is empty or not a string
 * @example
 * ```ts
 * import { compileGlob } from "./walk.ts";
 * import assert from "node:assert/strict";
 * assert.equal(compileGlob("*.ts")("src/a/b.ts"), true);
 * assert.equal(compileGlob("src/*.ts")("src/a/b.ts"), false);
 * assert.equal(compileGlob(["*.ts", "!*.d.ts"])("src/a.d.ts"), false);
 * assert.equal(compileGlob("!*.min.js")("a.js"), true);
 * assert.equal(compileGlob("!node_modules")("node_modules/p/index.js"), false);
 * ```
 */
export function compileGlob(globs: string | readonly string[]): (relative: string) => boolean {
  const tests = globTests(globs);
  if (tests.length === 1 && !tests[0].negated && !tests[0].dirOnly) return tests[0].match;
  const someIncluded = tests.some((test) => !test.negated);
  const excludes = lastExcludes(tests);
  // A directory that a glob excludes takes its files with it, as ripgrep prunes it; files come
  // a directory at a time, so the last one's answer is kept.
  let lastDir = "";
  let lastDirExcluded = false;
  const dirExcluded = (dir: string) => {
    if (dir !== lastDir) {
      lastDir = dir;
      lastDirExcluded = false;
      for (let at = dir.indexOf("/"); !lastDirExcluded; at = dir.indexOf("/", at + 1)) {
        lastDirExcluded = excludes(at === -1 ? dir : dir.slice(0, at), true) === true;
        if (at === -1) break;
      }
    }
    return lastDirExcluded;
  };
  return (relative) => {
    const slash = relative.lastIndexOf("/");
    if (slash !== -1 && dirExcluded(relative.slice(0, slash))) return false;
    const excluded = excludes(relative, false);
    return excluded === undefined ? !someIncluded : !excluded;
  };
}

/** Each glob of a list: whether it excludes (`!`), matches directories only (`dir/`), and its test. */
function globTests(
  globs: string | readonly string[],
): Array<{ negated: boolean; dirOnly: boolean; match: (path: string) => boolean }> {
  const list = typeof globs === "string" ? [globs] : globs;
  if (!Array.isArray(list) || list.length === 0) {
    throw new InputError("glob must be a non-empty string or a list of them");
  }
  return list.map((glob) => {
    const negated = typeof glob === "string" && glob.startsWith("!");
    const pattern = negated ? glob.slice(1) : glob;
    // (As in .gitignore, a trailing `/` makes a pattern match directories only.)
    const dirOnly = typeof pattern === "string" && pattern.length > 1 && pattern.endsWith("/");
    return { negated, dirOnly, match: compileOneGlob(dirOnly ? pattern.slice(0, -1) : pattern) };
  });
}

/** Whether the last glob that matches a path excludes it (undefined: none matches). */
function lastExcludes(
  tests: ReturnType<typeof globTests>,
): (path: string, dir: boolean) => boolean | undefined {
  return (path, dir) => {
    for (let i = tests.length - 1; i >= 0; i--) {
      if ((dir || !tests[i].dirOnly) && tests[i].match(path)) return tests[i].negated;
    }
    return undefined;
  };
}

/**
 * What globs say of an entry where they decide first (`WalkFilesOptions.globsFirst`), as
 * ripgrep's `-g` overrides: the last glob that matches takes the entry (true) or leaves it out
 * (false, `!`); a file none matches is left out when some glob takes files, and otherwise,
 * as a directory none matches, left to the ignore rules (undefined).
 *
 * @param globs the glob, or several (as {@linkcode compileGlob} takes them)
 * @returns a test on paths relative to the root
 * @example
 * ```ts
 * import { compileGlobsFirst } from "./walk.ts";
 * import assert from "node:assert/strict";
 * const decide = compileGlobsFirst(["*.log", "!old.log"]);
 * assert.equal(decide("logs/a.log", false), true);
 * assert.equal(decide("old.log", false), false);
 * assert.equal(decide("a.txt", false), false);
 * assert.equal(decide("logs", true), undefined);
 * ```
 */
export function compileGlobsFirst(
  globs: string | readonly string[],
): (relative: string, dir: boolean) => boolean | undefined {
  const tests = globTests(globs);
  const someIncluded = tests.some((test) => !test.negated);
  const excludes = lastExcludes(tests);
  return (relative, dir) => {
    const excluded = excludes(relative, dir);
    if (excluded !== undefined) return !excluded;
    return someIncluded && !dir ? false : undefined;
  };
}

function compileOneGlob(pattern: string): (relative: string) => boolean {
  if (typeof pattern !== "string" || pattern === "") {
    throw new InputError("glob must be a non-empty string");
  }
  let body = pattern.replaceAll("\\", "/");
  const anchored = body.startsWith("/") || body.startsWith("./");
  body = body.replace(/^(?:\.?\/)+/, "");
  if (body === "") throw new InputError(`glob ${JSON.stringify(pattern)} matches nothing`);
  const { source, unbounded } = globToRegex(body);
  const match = boundedTest(source, unbounded);
  if (anchored || body.includes("/")) return (relative) => match(relative);
  return (relative) => match(relative.slice(relative.lastIndexOf("/") + 1));
}

/**
 * Longest stretch a walk holds its thread (a directory store lists with blocking system
 * calls, and a walk of a large tree holds it long) before the event loop gets a turn:
 * requests that came meanwhile, a ping, a cancellation, are heard.
 */
const WALK_SLICE_MS = 8;

/** Gives the event loop a turn once the walk has held the thread for a slice. */
class Pace {
  #since = performance.now();

  async turn(): Promise<void> {
    if (performance.now() - this.#since < WALK_SLICE_MS) return;
    await new Promise((resolve) => setImmediate(resolve));
    this.#since = performance.now();
  }
}

/** Store errors that make a walk skip a directory instead of failing (it raced away, or is unreadable). */
const SKIPPABLE = new Set([
  "not_found",
  "permission",
  "not_a_directory",
  "outside_root",
  "denied",
  "raced",
  "invalid_path",
]);
/** Of those, a directory that is gone or is no directory any more is not counted as unreadable. */
const GONE = new Set(["not_found", "not_a_directory"]);

/**
 * Lists a directory met during a walk, or skips it; the start itself was asked for, and
 * fails the walk instead (`onUnreadable` undefined).
 */
async function listOrSkip(
  source: WalkSource,
  dir: WalkNode,
  sizes: boolean,
  onUnreadable: ((display: string) => void) | undefined,
  links?: LinkLead[],
): Promise<DirEntry[]> {
  try {
    return await source.listDirectory(dir, { sizes, links });
  } catch (error) {
    if (onUnreadable === undefined) throw error;
    if (!(error instanceof StoreError) || !SKIPPABLE.has(error.code)) throw error;
    if (!GONE.has(error.code)) onUnreadable?.(dir.display);
    return [];
  }
}

/**
 * The rules in force for a walk starting at `start`: the `.gitignore` files of the start's
 * ancestors (and above its root, where the store reads those). The start itself is walked
 * even when they ignore it (someone asked for `build/` by name, as ripgrep searches a path it
 * is given), and they still hold for what is in it (`*.log`), as ripgrep's do.
 */
async function startRules(
  source: WalkSource,
  start: WalkNode,
  seen?: { linked: boolean },
): Promise<IgnoreRules> {
  let rules = new IgnoreRules();
  const ancestors = source.ancestors(start);
  // (The files above the root, where the store reads them, go first: they are the outermost.)
  const root = ancestors[0] ?? start;
  for (const { prefix, text, rank, everywhere } of source.outerIgnoreFiles?.(start) ?? []) {
    rules = rules.with(root.display, text, prefix, rank, everywhere);
  }
  for (const dir of ancestors) rules = await rulesInside(source, dir, rules, undefined, seen);
  return rules;
}

/** The ignore files of a walk: `.gitignore`, and where the store reads them, ripgrep's. */
const GITIGNORE: ReadonlyArray<{ name: string; rank: IgnoreRank }> = [{
  name: ".gitignore",
  rank: 0,
}];

/** What decides the rules inside a directory: its ignore files, and whether it holds `.git`. */
interface OwnRules {
  files: ReadonlyArray<{ name: string; rank: IgnoreRank }>;
  repository: boolean;
}

/**
 * The ignore files a directory's listing holds (each of the walk's), and whether it holds
 * `.git`; without a listing, each is to be tried, and `.git` asked for.
 */
function ownRules(source: WalkSource, listed?: readonly DirEntry[]): OwnRules {
  const names = source.ripgrepIgnores === undefined
    ? GITIGNORE
    : [...GITIGNORE, ...source.ripgrepIgnores];
  if (listed === undefined) return { files: names, repository: true };
  const files: Array<{ name: string; rank: IgnoreRank }> = [];
  let repository = false;
  for (const { name, kind } of listed) {
    if (name.charCodeAt(0) !== 46) continue; // (every such name starts with a dot)
    if (name === ".git") repository = true;
    else if (kind === "file") {
      const file = names.find((one) => one.name === name);
      if (file !== undefined) files.push(file);
    }
  }
  return { files, repository };
}

/**
 * The rules in force inside a directory, given those around it: at the top of a repository
 * whose rules stand alone, git's from above stop (`WalkSource.repositoryAt`); then its own
 * ignore files apply. `seen.linked` is set when one of them was read through a symlink.
 */
async function rulesInside(
  source: WalkSource,
  dir: WalkNode,
  rules: IgnoreRules,
  { files, repository }: OwnRules = ownRules(source),
  seen?: { linked: boolean },
): Promise<IgnoreRules> {
  if (repository) rules = withinRepository(source, dir, rules);
  for (const { name, rank } of files) {
    const read = await source.readIgnoreFile(dir, name);
    if (read?.linked && seen !== undefined) seen.linked = true;
    rules = rules.with(dir.display, read?.text, undefined, rank);
  }
  return rules;
}

/**
 * Whether a hidden entry is walked all the same: where the store reads ignore files as
 * ripgrep does, a `!` rule that takes it back reveals it (`WalkSource.ripgrepIgnores`).
 */
function revealed(
  source: WalkSource,
  rules: IgnoreRules,
  display: string,
  entry: { name: string; kind: EntryKind },
): boolean {
  return source.ripgrepIgnores !== undefined && entry.name !== ".git" &&
    rules.verdict(display, entry.kind === "directory", entry.name) === false;
}

/**
 * The rules in force in a directory before its own `.gitignore`: at the top of a repository
 * that stands alone (`WalkSource.repositoryAt`), only its exclude file's.
 */
function withinRepository(source: WalkSource, dir: WalkNode, rules: IgnoreRules): IgnoreRules {
  const repository = source.repositoryAt?.(dir);
  return repository === undefined ? rules : rules.atRepository(dir.display, repository.exclude);
}

function childNode(source: WalkSource, dir: WalkNode, entry: DirEntry): WalkNode {
  const node = source.child(dir, entry.name);
  return entry.key === undefined ? node : { key: entry.key, display: node.display };
}

/**
 * Adds the symlinks a listing left out (they lead outside the roots, nowhere, or to a denied
 * path) to its entries, to be judged like files: one it would show is counted as left out
 * (nothing is skipped in silence), after the rules of its name, so that a hidden or ignored
 * one is left out as that.
 */
function addLeftOutLinks(entries: DirEntry[], links: readonly LinkLead[]): void {
  // (Not spread: a directory may hold more than a call takes arguments.)
  for (const { name, lead } of links) {
    if (lead === "") entries.push({ name, kind: "file", size: 0, symlink: true, leftOut: true });
  }
}

function byName(a: DirEntry, b: DirEntry): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

function skipped(entry: DirEntry, includeHidden: boolean): boolean {
  return entry.name === ".git" || (!includeHidden && entry.name.startsWith("."));
}

/**
 * A walk's globs: a filter of the files the rules leave, or, where they decide first
 * (`globsFirst`), what they say of each entry.
 */
function walkGlobs(options: WalkFilesOptions): {
  glob?: (relative: string) => boolean;
  decide?: (relative: string, dir: boolean) => boolean | undefined;
  hidesFile: (relative: string) => boolean;
  ofTypes?: (relative: string) => boolean;
} {
  const types = options.hideTypes;
  const hidesFile = types === undefined || types.length === 0 ? () => false : compileGlob(types);
  const only = options.onlyTypes;
  const files = { hidesFile, ofTypes: only === undefined ? undefined : compileGlob(only) };
  if (options.glob === undefined) return files;
  return options.globsFirst
    ? { ...files, decide: compileGlobsFirst(options.glob) }
    : { ...files, glob: compileGlob(options.glob) };
}

/**
 * What decides which files a walk yields, without its callbacks: what makes two walks the
 * same (`hidden` and `gitignored` as {@linkcode walkShows} tells them).
 */
export function walkRulesOf(options: WalkFilesOptions): WalkFilesOptions {
  const { hidden, gitignored } = walkShows(options);
  return {
    glob: options.glob,
    globsFirst: options.globsFirst,
    revealTypes: options.revealTypes,
    hideTypes: options.hideTypes,
    onlyTypes: options.onlyTypes,
    maxDepth: options.maxDepth,
    maxFileSize: options.maxFileSize,
    includeHidden: hidden,
    includeGitignored: gitignored,
  };
}

/** Whether a hidden file is walked for its type (`WalkFilesOptions.revealTypes`). */
function typesRevealed(options: WalkFilesOptions, hidden: boolean): (relative: string) => boolean {
  const types = options.revealTypes;
  return hidden || types === undefined || types.length === 0 ? () => false : compileGlob(types);
}

/** Whether a walk shows hidden names, and what `.gitignore` files exclude. */
export function walkShows(options: WalkFilesOptions): { hidden: boolean; gitignored: boolean } {
  const all = options.includeIgnored ?? false;
  return { hidden: options.includeHidden ?? all, gitignored: options.includeGitignored ?? all };
}

/**
 * Walks the files under a directory in path order (segment by segment, by UTF-16 code
 * units), applying the walk rules and the glob.
 *
 * @param source the store's directory access
 * @param start the directory to walk (it is walked even if hidden or ignored: it was asked for)
 * @param options glob and whether to include ignored files
 * @returns the files, lazily
 */
export async function* walkFiles(
  source: WalkSource,
  start: WalkNode,
  options: WalkFilesOptions = {},
): AsyncGenerator<WalkNode> {
  for await (const run of walkFileRuns(source, start, options)) yield* run;
}

/**
 * {@linkcode walkFiles} in runs: each run holds the files found between two directory
 * listings, in order. A big tree's walk costs less this way (one promise per directory, not
 * one per file).
 *
 * @param source the store's directory access
 * @param start the directory to walk (it is walked even if hidden or ignored: it was asked for)
 * @param options glob and whether to include ignored files
 * @returns the runs of files, lazily
 */
export async function* walkFileRuns(
  source: WalkSource,
  start: WalkNode,
  options: WalkFilesOptions = {},
): AsyncGenerator<WalkNode[]> {
  const { hidden, gitignored } = walkShows(options);
  const { glob, decide, hidesFile, ofTypes } = walkGlobs(options);
  const ofType = typesRevealed(options, hidden);
  const maxDepth = options.maxDepth ?? Infinity;
  const maxFileSize = options.maxFileSize ?? Infinity;
  const sizes = options.maxFileSize !== undefined;
  // (ripgrep's globs match the path as it prints it: from the root, not the start.)
  const base = decide !== undefined ? "." : start.display;
  const relativeTo = (display: string) => base === "." ? display : display.slice(base.length + 1);
  // (The ignore files above the start count as the start's: its files depend on them.)
  const above = { linked: false };
  const rules = gitignored ? new IgnoreRules() : await startRules(source, start, above);

  // One frame per directory being walked, deepest last: a file is yielded once, not passed
  // up through one generator per level of the tree.
  interface Frame {
    dir: WalkNode;
    rules: IgnoreRules;
    entries: DirEntry[];
    next: number;
  }
  const onUnreadable = options.onUnreadable ?? (() => {});
  const onSkipped = options.onSkipped;
  const onDirectory = options.onDirectory;
  const pace = new Pace();
  async function open(dir: WalkNode, rules: IgnoreRules, isStart = false): Promise<Frame> {
    await pace.turn();
    const links: LinkLead[] = [];
    const entries = await listOrSkip(source, dir, sizes, isStart ? undefined : onUnreadable, links);
    const own = gitignored ? undefined : ownRules(source, entries);
    const seen = { linked: isStart && above.linked };
    // (A repository inside another: as the walk meets it, its rules stand alone.)
    if (own?.repository || own?.files.length) {
      rules = await rulesInside(source, dir, rules, own, seen);
    }
    onDirectory?.(dir, {
      ignoreFile: own !== undefined && own.files.length > 0,
      linkedIgnoreFile: seen.linked,
      links,
    });
    addLeftOutLinks(entries, links);
    return { dir, rules, entries: entries.sort(byName), next: 0 };
  }
  const stack = [await open(start, rules, true)];
  let run: WalkNode[] = [];
  while (stack.length > 0) {
    const frame = stack[stack.length - 1];
    if (frame.next === frame.entries.length) {
      stack.pop();
      continue;
    }
    const entry = frame.entries[frame.next++];
    // (Where globs decide first, one that takes an entry outweighs the rules.)
    const taken = decide?.(
      relativeTo(joinDisplay(frame.dir.display, entry.name)),
      entry.kind === "directory",
    );
    if (taken === false || entry.name === ".git") continue;
    if (taken !== true && skipped(entry, hidden)) {
      const display = joinDisplay(frame.dir.display, entry.name);
      const typed = entry.kind === "file" && ofType(relativeTo(display));
      if (!typed && (gitignored || !revealed(source, frame.rules, display, entry))) {
        onSkipped?.(display, "hidden", source.child(frame.dir, entry.name).key);
        continue;
      }
    }
    const node = childNode(source, frame.dir, entry);
    // (The stack holds a frame per directory down to this one: its files lie that deep.)
    if (entry.kind === "directory") {
      if (entry.symlink || stack.length >= maxDepth) continue;
      if (taken !== true && !gitignored && frame.rules.ignores(node.display, true, entry.name)) {
        onSkipped?.(node.display, "ignored", source.child(frame.dir, entry.name).key);
        continue;
      }
      if (run.length > 0) {
        yield run;
        run = [];
      }
      stack.push(await open(node, frame.rules));
    } else {
      // (A FIFO, socket or device is judged as a file of its name, and counted, not read.)
      if (taken !== true && !gitignored && frame.rules.ignores(node.display, false, entry.name)) {
        onSkipped?.(node.display, "ignored", source.child(frame.dir, entry.name).key);
        continue;
      }
      if (stack.length > maxDepth || entry.size > maxFileSize) continue;
      if (glob && !glob(relativeTo(node.display))) continue;
      if (taken !== true && hidesFile(relativeTo(node.display))) continue;
      if (ofTypes !== undefined && !ofTypes(relativeTo(node.display))) continue;
      if (entry.leftOut) onSkipped?.(node.display, "links", node.key);
      else if (entry.kind === "other") onSkipped?.(node.display, "special", node.key);
      else run.push(node);
    }
  }
  if (run.length > 0) yield run;
}

/**
 * Walks the entries (directories and files) under a directory to a depth, for `list`:
 * at each level directories first, then files, each group by name, a directory's entries
 * right after it.
 *
 * @param source the store's directory access
 * @param start the directory to list
 * @param options how deep (1: only its own entries) and whether to include ignored entries
 * @returns the entries, lazily
 */
export async function* walkEntries(
  source: WalkSource,
  start: WalkNode,
  options: {
    depth?: number;
    includeIgnored?: boolean;
    onUnreadable?: (display: string) => void;
    onSkipped?: (display: string, why: SkipReason) => void;
  } = {},
): AsyncGenerator<WalkEntry> {
  const depth = options.depth ?? 1;
  const includeIgnored = options.includeIgnored ?? false;
  const rules = includeIgnored ? new IgnoreRules() : await startRules(source, start);

  const onUnreadable = options.onUnreadable ?? (() => {});
  const pace = new Pace();
  async function* visit(
    dir: WalkNode,
    level: number,
    rules: IgnoreRules,
  ): AsyncGenerator<WalkEntry> {
    await pace.turn();
    const links: LinkLead[] = [];
    const entries = await listOrSkip(
      source,
      dir,
      true,
      level === 1 ? undefined : onUnreadable,
      links,
    );
    if (!includeIgnored) rules = await rulesInside(source, dir, rules, ownRules(source, entries));
    addLeftOutLinks(entries, links);
    const directories = entries.filter((e) => e.kind === "directory").sort(byName);
    const others = entries.filter((e) => e.kind !== "directory").sort(byName);
    for (const entry of [...directories, ...others]) {
      const display = joinDisplay(dir.display, entry.name);
      if (skipped(entry, includeIgnored) && !revealed(source, rules, display, entry)) {
        if (entry.name !== ".git") options.onSkipped?.(display, "hidden");
        continue;
      }
      const node = childNode(source, dir, entry);
      const isDirectory = entry.kind === "directory";
      if (!includeIgnored && rules.ignores(node.display, isDirectory, entry.name)) {
        options.onSkipped?.(node.display, "ignored");
        continue;
      }
      if (entry.leftOut) {
        options.onSkipped?.(node.display, "links");
        continue;
      }
      yield { ...node, kind: entry.kind, size: isDirectory ? 0 : entry.size, depth: level };
      if (isDirectory && !entry.symlink && level < depth) yield* visit(node, level + 1, rules);
    }
  }
  yield* visit(start, 1, rules);
}

/**
 * Tells whether a file a store proposed (a search candidate) is one the walk from `start`
 * would visit: below the start, no hidden or `.git` segment, not ignored, matching the glob.
 * It does not know about symlinked directories on the way; a store proposing candidates
 * must not look through them. Nor does it know sizes: `maxFileSize` is the caller's to check.
 *
 * @param source the store's directory access (for `.gitignore` files)
 * @param start the walk's start directory
 * @param options glob and whether to include ignored files
 * @returns an async test on display paths
 */
export async function createWalkFilter(
  source: WalkSource,
  start: WalkNode,
  options: WalkFilesOptions = {},
): Promise<(file: string) => Promise<boolean>> {
  const { hidden, gitignored } = walkShows(options);
  const { glob, decide = () => undefined, hidesFile, ofTypes } = walkGlobs(options);
  const ofType = typesRevealed(options, hidden);
  const base = start.display;
  const rootRules = gitignored ? new IgnoreRules() : await startRules(source, start);
  const cache = new Map<string, Promise<IgnoreRules>>([[base, withOwn(start, rootRules)]]);

  function withOwn(dir: WalkNode, rules: IgnoreRules): Promise<IgnoreRules> {
    if (gitignored) return Promise.resolve(rules);
    return rulesInside(source, dir, rules);
  }

  return async (file) => {
    if (base !== "." && !file.startsWith(base + "/")) return false;
    const relative = base === "." ? file : file.slice(base.length + 1);
    const parts = segments(relative);
    if (parts.length === 0 || parts.join("/") !== relative) return false;
    if (parts.length > (options.maxDepth ?? Infinity)) return false;
    // (Each of the path's entries as the walk meets it: the globs first, where they decide,
    // on the path from the root, as ripgrep's.)
    const above = base === "." ? "" : base + "/";
    const taken = parts.map((_, i) =>
      decide(above + parts.slice(0, i + 1).join("/"), i < parts.length - 1)
    );
    if (taken.includes(false) || parts.includes(".git")) return false;
    if (glob && !glob(relative)) return false;
    if (taken.at(-1) !== true && hidesFile(relative)) return false;
    if (ofTypes !== undefined && !ofTypes(relative)) return false;
    const hides = (i: number) =>
      !hidden && taken[i] !== true && parts[i].startsWith(".") &&
      !(i === parts.length - 1 && ofType(relative));
    if (gitignored) return !parts.some((_, i) => hides(i));
    let dir = start;
    let rules = await cache.get(base)!;
    for (let i = 0; i < parts.length; i++) {
      const kind = i < parts.length - 1 ? "directory" : "file";
      const display = joinDisplay(dir.display, parts[i]);
      if (taken[i] !== true && rules.ignores(display, kind === "directory")) return false;
      if (hides(i) && !revealed(source, rules, display, { name: parts[i], kind })) return false;
      if (kind === "file") return true;
      const node = source.child(dir, parts[i]);
      let next = cache.get(node.display);
      if (next === undefined) {
        next = withOwn(node, rules);
        cache.set(node.display, next);
      }
      rules = await next;
      dir = node;
    }
    return true;
  };
}

/**
 * What a walk does with directories it meets in `dir`: walks each, leaves it out as hidden
 * or as ignored (counted), or passes over it (`.git`), by the rules in force in `dir` (read
 * once for all of them), as {@linkcode walkFileRuns} decides. Not for a walk with globs, which
 * decide first.
 *
 * @param source the store's directory access
 * @param dir the directory that holds them
 * @param names their names
 * @param options the walk's options
 * @returns each one's verdict, in the order of `names`
 */
export async function directoryVerdicts(
  source: WalkSource,
  dir: WalkNode,
  names: readonly string[],
  options: WalkFilesOptions = {},
): Promise<Array<"walked" | "hidden" | "ignored" | "passed">> {
  const { hidden, gitignored } = walkShows(options);
  const rules = gitignored
    ? new IgnoreRules()
    : await rulesInside(source, dir, await startRules(source, dir));
  return names.map((name) => {
    if (name === ".git") return "passed";
    const entry: DirEntry = { name, kind: "directory", size: 0, symlink: false };
    const display = joinDisplay(dir.display, name);
    if (skipped(entry, hidden) && (gitignored || !revealed(source, rules, display, entry))) {
      return "hidden";
    }
    return !gitignored && rules.ignores(display, true, name) ? "ignored" : "walked";
  });
}

/**
 * The functions a walk of a large tree calls most: for a store that tunes how the runtime
 * compiles them (the directory store keeps them off JavaScriptCore's top tier). Only plain
 * functions: the body of an async function or generator is compiled apart from the function
 * object, out of such a tuning's reach (`walkFileRuns` was compiled in the top tier all the
 * same).
 */
export const WALK_HOT_PATH: readonly unknown[] = [
  childNode,
  skipped,
  byName,
  IgnoreRules.prototype.ignores,
  IgnoreRules.prototype.verdict,
];
