/**
 * The tool definitions: schemas, descriptions, annotations and `call`, over any store.
 *
 * @module
 */
export * from "./tool.ts";
export * from "./options.ts";
export * from "./create_tools.ts";
export * from "./instructions.ts";
export * from "../match/safe_matcher.ts";
