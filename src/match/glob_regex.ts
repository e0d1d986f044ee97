/**
 * Globs as regular expressions that every engine can run: no lookarounds, no backreferences,
 * so RE2 (linear time) runs them as well as the runtime's own engine. The translation
 * counts the unbounded repetitions it writes, so that a caller can tell how long an input
 * the backtracking engine may be given (see `bounded_matcher.ts`).
 *
 * Syntax, as ripgrep and .gitignore read it: `*` any run of characters but `/`; `?` one
 * character but `/`; `[abc]`, `[a-z]`, `[!abc]` or `[^abc]` a class (never `/`); a whole
 * segment `**` any number of directories (`**\/x`, `a/**`, `a/**\/b`); `{a,b}` one of the
 * alternatives (not in .gitignore); `\x` the character x (only where backslashes escape).
 *
 * @module
 */
import { InputError } from "../core/mod.ts";

/** How a glob is read. */
export interface GlobSyntax {
  /**
   * Whether `\x` means the character x (.gitignore); otherwise a backslash is a path
   * separator, as in a Windows path.
   * @default false
   */
  escapes?: boolean;
  /**
   * Whether `{a,b}` means one of the alternatives (ripgrep globs; not .gitignore).
   * @default true
   */
  braces?: boolean;
  /**
   * Whether a malformed glob (an unclosed `[` or `{`) is refused; otherwise the bracket is
   * taken as a character, as git takes it in a .gitignore line.
   * @default true
   */
  strict?: boolean;
}

/** A glob as a regular expression. */
export interface GlobRegex {
  /** The expression's source, anchored at both ends; compile it with the dotAll flag. */
  source: string;
  /** How many unbounded repetitions it holds (each `*` and `**`). */
  unbounded: number;
}

const REGEX_SPECIAL = /[\\^$.|?*+()[\]{}]/;

/**
 * Translates a glob that is matched against a whole path (or name).
 *
 * @param glob the glob
 * @param syntax how it is read
 * @returns the expression
 * @throws {InputError} for an unclosed `[` or `{` (when strict)
 * @example
 * ```ts
 * import { globToRegex } from "./glob_regex.ts";
 * import assert from "node:assert/strict";
 * const { source, unbounded } = globToRegex("src/**\/*.ts");
 * const regex = new RegExp(source, "su");
 * assert.equal(regex.test("src/a/b.ts"), true);
 * assert.equal(regex.test("src/b.js"), false);
 * assert.equal(unbounded, 2);
 * ```
 */
export function globToRegex(glob: string, syntax: GlobSyntax = {}): GlobRegex {
  const translator = new Translator(glob, {
    escapes: syntax.escapes ?? false,
    braces: syntax.braces ?? true,
    strict: syntax.strict ?? true,
  });
  const body = translator.sequence(false);
  return { source: `^(?:${body})$`, unbounded: translator.unbounded };
}

class Translator {
  readonly #glob: string;
  readonly #syntax: Required<GlobSyntax>;
  #at = 0;
  unbounded = 0;

  constructor(glob: string, syntax: Required<GlobSyntax>) {
    this.#glob = glob;
    this.#syntax = syntax;
  }

  /** Translates up to the end (or, inside braces, up to the `,` or `}` that ends an alternative). */
  sequence(inBraces: boolean): string {
    const glob = this.#glob;
    let out = "";
    while (this.#at < glob.length) {
      const char = glob[this.#at];
      if (inBraces && (char === "," || char === "}")) return out;
      if (char === "\\" && this.#syntax.escapes) {
        const next = glob[this.#at + 1];
        this.#at += next === undefined ? 1 : 2;
        out += next === undefined ? "\\\\" : literal(next);
      } else if (char === "*") out += this.#stars();
      else if (char === "?") {
        this.#at++;
        out += "[^/]";
      } else if (char === "[") out += this.#klass();
      else if (char === "{" && this.#syntax.braces) out += this.#braces();
      else {
        this.#at++;
        out += literal(char);
      }
    }
    return out;
  }

  /** A run of `*`: `**` as a whole segment crosses directories, anything else stays in one. */
  #stars(): string {
    const glob = this.#glob;
    const start = this.#at;
    while (glob[this.#at] === "*") this.#at++;
    const run = this.#at - start;
    const before = start === 0 ? "/" : glob[start - 1];
    const after = this.#at === glob.length ? "/" : glob[this.#at];
    this.unbounded++;
    // (Two or more make a whole segment cross directories, as git's wildmatch reads them.)
    if (run < 2 || before !== "/" || after !== "/") return "[^/]*";
    // A whole segment: "**/x" (any directories, or none), "a/**" (anything below), "a/**/b".
    if (after === "/" && this.#at < glob.length) {
      this.#at++; // (the slash is part of it: "**/x" also matches "x")
      return "(?:.*/)?";
    }
    return ".*";
  }

  /** A bracket expression, never matching `/`. */
  #klass(): string {
    const glob = this.#glob;
    const open = this.#at;
    let at = open + 1;
    let negated = false;
    if (glob[at] === "!" || glob[at] === "^") {
      negated = true;
      at++;
    }
    const ranges: [string, string][] = [];
    const take = () => {
      let char = glob[at++];
      if (char === "\\" && this.#syntax.escapes && at < glob.length) char = glob[at++];
      return char;
    };
    for (let first = true;; first = false) {
      if (at >= glob.length) {
        if (this.#syntax.strict) {
          throw new InputError(
            `glob ${JSON.stringify(glob)} is malformed: the "[" at character ${
              open + 1
            } is never closed; close it with "]", or write "[[]" for a literal "["`,
          );
        }
        this.#at = open + 1;
        return "\\[";
      }
      if (glob[at] === "]" && !first) break;
      const low = take();
      if (glob[at] === "-" && at + 1 < glob.length && glob[at + 1] !== "]") {
        at++;
        const high = take();
        if (high < low && this.#syntax.strict) {
          throw new InputError(
            `glob ${JSON.stringify(glob)} is malformed: the range ${low}-${high} is backwards`,
          );
        }
        if (high >= low) ranges.push([low, high]);
      } else ranges.push([low, low]);
    }
    this.#at = at + 1;
    // "/" is never in a class: a negated one leaves it out, a plain one has it cut out.
    const members = ranges.flatMap(withoutSlash).map(([low, high]) =>
      low === high ? classMember(low) : `${classMember(low)}-${classMember(high)}`
    ).join("");
    if (negated) return `[^/${members}]`;
    return members === "" ? "[^\\s\\S]" : `[${members}]`;
  }

  /** `{a,b,c}`: one of the alternatives, each a glob of its own (nested braces too). */
  #braces(): string {
    const glob = this.#glob;
    const open = this.#at;
    this.#at++;
    const alternatives: string[] = [];
    for (;;) {
      alternatives.push(this.sequence(true));
      const char = glob[this.#at];
      if (char === "}") {
        this.#at++;
        return `(?:${alternatives.join("|")})`;
      }
      if (char === ",") {
        this.#at++;
        continue;
      }
      if (this.#syntax.strict) {
        throw new InputError(
          `glob ${JSON.stringify(glob)} is malformed: the "{" at character ${
            open + 1
          } is never closed; close it with "}", or write "[{]" for a literal "{"`,
        );
      }
      this.#at = open + 1;
      return "\\{";
    }
  }
}

/** A character as a regular expression. */
function literal(char: string): string {
  return REGEX_SPECIAL.test(char) ? `\\${char}` : char;
}

/** A range of a class without "/" (split in two around it, or gone when it is only "/"). */
function withoutSlash([low, high]: [string, string]): [string, string][] {
  if (high < "/" || low > "/") return [[low, high]];
  const out: [string, string][] = [];
  if (low < "/") out.push([low, "."]);
  if (high > "/") out.push(["0", high]);
  return out;
}

/** A character inside a class. */
function classMember(char: string): string {
  return /[\\\]\[^-]/.test(char) ? `\\${char}` : char;
}
