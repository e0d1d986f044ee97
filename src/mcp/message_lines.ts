/**
 * Newline framing for the stdio transport: bytes in, one decoded line at a time out.
 *
 * @module
 */
import { exactNumber, type JsonRpcId } from "./json_rpc.ts";

/** The longest inbound line accepted by default: 4 MiB. */
export const DEFAULT_MAX_LINE_BYTES: number = 4 * 1024 * 1024;

/**
 * Stands in for a line that was longer than the cap (its bytes were dropped unread), or one
 * that is not UTF-8, which the stdio transport requires (its bytes were not decoded: a
 * decoder would put U+FFFD in place of each bad byte, in an id or a file's content).
 */
export interface OversizedLine {
  /** "oversized", or "invalid_utf8". */
  kind: "oversized" | "invalid_utf8";
  /** How many bytes the line had, its `\n` excluded. */
  bytes: number;
  /**
   * The `id` of the JSON object the line held, when it had one that is a string or a
   * number (found as the bytes went by: see {@linkcode IdFinder}), so that the error can
   * answer that request: as written (a number a JavaScript number would not write back the
   * same is kept as its text, as {@linkcode exactNumber} keeps it).
   */
  id?: JsonRpcId;
  /** True when the line held a notification (a `method` and no `id`): it is not answered. */
  notification?: boolean;
}

/** Options for {@linkcode readMessageLines}. */
export interface MessageLinesOptions {
  /**
   * Lines longer than this many bytes (the `\n` excluded) are dropped and reported as an
   * {@linkcode OversizedLine}; reading resumes after their next newline.
   * @default 4194304
   */
  maxLineBytes?: number;
}

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/**
 * Splits a byte stream into lines at `\n`, dropping a `\r` that precedes it, and decodes each
 * line as UTF-8 (a line that is not UTF-8 is reported, not decoded). A last line without a newline is yielded at
 * the end of the input. Empty lines are yielded too; the caller decides what they mean.
 *
 * @param input The bytes, in chunks of any size.
 * @param options The line cap.
 * @returns The lines, or an {@linkcode OversizedLine} in place of each line over the cap
 *   or not UTF-8.
 * @example
 * ```ts
 * import { readMessageLines } from "./message_lines.ts";
 * import assert from "node:assert/strict";
 *
 * async function* chunks() {
 *   yield new TextEncoder().encode("{\"a\":1}\r\n{\"b\"");
 *   yield new TextEncoder().encode(":2}\n");
 * }
 * const lines = [];
 * for await (const line of readMessageLines(chunks())) lines.push(line);
 * assert.deepEqual(lines, ['{"a":1}', '{"b":2}']);
 * ```
 */
export async function* readMessageLines(
  input: AsyncIterable<Uint8Array>,
  options: MessageLinesOptions = {},
): AsyncGenerator<string | OversizedLine, void, undefined> {
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  if (!(maxLineBytes > 0)) {
    throw new TypeError(`maxLineBytes must be a positive number, got ${String(maxLineBytes)}`);
  }
  const decoder = new TextDecoder("utf-8", { fatal: true });
  // Pieces of the line still waiting for its newline. They are joined once, when the line
  // ends, so a line arriving in many chunks costs one copy rather than one per chunk.
  let pieces: Uint8Array[] = [];
  let pendingBytes = 0;
  // While dropping an oversized line its bytes are only counted, and looked through for its
  // id, until the next newline.
  let dropping: IdFinder | undefined;
  const drop = () => {
    dropping = new IdFinder();
    for (const piece of pieces) dropping.feed(piece);
    pieces = [];
  };

  function finish(last: Uint8Array): string | OversizedLine {
    const total = pendingBytes + last.length;
    if (dropping === undefined && total > maxLineBytes) drop();
    if (dropping !== undefined) {
      dropping.feed(last);
      const found = dropping;
      pendingBytes = 0;
      dropping = undefined;
      return unread("oversized", total, found);
    }
    let bytes = last;
    if (pieces.length > 0) {
      bytes = new Uint8Array(total);
      let offset = 0;
      for (const piece of pieces) {
        bytes.set(piece, offset);
        offset += piece.length;
      }
      bytes.set(last, offset);
      pieces = [];
      pendingBytes = 0;
    }
    const end = bytes.length > 0 && bytes[bytes.length - 1] === CARRIAGE_RETURN
      ? bytes.length - 1
      : bytes.length;
    // Decoding whole lines only: a multi-byte character split across chunks is whole here.
    try {
      return decoder.decode(bytes.subarray(0, end));
    } catch {
      const found = new IdFinder();
      found.feed(bytes);
      return unread("invalid_utf8", total, found);
    }
  }

  for await (const chunk of input) {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      if (newline === -1) {
        const rest = chunk.subarray(start);
        if (dropping === undefined && pendingBytes + rest.length > maxLineBytes) drop();
        // The chunk may be a view on a buffer the source reuses, so keep a copy.
        if (dropping === undefined) pieces.push(rest.slice());
        else dropping.feed(rest);
        pendingBytes += rest.length;
        break;
      }
      yield finish(chunk.subarray(start, newline));
      start = newline + 1;
    }
  }
  if (pendingBytes > 0 || dropping !== undefined) yield finish(new Uint8Array(0));
}

/** The stand-in of a line not read, with what its {@linkcode IdFinder} found. */
function unread(kind: OversizedLine["kind"], bytes: number, found: IdFinder): OversizedLine {
  const id = found.id();
  if (id !== undefined) return { kind, bytes, id };
  return found.notification() ? { kind, bytes, notification: true } : { kind, bytes };
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
/** The most bytes of an id's value kept (an id is a short string or a number). */
const LONGEST_ID = 1024;
/** The most bytes of a key kept: `"method"` with every letter escaped fits. */
const LONGEST_KEY = 64;

/**
 * Finds the `id` of the JSON-RPC request a line holds as its bytes go by, without keeping
 * them: an oversized line is not kept, and its id may come after megabytes of params (the
 * MCP SDKs write it last). Only members of the outermost object count, not an `id` deeper
 * in or inside a string; keys are read as JSON reads them (`"\u0069d"` is `id`), the last
 * `id` wins as in `JSON.parse`, and its value counts when it is a string or a number. A line
 * without a `method` is no request (a response, say) and has no id to answer.
 */
export class IdFinder {
  #depth = 0;
  #inString = false;
  #escaped = false;
  /** In the outermost object: whether the next string is a key. */
  #keyNext = false;
  /** Whether the last key read in the outermost object was `id`. */
  #atId = false;
  #hasMethod = false;
  /** Whether an `id` key was met in the outermost object. */
  #hasId = false;
  /** The bytes of the key being read, with its quotes (undefined: none is, or too long). */
  #key: number[] | undefined;
  #readingKey = false;
  /** The bytes of the id's value being read (undefined: none is, or too long). */
  #taken: number[] | undefined;
  #takingValue = false;
  /** The id's value as JSON text, once read. */
  #value: string | undefined;

  /** Looks through the next bytes of the line. */
  feed(bytes: Uint8Array): void {
    for (let i = 0; i < bytes.length; i++) this.#byte(bytes[i]);
  }

  /**
   * The id, once the line has been fed: a string, a number, or a number's text kept (see
   * {@linkcode exactNumber}); undefined when there is none, or the id was not UTF-8.
   */
  id(): JsonRpcId | undefined {
    if (this.#takingValue) this.#endValue(); // (a number that ended the line)
    if (this.#value === undefined || !this.#hasMethod) return undefined;
    const id = parsed(this.#value);
    if (typeof id === "number") return exactNumber(id, this.#value);
    return typeof id === "string" ? id : undefined;
  }

  /** Whether the line, once fed, held a notification: a `method`, and no `id` at all. */
  notification(): boolean {
    return this.#hasMethod && !this.#hasId && this.#depth === 0;
  }

  #byte(b: number): void {
    if (this.#inString) {
      if (this.#readingKey) this.#key = kept(this.#key, b, LONGEST_KEY);
      else if (this.#takingValue) this.#taken = kept(this.#taken, b, LONGEST_ID);
      if (this.#escaped) this.#escaped = false;
      else if (b === BACKSLASH) this.#escaped = true;
      else if (b === QUOTE) {
        this.#inString = false;
        if (this.#takingValue) this.#endValue();
        else if (this.#readingKey) this.#endKey();
      }
      return;
    }
    if (this.#takingValue) {
      // A number or a literal ends at what follows it.
      if (b === COMMA || b === 0x7d || b === 0x5d || b === 0x20 || b === 0x09 || b === 0x0d) {
        this.#endValue();
      } else {
        this.#taken = kept(this.#taken, b, LONGEST_ID);
        return;
      }
    }
    const outermost = this.#depth === 1;
    switch (b) {
      case QUOTE:
        this.#inString = true;
        if (outermost && this.#keyNext) {
          this.#keyNext = false;
          this.#readingKey = true;
          this.#key = [b];
        } else this.#startValue(b);
        return;
      case 0x7b: // {
      case 0x5b: // [
        this.#startValue(-1);
        this.#depth++;
        if (this.#depth === 1) this.#keyNext = b === 0x7b;
        return;
      case 0x7d: // }
      case 0x5d: // ]
        this.#depth--;
        return;
      case COMMA:
        if (outermost) this.#keyNext = true;
        this.#atId = false;
        return;
      case 0x3a: // :
      case 0x20:
      case 0x09:
      case 0x0d:
        return;
      default:
        this.#startValue(b);
    }
  }

  #endKey(): void {
    this.#readingKey = false;
    const key = this.#key === undefined ? undefined : parsed(decoded(this.#key));
    this.#key = undefined;
    this.#atId = key === "id";
    if (this.#atId) this.#hasId = true;
    if (key === "method") this.#hasMethod = true;
    if (this.#atId) this.#value = undefined; // (a later id replaces an earlier one)
  }

  /** A value starts with `b` (-1: an object or array, which is no id). */
  #startValue(b: number): void {
    if (this.#depth !== 1 || !this.#atId) return;
    this.#atId = false;
    if (b === -1) return;
    this.#taken = [b];
    this.#takingValue = true;
  }

  #endValue(): void {
    this.#takingValue = false;
    if (this.#taken !== undefined) this.#value = decoded(this.#taken);
    this.#taken = undefined;
  }
}

/** The bytes with one more, while there are fewer than `most` (undefined: too many). */
function kept(bytes: number[] | undefined, b: number, most: number): number[] | undefined {
  if (bytes === undefined || bytes.length >= most) return undefined;
  bytes.push(b);
  return bytes;
}

/** Bytes as UTF-8 (fatal: an id that is not UTF-8 is not found, so not echoed altered). */
function decoded(bytes: number[]): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(bytes));
  } catch {
    return undefined;
  }
}

/** JSON text's value, or undefined when it is not JSON. */
function parsed(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
