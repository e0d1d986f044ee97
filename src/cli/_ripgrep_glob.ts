/**
 * `linewise grep -g` globs as ripgrep reads them. Off Windows, ripgrep's `\` escapes the
 * character after it (`-g '\*.txt'` is a file named `*.txt`), where the tools take a `\` for
 * a path separator, as in a Windows path (so an agent's `src\*.ts` works). An escaped
 * character is written in the tools' syntax as a class of itself (`\*` as `[*]`), or, for a
 * `!` that would negate the glob, as `{!}`.
 *
 * @module
 */
import process from "node:process";
import { UsageError } from "./_options.ts";

/** The characters a glob gives a meaning to, each written as a class of itself when escaped. */
const SPECIAL = new Set(["*", "?", "[", "]", "{", "}", ","]);

/**
 * A -g glob in the tools' syntax.
 *
 * @param glob the glob as given (a leading `!` excludes)
 * @returns the same glob for the tools; on Windows, the glob as given (ripgrep's `\` is a
 *   separator there too)
 * @throws {UsageError} for a `\` at the end, or one escaping a `\` or a character in a class,
 *   which the tools' syntax cannot say
 * @example
 * ```ts
 * import { ripgrepGlob } from "./_ripgrep_glob.ts";
 * import assert from "node:assert/strict";
 * if (process.platform !== "win32") {
 *   assert.equal(ripgrepGlob("\\*.txt"), "[*].txt");
 *   assert.equal(ripgrepGlob("!\\!x"), "!{!}x");
 *   assert.equal(ripgrepGlob("*\\.txt"), "*.txt");
 * }
 * ```
 */
export function ripgrepGlob(glob: string): string {
  if (process.platform === "win32" || !glob.includes("\\")) return glob;
  const negated = glob.startsWith("!");
  let out = negated ? "!" : "";
  let inClass = false;
  for (let at = negated ? 1 : 0; at < glob.length; at++) {
    const char = glob[at];
    if (char !== "\\") {
      if (char === "[" && !inClass) {
        inClass = true;
        // (A `!` or `^` after it negates, and a `]` first is a member, not the end.)
        const first = /^[!^]?\]?/.exec(glob.slice(at + 1))![0];
        out += char + first;
        at += first.length;
        continue;
      }
      if (char === "]" && inClass) inClass = false;
      out += char;
      continue;
    }
    const next = glob[++at];
    if (next === undefined || next === "\\" || inClass) {
      const what = next === undefined
        ? "ends with a \\"
        : next === "\\"
        ? "escapes a \\, which a name cannot be matched with here (a \\ in a path is a separator): put ? in its place"
        : "escapes a character in a [class]: leave the \\ out";
      throw new UsageError(`-g ${JSON.stringify(glob)} ${what}`);
    }
    const first = out.length === (negated ? 1 : 0);
    out += next === "!" && first ? "{!}" : SPECIAL.has(next) ? `[${next}]` : next;
  }
  return out;
}
