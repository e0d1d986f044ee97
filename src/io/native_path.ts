/**
 * Path arithmetic for real paths: `node:path`'s `join`, `resolve`, `relative`, `dirname`,
 * `basename` and `isAbsolute`, with the same results, but keeping every UTF-16 code unit.
 * Bun's `node:path` turns a lone surrogate into U+FFFD, and a name holding a byte that is
 * not UTF-8 is carried as one (see `core/file_names.ts`): through Bun's functions such a
 * file could never be opened again. On Windows, where names are UTF-16 and paths have
 * drives, this is `node:path`'s own `win32`.
 *
 * @module
 */
import * as nodePath from "node:path";
import process from "node:process";

/** The part of `node:path` the store uses. */
export interface PathFunctions {
  /** The separator. */
  readonly sep: string;
  /** Whether a path is absolute. */
  isAbsolute(path: string): boolean;
  /** Joins segments and normalises the result. */
  join(...paths: string[]): string;
  /** The absolute, normalised path of the segments, from the current directory. */
  resolve(...paths: string[]): string;
  /** The path from one absolute path to another ("" when they are the same). */
  relative(from: string, to: string): string;
  /** The path without its last segment. */
  dirname(path: string): string;
  /** The last segment. */
  basename(path: string): string;
}

/** Normalises segments: drops "" and ".", resolves "..". */
function normalizeSegments(parts: string[], absolute: boolean): string[] {
  const out: string[] = [];
  for (const part of parts) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
      else if (!absolute) out.push("..");
      continue;
    }
    out.push(part);
  }
  return out;
}

function normalize(path: string): string {
  const absolute = path.startsWith("/");
  const trailing = path.endsWith("/");
  const joined = normalizeSegments(path.split("/"), absolute).join("/");
  if (absolute) return "/" + joined + (trailing && joined !== "" ? "/" : "");
  if (joined === "") return trailing ? "./" : ".";
  return joined + (trailing ? "/" : "");
}

/** POSIX path arithmetic in plain string operations. */
const posix: PathFunctions = {
  sep: "/",
  isAbsolute: (path) => path.startsWith("/"),
  join(...paths) {
    const joined = paths.filter((path) => path !== "").join("/");
    return joined === "" ? "." : normalize(joined);
  },
  resolve(...paths) {
    let resolved = "";
    for (let i = paths.length - 1; i >= -1 && !resolved.startsWith("/"); i--) {
      const path = i >= 0 ? paths[i] : process.cwd();
      if (path === "") continue;
      resolved = resolved === "" ? path : `${path}/${resolved}`;
    }
    return "/" + normalizeSegments(resolved.split("/"), true).join("/");
  },
  relative(from, to) {
    const a = normalizeSegments(posix.resolve(from).split("/"), true);
    const b = normalizeSegments(posix.resolve(to).split("/"), true);
    let common = 0;
    while (common < a.length && common < b.length && a[common] === b[common]) common++;
    return [...a.slice(common).map(() => ".."), ...b.slice(common)].join("/");
  },
  // (dirname and basename scan as node:path does, so odd inputs like "a//b" agree too.)
  dirname(path) {
    if (path === "") return ".";
    const hasRoot = path.startsWith("/");
    let end = -1;
    let matchedSlash = true;
    for (let i = path.length - 1; i >= 1; i--) {
      if (path[i] === "/") {
        if (!matchedSlash) {
          end = i;
          break;
        }
      } else matchedSlash = false;
    }
    if (end === -1) return hasRoot ? "/" : ".";
    if (hasRoot && end === 1) return "//";
    return path.slice(0, end);
  },
  basename(path) {
    let start = 0;
    let end = -1;
    for (let i = path.length - 1; i >= 0; i--) {
      if (path[i] === "/") {
        if (end !== -1) {
          start = i + 1;
          break;
        }
      } else if (end === -1) end = i + 1;
    }
    return end === -1 ? "" : path.slice(start, end);
  },
};

/** Any UTF-16 surrogate: a path without one is safe in `node:path` on every runtime. */
const SURROGATE = /[\uD800-\uDFFF]/;

function plain(paths: readonly string[]): boolean {
  for (const path of paths) if (SURROGATE.test(path)) return false;
  return true;
}

/**
 * The runtime's own functions (native code in Bun, faster than the string operations) for paths
 * without surrogates, the string operations above for the others.
 */
const fastPosix: PathFunctions = {
  sep: "/",
  isAbsolute: posix.isAbsolute,
  join: (...paths) => plain(paths) ? nodePath.posix.join(...paths) : posix.join(...paths),
  resolve: (...paths) => plain(paths) ? nodePath.posix.resolve(...paths) : posix.resolve(...paths),
  relative: (from, to) =>
    plain([from, to]) ? nodePath.posix.relative(from, to) : posix.relative(from, to),
  dirname: (path) => plain([path]) ? nodePath.posix.dirname(path) : posix.dirname(path),
  basename: (path) => plain([path]) ? nodePath.posix.basename(path) : posix.basename(path),
};

/** Path arithmetic for this system's real paths. */
export const nativePath: PathFunctions = process.platform === "win32" ? nodePath.win32 : fastPosix;

/**
 * What separates the names of a path on this system: `/`, and on Windows `\` too. Elsewhere
 * a backslash is part of a name (`a\b.txt` is one file), as the kernel reads it.
 */
export const SEPARATOR: RegExp = process.platform === "win32" ? /[\\/]/ : /\//;
