// Glob patterns written as absolute paths. A model often puts a root's own path into a pattern
// (`/home/me/proj/src/**/*.ts`), but a leading `/` anchors a pattern at the walk's path, as in
// .gitignore and ripgrep's `-g`, so such a pattern would match nothing, silently.
import { StoreError } from "../../store/errors.ts";
import type { FileStore } from "../../store/file_store.ts";

/** What makes a segment of a pattern more than a name. */
const GLOB_CHARS = /[*?[\]{}\\]/;

/** Whether a pattern begins with `/` (after a `!`): anchored, or an absolute path. */
export function isAnchored(pattern: string): boolean {
  return pattern.startsWith("/") || pattern.startsWith("!/");
}

/**
 * The patterns with each one that is an absolute path into a folder at or below `path` made
 * relative to `path` (still anchored there: `/src/**\/*.ts`); the others as they are. A
 * pattern's folder is the part before its first segment with a glob character; one that is
 * no folder inside the roots leaves the pattern as it is (`/src/*.ts`, anchored at `path`).
 *
 * @param store where the folders are looked up
 * @param patterns the patterns as given
 * @param path the folder the walk starts from
 * @returns the patterns to walk with
 */
export async function rebasedGlobs(
  store: FileStore,
  patterns: string | string[],
  path: string,
): Promise<string | string[]> {
  if (![patterns].flat().some(isAnchored)) return patterns;
  const base = (await store.stat(path)).path;
  if (typeof patterns === "string") return await rebasedGlob(store, patterns, base);
  return await Promise.all(patterns.map((pattern) => rebasedGlob(store, pattern, base)));
}

async function rebasedGlob(store: FileStore, pattern: string, base: string): Promise<string> {
  if (!isAnchored(pattern)) return pattern;
  const bang = pattern.startsWith("!") ? "!" : "";
  const parts = pattern.slice(bang.length).split("/");
  const first = parts.findIndex((part) => GLOB_CHARS.test(part));
  const named = first === -1 ? parts.length - 1 : first;
  if (named <= 1) return pattern;
  let folder: string;
  try {
    const info = await store.stat(parts.slice(0, named).join("/"));
    if (info.kind !== "directory") return pattern;
    folder = info.path;
  } catch (error) {
    // (No such folder in the roots: the pattern is anchored at the path.)
    if (error instanceof StoreError) return pattern;
    throw error;
  }
  const below = base === "."
    ? (folder.startsWith("/") ? undefined : folder)
    : folder === base
    ? "."
    : folder.startsWith(base + "/")
    ? folder.slice(base.length + 1)
    : undefined;
  if (below === undefined) return pattern;
  const rest = parts.slice(named);
  return bang + "/" + (below === "." ? rest : [below, ...rest]).join("/");
}
