// Files shown with their version: the whole text of a file a result shows lines of, read so
// that the session can remember the version those lines belong to.
import { lineText, type ScanRow, splitBom, splitLines } from "../core/mod.ts";
import { FileTooLargeError } from "../store/errors.ts";
import type { FileStore, TextFile } from "../store/file_store.ts";
import { versionOf } from "../versions/mod.ts";
import type { Settings } from "./options.ts";

/**
 * A file's whole text when it can have a version (valid UTF-8, within the edit cap), else
 * undefined (it then cannot be edited either).
 */
export async function wholeText(
  store: FileStore,
  path: string,
  settings: Settings,
): Promise<TextFile | undefined> {
  try {
    const file = await store.readText(path, { maxBytes: settings.maxEditBytes });
    return file.invalidUtf8 ? undefined : file;
  } catch (error) {
    if (error instanceof FileTooLargeError) return undefined;
    throw error;
  }
}

/**
 * The whole text of each file a search found, read again, with its version; when its rows
 * are not what the search saw (it changed in between), or it cannot have a version, none.
 */
export async function searchedTexts(
  store: FileStore,
  settings: Settings,
  files: ReadonlyArray<{ path: string; rows: readonly ScanRow[] }>,
): Promise<Array<{ text?: string; version?: string }>> {
  return await inBatches(files, async (file) => {
    try {
      const whole = await wholeText(store, file.path, settings);
      if (!whole || !holds(whole.text, file.rows)) return {};
      return { text: whole.text, version: versionOf(whole.text) };
    } catch {
      return {}; // (gone or unreadable since the search: no version)
    }
  });
}

/** Whether `text` has the rows' lines at their numbers (a part of a long line as its start). */
function holds(text: string, rows: readonly ScanRow[]): boolean {
  const lines = splitLines(splitBom(text).body);
  return rows.every((row) => {
    const line = lines[row.line - 1];
    if (line === undefined) return false;
    return row.piece ? lineText(line).includes(lineText(row.text)) : line === row.text;
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
