/**
 * The `.gitignore` files above a root, as ripgrep reads them for a search that starts inside
 * a repository: each directory's from the root's parent up to the repository's top (the
 * first that holds a `.git`), none when no directory above holds one. Only the command line
 * reads them (its root is where it was started); a server's roots are its world.
 *
 * @module
 */
import * as fs from "node:fs";
import { nativePath } from "../io/native_path.ts";

/** The most bytes of a `.gitignore` read, as for the ones inside the roots. */
const MOST_BYTES = 1024 * 1024;

/**
 * The `.gitignore` files above a root, outermost first.
 *
 * @param root the root's real path
 * @returns each file's text, and the root's path from its directory (`sub/dir/`)
 */
export function outerIgnoreFiles(root: string): Array<{ prefix: string; text: string }> {
  if (fs.existsSync(nativePath.join(root, ".git"))) return []; // (the repository's top)
  const found: Array<{ prefix: string; text: string }> = [];
  for (let dir = nativePath.dirname(root);; dir = nativePath.dirname(dir)) {
    const text = readSmall(nativePath.join(dir, ".gitignore"));
    const prefix = nativePath.relative(dir, root).split(nativePath.sep).join("/") + "/";
    if (text !== undefined) found.push({ prefix, text });
    if (fs.existsSync(nativePath.join(dir, ".git"))) return found.reverse();
    if (dir === nativePath.dirname(dir)) return []; // (no repository above: none apply)
  }
}

/** A file's text when it is a regular file of at most {@linkcode MOST_BYTES}. */
function readSmall(path: string): string | undefined {
  try {
    const stat = fs.statSync(path);
    if (!stat.isFile() || stat.size > MOST_BYTES) return undefined;
    return fs.readFileSync(path, "utf8");
  } catch {
    return undefined; // (none, or unreadable: as a missing one inside the roots)
  }
}
