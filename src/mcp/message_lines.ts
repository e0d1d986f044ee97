/**
 * Newline framing for the stdio transport: bytes in, one decoded line at a time out.
 *
 * @module
 */

/** The longest inbound line accepted by default: 4 MiB. */
export const DEFAULT_MAX_LINE_BYTES: number = 4 * 1024 * 1024;

/** Stands in for a line that was longer than the cap; its bytes were dropped unread. */
export interface OversizedLine {
  /** Always "oversized". */
  kind: "oversized";
  /** How many bytes the line had, its `\n` excluded. */
  bytes: number;
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
 * line as UTF-8 (invalid bytes become U+FFFD). A last line without a newline is yielded at
 * the end of the input. Empty lines are yielded too; the caller decides what they mean.
 *
 * @param input The bytes, in chunks of any size.
 * @param options The line cap.
 * @returns The lines, or an {@linkcode OversizedLine} in place of each line over the cap.
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
  const decoder = new TextDecoder();
  // Pieces of the line still waiting for its newline. They are joined once, when the line
  // ends, so a line arriving in many chunks costs one copy rather than one per chunk.
  let pieces: Uint8Array[] = [];
  let pendingBytes = 0;
  // While dropping an oversized line we only count its bytes until the next newline.
  let dropping = false;

  function finish(last: Uint8Array): string | OversizedLine {
    const total = pendingBytes + last.length;
    if (dropping || total > maxLineBytes) {
      pieces = [];
      pendingBytes = 0;
      dropping = false;
      return { kind: "oversized", bytes: total };
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
    return decoder.decode(bytes.subarray(0, end));
  }

  for await (const chunk of input) {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      if (newline === -1) {
        const rest = chunk.subarray(start);
        if (!dropping && pendingBytes + rest.length > maxLineBytes) {
          dropping = true;
          pieces = [];
        }
        // The chunk may be a view on a buffer the source reuses, so keep a copy.
        if (!dropping) pieces.push(rest.slice());
        pendingBytes += rest.length;
        break;
      }
      yield finish(chunk.subarray(start, newline));
      start = newline + 1;
    }
  }
  if (pendingBytes > 0 || dropping) yield finish(new Uint8Array(0));
}
