/**
 * The walks the search index keeps, and which changes leave one as it is: what a walk records
 * of the directories it listed (their symlinks and where each led, what it left out), and the
 * rule that tells, from what the watcher heard, whether a kept walk may still be used.
 *
 * @module
 */
import type { FileSystem } from "../../io/file_system.ts";
import type { SkippedEntries } from "../../store/file_store.ts";
import { isInside } from "../../store/_paths.ts";
import type { WalkFilesOptions, WalkNode } from "../../store/walk.ts";

/** A complete walk kept: its files in order, what it left out, and what it listed. */
export interface KeptWalk {
  files: WalkNode[];
  skipped: SkippedEntries;
  dirs: WalkDirs;
  /**
   * When it began (ms since the epoch), or when it was checked, taken from the cache on disk:
   * a `.gitignore` changed since was changed unheard (see `walkIdentities`).
   */
  madeAt: number;
  /**
   * The last wait for the watcher that found it to hold: a directory it listed that changed
   * before then was heard, and left it as it was (an editor's save through a temporary file).
   */
  heardAt?: number;
}

/**
 * The directories a walk listed (real paths), and those whose `.gitignore` it read: what its
 * files depend on, checked by the cache on disk before the walk is trusted again.
 */
export interface WalkDirs {
  listed: string[];
  ignoreFiles: string[];
  /**
   * How many directories it could not open: it depends on more than its directories show (a
   * search through it says how many).
   */
  unreadable: number;
  /**
   * Whether it read an ignore file through a symlink: the file it leads to may change with no
   * change the watcher ties to walks (it hears ignore files by their name), so such a walk is
   * never kept.
   */
  linkedIgnoreFile: boolean;
  /**
   * The symlinks in the directories it listed (real paths), and where each led for it (see
   * `LinkLead`, and `IdentityCheck.leads`, which gives the same).
   */
  links: string[];
  leads: string[];
  /**
   * The entries of the directories it listed that it left out as hidden or ignored (real
   * paths; undefined for a walk taken from the cache on disk, which does not keep them).
   */
  skipped: string[] | undefined;
  /**
   * The display paths of the directories it listed, in the order of `listed` (undefined for
   * a walk taken from the cache on disk): a directory is listed again by them to add a file
   * created in it (see `_walk_patch.ts`).
   */
  displays?: string[];
}

/** What {@linkcode directoryRecorder} gives. */
export interface DirectoryRecorder {
  /** What it recorded. */
  listed: WalkDirs;
  /** The walk's callbacks that record into it. */
  callbacks: Required<Pick<WalkFilesOptions, "onDirectory" | "onSkipped" | "onUnreadable">>;
}

/**
 * Records the directories of a walk, what it left out in them, and the directories it could
 * not open.
 *
 * @param skipped where the entries it leaves out as hidden or ignored are counted
 * @returns what it recorded, and the walk's callbacks
 */
export function directoryRecorder(skipped: SkippedEntries): DirectoryRecorder {
  const listed: WalkDirs = {
    listed: [],
    ignoreFiles: [],
    unreadable: 0,
    linkedIgnoreFile: false,
    links: [],
    leads: [],
    skipped: [],
    displays: [],
  };
  return {
    listed,
    callbacks: {
      onDirectory: (dir, what) => {
        listed.listed.push(dir.key);
        listed.displays!.push(dir.display);
        if (what.ignoreFile) listed.ignoreFiles.push(dir.key);
        if (what.linkedIgnoreFile) listed.linkedIgnoreFile = true;
        for (const { name, lead } of what.links) {
          listed.links.push(`${dir.key === "/" ? "" : dir.key}/${name}`);
          listed.leads.push(lead);
        }
      },
      onSkipped: (_display, why, key) => {
        skipped[why]++;
        listed.skipped!.push(key);
      },
      onUnreadable: () => void listed.unreadable++,
    },
  };
}

/** Each kept walk's files, by real path (made when a change is first checked against it). */
const fileSets = new WeakMap<WalkNode[], Set<string>>();

/** Whether one of `paths` is one of a walk's files. */
export function someFileOf(files: WalkNode[], paths: ReadonlySet<string>): boolean {
  const keys = keysOf(files);
  for (const path of paths) if (keys.has(path)) return true;
  return false;
}

/**
 * Each walk's listed directories, and what it left out in them, as sets (made when a change
 * is first checked against it).
 */
const listedSets = new WeakMap<WalkDirs, Set<string>>();
const skippedSets = new WeakMap<WalkDirs, Set<string>>();

/** What an entry is now, as {@linkcode walkChanged} asks. */
export type EntryNow = "file" | "directory" | "none" | "other";

/**
 * What an entry is now: a regular file, a directory, nothing, or anything else (a symlink, one
 * that cannot be looked at).
 *
 * @param files the roots' file system
 * @param path the entry's real path
 * @returns its kind
 */
export function entryNow(files: FileSystem, path: string): EntryNow {
  try {
    const { kind } = files.lstat(path);
    return kind === "file" || kind === "directory" ? kind : "other";
  } catch (error) {
    return (error as { code?: string }).code === "ENOENT" ? "none" : "other";
  }
}

/** An entry created in a directory a walk listed, which the walk lacks. */
export interface CreatedEntry {
  /** Its real path. */
  path: string;
  /** A directory (its files lie below it), or else a regular file. */
  directory: boolean;
}

/**
 * Whether changes may change what a walk found:
 * - an entry created, deleted or renamed in a directory it listed that is not now what the
 *   walk saw there: a regular file it walked, or nothing where it saw nothing (a temporary file
 *   made and removed, or renamed over a file it walked, as editors and formatters write, is
 *   not such a change; for a walk taken from the cache on disk, which does not know what it
 *   left out, every one is). A regular file or a directory now where the walk saw nothing is
 *   one the walk may take by a patch (`_walk_patch.ts`), when nothing else changed it;
 * - a change to its start or a directory above that, or to a directory it listed (its mode or
 *   owner: the walk may no longer pass);
 * - any entry created, deleted or renamed, where the walk could not open a directory.
 *
 * A change in a directory it passed over (ignored, hidden, deeper than it went) changes
 * nothing it found, but where one of its symlinks leads (see `SearchIndex.refresh`).
 *
 * @param walk what the walk listed, and its files
 * @param changes the real paths of the entries created, deleted or renamed (`moved`), and of
 *   all that changed (`paths`)
 * @param now what an entry is now (by real path)
 * @returns false when the walk holds as it is; true when it is to be made again; else the
 *   regular files and directories created in directories it listed, which it lacks
 */
export function walkChanged(
  walk: { dirs: WalkDirs; files: WalkNode[] },
  changes: { moved: ReadonlySet<string>; paths: ReadonlySet<string> },
  now: (path: string) => EntryNow,
): boolean | CreatedEntry[] {
  const { dirs } = walk;
  const { moved, paths } = changes;
  const start = dirs.listed[0];
  if (start === undefined) return paths.size > 0;
  if (dirs.unreadable > 0 && moved.size > 0) return true;
  const listed = setOf(listedSets, dirs, () => dirs.listed);
  const created: CreatedEntry[] = [];
  for (const path of moved) {
    if (!listed.has(path.slice(0, path.lastIndexOf("/")) || "/")) continue;
    if (dirs.skipped === undefined || listed.has(path)) return true;
    const walked = keysOf(walk.files).has(path);
    const kind = now(path);
    if (kind === "other" || (kind !== "file" && walked)) return true;
    if (setOf(skippedSets, dirs, () => dirs.skipped!).has(path)) return true;
    if (kind !== "none" && !walked) created.push({ path, directory: kind === "directory" });
  }
  // (Every moved path is among the changed ones too.)
  for (const path of paths) if (listed.has(path) || isInside(path, start)) return true;
  return created.length > 0 ? created : false;
}

/** The set of what `values` gives, made once per `owner`. */
function setOf<K extends object>(
  sets: WeakMap<K, Set<string>>,
  owner: K,
  values: () => Iterable<string>,
): Set<string> {
  let set = sets.get(owner);
  if (set === undefined) sets.set(owner, set = new Set(values()));
  return set;
}

/** A walk's files, by real path. */
const keysOf = (files: WalkNode[]) => setOf(fileSets, files, () => files.map((file) => file.key));
