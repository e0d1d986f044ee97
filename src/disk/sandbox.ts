/**
 * The sandbox: the roots and deny rules every path must pass, built once from the options
 * and handed to the stores (never module state).
 *
 * @module
 */
import * as fs from "node:fs/promises";
import { nativePath, SEPARATOR } from "../io/native_path.ts";
import process from "node:process";
import { fileURLToPath } from "node:url";
import {
  type FileSystem,
  type FileSystemOptions,
  openFileSystem,
  type SharedFileSystem,
  sharedFileSystem,
} from "../io/file_system.ts";
import type { FileStat } from "../io/file_stat.ts";
import { DeniedIdentities } from "./_denied_identities.ts";
import { compileDeny, type DenyMatcher } from "../store/_deny.ts";
import { isMissing, mapOsError, osErrorCode } from "../files/_os_errors.ts";
import { cleanUserPath, isInside } from "../store/_paths.ts";
import {
  DeniedPathError,
  InvalidPathError,
  NotADirectoryError,
  NotFoundError,
  PathChangedError,
  PathOutsideRootError,
} from "../store/errors.ts";

/** What a {@linkcode Sandbox} is built from. */
export interface SandboxOptions {
  /** Directories that make up the whole world; the first one anchors relative paths. */
  roots: readonly string[];
  /**
   * .gitignore-syntax globs on root-relative paths; matching paths are invisible.
   * @default []
   */
  deny?: readonly string[];
  /**
   * How files are reached: by default through handle-relative system calls where the
   * runtime can make them (Linux, with FFI), so that resolution cannot be raced.
   * @default {}
   */
  fileSystem?: FileSystemOptions;
  /**
   * Told once per process, in one sentence, when resolution can be raced here.
   * @default writes the sentence to stderr
   */
  warn?: (message: string) => void;
}

/** A sandbox as another thread of this process rebuilds it (see {@linkcode Sandbox.share}). */
export interface SharedSandbox {
  /** The roots' file system, by its handles. */
  files: SharedFileSystem;
  /** The roots as they were given (absolute). */
  givenRoots: readonly string[];
  /** The deny rules. */
  deny: readonly string[];
  /** The real paths the deny rules are relative to. */
  denyBases: readonly string[];
  /**
   * The file system of `denyBases`, where the roots were narrowed (the denied files of the
   * original roots are looked for there): by default `files`.
   */
  baseFiles?: SharedFileSystem;
}

/** Options of {@linkcode Sandbox.resolve}. */
export interface ResolveOptions {
  /**
   * Allow a path that does not exist yet (its nearest existing ancestor must resolve inside
   * a root); without it a missing path is a {@linkcode NotFoundError}.
   * @default false
   */
  forWrite?: boolean;
}

/** A path that passed the sandbox. */
export interface ResolvedPath {
  /**
   * Absolute real path with every symlink followed; for a missing path, the real nearest
   * existing ancestor joined with the missing names.
   */
  real: string;
  /** The path as asked, lexically normalised, under the real form of its root: where a symlink itself lies. */
  location: string;
  /** Display path of the path as asked: relative to the first root, absolute in another root. */
  display: string;
  /** Whether something exists at `real`. */
  exists: boolean;
}

/** Symlinks followed for one path before it counts as a loop (Linux's own limit). */
const MAX_SYMLINKS = 40;

/**
 * The roots and deny rules. Every path is normalised, then resolved one segment at a time
 * with every symlink followed, and each step must stay inside a root (compared by whole
 * segments, never by string prefix) and must not be denied. Nothing outside the roots is
 * ever touched while resolving, so a refusal reveals nothing about what lies outside.
 *
 * @example
 * ```ts
 * import { Sandbox } from "./sandbox.ts";
 * import * as os from "node:os";
 * import assert from "node:assert/strict";
 * const sandbox = await Sandbox.create({ roots: [os.tmpdir()], deny: [".env"] });
 * await assert.rejects(sandbox.resolve("../../etc/passwd"), { code: "outside_root" });
 * await assert.rejects(sandbox.resolve("app/.env", { forWrite: true }), { code: "denied" });
 * ```
 */
export class Sandbox {
  /** Real absolute paths of the roots; the first anchors relative paths. */
  readonly roots: readonly string[];
  /**
   * The files below the roots, reached by real path and following no symlink: every
   * operation on a path this sandbox resolved goes through it.
   */
  readonly files: FileSystem;
  /** The deny globs as given. */
  readonly deny: readonly string[];
  /** Absolute (not real) forms of the roots as given, so `/var/x` works when `/var` is a link. */
  readonly #givenRoots: readonly string[];
  /** Roots the deny rules are relative to: the original roots, kept when narrowing. */
  readonly #denyBases: readonly string[];
  readonly #denied: DenyMatcher;
  /** The file system of the original roots (`files` itself unless narrowed). */
  readonly #baseFiles: FileSystem;
  /** The denied files' identities, for their other names (shared with narrowed sandboxes). */
  readonly #identities: DeniedIdentities | undefined;
  readonly #windows = process.platform === "win32";

  private constructor(
    files: FileSystem,
    givenRoots: readonly string[],
    deny: readonly string[],
    denyBases: readonly string[],
    { baseFiles = files, identities }: { baseFiles?: FileSystem; identities?: DeniedIdentities } =
      {},
  ) {
    this.files = files;
    this.roots = files.roots;
    this.#givenRoots = givenRoots;
    this.deny = deny;
    this.#denyBases = denyBases;
    this.#denied = compileDeny(deny);
    this.#baseFiles = baseFiles;
    // (Denied files are looked for in the original roots, through their own file system: a
    // narrowed one reaches only the narrowed roots.)
    this.#identities = identities ?? (deny.length === 0 ? undefined : new DeniedIdentities({
      files: baseFiles,
      bases: denyBases,
      isDenied: (absolute) => this.isDenied(absolute),
    }));
  }

  /**
   * Builds a sandbox, resolving each root to its real path.
   *
   * @param options roots and deny globs
   * @returns the sandbox
   * @throws {TypeError} when no root is given or an option is malformed
   * @throws {NotFoundError} when a root does not exist
   * @throws {NotADirectoryError} when a root is not a directory
   * @throws {PermissionError} when the runtime may not read a root
   */
  static async create(options: SandboxOptions): Promise<Sandbox> {
    const given = options?.roots;
    if (!Array.isArray(given) || given.length === 0) {
      throw new TypeError("roots must be a non-empty array of directory paths");
    }
    const deny = options.deny ?? [];
    if (!Array.isArray(deny)) throw new TypeError("deny must be an array of glob strings");
    const roots: string[] = [];
    const givenRoots: string[] = [];
    for (const root of given) {
      if (typeof root !== "string" || root === "" || root.includes("\0")) {
        throw new TypeError(`root ${JSON.stringify(root)} is not a usable directory path`);
      }
      const absolute = nativePath.resolve(root);
      const real = await realDirectory(absolute, root);
      if (roots.includes(real)) continue;
      roots.push(real);
      givenRoots.push(absolute);
    }
    const files = openFileSystem(roots, options.fileSystem);
    if (!files.raceFree) warnOnce(files.racyBecause!, options.warn);
    return new Sandbox(files, givenRoots, [...deny], roots);
  }

  /**
   * What another thread of this process needs to rebuild this sandbox: the same handles of
   * the same roots (nothing is resolved again), and the same rules.
   *
   * @returns data that can be posted to a worker
   */
  share(): SharedSandbox {
    return {
      files: this.files.share(),
      givenRoots: this.#givenRoots,
      deny: this.deny,
      denyBases: this.#denyBases,
      ...this.#baseFiles === this.files ? {} : { baseFiles: this.#baseFiles.share() },
    };
  }

  /**
   * Rebuilds on this thread a sandbox another thread shared.
   *
   * @param shared what {@linkcode Sandbox.share} returned
   * @returns the sandbox, over the same root handles
   */
  static fromShared(shared: SharedSandbox): Sandbox {
    const files = sharedFileSystem(shared.files);
    return new Sandbox(files, shared.givenRoots, shared.deny, shared.denyBases, {
      baseFiles: shared.baseFiles === undefined ? files : sharedFileSystem(shared.baseFiles),
    });
  }

  /** Whether resolution is made relative to directory handles, so that it cannot be raced. */
  get raceFree(): boolean {
    return this.files.raceFree;
  }

  /**
   * Checks a caller's path and resolves it: relative paths are relative to the first root,
   * absolute ones must lie inside some root, and a backslash is a separator on Windows only
   * (part of a name elsewhere, as the kernel reads it, and so is a colon after a letter).
   *
   * @param path the path as the caller gave it
   * @param options whether a missing path is acceptable
   * @returns where the path really is, and how to show it
   * @throws {TypeError} when `path` is not a string
   * @throws {PathOutsideRootError} when it (or a symlink on the way) leads outside the roots,
   *   or contains a NUL byte
   * @throws {DeniedPathError} when it, or anything it resolves through, is denied
   * @throws {NotFoundError} when it does not exist and `forWrite` is not set
   * @throws {InvalidPathError} for a symlink loop or a name too long for the system
   * @throws {PermissionError} when the system or the runtime refuses access
   */
  resolve(path: string, options: ResolveOptions = {}): Promise<ResolvedPath> {
    try {
      return Promise.resolve(this.#resolve(path, options));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  #resolve(path: string, options: ResolveOptions): ResolvedPath {
    const clean = cleanUserPath(path, this.#windows);
    const absolute = nativePath.isAbsolute(clean)
      ? nativePath.resolve(clean)
      : nativePath.resolve(this.roots[0], clean);
    const place = this.#rootFor(absolute);
    if (place === undefined) throw new PathOutsideRootError(path);
    const location = nativePath.join(place.root, place.rest);
    if (this.isDenied(location)) throw new DeniedPathError(path);
    const { real, exists } = this.#follow(place.root, place.rest, path);
    if (!exists && !options.forWrite) throw new NotFoundError(path);
    return { real, location, display: this.display(location), exists };
  }

  /**
   * Whether an absolute path is denied, relative to every original root that contains it.
   *
   * @param absolute an absolute path
   * @returns true when a deny rule matches it or a directory above it
   */
  isDenied(absolute: string): boolean {
    for (const base of this.#denyBases) {
      if (!this.#inside(base, absolute)) continue;
      if (this.#denied(this.#slashed(nativePath.relative(base, absolute)))) return true;
    }
    return false;
  }

  /**
   * Whether a file is another name (a hard link) of a file a deny rule matches inside the
   * original roots: deny rules hold by identity (device and inode) too. Free for a file
   * with one name; for one with several, the roots are scanned for denied files when what
   * is known is older than the file's last change of links.
   *
   * @param stat the file's stat (best that of the open file, so that no swap can slip in)
   * @returns true when the file must be treated as denied
   */
  deniedByIdentity(stat: FileStat): Promise<boolean> {
    return this.#identities?.denies(stat) ?? Promise.resolve(false);
  }

  /**
   * Whether an absolute path lies inside some root (by whole segments).
   *
   * @param absolute an absolute, normalised path
   * @returns true when some root is it or above it
   */
  contains(absolute: string): boolean {
    return this.roots.some((root) => this.#inside(root, absolute));
  }

  /**
   * The display path of an absolute path inside the roots: relative to the first root with
   * `/` separators ("." for the root itself), or absolute when in another root.
   *
   * @param absolute an absolute path inside a root
   * @returns the display path
   */
  display(absolute: string): string {
    const first = this.roots[0];
    if (this.#inside(first, absolute)) {
      const relative = this.#slashed(nativePath.relative(first, absolute));
      return relative === "" ? "." : relative;
    }
    return this.#slashed(absolute);
  }

  /**
   * The absolute path of a display path this sandbox produced (no checks: for paths that
   * came out of {@linkcode Sandbox.resolve} or a walk).
   *
   * @param display a display path
   * @returns the absolute path it stands for
   */
  absolute(display: string): string {
    return nativePath.resolve(this.roots[0], display);
  }

  /**
   * A sandbox limited to the parts of the roots that the given directories also cover (MCP
   * client roots): it can narrow, never widen. Deny rules stay relative to the original
   * roots, so narrowing to a subdirectory cannot move an anchored rule out of the way.
   * Directories that do not exist or cannot be read are ignored, and so is a root that is no
   * directory (a file: a root is a folder the tools work in).
   *
   * @param paths absolute directory paths or `file:` URLs, in the order the client gave them
   * @returns the narrowed sandbox, or undefined when nothing intersects
   */
  async narrow(paths: readonly (string | URL)[]): Promise<Sandbox | undefined> {
    const roots: string[] = [];
    // (Each with a form paths may give it by: the client's own spelling, as the roots given to
    // the server are known by theirs, and a server root by the form it was given.)
    const forms: string[] = [];
    const add = (root: string, form: string) => {
      if (roots.includes(root) || this.isDenied(root)) return;
      roots.push(root);
      forms.push(form);
    };
    for (const entry of paths) {
      const absolute = clientPath(entry);
      if (absolute === undefined) continue;
      let real: string;
      try {
        real = await fs.realpath(absolute);
        if (!(await fs.stat(real)).isDirectory()) continue;
      } catch (error) {
        if (isMissing(error) || mapOsError(error, absolute, "read") !== error) continue;
        throw error;
      }
      this.roots.forEach((root, i) => {
        if (this.#inside(root, real)) add(real, absolute);
        else if (this.#inside(real, root)) add(root, this.#givenRoots[i]);
      });
    }
    if (roots.length === 0) return undefined;
    return new Sandbox(this.files.narrowed(roots), forms, this.deny, this.#denyBases, {
      baseFiles: this.#baseFiles,
      identities: this.#identities,
    });
  }

  /** The root (real form) an absolute path lies in, by its given or real form; the deepest wins. */
  #rootFor(absolute: string): { root: string; rest: string } | undefined {
    let best: { root: string; rest: string } | undefined;
    let bestLength = -1;
    this.roots.forEach((root, i) => {
      for (const form of [root, this.#givenRoots[i]]) {
        if (form.length > bestLength && this.#inside(form, absolute)) {
          best = { root, rest: nativePath.relative(form, absolute) };
          bestLength = form.length;
        }
      }
    });
    return best;
  }

  /**
   * Follows `rest` from a real root one segment at a time, like the kernel but checking each
   * step: a step outside the roots or onto a denied path is refused before it is touched.
   * `..` from a symlink target may climb above a root in passing; only what is looked at
   * must be inside.
   */
  #follow(root: string, rest: string, asked: string): { real: string; exists: boolean } {
    // The short way: where resolution follows no symlink (a race-free file system refuses
    // one anywhere on the way), one lookup of the whole path instead of one per segment. A
    // symlink on the way, or a missing part, takes the long way, which says what it met.
    if (this.files.raceFree && !hasDotSegment(rest)) {
      const whole = nativePath.join(root, rest);
      this.#check(whole, asked);
      const stat = this.#lstatOrUndefined(whole);
      if (stat !== undefined && stat.kind !== "symlink") return { real: whole, exists: true };
    }
    let current = root;
    const queue = splitNative(rest);
    let symlinks = 0;
    while (queue.length > 0) {
      const name = queue.shift()!;
      if (name === "." || name === "") continue;
      if (name === "..") {
        current = nativePath.dirname(current);
        continue;
      }
      const next = nativePath.join(current, name);
      this.#check(next, asked);
      let stat;
      try {
        stat = this.files.lstat(next);
      } catch (error) {
        if (!isMissing(error)) throw mapOsError(error, asked, "read");
        const real = nativePath.join(next, ...queue);
        this.#check(real, asked);
        return { real, exists: false };
      }
      if (stat.kind === "symlink") {
        if (++symlinks > MAX_SYMLINKS) {
          throw new InvalidPathError(
            asked,
            "it is a symlink loop (too many levels of symbolic links)",
          );
        }
        let target: string;
        try {
          target = this.files.readlink(next);
        } catch (error) {
          // Not a symlink any more (EINVAL), or gone: it was replaced since the stat.
          if (osErrorCode(error) === "EINVAL" || isMissing(error)) {
            throw new PathChangedError(asked);
          }
          throw mapOsError(error, asked, "read");
        }
        // (A target that ends in a separator names a directory, as the kernel has it: a `.`
        // after it makes a file there not found.)
        const directoryOnly = SEPARATOR.test(target.at(-1) ?? "") ? ["."] : [];
        if (nativePath.isAbsolute(target)) {
          const place = this.#rootFor(nativePath.resolve(target));
          if (place === undefined) throw new PathOutsideRootError(asked);
          current = place.root;
          queue.unshift(...splitNative(place.rest), ...directoryOnly);
        } else {
          queue.unshift(...splitNative(target), ...directoryOnly);
        }
        continue;
      }
      if (queue.length > 0 && stat.kind !== "directory") throw new NotFoundError(asked);
      current = next;
    }
    this.#check(current, asked);
    return { real: current, exists: true };
  }

  #lstatOrUndefined(path: string): FileStat | undefined {
    try {
      return this.files.lstat(path);
    } catch {
      return undefined; // (the long way looks again, and reports it)
    }
  }

  /** Refuses a path outside the roots or denied. */
  #check(absolute: string, asked: string): void {
    if (!this.contains(absolute)) throw new PathOutsideRootError(asked);
    if (this.isDenied(absolute)) throw new DeniedPathError(asked);
  }

  #inside(root: string, path: string): boolean {
    return isInside(root, path, nativePath.sep);
  }

  #slashed(path: string): string {
    return this.#windows ? path.replaceAll("\\", "/") : path;
  }
}

const warned = new Set<string>();

/** Says once per process why resolution can be raced here. */
function warnOnce(reason: string, warn: ((message: string) => void) | undefined): void {
  if (warned.has(reason)) return;
  warned.add(reason);
  const message = `path resolution can be raced here (${reason}): a process that swaps a ` +
    `directory for a symlink inside a root while a call runs may lead it outside the roots`;
  if (warn) warn(message);
  else process.stderr.write(`linewise: ${message}\n`);
}

/** Whether a relative native path holds a "." or ".." segment. */
function hasDotSegment(path: string): boolean {
  return splitNative(path).some((part) => part === "." || part === "..");
}

/** Splits a relative native path into segments. */
function splitNative(path: string): string[] {
  return path.split(SEPARATOR).filter((part) => part !== "");
}

/** The real path of a root, which must be a directory. */
async function realDirectory(absolute: string, given: string): Promise<string> {
  try {
    const real = await fs.realpath(absolute);
    const stat = await fs.stat(real);
    if (!stat.isDirectory()) throw new NotADirectoryError(given);
    return real;
  } catch (error) {
    throw mapOsError(error, given, "read");
  }
}

/** An absolute path from a client root (a path or a `file:` URL), or undefined. */
function clientPath(entry: string | URL): string | undefined {
  try {
    if (entry instanceof URL || entry.startsWith("file:")) return fileURLToPath(entry);
  } catch (error) {
    if (error instanceof TypeError) return undefined;
    throw error;
  }
  return typeof entry === "string" && nativePath.isAbsolute(entry) && !entry.includes("\0")
    ? nativePath.resolve(entry)
    : undefined;
}
