/**
 * Pure path arithmetic shared by the sandbox, the walks and the memory store: checking a
 * caller's path string, comparing paths by segment, and ordering paths.
 *
 * @module
 */
import { PathOutsideRootError } from "./errors.ts";

/**
 * Checks a caller's path and returns it with `/` separators. On Windows backslashes are
 * separators too (an agent writing `..\\x` means `../x`, and a UNC path `\\\\host\\share`
 * becomes `//host/share`, absolute and outside); elsewhere a backslash is part of a name, as
 * the kernel reads it (`..\\x` is a file in the root), so that a name holding one, shown
 * quoted, can be given back. So is a colon: `c:notes.txt` is a file in the root off Windows.
 */
export function cleanUserPath(path: unknown, windows = false): string {
  if (typeof path !== "string") throw new TypeError(`path must be a string, got ${typeof path}`);
  if (path.includes("\0")) throw new PathOutsideRootError(path);
  const slashed = windows ? path.replaceAll("\\", "/") : path;
  return slashed === "" ? "." : slashed;
}

/** True when `path` is `root` or lies below it, compared by whole segments. */
export function isInside(root: string, path: string, sep = "/"): boolean {
  if (path === root) return true;
  const prefix = root.endsWith(sep) ? root : root + sep;
  return path.startsWith(prefix);
}

/** Splits a `/`-separated relative path into segments, dropping empty ones and ".". */
export function segments(path: string): string[] {
  return path.split("/").filter((part) => part !== "" && part !== ".");
}

/**
 * Orders paths as a sorted tree walk visits them: segment by segment, each compared by
 * UTF-16 code units, so `a/x` comes before `a.txt` (the directory `a` sorts before the
 * name `a.txt`). This is "path order" for search results and glob output.
 */
export function comparePaths(a: string, b: string): number {
  const left = a.split("/");
  const right = b.split("/");
  const n = Math.min(left.length, right.length);
  for (let i = 0; i < n; i++) {
    if (left[i] !== right[i]) return left[i] < right[i] ? -1 : 1;
  }
  return left.length - right.length;
}

/** Joins a display path and a child name; "." is the first root itself. */
export function joinDisplay(dir: string, name: string): string {
  if (dir === ".") return name;
  return dir.endsWith("/") ? dir + name : `${dir}/${name}`;
}
