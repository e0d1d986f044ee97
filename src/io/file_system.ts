/**
 * The file system as the directory store sees it: every operation names a real path (every
 * symlink already resolved by the sandbox) inside one of a fixed set of roots, and follows
 * no symlink at all. Where the system allows it (Linux, through the runtime's FFI), each
 * operation is made relative to a directory handle: `openat2` with `RESOLVE_BENEATH` and
 * `RESOLVE_NO_SYMLINKS` from the root's handle, or else `openat` with `O_NOFOLLOW` one
 * component at a time, then `statx`, `getdents64`, `renameat`, `unlinkat`, `mkdirat` and
 * `linkat` relative to the directory opened. A process that swaps a directory for a symlink
 * while this runs makes the operation fail (`ELOOP`), never reach outside the roots.
 * Elsewhere (another system, Node, Deno without `--allow-ffi`) the same operations go
 * through `node:fs` by path, with `O_NOFOLLOW` on the last component only: a swap of a
 * directory higher up can then be raced, and {@linkcode FileSystem.racyBecause} says why.
 *
 * @module
 */
import { openAtFileSystem, sharedAtFileSystem } from "./_at_file_system.ts";
import { openPathFileSystem } from "./_path_file_system.ts";
import { loadLibc } from "./libc.ts";
import type { FileSystem, FileSystemOptions, SharedFileSystem } from "./_file_system_types.ts";

export type {
  DirHandle,
  FileSystem,
  FileSystemOptions,
  RawDirEntry,
  SharedFileSystem,
} from "./_file_system_types.ts";

/**
 * Opens the file system below real, absolute root paths.
 *
 * @param roots the roots' real paths
 * @param options whether to use the handle-relative calls where possible
 * @returns the file system
 * @example
 * ```ts
 * import { openFileSystem } from "./file_system.ts";
 * import * as fs from "node:fs";
 * import * as os from "node:os";
 * import assert from "node:assert/strict";
 * const root = fs.realpathSync(os.tmpdir());
 * const files = openFileSystem([root]);
 * assert.equal(files.lstat(root).kind, "directory");
 * ```
 */
export function openFileSystem(
  roots: readonly string[],
  options: FileSystemOptions = {},
): FileSystem {
  if (options.raceFree === false) {
    return openPathFileSystem(roots, "race-free access was turned off");
  }
  const found = loadLibc();
  if ("reason" in found) return openPathFileSystem(roots, found.reason);
  return openAtFileSystem(found.libc, roots, { openat2: options.openat2 });
}

/**
 * The file system another thread shared, over the same handles (not closed here).
 *
 * @param shared what {@linkcode FileSystem.share} gave
 * @returns the file system
 */
export function sharedFileSystem(shared: SharedFileSystem): FileSystem {
  if (shared.kind === "path") return openPathFileSystem(shared.roots, shared.racyBecause);
  const found = loadLibc();
  if ("reason" in found) {
    throw new Error(`the C library is missing on this thread: ${found.reason}`);
  }
  return sharedAtFileSystem(found.libc, shared);
}
