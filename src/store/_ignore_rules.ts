/**
 * The ignore rules in force in a directory of a walk: one set per ignore file met on the way
 * down (each `.gitignore`, a repository's `info/exclude`, and where the store reads them as
 * ripgrep does, `.ignore` and `.rgignore`), each applying from its own directory.
 *
 * @module
 */
import { GitignoreRules } from "../match/gitignore.ts";

/**
 * How far an ignore file outweighs others, as in ripgrep: a rule of a `.rgignore` (2) decides
 * before any of an `.ignore` (1), which decides before any of a `.gitignore` or an exclude
 * file (0), whatever their depths; among the files of one rank, the deepest decides first (as
 * in git, a deeper `.gitignore` overrides a higher one).
 */
export type IgnoreRank = 0 | 1 | 2;

interface Level {
  /** The display path of the directory the file applies from (above the root: the root's). */
  dir: string;
  rules: GitignoreRules;
  /** For a file above the root: the root's path from the file's directory (`sub/dir/`). */
  prefix?: string;
  rank: IgnoreRank;
  /** Whether it holds across the top of a repository inside the tree (git's global file). */
  everywhere?: boolean;
}

/** The rules of the ignore files in force in one directory of a walk. */
export class IgnoreRules {
  readonly #levels: Level[];
  /** The highest rank of a level: one pass for git's files alone, as in the server. */
  readonly #top: IgnoreRank;

  constructor(levels: Level[] = []) {
    this.#levels = levels;
    this.#top = levels.reduce<IgnoreRank>((top, { rank }) => rank > top ? rank : top, 0);
  }

  /**
   * Rules with one more file added (or these rules when it has none).
   *
   * @param dir the directory's display path (for a file above the root: the root's)
   * @param text the file's text
   * @param prefix for a file above the root, the root's path from that file's directory
   * @param rank how far its rules outweigh others' ({@linkcode IgnoreRank})
   * @param everywhere whether it holds across the top of a repository inside the tree
   */
  with(
    dir: string,
    text: string | undefined,
    prefix?: string,
    rank: IgnoreRank = 0,
    everywhere = false,
  ): IgnoreRules {
    if (text === undefined || text.trim() === "") return this;
    const rules = new GitignoreRules(text);
    if (rules.empty) return this;
    return new IgnoreRules([...this.#levels, { dir, rules, prefix, rank, everywhere }]);
  }

  /**
   * These rules at the top of a repository whose rules stand alone: git's from above stop
   * there and its exclude file applies from there, while ripgrep's own files (`.ignore`,
   * `.rgignore`) and git's global excludes file hold on across it, as in ripgrep.
   *
   * @param dir the repository's display path
   * @param exclude the text of its exclude file, if any
   */
  atRepository(dir: string, exclude: string | undefined): IgnoreRules {
    const kept = this.#levels.filter(({ rank, everywhere }) => rank > 0 || everywhere);
    return new IgnoreRules(kept).with(dir, exclude);
  }

  /**
   * Whether the entry at display path `path` is ignored.
   *
   * @param path its display path
   * @param isDirectory whether it is a directory
   * @param name its name (the last segment of `path`), when the caller has it: it must then
   *   lie below the directory of every level (as an entry a walk lists does)
   */
  ignores(path: string, isDirectory: boolean, name?: string): boolean {
    return this.verdict(path, isDirectory, name) === true;
  }

  /**
   * What the rules say of an entry (see {@linkcode ignores} for the arguments): true when it
   * is ignored, false when a `!` rule takes it back, undefined when no rule speaks of it.
   */
  verdict(path: string, isDirectory: boolean, name?: string): boolean | undefined {
    const levels = this.#levels;
    for (let rank = this.#top; rank >= 0; rank--) {
      for (let i = levels.length - 1; i >= 0; i--) {
        const level = levels[i];
        if (level.rank !== rank) continue;
        const { dir, rules, prefix } = level;
        // (Most ignore files hold names alone: then no path from their directory is made.)
        let subject = name;
        if (subject === undefined || !rules.namesOnly) {
          subject = dir === "." ? path : path.slice(dir.length + 1);
          if (prefix !== undefined) {
            // (A file above the root: the path from its directory; the root's own is `prefix`.)
            subject = subject === "." || subject === "" ? prefix.slice(0, -1) : prefix + subject;
          } else if (subject === "" || subject.startsWith("/")) continue;
        }
        const result = rules.test(subject, isDirectory, name);
        if (result.ignored) return true;
        if (result.unignored) return false;
      }
    }
    return undefined;
  }
}
