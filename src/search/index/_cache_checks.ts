/**
 * The file system side of the search index's cache on disk (`_index_cache.ts`): taking the
 * identities of what a walk depends on when it is saved, and checking files, directories
 * and `.gitignore` files against what was saved before anything of it is trusted again.
 * Each check is a `statx` relative to a directory handle, not a read.
 *
 * @module
 */
import * as fs from "node:fs";
import type { FileSystem, SharedFileSystem } from "../../io/file_system.ts";
import type { DirHandle } from "../../io/_file_system_types.ts";
import { decodeName, nodePathOf } from "../../io/path_bytes.ts";
import {
  ctimeMsOfIdentity,
  IDENTITY_WORDS,
  type IdentityKind,
  sameIdentity,
} from "../../io/file_identity.ts";
import { isInside } from "../../store/_paths.ts";
import type { CachedWalk } from "./_index_cache.ts";
import { notRacy } from "./_index_cache.ts";

const IGNORE_FILE = ".gitignore";

/**
 * How far a file system's times may lag the clock: they are read from the kernel's coarse
 * clock, which moves once a tick (4 ms at 250 Hz, 10 at 100 Hz). A status changed after a
 * moment may be stamped this much before it.
 */
const CLOCK_TICK_MS = 20;

/** A share of a saved index's files to check, as a search worker is sent it. */
export interface CheckJob {
  check: {
    /** Real paths, in the order they were saved. */
    keys: string[];
    /** Their identities as saved, one after another. */
    identities: Uint32Array;
    /** Where they are. */
    files: SharedFileSystem;
  };
}

/** What the worker sends back: per file of the job, 1 when it is what it was. */
export interface CheckReply {
  held: Uint8Array;
}

/**
 * Which files are still exactly what they were ({@linkcode IdentityCheck.sameFile}).
 *
 * @param files where they are
 * @param keys their real paths
 * @param identities their identities as saved, one after another
 * @returns per file, 1 when it holds
 */
export function filesHeld(
  files: FileSystem,
  keys: readonly string[],
  identities: Uint32Array,
): Uint8Array {
  const held = new Uint8Array(keys.length);
  const check = new IdentityCheck(files);
  try {
    for (let i = 0; i < keys.length; i++) {
      if (check.sameFile(keys[i], identities, i * IDENTITY_WORDS)) held[i] = 1;
    }
  } finally {
    check.close();
  }
  return held;
}

/** Stats files and directories by real path, keeping the last directory handle opened. */
export class IdentityCheck {
  readonly #files: FileSystem;
  readonly #now = new Uint32Array(IDENTITY_WORDS);
  #dir: DirHandle | undefined;
  #dirPath = "";

  constructor(files: FileSystem) {
    this.#files = files;
  }

  /**
   * Whether a file is still exactly what it was: a regular file with one name, with the same
   * device, inode, size, mtime and ctime to the nanosecond.
   *
   * @param key its real path
   * @param words the identities saved
   * @param at its first word there
   * @returns true when what was learned from it may be used
   */
  sameFile(key: string, words: Uint32Array, at: number): boolean {
    const slash = key.lastIndexOf("/");
    const dir = this.#open(slash === 0 ? "/" : key.slice(0, slash));
    return dir !== undefined && this.#same(dir, key.slice(slash + 1), "file", words, at);
  }

  /**
   * Whether a directory is still what it was (the same entries: any entry that comes, goes
   * or is renamed changes its mtime and ctime), and so is its `.gitignore` when one was read.
   *
   * @param key its real path
   * @param words the identities saved
   * @param at its own identity's first word there
   * @param ignoreAt its `.gitignore`'s, or -1 when none was read
   * @returns true when it holds
   */
  sameDirectory(key: string, words: Uint32Array, at: number, ignoreAt: number): boolean {
    const dir = this.#open(key);
    return dir !== undefined && this.#same(dir, null, "directory", words, at) &&
      (ignoreAt < 0 || this.#same(dir, IGNORE_FILE, "file", words, ignoreAt));
  }

  /**
   * The identity of a directory now, or of its `.gitignore`, into `out` at `at`.
   *
   * @param key the directory's real path
   * @param ignoreFile whether it is its `.gitignore`'s that is asked for
   * @returns false when it is not there or not what was asked for
   */
  take(key: string, ignoreFile: boolean, out: Uint32Array, at: number): boolean {
    const dir = this.#open(key);
    const kind = ignoreFile ? "file" : "directory";
    return dir?.identify(ignoreFile ? IGNORE_FILE : null, out, at) === kind;
  }

  /**
   * The names of a directory's entries that are symlinks.
   *
   * @param key the directory's real path
   * @returns the names, or undefined when it cannot be listed or its listing does not tell
   *   an entry's kind
   */
  symlinks(key: string): string[] | undefined {
    try {
      const entries = this.#open(key)?.list();
      if (entries === undefined || entries.some((entry) => entry.kind === undefined)) {
        return undefined;
      }
      return entries.filter((entry) => entry.kind === "symlink").map((entry) => entry.name);
    } catch {
      return undefined;
    }
  }

  /**
   * Where a symlink leads now, as a walk without deny rules sees it: the kind and real path
   * of its target when that lies in a root, else "" (nowhere, or outside: not shown).
   *
   * @param link the symlink's real path (its directory's, then its name)
   * @returns a text equal for two symlinks only when a walk shows them alike
   */
  leads(link: string): string {
    const target = realPathOf(link);
    if (target === undefined || !this.#files.roots.some((root) => isInside(root, target))) {
      return "";
    }
    try {
      return `${this.#files.lstat(target).kind}:${target}`;
    } catch {
      return "";
    }
  }

  /** Closes the directory handle held. */
  close(): void {
    this.#dir?.close();
    this.#dir = undefined;
  }

  #same(
    dir: DirHandle,
    name: string | null,
    kind: IdentityKind,
    words: Uint32Array,
    at: number,
  ): boolean {
    return dir.identify(name, this.#now, 0) === kind && sameIdentity(this.#now, 0, words, at);
  }

  #open(path: string): DirHandle | undefined {
    if (path === this.#dirPath && this.#dir !== undefined) return this.#dir;
    this.close();
    try {
      this.#dir = this.#files.openDir(path);
    } catch {
      return undefined;
    }
    this.#dirPath = path;
    return this.#dir;
  }
}

/**
 * The real path of a symlink, by its bytes (a name that is not UTF-8 is held as U+DC80-U+DCFF,
 * which no path's text finds), the kernel following each symlink on the way; undefined when
 * it leads nowhere. (Deno's `node:fs` finds no name that is not UTF-8 even so.)
 */
function realPathOf(link: string): string | undefined {
  try {
    return decodeName(fs.realpathSync.native(nodePathOf(link), { encoding: "buffer" }));
  } catch {
    return undefined;
  }
}

/**
 * What a saved walk is checked against later: the identities of each directory it listed,
 * then of each `.gitignore` it read, and where each symlink in those directories leads (its
 * target may come, go or change kind with no change to the directory). Nothing for a walk
 * that may change unseen (a file of it lies outside its directories: its symlinks' targets
 * are files of it, under the link's directory) or that changed within the racy window.
 *
 * The identities are taken now, not when the walk was made: a `.gitignore` whose status
 * changed since the walk began was changed in a way the watcher did not hear (it drops the
 * walks when one changes), such as a write through a hard link outside the roots, and the
 * walk may not be what the tree holds now. Such a walk is "stale"; so is one a directory of
 * which changed since the watcher last found the walk to hold (`heardAt`): a directory has one
 * name, and every change to it is heard, but not one made meanwhile.
 *
 * @param check the check to take them with
 * @param walk the walk (without what it is checked against yet)
 * @param madeAt when the walk began (ms since the epoch)
 * @param heardAt when the watcher last found it to hold (its directories checked since then)
 * @returns the checks; "stale" when a directory or `.gitignore` changed since, "racy" when one
 *   changed just now; undefined when it is not to be saved
 */
export function walkIdentities(
  check: IdentityCheck,
  walk: Omit<CachedWalk, WalkChecks>,
  madeAt: number,
  heardAt: number = madeAt,
): Pick<CachedWalk, WalkChecks> | "stale" | "racy" | undefined {
  const { listed, ignoreFiles } = walk.dirs;
  const words = new Uint32Array((listed.length + ignoreFiles.length) * IDENTITY_WORDS);
  const links: string[] = [];
  const now = Date.now();
  let racy = false;
  let stale = false;
  const take = (key: string, ignoreFile: boolean, i: number) => {
    if (!check.take(key, ignoreFile, words, i * IDENTITY_WORDS)) return false;
    const since = ignoreFile ? madeAt : Math.max(madeAt, heardAt);
    stale ||= ctimeMsOfIdentity(words, i * IDENTITY_WORDS) >= since - CLOCK_TICK_MS;
    if (!ignoreFile) {
      const names = check.symlinks(key);
      if (names === undefined) return false;
      for (const name of names) links.push(`${key === "/" ? "" : key}/${name}`); // (not spread)
    }
    racy ||= !notRacy(words, i * IDENTITY_WORDS, now);
    return true;
  };
  if (!listed.every((key, i) => take(key, false, i))) return undefined;
  if (!ignoreFiles.every((key, i) => take(key, true, listed.length + i))) return undefined;
  if (stale) return "stale";
  const leads = links.map((link) => check.leads(link));
  const dirs = new Set(listed);
  const targets = new Set(leads.map((lead) => lead.slice(lead.indexOf(":") + 1)));
  for (const file of walk.files) {
    const dir = file.key.slice(0, file.key.lastIndexOf("/")) || "/";
    if (!dirs.has(dir) && !targets.has(file.key)) return undefined;
  }
  return racy ? "racy" : { identities: words, links, leads };
}

/** The parts of a cached walk that {@linkcode walkHolds} checks. */
type WalkChecks = "identities" | "links" | "leads";

/**
 * Whether a saved walk still holds: every directory it listed, and every `.gitignore` it
 * read, is what it was.
 *
 * @param check the check
 * @param walk the walk loaded
 * @returns true when it holds
 */
export function walkHolds(check: IdentityCheck, walk: CachedWalk): boolean {
  const { listed, ignoreFiles } = walk.dirs;
  const ignoreAt = new Map(ignoreFiles.map((key, i) => [key, listed.length + i]));
  let ignored = 0;
  return listed.every((key, i) => {
    const ignore = ignoreAt.get(key);
    if (ignore !== undefined) ignored++;
    const at = ignore === undefined ? -1 : ignore * IDENTITY_WORDS;
    return check.sameDirectory(key, walk.identities, i * IDENTITY_WORDS, at);
  }) && ignored === ignoreFiles.length && // (each one of a directory listed, once)
    walk.links.every((link, i) => check.leads(link) === walk.leads[i]);
}
