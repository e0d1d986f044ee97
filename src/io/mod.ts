/**
 * How the directory store reaches files: by real path below fixed roots, following no
 * symlink, through handle-relative system calls where the runtime can make them.
 *
 * @module
 */
export type {
  DirHandle,
  FileSystem,
  FileSystemOptions,
  RawDirEntry,
  SharedFileSystem,
} from "./file_system.ts";
export type { FileStat, StatKind } from "./file_stat.ts";
export type { IdentityKind } from "./file_identity.ts";
