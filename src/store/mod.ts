/**
 * File access for the tools: the {@linkcode FileStore} contract, the base and in-memory
 * stores, the walk, and the errors. (The directory store is in `src/disk/`.)
 *
 * @module
 */
export * from "./file_store.ts";
export * from "./errors.ts";
export * from "./walk.ts";
export * from "./base_store.ts";
export * from "./memory_store.ts";
