/**
 * The mounts inside a tree, from the process's mount table: a file system mounted over a
 * directory of the tree, or unmounted from one, changes what that directory holds, and no
 * inotify watch hears it. Whoever trusts a watcher compares this before and after.
 *
 * @module
 */
import * as fs from "node:fs";
import { isInside } from "../../store/_paths.ts";

/** The process's mount table (Linux: its mount namespace's, one mount a line). */
export const MOUNT_TABLE = "/proc/self/mountinfo";

/**
 * The lines of the mount table whose mount point lies within a root (the roots themselves
 * left out: what is mounted there was so before a root was opened, and stays so for it).
 *
 * @param roots real paths
 * @param table the mount table's path
 * @returns those lines, in the table's order, joined with a line break; empty when the table
 *   cannot be read (not Linux, no `/proc`), which no change then shows
 */
export function mountsInside(roots: readonly string[], table: string = MOUNT_TABLE): string {
  let text: string;
  try {
    text = fs.readFileSync(table, "utf8");
  } catch {
    return "";
  }
  const inside: string[] = [];
  for (const line of text.split("\n")) {
    // (Fields: mount id, parent id, major:minor, root, mount point, …; the kernel writes a
    // space, tab, line break or backslash in a path as an octal escape.)
    const point = line.split(" ", 5)[4];
    if (point === undefined) continue;
    const path = point.replace(
      /\\([0-7]{3})/g,
      (_, code) => String.fromCharCode(parseInt(code, 8)),
    );
    if (roots.some((root) => path !== root && isInside(root, path))) inside.push(line);
  }
  return inside.join("\n");
}
