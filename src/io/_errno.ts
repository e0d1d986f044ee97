/**
 * Failed system calls as the errors `node:fs` throws (`code`, `errno`, `syscall`), so that
 * one mapping to store errors serves both ways of reaching the file system.
 *
 * @module
 */

/** Linux's errno values (the same on x86-64 and arm64) and what they say. */
const NAMES: Record<number, [string, string]> = {
  1: ["EPERM", "operation not permitted"],
  2: ["ENOENT", "no such file or directory"],
  4: ["EINTR", "interrupted system call"],
  5: ["EIO", "i/o error"],
  6: ["ENXIO", "no such device or address"],
  9: ["EBADF", "bad file descriptor"],
  11: ["EAGAIN", "resource temporarily unavailable"],
  12: ["ENOMEM", "not enough memory"],
  13: ["EACCES", "permission denied"],
  16: ["EBUSY", "resource busy"],
  17: ["EEXIST", "file already exists"],
  18: ["EXDEV", "cross-device link"],
  19: ["ENODEV", "no such device"],
  20: ["ENOTDIR", "not a directory"],
  21: ["EISDIR", "illegal operation on a directory"],
  22: ["EINVAL", "invalid argument"],
  23: ["ENFILE", "file table overflow"],
  24: ["EMFILE", "too many open files"],
  26: ["ETXTBSY", "text file is busy"],
  27: ["EFBIG", "file too large"],
  28: ["ENOSPC", "no space left on device"],
  29: ["ESPIPE", "invalid seek"],
  30: ["EROFS", "read-only file system"],
  31: ["EMLINK", "too many links"],
  36: ["ENAMETOOLONG", "name too long"],
  37: ["ENOLCK", "no locks available"],
  38: ["ENOSYS", "function not implemented"],
  39: ["ENOTEMPTY", "directory not empty"],
  40: ["ELOOP", "too many symbolic links encountered"],
  75: ["EOVERFLOW", "value too large for defined data type"],
  95: ["ENOTSUP", "operation not supported"],
  116: ["ESTALE", "stale file handle"],
  122: ["EDQUOT", "disk quota exceeded"],
};

/** An errno value by name (only those this package tests for). */
export const ERRNO = {
  EPERM: 1,
  ENOENT: 2,
  EINTR: 4,
  EAGAIN: 11,
  EEXIST: 17,
  EXDEV: 18,
  ENOTDIR: 20,
  EINVAL: 22,
  ERANGE: 34,
  ENOSYS: 38,
  ELOOP: 40,
  EOPNOTSUPP: 95,
} as const;

/** What an open for writing says of a file this process may not write. */
export const NOT_WRITABLE: ReadonlySet<string> = new Set(["EACCES", "EPERM", "EROFS"]);

/** An error carrying the fields of node's system errors. */
export interface SystemError extends Error {
  /** "ENOENT", ... */
  code: string;
  /** The errno value, negated as node negates it. */
  errno: number;
  /** The call that failed. */
  syscall: string;
  /** The path it was given, when there was one. */
  path?: string;
}

/**
 * The error for a failed call, shaped like node's.
 *
 * @param errno the (positive) errno value
 * @param syscall the call
 * @param path the path it was given
 * @returns the error
 */
export function systemError(errno: number, syscall: string, path?: string): SystemError {
  const [code, text] = NAMES[errno] ?? [`E${errno}`, `system error ${errno}`];
  const error = new Error(
    `${code}: ${text}, ${syscall}${path === undefined ? "" : ` '${path}'`}`,
  ) as SystemError;
  error.code = code;
  error.errno = -errno;
  error.syscall = syscall;
  if (path !== undefined) error.path = path;
  return error;
}
