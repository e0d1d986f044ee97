// What one tools instance (one MCP connection) remembers: the versions of files it showed,
// with their text, and the edits it made, within a memory budget.
import type { LineIndex } from "../core/mod.ts";
import { versionOf } from "../versions/mod.ts";

/** A version of a file this session showed: its hash, and its text while the budget allows. */
export interface Shown {
  /** The version, or undefined when rows of an unknown version were shown. */
  version: string | undefined;
  /** The text of that version; undefined when it was not kept. */
  text: string | undefined;
  /** The store's identity of the file when it held this text (`FileInfo.identity`). */
  identity?: string;
  /** The text's lines, kept beside it for reads. */
  lines?: LineIndex;
}

/** One edit this session made, for undo. */
export interface EditStep {
  before: string;
  after: string;
}

interface FileMemory {
  shown: Shown[];
  edits: EditStep[];
  bytes: number;
  /** The versions recorded as shown, with the session's mark after each, oldest first. */
  history: { at: number; version: string | undefined }[];
}

/** Versions kept per file (the latest, and a few before it for an explicit `version`). */
export const VERSIONS_PER_FILE = 4;
/** Edits kept per file for undo. */
export const UNDO_STEPS = 10;
/**
 * Shows remembered per file, for what was the latest when (see `Session.mark`), beyond those a
 * held mark still needs (the calls sent together with a read may be many more than the server
 * runs at once, each holding the mark of its arrival).
 */
const HISTORY = 64;
/**
 * Shows remembered per file at the most, held marks or not: a mark older than these finds no
 * version, and its numbered edit is refused, not misplaced (each show costs a pass over them).
 */
const HISTORY_HELD = 4096;

/**
 * The session's memory of files, least recently used out. Memory is counted as two bytes per
 * UTF-16 code unit of every text kept.
 */
export class Session {
  readonly budget: number;
  #files = new Map<string, FileMemory>();
  #bytes = 0;
  /** Grows with each version recorded as shown. */
  #shows = 0;
  /** The marks of the calls under way that hold one (see {@linkcode hold}), oldest first. */
  readonly #held: number[] = [];

  constructor(budget: number) {
    this.budget = budget;
  }

  /** Bytes of text held now. */
  get bytes(): number {
    return this.#bytes;
  }

  /**
   * Where the session stands now, for {@linkcode latest} later: a call takes it as it starts,
   * so that what calls sent beside it show meanwhile (the calls of one turn of the model,
   * sent before it saw any of their results) is not taken for what it saw.
   *
   * @returns a number that grows with every version shown
   */
  mark(): number {
    return this.#shows;
  }

  /**
   * {@linkcode mark}, held until released: while it is, the versions that were the latest of
   * their files at the mark are kept, however many are shown meanwhile (the calls of one turn
   * can be many edits of one file, each showing a version).
   *
   * @returns the mark, and the release to call when the call ends
   */
  hold(): { mark: number; release: () => void } {
    const mark = this.mark();
    this.#held.push(mark);
    let held = true;
    return {
      mark,
      release: () => {
        // (Once: another call may hold the same mark.)
        if (!held) return;
        held = false;
        this.#held.splice(this.#held.indexOf(mark), 1);
      },
    };
  }

  /**
   * Records that rows of `text` (the file's whole text) were shown, as its latest version;
   * `text` undefined records rows of an unknown version (numbered edits must then re-read).
   *
   * @param version the text's version, when the caller has it already
   * @param known the store's identity of the file and the text's lines, to read from later
   * @returns the version shown, or undefined for an unknown one
   */
  showed(
    path: string,
    text: string | undefined,
    version?: string,
    known: { identity?: string; lines?: LineIndex } = {},
  ): string | undefined {
    if (text !== undefined) version ??= versionOf(text);
    // (A file shown for the first time, without its text, as most of those a grep shows: only
    // its version is recorded, and nothing held changes.)
    if (text === undefined && known.lines === undefined && !this.#files.has(path)) {
      const shown = known.identity
        ? { version, text, identity: known.identity }
        : { version, text };
      const history = [{ at: ++this.#shows, version }];
      this.#files.set(path, { shown: [shown], edits: [], bytes: 0, history });
      return version;
    }
    const file = this.#touch(path);
    // Shown again as it was last shown (a grep repeated), of a known version or not: nothing
    // to record but the use.
    const latest = file.shown.at(-1);
    if (
      text === undefined && latest !== undefined && latest.version === version &&
      latest.identity === known.identity && known.lines === undefined
    ) {
      return version;
    }
    // Shown again (by grep, with no text): the text held for that version stays.
    const same = version === undefined ? undefined : file.shown.find((s) => s.version === version);
    if (text === undefined && same?.text !== undefined) {
      text = same.text;
      known = { lines: same.lines, ...known };
    }
    if (same !== undefined) file.shown = file.shown.filter((s) => s !== same);
    file.shown.push({ version, text, ...(known.identity || known.lines ? known : {}) });
    file.history.push({ at: ++this.#shows, version });
    // (The first show goes only when a later one was already the latest at every held mark.)
    const oldest = this.#held[0] ?? Infinity;
    while (
      file.history.length > HISTORY &&
      (file.history[1].at <= oldest || file.history.length > HISTORY_HELD)
    ) file.history.shift();
    const dropped = file.shown.length > VERSIONS_PER_FILE ? this.#drop(file) : undefined;
    // (Nothing held was added or let go, as for most files a grep shows: the bytes held stay.)
    const held = text !== undefined || known.lines !== undefined;
    if (held || same !== undefined || dropped !== undefined) this.#account(path, file);
    return version;
  }

  /**
   * The latest version shown of a file, if any; with `asOf`, the one that was the latest then
   * (if the session still holds it).
   *
   * @param path the file's display path
   * @param asOf a {@linkcode mark}
   * @returns what was shown
   */
  latest(path: string, asOf?: number): Shown | undefined {
    const file = this.#files.get(path);
    if (asOf === undefined || file === undefined) return file?.shown.at(-1);
    const then = file.history.findLast((shown) => shown.at <= asOf);
    return then && file.shown.findLast((shown) => shown.version === then.version);
  }

  /** The latest version shown, when the file still has the identity it had then. */
  known(path: string, identity: string): Shown | undefined {
    const latest = this.latest(path);
    return latest?.identity === identity && latest.text !== undefined ? latest : undefined;
  }

  /** A version shown of a file, if this session still holds it. */
  find(path: string, version: string): Shown | undefined {
    const wanted = version.toLowerCase();
    return this.#files.get(path)?.shown.findLast((s) => s.version === wanted);
  }

  /**
   * Records an edit: `after` becomes the latest version shown (`version`, when the caller has
   * it already), and the step can be undone.
   */
  edited(path: string, before: string, after: string, version?: string): string {
    // The text before is most often the one held already: hold one copy of it.
    const held = this.#files.get(path);
    const same = [held?.edits.at(-1)?.after, held?.shown.at(-1)?.text].find((t) => t === before);
    if (same !== undefined) before = same;
    version = this.showed(path, after, version)!;
    const file = this.#touch(path);
    file.edits.push({ before, after });
    if (file.edits.length > UNDO_STEPS) file.edits.shift();
    this.#account(path, file);
    return version;
  }

  /** The edits of a file that can still be undone, oldest first. */
  edits(path: string): readonly EditStep[] {
    return this.#files.get(path)?.edits ?? [];
  }

  /** Takes the last `steps` edits of a file off its history. */
  undone(path: string, steps: number): void {
    const file = this.#files.get(path);
    if (!file) return;
    file.edits.splice(file.edits.length - steps, steps);
    this.#account(path, file);
  }

  /** Carries what the session knows of a file (or of everything under a directory) to its new path. */
  moved(from: string, to: string): void {
    for (const [path, memory] of [...this.#files]) {
      if (path !== from && !path.startsWith(from + "/")) continue;
      this.#files.delete(path);
      // (Shown at the new path from now on: a call marked before the move saw another file
      // there, or none.)
      const at = ++this.#shows;
      memory.history = memory.history.map(({ version }) => ({ at, version }));
      this.#files.set(to + path.slice(from.length), memory);
    }
  }

  /** Drops a file's oldest version shown but one a held mark needs, and returns it. */
  #drop(file: FileMemory): Shown | undefined {
    // (The marks and the shows are both in order: one pass over each.)
    const needed = new Set<string | undefined>();
    let then = -1;
    for (const mark of this.#held) {
      while (then + 1 < file.history.length && file.history[then + 1].at <= mark) then++;
      if (then !== -1) needed.add(file.history[then].version);
    }
    const at = file.shown.findIndex((shown) => !needed.has(shown.version));
    return at === -1 ? undefined : file.shown.splice(at, 1)[0];
  }

  /** The memory of a file, now the most recently used. */
  #touch(path: string): FileMemory {
    const file = this.#files.get(path) ?? { shown: [], edits: [], bytes: 0, history: [] };
    this.#files.delete(path);
    this.#files.set(path, file);
    return file;
  }

  /** Recounts a file's bytes and evicts others (least recently used first) to fit the budget. */
  #account(path: string, file: FileMemory): void {
    this.#bytes -= file.bytes;
    file.bytes = sizeOf(file);
    this.#bytes += file.bytes;
    for (const [other, memory] of this.#files) {
      if (this.#bytes <= this.budget || other === path) break;
      this.#files.delete(other);
      this.#bytes -= memory.bytes;
    }
    if (this.#bytes > this.budget) {
      // The file alone is over the budget: keep its versions, not their text.
      file.edits = [];
      file.shown = file.shown.map((s) => ({ version: s.version, text: undefined }));
      this.#bytes -= file.bytes;
      file.bytes = 0;
    }
  }
}

/** Bytes held for a file: two per UTF-16 unit of each text, and what the index of its lines holds. */
function sizeOf(file: FileMemory): number {
  const texts = new Set<string>();
  let bytes = 0;
  for (const s of file.shown) {
    if (s.text !== undefined) texts.add(s.text);
    bytes += s.lines?.bytes ?? 0;
  }
  for (const e of file.edits) texts.add(e.before).add(e.after);
  for (const text of texts) bytes += text.length * 2;
  return bytes;
}
