// Files shown with their version: the whole text of a file a result shows lines of, read
// so that the session can remember the version those lines belong to. A file the store
// vouches has not changed since the session last read it (`FileInfo.identity`) is not read
// again.
import { LineIndex, type ScanRow, splitBom } from "../../core/mod.ts";
import { rowsInBytes } from "../../core/_rows_in_bytes.ts";
import { FileTooLargeError, StoreError } from "../../store/errors.ts";
import type { FileStore } from "../../store/file_store.ts";
import { versionOf, versionOfBytes, versionOfDigest } from "../../versions/mod.ts";
import type { Session } from "../_session.ts";
import type { Settings } from "../options.ts";

/** A file's whole text, its lines and version, as read now (or known to be unchanged). */
export interface Snapshot {
  /** Display path. */
  path: string;
  text: string;
  /** The lines of the text (BOM aside), terminators kept. */
  lines: LineIndex;
  version: string;
  /** The store's identity of the file with this text, when it gave one. */
  identity?: string;
}

/**
 * The reads of whole files under way, per session, by path and identity: reads of one file
 * sent at once share one (each holding a copy of a file of tens of megabytes, 64 of them took
 * 3.4 GB).
 */
const reading = new WeakMap<Session, Map<string, Promise<Snapshot | undefined>>>();

/**
 * The file's text when it can have a version (valid UTF-8, within the edit cap), else
 * undefined (it then cannot be edited either).
 */
export async function snapshot(
  store: FileStore,
  session: Session,
  settings: Settings,
  path: string,
): Promise<Snapshot | undefined> {
  const info = await store.stat(path);
  if (info.kind === "file" && info.size > settings.maxEditBytes) return undefined;
  const { identity } = info;
  if (identity === undefined) return await read(store, settings, path, identity);
  const known = session.known(info.path, identity);
  if (known) {
    const text = known.text!;
    const lines = known.lines ?? new LineIndex(splitBom(text).body);
    return { path: info.path, text, lines, version: known.version!, identity };
  }
  let underWay = reading.get(session);
  if (underWay === undefined) reading.set(session, underWay = new Map());
  const key = `${info.path}\n${identity}`;
  const pending = underWay.get(key);
  if (pending !== undefined) return await pending;
  const mine = read(store, settings, path, identity);
  underWay.set(key, mine);
  try {
    return await mine;
  } finally {
    underWay.delete(key);
  }
}

/** {@linkcode snapshot} of a file read whole now. */
async function read(
  store: FileStore,
  settings: Settings,
  path: string,
  identity: string | undefined,
): Promise<Snapshot | undefined> {
  let file;
  try {
    file = await store.readText(path, { maxBytes: settings.maxEditBytes });
  } catch (error) {
    if (error instanceof FileTooLargeError) return undefined;
    throw error;
  }
  if (file.invalidUtf8) return undefined;
  const lines = new LineIndex(splitBom(file.text).body);
  return {
    path: file.path,
    text: file.text,
    lines,
    version: versionOf(file.text),
    identity,
  };
}

/** Records a snapshot as the latest version shown; returns the version. */
export function recordShown(session: Session, shot: Snapshot): string {
  return session.showed(shot.path, shot.text, shot.version, {
    identity: shot.identity,
    lines: shot.lines,
  })!;
}

/** The version a search's rows of one file belong to, and the store's identity of the file. */
export interface SearchedVersion {
  version?: string;
  identity?: string;
}

/**
 * The version of each file a search found. One whose digest the store gave with the identity
 * it was read at has the version of that digest, for that identity; a file whose identity
 * the session knows from a version it showed before the search is as it was then; one whose
 * digest alone the store gave has the version of that digest; any other is read again, and
 * gets a version only when it still holds the rows the search found (none when it changed
 * in between, or cannot have one). The text is not kept: a search shows too many files.
 */
export async function searchedVersions(
  store: FileStore,
  session: Session,
  settings: Settings,
  files: ReadonlyArray<
    {
      path: string;
      rows: readonly ScanRow[];
      invalidUtf8?: boolean;
      sha1?: string;
      identity?: string;
    }
  >,
): Promise<SearchedVersion[]> {
  return await inBatches(files, async (file): Promise<SearchedVersion> => {
    // (The store read the file again as it searched: the digest is of that identity.)
    if (file.sha1 !== undefined && file.identity !== undefined && !file.invalidUtf8) {
      return { version: versionOfDigest(file.sha1), identity: file.identity };
    }
    try {
      const info = await store.stat(file.path);
      if (info.kind !== "file" || info.size > settings.maxEditBytes) return {};
      const identity = info.identity;
      const known = identity === undefined ? undefined : session.latest(info.path);
      if (known?.identity === identity && known?.version !== undefined) {
        return { version: known.version, identity };
      }
      // (The rows were found in the bytes of that digest.)
      if (file.sha1 !== undefined && !file.invalidUtf8) {
        return { version: versionOfDigest(file.sha1), identity };
      }
      // The bytes are hashed and the rows found in them as bytes: no decoding of the file.
      if (file.invalidUtf8) return {};
      const bytes = await store.readBytes(file.path, { maxBytes: settings.maxEditBytes });
      if (!rowsInBytes(bytes, file.rows)) return {};
      return { version: versionOfBytes(bytes), identity };
    } catch (error) {
      if (error instanceof StoreError) return {}; // (gone, grown or unreadable since)
      throw error;
    }
  });
}

/** Maps `work` over `items`, a few at a time. */
async function inBatches<T, R>(items: readonly T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += 8) {
    out.push(...await Promise.all(items.slice(i, i + 8).map(work)));
  }
  return out;
}
