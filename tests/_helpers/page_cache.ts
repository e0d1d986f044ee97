import { spawnSync } from "node:child_process";

/**
 * Drops a file's clean pages from the page cache (`posix_fadvise`, which node:fs lacks,
 * through python3), so that its next read comes from the disk.
 *
 * @param file the file
 * @returns whether it could (python3 there, and the call taken)
 */
export function dropPages(file: string): boolean {
  const script = "import os, sys\n" +
    "fd = os.open(sys.argv[1], os.O_RDONLY); os.fsync(fd)\n" +
    "os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)";
  return spawnSync("python3", ["-c", script, file]).status === 0;
}
