/**
 * File access for the tools: the {@linkcode FileStore} contract, the in-memory and
 * directory stores, the sandbox (roots, symlinks, deny globs), the walk, and the errors.
 *
 * @module
 */
export * from "./file_store.ts";
export * from "./errors.ts";
export * from "./sandbox.ts";
export * from "./walk.ts";
export * from "./base_store.ts";
export * from "./memory_store.ts";
export * from "./directory_store.ts";
