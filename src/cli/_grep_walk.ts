/**
 * Which files `linewise grep` walks, as ripgrep picks them with `-g`, `-t`, `-T`,
 * `--max-depth` and `--max-filesize`; its `--files` (those files listed, not searched) and
 * `--files-without-match` (those of them without a match).
 *
 * @module
 */
import { InputError } from "../core/mod.ts";
import { StoreError } from "../store/errors.ts";
import type { FileStore, WalkOptions } from "../store/file_store.ts";
import { FILE_TYPES } from "./file_types.ts";
import { type Paint, shownName } from "./_grep_print.ts";

/** What {@linkcode walkRules} needs of the command's request. */
export interface WalkRequest {
  /** How many directories deep below each path a file may lie (`--max-depth`; 1: its own). */
  maxDepth: number | undefined;
  /** The largest file searched, in bytes (`--max-filesize`). */
  maxFilesize: number | undefined;
  globs: string[];
  types: string[];
  /** Types left out (`-T`). */
  typesNot: string[];
  hidden: boolean;
  noIgnore: boolean;
}

/** The walk a grep asks of the store: its walk options, but its path. */
export type WalkRules = Omit<WalkOptions, "path">;

/**
 * The walk of a grep's `-g` globs, `-t` and `-T` types, `--max-depth` and `--max-filesize`
 * (of the files walked: a file named on the line is searched whatever they say). `-t` narrows the
 * walk, and takes hidden files of its types. `-T` leaves out the walk's files of its types
 * (not directories of such names: `-T sh` still walks a `profile/`). A -g glob that takes a
 * file decides alone, as in ripgrep (over `-t` and `-T` too). The type `all` is every type's
 * globs.
 *
 * @param request the globs, types, --hidden and --no-ignore
 * @returns the walk, or the message of a type that does not exist
 */
export function walkRules(request: WalkRequest): WalkRules | { error: string } {
  const unknown = [...request.types, ...request.typesNot].find((type) =>
    type !== "all" && FILE_TYPES[type] === undefined
  );
  if (unknown !== undefined) {
    return { error: `unrecognized file type: ${unknown} (grep --type-list lists them)` };
  }
  const globsOf = (type: string) =>
    type === "all" ? Object.values(FILE_TYPES).flat() : FILE_TYPES[type];
  const typeGlobs = request.types.flatMap(globsOf);
  const notGlobs = request.typesNot.flatMap(globsOf);
  const given = request.globs.length > 0;
  const globTakes = request.globs.some((glob) => !glob.startsWith("!"));
  const glob = given ? request.globs : typeGlobs;
  return {
    glob: glob.length > 0 ? glob : undefined,
    // (-g globs outweigh the ignore rules, as ripgrep's do; -t types do not, but take hidden
    // files of their types, as ripgrep's do.)
    globsFirst: given,
    revealTypes: globTakes ? undefined : typeGlobs,
    hideTypes: notGlobs,
    // (Beside -g globs that only leave files out, -t keeps its types of what they leave.)
    onlyTypes: given && !globTakes && typeGlobs.length > 0 ? typeGlobs : undefined,
    maxDepth: request.maxDepth,
    maxFileSize: request.maxFilesize,
    includeHidden: request.hidden,
    includeGitignored: request.noIgnore,
  };
}

/**
 * The display path of a file the path names (undefined: a directory, or nothing).
 *
 * @param store where the files are
 * @param path a path given on the command line
 */
export async function fileShown(store: FileStore, path: string): Promise<string | undefined> {
  try {
    const info = await store.stat(path);
    return info.kind === "file" ? info.path : undefined;
  } catch (error) {
    if (error instanceof StoreError) return undefined; // (the walk says what is wrong)
    throw error;
  }
}

/**
 * `--files`: the files a search of the paths would search, one a line, as ripgrep lists them
 * (a file named on the line whatever -g and -t say).
 *
 * @returns 0 when some file was listed, 1 when none was, 2 when a path could not be walked
 */
export async function listFiles(
  store: FileStore,
  paths: readonly string[],
  rules: WalkRules,
  paint: Paint,
  out: { stdout(text: string): void; stderr(text: string): void },
  nul = false,
): Promise<number> {
  let listed = 0;
  let failed = false;
  for (const path of paths) {
    const named = await fileShown(store, path);
    let files: string[];
    try {
      files = named !== undefined ? [named] : await store.glob({ ...rules, path });
    } catch (error) {
      if (!(error instanceof StoreError || error instanceof InputError)) throw error;
      out.stderr(`linewise: ${error.message}\n`);
      // (A glob that cannot be read is the command's mistake: said once.)
      if (error instanceof InputError) return 2;
      failed = true;
      continue;
    }
    for (const file of files) out.stdout(`${paint.path(shownName(file, nul))}${nul ? "\0" : "\n"}`);
    listed += files.length;
  }
  if (failed) return 2;
  return listed > 0 ? 0 : 1;
}
