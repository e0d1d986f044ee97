/**
 * Adds to a kept walk the regular files and directories created in directories it listed,
 * instead of walking the whole tree again: an agent that writes a new file or folder, or a
 * build that drops one beside the sources, would otherwise cost the next grep a walk of every
 * directory (on the Linux tree, 200-300 ms). Each such directory is listed again by the walk
 * itself, from that directory, so its rules (the ignore files from the root down, hidden
 * names) decide as they did: a file it walks goes in at its place in the walk's order, one it
 * leaves out is counted as left out, and a new directory it would enter is walked from there,
 * its files at its place and its directories recorded as listed (so that what is made in
 * them later is heard as made where the walk looked). Anything else (a glob, a depth or size
 * limit: they depend on where the walk began; a directory the walk has no file under; a file
 * gone again; more than a hundred entries at once) gives no patch, and the walk is made again
 * as before.
 *
 * @module
 */
import { StoreError } from "../../store/errors.ts";
import type { SkipReason } from "../../store/file_store.ts";
import { joinDisplay } from "../../store/_paths.ts";
import {
  directoryVerdicts,
  walkFileRuns,
  type WalkFilesOptions,
  type WalkNode,
  type WalkSource,
} from "../../store/walk.ts";
import { type CreatedEntry, directoryRecorder, type KeptWalk } from "./_kept_walks.ts";

/**
 * The walk with the created entries added, or undefined when it must be made again.
 *
 * @param source where the walk lists directories
 * @param rules the walk's rules (from its key)
 * @param walk the kept walk
 * @param created the files and directories created in directories it listed, which it lacks
 * @param heardAt when the changes it now holds were all heard (ms since the epoch)
 * @returns the new walk (the old one is left as it was)
 */
export async function patchWalk(
  source: WalkSource,
  rules: WalkFilesOptions,
  walk: KeptWalk,
  created: readonly CreatedEntry[],
  heardAt: number,
): Promise<KeptWalk | undefined> {
  const { dirs } = walk;
  if (
    !patchable(rules) || dirs.displays === undefined || dirs.skipped === undefined ||
    created.length > MAX_CREATED
  ) return undefined;
  const patch: Patch = {
    files: walk.files,
    skipped: { ...walk.skipped },
    dirs: { ...dirs, skipped: [...dirs.skipped] },
  };
  try {
    for (const [dirKey, entries] of byDirectory(created)) {
      const at = dirs.listed.indexOf(dirKey);
      if (at === -1) return undefined;
      const dir = { key: dirKey, display: dirs.displays[at] };
      if (!await patchDirectory(source, rules, dir, entries, patch)) return undefined;
    }
  } catch (error) {
    if (error instanceof StoreError) return undefined; // (gone meanwhile, say)
    throw error;
  }
  return { ...patch, madeAt: walk.madeAt, heardAt };
}

/** A walk being patched (copies: the kept walk stays as it was). */
type Patch = Pick<KeptWalk, "files" | "skipped" | "dirs">;

/**
 * Adds the entries created in one directory the walk listed: a file the directory's listing
 * walks, at its place; one it leaves out, counted; a directory the walk would enter, walked
 * from there (its files at its place, its directories recorded as listed); false when the
 * walk is to be made again.
 */
async function patchDirectory(
  source: WalkSource,
  rules: WalkFilesOptions,
  dir: WalkNode,
  entries: ReadonlyArray<{ name: string; directory: boolean }>,
  patch: Patch,
): Promise<boolean> {
  // (A repository made inside the tree may change the rules below it: walked again.)
  if (entries.some(({ name }) => name === ".git")) return false;
  const found = new Map<string, WalkNode>();
  const left = new Map<string, SkipReason>();
  const onSkipped = (_: string, why: SkipReason, key: string) => left.set(key, why);
  if (entries.some(({ directory }) => !directory)) {
    for await (const run of walkFileRuns(source, dir, { ...rules, maxDepth: 1, onSkipped })) {
      for (const node of run) found.set(node.key, node);
    }
  }
  const leaveOut = (why: SkipReason, key: string) => {
    patch.skipped[why]++;
    patch.dirs.skipped!.push(key);
  };
  const folders = entries.filter(({ directory }) => directory).map(({ name }) => name);
  const verdicts = folders.length === 0 ? [] : await directoryVerdicts(source, dir, folders, rules);
  for (const { name, directory } of entries) {
    const node = source.child(dir, name);
    if (directory) {
      const verdict = verdicts[folders.indexOf(name)];
      if (verdict === "hidden" || verdict === "ignored") leaveOut(verdict, node.key);
      else if (verdict === "walked" && !await walkInto(source, rules, dir, name, patch)) {
        return false;
      }
      continue;
    }
    const why = left.get(node.key);
    const file = found.get(node.key);
    if (why !== undefined) leaveOut(why, node.key);
    else if (file === undefined) return false; // (gone again, or no longer a regular file)
    else if (!insert(patch, dir, name, [file])) return false;
  }
  return true;
}

/**
 * Walks a directory created in `dir` as the walk would have gone into it, and adds what it
 * found: false when it read an ignore file through a symlink (such a walk is never kept).
 */
async function walkInto(
  source: WalkSource,
  rules: WalkFilesOptions,
  dir: WalkNode,
  name: string,
  patch: Patch,
): Promise<boolean> {
  const recorder = directoryRecorder(patch.skipped);
  const files: WalkNode[] = [];
  const walked = walkFileRuns(source, source.child(dir, name), { ...rules, ...recorder.callbacks });
  // (Not spread: a run, one directory's files, may be more than a call takes arguments.)
  for await (const run of walked) for (const file of run) files.push(file);
  const { listed } = recorder;
  if (listed.linkedIgnoreFile) return false;
  const { dirs } = patch;
  dirs.listed = [...dirs.listed, ...listed.listed];
  dirs.displays = [...dirs.displays!, ...listed.displays!];
  dirs.ignoreFiles = [...dirs.ignoreFiles, ...listed.ignoreFiles];
  dirs.links = [...dirs.links, ...listed.links];
  dirs.leads = [...dirs.leads, ...listed.leads];
  dirs.skipped!.push(...listed.skipped!);
  dirs.unreadable += listed.unreadable;
  return files.length === 0 || insert(patch, dir, name, files);
}

/** Puts files of the entry `name` of `dir` at its place in the walk; false when it has none. */
function insert(patch: Patch, dir: WalkNode, name: string, files: WalkNode[]): boolean {
  const place = placeIn(patch.files, dir.display, name);
  if (place === undefined) return false;
  patch.files = [...patch.files.slice(0, place), ...files, ...patch.files.slice(place)];
  return true;
}

/**
 * The most files created at once that a walk is patched for: each goes in by a pass over the
 * walk's files, and a walk made again costs less than many such passes.
 */
const MAX_CREATED = 100;

/** Whether a walk's rules let a directory be listed again on its own, as the walk listed it. */
function patchable(rules: WalkFilesOptions): boolean {
  return rules.glob === undefined && rules.maxDepth === undefined &&
    rules.maxFileSize === undefined && rules.onlyTypes === undefined &&
    rules.hideTypes === undefined && rules.revealTypes === undefined;
}

/** The created entries by their directory (real paths), each with its name. */
function byDirectory(
  created: readonly CreatedEntry[],
): Map<string, Array<{ name: string; directory: boolean }>> {
  const dirs = new Map<string, Array<{ name: string; directory: boolean }>>();
  for (const { path, directory } of created) {
    const cut = path.lastIndexOf("/");
    const dir = path.slice(0, cut) || "/";
    const names = dirs.get(dir) ?? [];
    names.push({ name: path.slice(cut + 1), directory });
    dirs.set(dir, names);
  }
  return dirs;
}

/**
 * Where a file named `name` in the directory shown as `dir` goes in a walk's files: the walk
 * lists a directory's entries by name, each subdirectory's files at its own place, so the file
 * goes before the first of the directory's files whose entry there (the file, or the
 * subdirectory it lies in) sorts after it, or after the last of them.
 *
 * @returns the index, or undefined when no file of the walk lies under the directory
 */
function placeIn(files: readonly WalkNode[], dir: string, name: string): number | undefined {
  const prefix = joinDisplay(dir, "");
  let last: number | undefined;
  for (let i = 0; i < files.length; i++) {
    const display = files[i].display;
    if (!display.startsWith(prefix)) {
      if (last !== undefined) break; // (past the directory's files: they lie together)
      continue;
    }
    const rest = display.slice(prefix.length);
    const cut = rest.indexOf("/");
    const entry = cut === -1 ? rest : rest.slice(0, cut);
    if (entry > name) return i;
    last = i;
  }
  return last === undefined ? undefined : last + 1;
}
