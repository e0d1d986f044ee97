/**
 * The digests a search's caller asks for (`SearchQuery.digests`): the first files it will
 * give versions, read again whole by the search's own reader (a reused buffer, blocking
 * calls: a few milliseconds for fifty files, where the tool's own reads took fifty), unless
 * the search gave it with its identity already (a large file read as indexed, or one the
 * examination read whole: `Examination.digests`). Each file's identity is taken from the
 * open file before it is read here, so that the digest belongs to that identity; a file
 * changed within the last second has none (`identityText`), and gets no digest.
 *
 * @module
 */
import { rowsInBytes } from "../core/_rows_in_bytes.ts";
import type { FileReader } from "../io/_file_reader.ts";
import type { FileStat } from "../io/file_stat.ts";
import { hexDigest } from "../io/hashes.ts";
import { identityText, sizeOfIdentityText } from "../io/file_identity.ts";
import type { FileMatches, SearchQuery } from "../store/file_store.ts";
import { eachRow } from "../store/flat_rows.ts";
import type { WalkNode } from "../store/walk.ts";

/**
 * Gives the files asked for their digest and identity, when they still hold the rows found.
 *
 * @param found the result's files, in path order
 * @param walked the files the search went through, in the same order (for their real paths)
 * @param reader the reader to read them with
 * @param asked which files, and how large at most
 */
export function digestFiles(
  found: FileMatches[],
  walked: readonly WalkNode[],
  reader: FileReader,
  { afterMatches, files, maxBytes }: NonNullable<SearchQuery["digests"]>,
): void {
  let left = afterMatches;
  let taken = 0;
  let w = 0;
  for (const file of found) {
    if (taken === files) return;
    let matches = 0;
    eachRow(file, (_line, _text, start) => {
      if (start !== -1) matches++;
      return true;
    });
    if (matches <= left) {
      left -= matches;
      continue;
    }
    left = 0;
    taken++;
    // (Read as indexed: its version came with it, unless it is too large.)
    if (file.sha1 !== undefined && file.identity !== undefined) {
      if (sizeOfIdentityText(file.identity) > maxBytes) delete file.identity;
      continue;
    }
    while (w < walked.length && walked[w].display !== file.path) w++;
    if (w === walked.length) return;
    if (!file.invalidUtf8) digest(file, walked[w].key, reader, maxBytes);
  }
}

function digest(file: FileMatches, key: string, reader: FileReader, maxBytes: number): void {
  let outcome;
  try {
    outcome = reader.read(key);
  } catch {
    return; // (gone or unreadable since: the caller finds out itself)
  }
  if (outcome.kind !== "bytes") return;
  const version = versionOfBytes(outcome.bytes, outcome.stat, maxBytes);
  if (version === undefined || !rowsInBytes(outcome.bytes, file.rows)) return;
  file.sha1 = version.sha1;
  file.identity = version.identity;
}

/**
 * The digest of a file's bytes read whole with its stat, and the identity it is of: none when
 * they are more than `maxBytes`, fewer than its size (read short), or the file changed just
 * now (no identity then).
 *
 * @param bytes the file's bytes
 * @param stat its stat, taken before they were read, or after (then with `readAt`)
 * @param maxBytes the most bytes a file given a digest may have
 * @param readAt for a stat taken after the read, when the read began (see `identityText`)
 * @returns the digest and identity, or undefined
 */
export function versionOfBytes(
  bytes: Uint8Array,
  stat: FileStat,
  maxBytes: number,
  readAt?: number,
): { sha1: string; identity: string } | undefined {
  if (bytes.length > maxBytes || bytes.length !== stat.size) return undefined;
  const identity = identityText(stat, readAt);
  if (identity === undefined) return undefined;
  return { sha1: hexDigest("sha1", bytes), identity };
}
