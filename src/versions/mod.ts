/**
 * File versions: the short hash results show and edits take, and the line diff that carries
 * an edit's numbers from the version an agent saw to the file as it is now.
 *
 * @module
 */
export * from "./versions.ts";
export * from "./carry_over.ts";
export * from "./regions.ts";
