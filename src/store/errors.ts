/**
 * Errors a store throws. Each message is a plain sentence a model can act on: what was
 * wrong, with the values, and what to do next. Tools pass `message` through as-is.
 *
 * @module
 */

/** Machine-readable error codes of {@linkcode StoreError}. */
export type StoreErrorCode =
  | "outside_root"
  | "denied"
  | "not_found"
  | "not_a_file"
  | "not_a_directory"
  | "binary"
  | "invalid_utf8"
  | "too_large"
  | "exists"
  | "changed"
  | "permission"
  | "invalid_path"
  | "raced"
  | "no_space"
  | "busy"
  | "too_many_open_files"
  | "cannot_move";

/** Base class of every error a store throws on purpose. */
export class StoreError extends Error {
  /** What went wrong, for programs. */
  readonly code: StoreErrorCode;
  /** The path as the caller gave it. */
  readonly path: string;

  /**
   * Makes the error, with its message.
   *
   * @param code what went wrong
   * @param path the path as the caller gave it
   * @param message a sentence for a model
   */
  constructor(code: StoreErrorCode, path: string, message: string) {
    super(message);
    this.name = "StoreError";
    this.code = code;
    this.path = path;
  }
}

/** The path resolves outside every root (or contains a NUL byte). */
export class PathOutsideRootError extends StoreError {
  /**
   * Makes the error, with its message.
   *
   * @param path the path as the caller gave it
   */
  constructor(path: string) {
    super(
      "outside_root",
      path,
      `path ${JSON.stringify(path)} is outside the allowed roots; use a path inside a root`,
    );
    this.name = "PathOutsideRootError";
  }
}

/** The path matches a deny rule; said the same way whether or not it exists. */
export class DeniedPathError extends StoreError {
  /**
   * Makes the error, with its message.
   *
   * @param path the path as the caller gave it
   */
  constructor(path: string) {
    super("denied", path, `path ${JSON.stringify(path)} is not accessible: the server denies it`);
    this.name = "DeniedPathError";
  }
}

/** Nothing exists at the path. */
export class NotFoundError extends StoreError {
  /**
   * Makes the error, with its message.
   *
   * @param path the path as the caller gave it
   */
  constructor(path: string) {
    super(
      "not_found",
      path,
      `no file or directory at ${JSON.stringify(path)}; check the path with glob or list`,
    );
    this.name = "NotFoundError";
  }
}

/** The path is a directory, FIFO, socket or device where a regular file is needed. */
export class NotAFileError extends StoreError {
  /**
   * Makes the error, with its message.
   *
   * @param path the path as the caller gave it
   * @param kind what it is instead, e.g. "a directory"
   */
  constructor(path: string, kind: string) {
    super("not_a_file", path, `${JSON.stringify(path)} is ${kind}, not a regular file`);
    this.name = "NotAFileError";
  }
}

/** The path is not a directory where one is needed. */
export class NotADirectoryError extends StoreError {
  /**
   * Makes the error, with its message.
   *
   * @param path the path as the caller gave it
   */
  constructor(path: string) {
    super("not_a_directory", path, `${JSON.stringify(path)} is not a directory`);
    this.name = "NotADirectoryError";
  }
}

/** The file has a NUL byte in its first 8 KiB. */
export class BinaryFileError extends StoreError {
  /** Size of the file in bytes. */
  readonly size: number;
  /**
   * Makes the error, with its message.
   *
   * @param path the path as the caller gave it
   * @param size size in bytes
   */
  constructor(path: string, size: number) {
    super(
      "binary",
      path,
      `${
        JSON.stringify(path)
      } is a binary file (${size} bytes, a NUL byte in its first 8 KiB); it cannot be read as text`,
    );
    this.name = "BinaryFileError";
    this.size = size;
  }
}

/** An edit was asked of a file that is not valid UTF-8. */
export class InvalidUtf8Error extends StoreError {
  /**
   * Makes the error, with its message.
   *
   * @param path the path as the caller gave it
   */
  constructor(path: string) {
    super(
      "invalid_utf8",
      path,
      `${
        JSON.stringify(path)
      } is not valid UTF-8; edit tools refuse it so that no byte changes by accident`,
    );
    this.name = "InvalidUtf8Error";
  }
}

/** The file is larger than the edit cap. */
export class FileTooLargeError extends StoreError {
  /**
   * Makes the error, with its message.
   *
   * @param path the path as the caller gave it
   * @param size size in bytes
   * @param limit the cap in bytes
   */
  constructor(path: string, size: number, limit: number) {
    super(
      "too_large",
      path,
      `${
        JSON.stringify(path)
      } is ${size} bytes, over the ${limit}-byte limit for edits; read and grep still work on it`,
    );
    this.name = "FileTooLargeError";
  }
}

/**
 * `write` or `move` without `overwrite` found an existing file, or a move found what it never
 * replaces.
 */
export class FileExistsError extends StoreError {
  /**
   * Makes the error, with its message.
   *
   * @param path the path as the caller gave it
   * @param never what is there, when overwrite would not replace it either (a clause)
   */
  constructor(path: string, never?: string) {
    super(
      "exists",
      path,
      never === undefined
        ? `${
          JSON.stringify(path)
        } already exists; pass overwrite=true to replace it, or edit it with replace_lines`
        : `${JSON.stringify(path)} already exists, ${never}; nothing was moved`,
    );
    this.name = "FileExistsError";
  }
}

/** The file changed on disk while an edit was being made. */
export class FileChangedError extends StoreError {
  /**
   * Makes the error, with its message.
   *
   * @param path the path as the caller gave it
   */
  constructor(path: string) {
    super(
      "changed",
      path,
      `${
        JSON.stringify(path)
      } changed on disk while the edit was being made; nothing was written. Read it again and redo the edit`,
    );
    this.name = "FileChangedError";
  }
}

/** The operating system or the runtime (e.g. Deno permissions) refused access. */
export class PermissionError extends StoreError {
  /**
   * Makes the error, with its message.
   *
   * @param path the path as the caller gave it
   * @param detail what was refused, e.g. "write access"
   */
  constructor(path: string, detail: string) {
    super("permission", path, `${detail} to ${JSON.stringify(path)} was refused by the system`);
    this.name = "PermissionError";
  }
}

/** The path cannot name a file here: a symlink loop, or a name too long for the system. */
export class InvalidPathError extends StoreError {
  /**
   * Makes the error, with its message.
   *
   * @param path the path as the caller gave it
   * @param reason why, e.g. "it is a symlink loop"
   */
  constructor(path: string, reason: string) {
    super("invalid_path", path, `path ${JSON.stringify(path)} cannot be used: ${reason}`);
    this.name = "InvalidPathError";
  }
}

/**
 * The path changed while it was being opened: something on the way was replaced (a
 * directory by a symlink, say) after the sandbox had checked it. Nothing outside the roots
 * was touched; trying again resolves the path afresh.
 */
export class PathChangedError extends StoreError {
  /**
   * Makes the error, with its message.
   *
   * @param path the path as the caller gave it
   */
  constructor(path: string) {
    super(
      "raced",
      path,
      `${
        JSON.stringify(path)
      } changed while it was being opened (something on the way was replaced, for example a directory by a symlink); nothing was done, try again`,
    );
    this.name = "PathChangedError";
  }
}

/** The disk (or the user's quota) is full: nothing was written. */
export class NoSpaceError extends StoreError {
  /**
   * Makes the error, with its message.
   *
   * @param path the path as the caller gave it
   * @param what "no space left on device" or "disk quota exceeded"
   */
  constructor(path: string, what: string) {
    super(
      "no_space",
      path,
      `${what} while writing ${
        JSON.stringify(path)
      }; nothing was written. Free some space and try again`,
    );
    this.name = "NoSpaceError";
  }
}

/**
 * The process, or the whole system, has as many files open as it may (EMFILE, ENFILE): the
 * file could not be opened, though nothing is wrong with it.
 */
export class TooManyOpenFilesError extends StoreError {
  /**
   * Makes the error, with its message.
   *
   * @param path the path as the caller gave it
   * @param whose "this process's" or "the system's"
   */
  constructor(path: string, whose: string) {
    super(
      "too_many_open_files",
      path,
      `${JSON.stringify(path)} could not be opened: ${whose} limit of open files is reached ` +
        "(nothing was changed). Try again once fewer files are open, or raise the limit " +
        "(ulimit -n)",
    );
    this.name = "TooManyOpenFilesError";
  }
}

/** Another process holds the file's edit lock for too long. */
export class FileBusyError extends StoreError {
  /**
   * Makes the error, with its message.
   *
   * @param path the path as the caller gave it
   * @param seconds how long the lock was waited for
   */
  constructor(path: string, seconds: number) {
    super(
      "busy",
      path,
      `another process has been editing ${
        JSON.stringify(path)
      } for over ${seconds} s (it holds the file's lock); nothing was written, try again later`,
    );
    this.name = "FileBusyError";
  }
}

/** The file's mode does not let this process write it. */
export class ReadOnlyFileError extends StoreError {
  /**
   * Makes the error, with its message.
   *
   * @param path the path as the caller gave it
   * @param mode the file's permission bits
   */
  constructor(path: string, mode: number) {
    super(
      "permission",
      path,
      `${JSON.stringify(path)} is read-only for this server (mode ${
        mode.toString(8).padStart(4, "0")
      }); nothing was written. Change its mode first if it is meant to be edited`,
    );
    this.name = "ReadOnlyFileError";
  }
}

/** A move the store refuses: a root, a directory into itself, or one deny rules tie to its place. */
export class MoveRefusedError extends StoreError {
  /**
   * Makes the error, with its message.
   *
   * @param path the path as the caller gave it
   * @param why why it cannot be moved, a clause
   */
  constructor(path: string, why: string) {
    super(
      "cannot_move",
      path,
      `${JSON.stringify(path)} cannot be moved: ${why}; nothing was moved`,
    );
    this.name = "MoveRefusedError";
  }
}

/**
 * Refuses a move onto what is there: a directory is never replaced, nor moved over a file, and
 * a file replaces one only with `overwrite`.
 *
 * @param to the display path moved to
 * @param directory whether what is moved is a directory
 * @param there what is at `to`, if anything
 * @param overwrite whether the caller allowed replacing a file
 * @throws {FileExistsError} onto anything without `overwrite`, and onto a directory, or with a
 *   directory, whatever it says
 */
export function refuseMoveOver(
  to: string,
  directory: boolean,
  there: string | undefined,
  overwrite: boolean,
): void {
  if (there === undefined) return;
  if (there === "directory") {
    throw new FileExistsError(to, "a directory, which a move never replaces");
  }
  if (!overwrite) throw new FileExistsError(to);
  if (directory) throw new FileExistsError(to, "a file, which a directory never replaces");
}
