/**
 * The ignore files above a root, as ripgrep reads them for a search that starts inside a
 * repository: each directory's `.gitignore` from the root's parent up to the repository's top
 * (the first that holds a `.git`), and that repository's `.git/info/exclude`; none when no
 * directory above holds a `.git` (a root that is a repository's top has its exclude file read
 * as the walk meets it: `WalkSource.repositoryAt`). ripgrep's own ignore files (`.ignore`,
 * `.rgignore`), where the store reads them, come from every directory above, repository or
 * not. Only the command line reads them (its root is where it was started); a server's roots
 * are its world.
 *
 * @module
 */
import * as fs from "node:fs";
import { homedir } from "node:os";
import { nativePath } from "../io/native_path.ts";
import type { IgnoreRank, OuterIgnoreFile } from "../store/walk.ts";

/** The most bytes of a `.gitignore` read, as for the ones inside the roots. */
const MOST_BYTES = 1024 * 1024;

/**
 * The ignore files above a root, outermost first: the repository's `.git/info/exclude`, which
 * every `.gitignore` overrides, then the `.gitignore` files above the root from the top down;
 * and ripgrep's files named in `ripgrep`, from `/` down.
 *
 * @param root the root's real path
 * @param ripgrep the names of ripgrep's own ignore files to read too, with their ranks
 * @returns each file's text, the root's path from its directory (`sub/dir/`), and its rank
 */
export function outerIgnoreFiles(
  root: string,
  ripgrep: ReadonlyArray<{ name: string; rank: IgnoreRank }> = [],
): OuterIgnoreFile[] {
  const git: OuterIgnoreFile[] = []; // (innermost first, as the others)
  const others: OuterIgnoreFile[] = [];
  // (The repository's top has no git files above it that apply.)
  let top = fs.existsSync(nativePath.join(root, ".git")) ? root : undefined;
  for (let dir = nativePath.dirname(root);; dir = nativePath.dirname(dir)) {
    const prefix = nativePath.relative(dir, root).split(nativePath.sep).join("/") + "/";
    for (const { name, rank } of ripgrep) {
      const text = readSmall(nativePath.join(dir, name));
      if (text !== undefined) others.push({ prefix, text, rank });
    }
    if (top === undefined) {
      const text = readSmall(nativePath.join(dir, ".gitignore"));
      if (text !== undefined) git.push({ prefix, text });
      if (fs.existsSync(nativePath.join(dir, ".git"))) {
        const exclude = excludeFileOf(dir);
        if (exclude !== undefined) git.push({ prefix, text: exclude });
        top = dir;
      }
    }
    if (dir === nativePath.dirname(dir) || (top !== undefined && ripgrep.length === 0)) break;
  }
  // (Outside a repository, no .gitignore above applies.)
  return [...(top === undefined ? [] : git), ...others].reverse();
}

/**
 * The text of git's global excludes file, found as ripgrep finds it: the file `core.excludesFile`
 * names in `~/.gitconfig`, else in `$XDG_CONFIG_HOME/git/config` (`~/.config/git/config`), else
 * `$XDG_CONFIG_HOME/git/ignore` (`~/.config/git/ignore`). A value in quotes is unquoted, as git
 * reads it (ripgrep 13 keeps the quotes, and finds no file).
 *
 * @param env the environment (`HOME`, else the user's home; `XDG_CONFIG_HOME`)
 * @returns its text, or undefined when there is none
 */
export function globalExcludes(env: Record<string, string | undefined>): string | undefined {
  let home: string;
  let config: string;
  try {
    home = env.HOME || homedir();
    config = env.XDG_CONFIG_HOME || nativePath.join(home, ".config");
  } catch {
    return undefined; // (no access to the environment: Deno without --allow-env)
  }
  for (
    const file of [nativePath.join(home, ".gitconfig"), nativePath.join(config, "git", "config")]
  ) {
    const named = /^\s*excludesfile\s*=\s*(.+?)\s*$/im.exec(readSmall(file) ?? "")?.[1];
    if (named === undefined) continue;
    const path = named.replace(/^"(.*)"$/, "$1");
    return readSmall(path.startsWith("~/") ? nativePath.join(home, path.slice(2)) : path);
  }
  return readSmall(nativePath.join(config, "git", "ignore"));
}

/**
 * The text of a repository's `info/exclude`, in its git directory: `.git`, or for a worktree
 * or a submodule, whose `.git` is a file (`gitdir: …`), the directory it names, or the one
 * that names in turn as `commondir` (a worktree's is the main repository's).
 */
export function excludeFileOf(top: string): string | undefined {
  const dotGit = nativePath.join(top, ".git");
  const link = readSmall(dotGit);
  const named = link === undefined ? undefined : /^gitdir:\s*(.+?)\s*$/m.exec(link)?.[1];
  if (link !== undefined && named === undefined) return undefined;
  const gitDir = named === undefined ? dotGit : nativePath.resolve(top, named);
  const common = readSmall(nativePath.join(gitDir, "commondir"))?.trim();
  const shared = common ? nativePath.resolve(gitDir, common) : gitDir;
  return readSmall(nativePath.join(shared, "info", "exclude"));
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
