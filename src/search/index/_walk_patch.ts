/**
 * Adds to a kept walk the regular files created in directories it listed, instead of walking
 * the whole tree again: an agent that writes a new file, or a build that drops one beside the
 * sources, would otherwise cost the next grep a walk of every directory (on the Linux tree,
 * 200-300 ms). Each such directory is listed again by the walk itself, from that directory,
 * so its rules (the ignore files from the root down, hidden names) decide as they did; a file
 * the listing walks goes in at its place in the walk's order, one it leaves out is counted as
 * left out. Anything else (a glob, a depth or size limit: they depend on where the walk began;
 * a directory the walk has no file under; a file gone again; more than a hundred files at once)
 * gives no patch, and the walk is made again as before.
 *
 * @module
 */
import { StoreError } from "../../store/errors.ts";
import type { SkippedEntries } from "../../store/file_store.ts";
import { joinDisplay } from "../../store/_paths.ts";
import {
  walkFileRuns,
  type WalkFilesOptions,
  type WalkNode,
  type WalkSource,
} from "../../store/walk.ts";
import type { KeptWalk } from "./_kept_walks.ts";

/**
 * The walk with the created files added, or undefined when it must be made again.
 *
 * @param source where the walk lists directories
 * @param rules the walk's rules (from its key)
 * @param walk the kept walk
 * @param created real paths of regular files created in directories it listed, which it lacks
 * @param madeAt when the changes it now holds were all heard (ms since the epoch)
 * @returns the new walk (the old one is left as it was)
 */
export async function patchWalk(
  source: WalkSource,
  rules: WalkFilesOptions,
  walk: KeptWalk,
  created: readonly string[],
  madeAt: number,
): Promise<KeptWalk | undefined> {
  const { dirs } = walk;
  if (
    !patchable(rules) || dirs.displays === undefined || dirs.skipped === undefined ||
    created.length > MAX_CREATED
  ) return undefined;
  let files = walk.files;
  const skipped: SkippedEntries = { ...walk.skipped };
  const skippedKeys = [...dirs.skipped];
  for (const [dirKey, names] of byDirectory(created)) {
    const at = dirs.listed.indexOf(dirKey);
    if (at === -1) return undefined;
    const dir = { key: dirKey, display: dirs.displays[at] };
    const found = new Map<string, WalkNode>();
    const left = new Map<string, "hidden" | "ignored">();
    const onSkipped = (_: string, why: "hidden" | "ignored", key: string) => left.set(key, why);
    try {
      for await (const run of walkFileRuns(source, dir, { ...rules, maxDepth: 1, onSkipped })) {
        for (const node of run) found.set(node.key, node);
      }
    } catch (error) {
      if (error instanceof StoreError) return undefined; // (gone meanwhile, say)
      throw error;
    }
    for (const name of names) {
      const key = `${dirKey === "/" ? "" : dirKey}/${name}`;
      const node = found.get(key);
      const why = left.get(key);
      if (node !== undefined) {
        const place = placeIn(files, dir.display, name);
        if (place === undefined) return undefined;
        files = [...files.slice(0, place), node, ...files.slice(place)];
      } else if (why !== undefined) {
        skipped[why]++;
        skippedKeys.push(key);
      } else return undefined; // (gone again, or no longer a regular file)
    }
  }
  return { files, skipped, dirs: { ...dirs, skipped: skippedKeys }, madeAt };
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

/** The created paths by their directory (real paths), each with the names created in it. */
function byDirectory(created: readonly string[]): Map<string, string[]> {
  const dirs = new Map<string, string[]>();
  for (const path of created) {
    const cut = path.lastIndexOf("/");
    const dir = path.slice(0, cut) || "/";
    const names = dirs.get(dir) ?? [];
    names.push(path.slice(cut + 1));
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
