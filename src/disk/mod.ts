/**
 * Files on disk: the directory store and its sandbox (roots, symlinks, deny globs).
 *
 * @module
 */
export * from "./sandbox.ts";
export * from "./directory_store.ts";
