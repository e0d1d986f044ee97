// Argument checking against the subset of JSON Schema the tools use, with messages a
// model can act on. Hosts usually validate too, but a direct call must not crash on junk.
import { unquotePath } from "../core/mod.ts";
import type { JsonSchema } from "./tool.ts";

interface PropertySchema {
  /** One type, or ["string", "array"]: one string or a list of them (globs). */
  type: "string" | "integer" | "boolean" | "array" | "object" | ["string", "array"];
  enum?: readonly string[];
  minimum?: number;
  items?: JsonSchema;
  default?: unknown;
}

/**
 * Arguments that name paths: a path quoted as results show it (`"evil\n1.txt"`) is taken
 * back unquoted.
 */
const PATH_ARGUMENTS = new Set(["path", "from", "to"]);

/** Arguments that are text to write or to compare with a file's (not names, which may not be UTF-8). */
const TEXT_ARGUMENTS = new Set([
  "content",
  "new_text",
  "old_text",
  "text",
  "expected_text",
  "patch",
]);

/**
 * Optional string arguments for which "" means "not given" (models send it for an argument
 * they mean to leave out), as it does for every optional argument that is no string (`""` for
 * `end_line` or `ignore_case`). Text arguments are not among them: "" there is text (new_text
 * "" deletes, expected_text "" is an empty line).
 */
const EMPTY_IS_UNSET = new Set(["path", "glob", "version", "output"]);

/** Thrown for arguments that do not fit the schema; the message names the field and the fix. */
export class ArgumentError extends TypeError {
  constructor(message: string) {
    super(message);
    this.name = "ArgumentError";
  }
}

/** Checks `args` against `schema` and returns them with defaults filled in. */
export function checkArgs<T>(schema: JsonSchema, args: unknown, where = ""): T {
  if (args === undefined || args === null) args = {};
  if (typeof args !== "object" || Array.isArray(args)) {
    const what = where ? `argument ${JSON.stringify(where.slice(0, -1))}` : "arguments";
    throw new ArgumentError(`${what} must be an object, got ${describe(args)}`);
  }
  const properties = (schema.properties ?? {}) as Record<string, PropertySchema>;
  const required = (schema.required ?? []) as string[];
  const given = args as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(given)) {
    // Own properties only: "toString" or "__proto__" must not pass as known names.
    if (!Object.hasOwn(properties, name)) {
      throw new ArgumentError(
        `unknown argument ${JSON.stringify(where + name)}; the arguments are ${
          Object.keys(properties).join(", ")
        }`,
      );
    }
  }
  for (const [name, property] of Object.entries(properties)) {
    const unset = EMPTY_IS_UNSET.has(name) || property.type !== "string";
    const value = given[name] === "" && unset && !required.includes(name) ? undefined : given[name];
    if (value === "" && required.includes(name) && PATH_ARGUMENTS.has(name)) {
      throw new ArgumentError(`argument ${JSON.stringify(where + name)} is empty: give a path`);
    }
    if (value === undefined || value === null) {
      if (required.includes(name)) {
        throw new ArgumentError(`missing required argument ${JSON.stringify(where + name)}`);
      }
      if (property.default !== undefined) out[name] = property.default;
      continue;
    }
    const checked = checkValue(property, value, where + name);
    out[name] = PATH_ARGUMENTS.has(name) && typeof checked === "string"
      ? unquotePath(checked)
      : checked;
  }
  return out as T;
}

function checkValue(property: PropertySchema, value: unknown, name: string): unknown {
  const wrong = (what: string) =>
    new ArgumentError(`argument ${JSON.stringify(name)} must be ${what}, got ${describe(value)}`);
  if (Array.isArray(property.type)) {
    if (typeof value === "string") return value;
    if (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === "string")) {
      return value;
    }
    throw wrong("a string or a non-empty list of strings");
  }
  switch (property.type) {
    case "string":
      if (typeof value !== "string") throw wrong("a string");
      if (TEXT_ARGUMENTS.has(name.slice(name.lastIndexOf(".") + 1)) && !value.isWellFormed()) {
        const at = [...value].find((char) => !char.isWellFormed())!;
        throw new ArgumentError(
          `argument ${JSON.stringify(name)} holds a lone surrogate (U+${
            at.charCodeAt(0).toString(16).toUpperCase()
          }), which is no character: UTF-8 cannot write it`,
        );
      }
      if (property.enum && !property.enum.includes(value)) {
        throw wrong(`one of ${property.enum.join(", ")}`);
      }
      return value;
    case "boolean":
      if (typeof value !== "boolean") throw wrong("true or false");
      return value;
    case "integer":
      if (typeof value !== "number" || !Number.isInteger(value)) throw wrong("a whole number");
      if (property.minimum !== undefined && value < property.minimum) {
        throw wrong(`${property.minimum} or more`);
      }
      return value;
    case "array":
      if (!Array.isArray(value)) throw wrong("an array");
      if (value.length === 0) throw wrong("a non-empty array");
      return value.map((item, i) => checkArgs(property.items!, item, `${name}[${i}].`));
    case "object":
      return checkArgs(property as unknown as JsonSchema, value, `${name}.`);
  }
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return value.length === 0 ? "an empty array" : "an array";
  if (value === null) return "null";
  if (typeof value === "string") return `the string ${JSON.stringify(value.slice(0, 40))}`;
  if (typeof value === "object") return "an object";
  return `${typeof value} ${String(value)}`;
}
