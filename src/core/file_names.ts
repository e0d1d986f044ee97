/**
 * File names as strings, and as results show them.
 *
 * A name is bytes. A name that is valid UTF-8 is its text; each byte of a name that is not
 * becomes a lone surrogate U+DC80-U+DCFF (Python's "surrogateescape"), which valid UTF-8
 * never produces, so every name survives the trip to a string and back.
 *
 * Results show a path as it is unless it could pass for something else: it holds a control
 * character (a newline would start a fake row or note), DEL, a C1 control, U+2028 or U+2029,
 * a byte that is not UTF-8, a `"` or a `\`; or the whole of it reads as a note (`[…]`) or
 * ends as a grep heading's version does (` @0123abcd`). Such a path is quoted as git quotes
 * paths: in double quotes, with `\n`, `\t`, `\"`, `\\` and the like, and every other such
 * character as the octal escapes of its bytes (`"bad\377.txt"`). The quoted form is accepted
 * back as a path.
 *
 * @module
 */

import { InputError } from "./input_errors.ts";

const encoder = new TextEncoder();
const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * The string for a name's bytes.
 *
 * @param bytes the name as the system gave it
 * @returns its text, with bytes that are not UTF-8 as U+DC80-U+DCFF
 * @example
 * ```ts
 * import { decodeName, encodeName } from "./file_names.ts";
 * import assert from "node:assert/strict";
 * const name = decodeName(new Uint8Array([0x62, 0xff]));
 * assert.equal(name, "b\udcff");
 * assert.deepEqual([...encodeName(name)], [0x62, 0xff]);
 * ```
 */
export function decodeName(bytes: Uint8Array): string {
  try {
    return strict.decode(bytes);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
  }
  let out = "";
  for (let i = 0; i < bytes.length;) {
    const length = sequenceAt(bytes, i);
    if (length === 0) {
      out += String.fromCharCode(0xdc00 + bytes[i]);
      i++;
    } else {
      out += strict.decode(bytes.subarray(i, i + length));
      i += length;
    }
  }
  return out;
}

/**
 * A name's bytes.
 *
 * @param name a name or path as {@linkcode decodeName} makes them
 * @returns its bytes
 * @throws {InputError} when it holds a lone surrogate that stands for no byte
 */
export function encodeName(name: string): Uint8Array {
  if (name.isWellFormed()) return encoder.encode(name);
  const out: number[] = [];
  for (let i = 0; i < name.length; i++) {
    const unit = name.charCodeAt(i);
    if (unit >= 0xdc80 && unit <= 0xdcff) {
      out.push(unit - 0xdc00);
      continue;
    }
    const point = name.codePointAt(i)!;
    if (point >= 0xd800 && point <= 0xdfff) {
      throw new InputError(`the path holds a lone surrogate (U+${point.toString(16)})`);
    }
    const char = String.fromCodePoint(point);
    out.push(...encoder.encode(char));
    i += char.length - 1;
  }
  return new Uint8Array(out);
}

/** What makes a path be quoted. */
// deno-lint-ignore no-control-regex -- control characters are what it looks for
const NEEDS_QUOTES = /[\u0000-\u001f\u007f-\u009f\u2028\u2029"\\\udc80-\udcff]/;
/** A whole path that could pass for a note, or for a path and its version. */
const LOOKS_LIKE_MORE = /^\[.*\]$|\s@[0-9a-f]{8}$/is;
const SHORT: Record<string, string> = {
  "\u0007": "\\a",
  "\b": "\\b",
  "\t": "\\t",
  "\n": "\\n",
  "\u000b": "\\v",
  "\f": "\\f",
  "\r": "\\r",
  '"': '\\"',
  "\\": "\\\\",
};

/**
 * A path as results show it: as it is, or quoted when it holds a character that could pass
 * for a row or a note, or that is not UTF-8.
 *
 * @param path a display path
 * @returns the path, quoted when needed
 * @example
 * ```ts
 * import { quotePath } from "./file_names.ts";
 * import assert from "node:assert/strict";
 * assert.equal(quotePath("src/a.ts"), "src/a.ts");
 * assert.equal(quotePath("evil\n1\tx.txt"), '"evil\\n1\\tx.txt"');
 * assert.equal(quotePath("bad\udcff.txt"), '"bad\\377.txt"');
 * assert.equal(quotePath("[lines 1-2 of 9]"), '"[lines 1-2 of 9]"');
 * assert.equal(quotePath("app/[slug]/page.tsx"), "app/[slug]/page.tsx");
 * ```
 */
export function quotePath(path: string): string {
  return LOOKS_LIKE_MORE.test(path) ? quoted(path) : quotePathInRow(path);
}

/**
 * A path as a row shows it after fields of its own (`list`'s type and size): as
 * {@linkcode quotePath} shows it, except that a name that reads as a note stays as it is
 * (the row cannot pass for one), so that a folder such as `[slug]` shows as it is.
 *
 * @param path a display path
 * @returns the path, quoted when needed
 */
export function quotePathInRow(path: string): string {
  return NEEDS_QUOTES.test(path) ? quoted(path) : path;
}

function quoted(path: string): string {
  let out = '"';
  for (const char of path) {
    if (SHORT[char] !== undefined) out += SHORT[char];
    else if (NEEDS_QUOTES.test(char)) {
      for (const byte of encodeName(char)) out += "\\" + byte.toString(8).padStart(3, "0");
    } else out += char;
  }
  return out + '"';
}

const UNSHORT: Record<string, number> = {
  a: 7,
  b: 8,
  t: 9,
  n: 10,
  v: 11,
  f: 12,
  r: 13,
  '"': 34,
  "\\": 92,
};

/**
 * A path as given back by a caller: a quoted path (as {@linkcode quotePath} writes them) is
 * unquoted, and so is each quoted name of a path built on one (`"dir\nx"/f.txt`, from a
 * folder that `list` showed as `"dir\nx"/`); anything else is taken as it is.
 *
 * @param path what the caller gave
 * @returns the path it names
 * @example
 * ```ts
 * import { quotePath, unquotePath } from "./file_names.ts";
 * import assert from "node:assert/strict";
 * assert.equal(unquotePath('"evil\\n1\\tx.txt"'), "evil\n1\tx.txt");
 * assert.equal(unquotePath(quotePath("bad\udcff.txt")), "bad\udcff.txt");
 * assert.equal(unquotePath('"a\\tb"/c.txt'), "a\tb/c.txt");
 * assert.equal(unquotePath("plain.txt"), "plain.txt");
 * ```
 */
export function unquotePath(path: string): string {
  const whole = unquoted(path);
  if (whole !== undefined) return whole;
  if (!path.includes('"/') && !path.includes('/"')) return path;
  let changed = false;
  const names = path.split("/").map((name) => {
    const plain = unquoted(name);
    if (plain === undefined || plain === "" || plain.includes("/")) return name;
    changed = true;
    return plain;
  });
  return changed ? names.join("/") : path;
}

/** A quoted text's own text, or undefined when it is not a well-formed quoted one. */
function unquoted(path: string): string | undefined {
  if (path.length < 2 || !path.startsWith('"') || !path.endsWith('"')) return undefined;
  const bytes: number[] = [];
  const body = path.slice(1, -1);
  for (let i = 0; i < body.length; i++) {
    const char = body[i];
    if (char === '"') return undefined; // (a bare quote inside: not a quoted path)
    if (char !== "\\") {
      const point = body.codePointAt(i)!;
      const whole = String.fromCodePoint(point);
      bytes.push(...encodeName(whole));
      i += whole.length - 1;
      continue;
    }
    const next = body[++i];
    if (next === undefined) return undefined;
    if (UNSHORT[next] !== undefined) bytes.push(UNSHORT[next]);
    else if (/^[0-3][0-7]{2}$/.test(body.slice(i, i + 3))) {
      bytes.push(parseInt(body.slice(i, i + 3), 8));
      i += 2;
    } else return undefined;
  }
  return decodeName(new Uint8Array(bytes));
}

/** The length of the valid UTF-8 sequence starting at `i`, or 0. */
function sequenceAt(bytes: Uint8Array, i: number): number {
  const b0 = bytes[i];
  if (b0 < 0x80) return 1;
  const continuation = (k: number, low = 0x80, high = 0xbf) =>
    i + k < bytes.length && bytes[i + k] >= low && bytes[i + k] <= high;
  if (b0 >= 0xc2 && b0 <= 0xdf) return continuation(1) ? 2 : 0;
  if (b0 >= 0xe0 && b0 <= 0xef) {
    // (No overlong forms, no surrogates.)
    const low = b0 === 0xe0 ? 0xa0 : 0x80;
    const high = b0 === 0xed ? 0x9f : 0xbf;
    return continuation(1, low, high) && continuation(2) ? 3 : 0;
  }
  if (b0 >= 0xf0 && b0 <= 0xf4) {
    const low = b0 === 0xf0 ? 0x90 : 0x80;
    const high = b0 === 0xf4 ? 0x8f : 0xbf;
    return continuation(1, low, high) && continuation(2) && continuation(3) ? 4 : 0;
  }
  return 0;
}
