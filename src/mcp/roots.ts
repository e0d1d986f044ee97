/**
 * Reading the client's answer to `roots/list`.
 *
 * @module
 */

import { fileURLToPath } from "node:url";

/** The local paths named by a `roots/list` result, and the roots that name none. */
export interface ClientRoots {
  /** Local paths of the `file://` roots, in the client's order. */
  paths: string[];
  /** A sentence for each root that was skipped, saying why. */
  skipped: string[];
}

/**
 * Turns a `roots/list` result into local paths. Roots that are not `file://` URIs (or not
 * local ones) are skipped and reported, never guessed at.
 *
 * @param result The `result` of the client's response, unchecked.
 * @returns The paths and the skipped roots.
 * @throws {TypeError} When the result has no `roots` array.
 * @example
 * ```ts
 * import { clientRootPaths } from "./roots.ts";
 * import assert from "node:assert/strict";
 *
 * const { paths } = clientRootPaths({ roots: [{ uri: "file:///home/ada/my%20project" }] });
 * assert.equal(paths.length, 1);
 * ```
 */
export function clientRootPaths(result: unknown): ClientRoots {
  const roots = typeof result === "object" && result !== null
    ? (result as Record<string, unknown>).roots
    : undefined;
  if (!Array.isArray(roots)) {
    throw new TypeError(`a roots/list result must have a "roots" array`);
  }
  const paths: string[] = [];
  const skipped: string[] = [];
  for (const root of roots) {
    const uri = typeof root === "object" && root !== null
      ? (root as Record<string, unknown>).uri
      : undefined;
    if (typeof uri !== "string" || !uri.startsWith("file:")) {
      skipped.push(`skipped root ${JSON.stringify(uri)}: only file:// URIs name local folders`);
      continue;
    }
    try {
      paths.push(fileURLToPath(uri));
    } catch (error) {
      // fileURLToPath throws TypeError for URIs it cannot map to this machine (a remote
      // host, an encoded slash); anything else is a bug and should surface.
      if (!(error instanceof TypeError)) throw error;
      skipped.push(`skipped root ${JSON.stringify(uri)}: ${error.message}`);
    }
  }
  return { paths, skipped };
}
