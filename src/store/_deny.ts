/**
 * Deny rules: .gitignore syntax on root-relative paths, matched in time bounded by the
 * path's length.
 *
 * @module
 */
import { GitignoreRules } from "../match/gitignore.ts";

/** Tells whether a root-relative `/`-separated path is denied ("" is the root: never). */
export type DenyMatcher = (relative: string) => boolean;

/**
 * Compiles deny globs. A path is denied when it or any directory above it matches, and a
 * rule meant for directories (`secret/`) also denies a file of that name: whether a missing
 * path would be a file or a directory is unknown, and the answer must not depend on whether
 * it exists. Case is ignored, so `.ENV` cannot slip past `.env` on a case-insensitive disk.
 */
export function compileDeny(globs: readonly string[]): DenyMatcher {
  for (const glob of globs) {
    if (typeof glob !== "string") {
      throw new TypeError(`deny globs must be strings, got ${typeof glob}`);
    }
  }
  if (globs.length === 0) return () => false;
  const rules = new GitignoreRules(globs, { ignoreCase: true, strict: true });
  return (relative) =>
    relative !== "" &&
    (rules.testWithParents(relative, false).ignored ||
      rules.testWithParents(relative, true).ignored);
}
