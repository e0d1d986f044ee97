// Shared by the tests of the readers and writers: the file system below a test's directory.
import { realpathSync } from "node:fs";
import {
  type FileSystem,
  type FileSystemOptions,
  openFileSystem,
} from "../../src/io/file_system.ts";

/** The file system whose one root is `dir` (handle-relative where the runtime can). */
export function filesOf(dir: string, options?: FileSystemOptions): FileSystem {
  return openFileSystem([realpathSync(dir)], options);
}
