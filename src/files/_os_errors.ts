/**
 * The one place that knows how runtimes report file-system failures: Node and Bun set
 * `error.code`, Deno's permission checks throw `Deno.errors.NotCapable` (or, in older
 * versions, `PermissionDenied`) with no code. Everything else in src/store asks here.
 *
 * @module
 */
import {
  InvalidPathError,
  NoSpaceError,
  NotAFileError,
  NotFoundError,
  PathChangedError,
  PermissionError,
  type StoreError,
  TooManyOpenFilesError,
} from "../store/errors.ts";

/** Which access was being attempted, for the wording of a permission refusal. */
export type Access = "read" | "write";

/**
 * The error code of a file-system failure ("ENOENT", ...), with Deno's permission errors
 * reported as "EPERMISSION"; undefined for anything that is not a file-system failure.
 */
export function osErrorCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const { code, name } = error as { code?: unknown; name?: unknown };
  if (name === "NotCapable" || name === "PermissionDenied") return "EPERMISSION";
  return typeof code === "string" ? code : undefined;
}

/**
 * Turns a known file-system failure into the StoreError a model should see; returns the
 * error unchanged when its code is not one we know, so that callers rethrow it.
 */
export function mapOsError(error: unknown, path: string, access: Access): unknown {
  const mapped = storeErrorFor(osErrorCode(error), path, access);
  return mapped ?? error;
}

function storeErrorFor(
  code: string | undefined,
  path: string,
  access: Access,
): StoreError | undefined {
  switch (code) {
    case "ENOENT":
      return new NotFoundError(path);
    case "ENOTDIR":
      // A file stands where a directory was expected on the way: nothing exists at the path.
      return new NotFoundError(path);
    case "EISDIR":
      return new NotAFileError(path, "a directory");
    case "EACCES":
    case "EPERM":
    case "EROFS":
    case "EPERMISSION":
      return new PermissionError(path, `${access} access`);
    case "ELOOP":
      // The store opens only real paths, following no symlink: a symlink met on the way was
      // put there after the sandbox resolved the path (genuine loops are found before).
      return new PathChangedError(path);
    case "ENOSPC":
      return new NoSpaceError(path, "no space left on device");
    case "EDQUOT":
      return new NoSpaceError(path, "disk quota exceeded");
    case "ENAMETOOLONG":
      return new InvalidPathError(path, "the name is too long for the file system");
    case "ENXIO":
    case "ENODEV":
      return new NotAFileError(path, "a device, FIFO or socket");
    case "EMFILE":
      return new TooManyOpenFilesError(path, "this process's");
    case "ENFILE":
      return new TooManyOpenFilesError(path, "the system's");
    default:
      return undefined;
  }
}

/** True when the failure means "nothing there" (ENOENT, or ENOTDIR on the way). */
export function isMissing(error: unknown): boolean {
  const code = osErrorCode(error);
  return code === "ENOENT" || code === "ENOTDIR";
}
