/**
 * The search index kept on disk between servers: one file per scope (the roots and the deny
 * rules, which decide what a walk lists) in the user's cache folder
 * (`$XDG_CACHE_HOME/linewise/`, else `~/.cache/linewise/`), mode 0600 in a 0700 folder. It
 * holds each indexed file's filter (and a large file's block filters) with what the file was
 * when it was read for it, and the
 * walks the index kept, each with what its directories (and the `.gitignore` files it read)
 * were. Nothing changed less than {@linkcode RACY_MS} before it was recorded is kept (git's
 * "racy" rule: a change in the same tick of the file system's clock would leave the times as
 * they were). A new server trusts an entry only once a stat of it now gives the same device,
 * inode, size, mtime and ctime to the nanosecond (`io/file_identity.ts`). A file that is
 * missing, of another user, open to others, too large, truncated, of another format or scope,
 * or failing its CRC-32 is ignored, and the index is built again: never a wrong answer.
 *
 * Layout (little-endian u32 words and length-prefixed UTF-8 texts): "LWIX", format, the
 * scope; the filters' count, their real paths (NUL-joined), identities
 * ({@linkcode IDENTITY_WORDS} words each), lengths ({@linkcode BINARY_MARK} for a binary
 * file) and bytes; the block filters of large files (`_block_filters.ts`); the walks' count
 * and each walk (key, counts of what it left out, its files' real paths and display paths,
 * its directories, those whose `.gitignore` it read, their identities, and the symlinks in
 * its directories with where each led); then the CRC-32 of all of it.
 *
 * @module
 */
import * as fs from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import type { SkippedEntries } from "../../store/file_store.ts";
import type { WalkNode } from "../../store/walk.ts";
import { ctimeMsOfIdentity, IDENTITY_WORDS } from "../../io/file_identity.ts";
import { adviseHugePages } from "../../io/libc.ts";
import { crc32, hexDigest, randomHex } from "../../io/hashes.ts";
import { decodeName, encodeName } from "../../core/file_names.ts";
import { BINARY, type Filter, type SavedFilter } from "./_file_filters.ts";
import { type BlockFilters, RACY_MS, seamsLength } from "./_block_filters.ts";
import { type CodePoints, granuleOf } from "./_code_points.ts";

const MAGIC = 0x5849574c; // "LWIX"
/**
 * The layout of the file and of the filters in it (8: two bits per trigram; 9: a large
 * file's code points; 10: the bytes around its blocks' seams; 11: names as their bytes; 12:
 * each walk's count of symlinks left out; 13: and of FIFOs, sockets and devices).
 */
export const FORMAT = 13;
/** The filter length that marks a binary file. */
const BINARY_MARK = 0xffffffff;
/** The largest cache file written or read. */
export const MAX_CACHE_BYTES = 192 * 1024 * 1024;
export { RACY_MS };

/** A walk as the cache keeps it. */
export interface CachedWalk {
  /** The index's key of the walk. */
  key: string;
  files: WalkNode[];
  skipped: SkippedEntries;
  /** The directories it listed (real paths), and those whose `.gitignore` it read. */
  dirs: { listed: string[]; ignoreFiles: string[] };
  /**
   * The identities of its directories, then of the `.gitignore` files it read, in the order
   * of `dirs`, {@linkcode IDENTITY_WORDS} words each.
   */
  identities: Uint32Array;
  /** The symlinks in its directories (real paths), and where each led (`IdentityCheck.leads`). */
  links: string[];
  leads: string[];
}

/** What a cache file holds. */
export interface CachedIndex {
  /** The real paths of the files with a filter. */
  keys: string[];
  /** What each was when read, {@linkcode IDENTITY_WORDS} words each. */
  identities: Uint32Array;
  /** Their filters (or the binary mark). */
  filters: Filter[];
  /** The block filters of large ones, by their place in `keys`. */
  blocks: Map<number, BlockFilters>;
  walks: CachedWalk[];
}

/**
 * Whether an identity may be kept: changed long enough before `now` that a later change
 * cannot have left its times as they were. ctime is tested, as every change of the content,
 * of the entries or of mtime sets it, and it cannot be set back.
 *
 * @param words the identity's words
 * @param at its first word
 * @param now when it was taken (ms since the epoch)
 * @returns true when it may be kept
 */
export function notRacy(words: Uint32Array, at: number, now: number): boolean {
  return now - ctimeMsOfIdentity(words, at) >= RACY_MS;
}

/**
 * The user's cache folder for linewise, or undefined when there is no home to put it in (or
 * no leave to read the environment, as under Deno without `--allow-env`).
 *
 * @returns `$XDG_CACHE_HOME/linewise`, else `~/.cache/linewise`
 */
export function defaultCacheDir(): string | undefined {
  try {
    const xdg = process.env.XDG_CACHE_HOME;
    if (xdg !== undefined && xdg.startsWith("/")) return join(xdg, "linewise");
    const home = process.env.HOME || homedir();
    return home ? join(home, ".cache", "linewise") : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The cache file of a scope.
 *
 * @param dir the cache folder
 * @param scope what decides the walks: the roots' real paths and the deny rules
 * @returns its path
 */
export function cacheFileOf(dir: string, scope: string): string {
  const name = hexDigest("sha256", scope).slice(0, 32);
  return join(dir, `${name}.index`);
}

/**
 * Writes the cache file (a temporary file renamed over it, mode 0600, in a folder of mode
 * 0700, made so if it is ours and was not). A failure leaves no temporary file and is thrown
 * as the system gave it, for the caller to say; the next server builds the index again.
 *
 * @param file its path ({@linkcode cacheFileOf})
 * @param scope the scope it is for
 * @param filters real path, filter, identity and block filters of each file (racy ones are
 *   left out)
 * @param walks the walks, with the identities of their directories
 * @returns true when written, false when it would be over its size budget
 */
export function saveIndex(
  file: string,
  scope: string,
  filters: Iterable<SavedFilter>,
  walks: readonly CachedWalk[],
): boolean {
  const dir = join(file, "..");
  const temp = join(dir, `.${randomHex(6)}.tmp`);
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    // (A folder of ours that others may write in is made private: they could take entries
    // away, or put files of theirs in, which a load refuses but a save's clean-up reads.)
    const folder = fs.statSync(dir);
    if (folder.uid === process.getuid?.() && (folder.mode & 0o077) !== 0) fs.chmodSync(dir, 0o700);
    const bytes = encode(scope, filters, walks);
    if (bytes === undefined) return false;
    fs.writeFileSync(temp, bytes, { mode: 0o600, flag: "wx" });
    fs.renameSync(temp, file);
    removeGone(dir, file);
    return true;
  } catch (error) {
    try {
      fs.rmSync(temp, { force: true });
    } catch {
      // (Not made: the folder it would be in is no folder, or is not ours to write.)
    }
    throw error;
  }
}

/**
 * Reads the cache file of a scope, when it can be trusted to be ours and whole.
 *
 * @param file its path ({@linkcode cacheFileOf})
 * @param scope the scope it must be for
 * @returns what it holds, or undefined
 */
export function loadIndex(file: string, scope: string): CachedIndex | undefined {
  let bytes: Uint8Array;
  let fd: number | undefined;
  try {
    const opened = openRegular(file);
    if (opened === undefined) return undefined;
    fd = opened.fd;
    const { stat } = opened;
    const uid = process.getuid?.(); // (throws where it may not be known: then refused)
    if ((stat.mode & 0o077) !== 0 || stat.size > MAX_CACHE_BYTES) return;
    if (uid !== undefined && stat.uid !== uid) return; // another user's: refused
    // (The filters are views of these bytes.)
    bytes = new Uint8Array(stat.size);
    adviseHugePages(bytes);
    let filled = 0;
    for (let got = 1; got > 0 && filled < bytes.length; filled += got) {
      got = fs.readSync(fd, bytes, filled, bytes.length - filled, filled);
    }
    bytes = bytes.subarray(0, filled); // (cut short: its CRC-32 tells)
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
  try {
    return decode(bytes, scope);
  } catch {
    return undefined; // (truncated or malformed: the bounds checks throw)
  }
}

function encode(
  scope: string,
  filters: Iterable<SavedFilter>,
  walks: readonly CachedWalk[],
): Uint8Array | undefined {
  const now = Date.now();
  const kept = [...filters].filter(([, , identity]) => notRacy(identity, 0, now));
  const out = new Writer();
  out.words([MAGIC, FORMAT]);
  out.text(scope);
  out.words([kept.length]);
  out.strings(kept.map(([key]) => key));
  const identities = new Uint32Array(kept.length * IDENTITY_WORDS);
  kept.forEach(([, , identity], i) => identities.set(identity, i * IDENTITY_WORDS));
  out.words(identities);
  out.words(kept.map(([, filter]) => filter === BINARY ? BINARY_MARK : filter.length));
  for (const [, filter] of kept) if (filter !== BINARY) out.bytes(filter);
  const blocked = kept.flatMap(([, , , blocks], i) => blocks === undefined ? [] : [{ i, blocks }]);
  out.words([blocked.length]);
  for (const { i, blocks } of blocked) writeBlocks(out, i, blocks);
  out.words([walks.length]);
  for (const walk of walks) {
    out.text(walk.key);
    const { hidden, ignored, links = 0, special = 0 } = walk.skipped;
    out.words([hidden, ignored, links, special, walk.files.length]);
    out.strings(walk.files.map((file) => file.key));
    out.strings(walk.files.map((file) => file.display));
    out.words([walk.dirs.listed.length, walk.dirs.ignoreFiles.length]);
    out.strings(walk.dirs.listed);
    out.strings(walk.dirs.ignoreFiles);
    out.words(walk.identities);
    out.words([walk.links.length]);
    out.strings(walk.links);
    out.strings(walk.leads);
  }
  return out.finish();
}

function decode(bytes: Uint8Array, scope: string): CachedIndex | undefined {
  const input = Reader.of(bytes);
  if (input === undefined) return undefined;
  const [magic, format] = input.words(2);
  if (magic !== MAGIC || format !== FORMAT || input.text() !== scope) return undefined;
  const [count] = input.words(1);
  const keys = input.strings(count);
  const identities = input.words(count * IDENTITY_WORDS);
  const lengths = input.words(count);
  const filters: Filter[] = [];
  for (const length of lengths) filters.push(length === BINARY_MARK ? BINARY : input.bytes(length));
  const blocks = new Map<number, BlockFilters>();
  const [blockedCount] = input.words(1);
  for (let b = 0; b < blockedCount; b++) {
    const [at, block, count] = input.words(3);
    if (at >= keys.length || blocks.has(at)) return undefined;
    blocks.set(at, readBlocks(input, block, count));
  }
  const walks: CachedWalk[] = [];
  const [walkCount] = input.words(1);
  for (let w = 0; w < walkCount; w++) {
    const key = input.text();
    const [hidden, ignored, leftLinks, special, fileCount] = input.words(5);
    const fileKeys = input.strings(fileCount);
    const displays = input.strings(fileCount);
    const [dirCount, ignoreCount] = input.words(2);
    const dirs = { listed: input.strings(dirCount), ignoreFiles: input.strings(ignoreCount) };
    const files = fileKeys.map((key, i) => ({ key, display: displays[i] }));
    const identities = input.words((dirCount + ignoreCount) * IDENTITY_WORDS);
    const [linkCount] = input.words(1);
    const links = input.strings(linkCount);
    const leads = input.strings(linkCount);
    walks.push({
      key,
      files,
      skipped: { hidden, ignored, links: leftLinks, special },
      dirs,
      identities,
      links,
      leads,
    });
  }
  input.end();
  return { keys, identities, filters, blocks, walks };
}

/**
 * A file's block filters: which entry, the block size and count, then their parts (its code
 * points after a word that says whether it has them).
 */
function writeBlocks(out: Writer, at: number, blocks: BlockFilters): void {
  const { block, filters, lfBefore, firstLf, lastLf, seams, invalid, sha1, points, stamp } = blocks;
  out.words([at, block, filters.length]);
  out.words(filters.map((filter) => filter.length));
  for (const filter of filters) out.bytes(filter);
  out.words(lfBefore);
  out.words(new Uint32Array(firstLf.buffer, firstLf.byteOffset, firstLf.length));
  out.words(new Uint32Array(lastLf.buffer, lastLf.byteOffset, lastLf.length));
  out.bytes(seams);
  out.words([invalid ? 1 : 0]);
  out.text(sha1 ?? "");
  out.words([points === undefined ? 0 : 1]);
  if (points !== undefined) {
    out.words([points.before.length, points.bom]);
    for (const part of [points.before, points.lineStarts, points.lineEnds, points.crlf]) {
      out.words(part);
    }
  }
  const { size, dev, ino, mtimeNs, ctimeNs } = stamp;
  out.text(JSON.stringify([size, `${dev}`, `${ino}`, `${mtimeNs}`, `${ctimeNs}`]));
}

/** A valid file's code points (see `CodePoints`), as {@linkcode writeBlocks} wrote them. */
function readCodePoints(input: Reader, block: number, count: number): CodePoints {
  const [granules, bom] = input.words(2);
  const before = input.words(granules);
  const [lineStarts, lineEnds, crlf] = [input.words(count), input.words(count), input.words(count)];
  const granule = granuleOf(block);
  if (bom > 1 || crlf.some((one) => one > 1)) throw new RangeError("malformed");
  return { granule, before, lineStarts, lineEnds, crlf, bom };
}

function readBlocks(input: Reader, block: number, count: number): BlockFilters {
  const lengths = input.words(count);
  const filters = [...lengths].map((length) => input.bytes(length));
  const lfBefore = input.words(count + 1);
  const firstLf = new Int32Array(input.words(count).buffer);
  const lastLf = new Int32Array(input.words(count).buffer);
  const seams = input.bytes(seamsLength(count));
  const [invalid] = input.words(1);
  const sha1 = input.text();
  const [counted] = input.words(1);
  const points = counted === 1 ? readCodePoints(input, block, count) : undefined;
  const [size, dev, ino, mtimeNs, ctimeNs] = JSON.parse(input.text());
  // (A block count that does not fit the size would put the seams' bytes out of reach.)
  if (typeof size !== "number" || invalid > 1 || count !== Math.ceil(size / block)) {
    throw new RangeError("malformed");
  }
  if (points !== undefined && points.before.length !== Math.ceil(size / points.granule) + 1) {
    throw new RangeError("malformed");
  }
  return {
    block,
    filters,
    lfBefore,
    firstLf,
    lastLf,
    seams,
    invalid: invalid === 1,
    ...sha1 === "" ? {} : { sha1 },
    ...points ? { points } : {},
    stamp: {
      size,
      dev: BigInt(dev),
      ino: BigInt(ino),
      mtimeNs: BigInt(mtimeNs),
      ctimeNs: BigInt(ctimeNs),
    },
  };
}

/**
 * Opens a cache file for reading when it is a regular file, and the name itself: a symlink, or
 * a name swapped for one between the look and the open, shows as another device or inode
 * (O_NOFOLLOW is not honoured by every runtime's node:fs). Nothing else is opened, and the
 * open does not wait: a FIFO's would, for a writer that may never come.
 *
 * @param file the path
 * @returns the descriptor and its status, or undefined (it was not opened, or is closed)
 */
function openRegular(file: string): { fd: number; stat: fs.Stats } | undefined {
  const named = fs.lstatSync(file);
  if (!named.isFile()) return undefined;
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  const stat = fs.fstatSync(fd);
  if (stat.isFile() && stat.dev === named.dev && stat.ino === named.ino) return { fd, stat };
  fs.closeSync(fd);
  return undefined;
}

/** Removes the cache files (not `keep`) whose roots are not all there any more. */
function removeGone(dir: string, keep: string): void {
  for (const name of fs.readdirSync(dir)) {
    const file = join(dir, name);
    if (!name.endsWith(".index") || file === keep) continue;
    try {
      const head = new Uint8Array(64 * 1024);
      const opened = openRegular(file);
      if (opened === undefined) continue;
      let got: number;
      try {
        got = fs.readSync(opened.fd, head, 0, head.length, 0);
      } finally {
        fs.closeSync(opened.fd);
      }
      const view = new DataView(head.buffer, 0, got);
      const length = view.getUint32(8, true); // (the scope follows the magic and the format)
      if (12 + length > got) continue;
      const { roots } = JSON.parse(new TextDecoder().decode(head.subarray(12, 12 + length)));
      if (Array.isArray(roots) && !roots.every((root) => fs.existsSync(root))) fs.rmSync(file);
    } catch {
      // (Another format, being written, or unreadable: left alone.)
    }
  }
}

/** Builds a cache file in parts, and ends it with their CRC-32. */
class Writer {
  readonly #parts: Uint8Array[] = [];
  #length = 0;

  words(words: ArrayLike<number>): void {
    const part = words instanceof Uint32Array ? words : Uint32Array.from(words);
    this.bytes(new Uint8Array(part.buffer, part.byteOffset, part.byteLength));
  }

  bytes(bytes: Uint8Array): void {
    this.#parts.push(bytes);
    this.#length += bytes.length;
  }

  /** A text as its bytes: a name's bytes that are not UTF-8 (lone surrogates) kept as they are. */
  text(text: string): void {
    const bytes = encodeName(text);
    this.words([bytes.length]);
    this.bytes(bytes);
  }

  /** Texts without NULs, joined by NULs. */
  strings(texts: readonly string[]): void {
    this.text(texts.join("\0"));
  }

  /** The file, unless it would be larger than {@linkcode MAX_CACHE_BYTES}. */
  finish(): Uint8Array | undefined {
    if (this.#length + 4 > MAX_CACHE_BYTES) return undefined;
    const out = new Uint8Array(this.#length + 4);
    let at = 0;
    for (const part of this.#parts) {
      out.set(part, at);
      at += part.length;
    }
    new DataView(out.buffer).setUint32(at, crc32(out.subarray(0, at)), true);
    return out;
  }
}

/** Reads a cache file's parts; any read past its end throws. */
class Reader {
  readonly #body: Uint8Array;
  #at = 0;

  private constructor(body: Uint8Array) {
    this.#body = body;
  }

  /** A reader of a file whose CRC-32 is right. */
  static of(bytes: Uint8Array): Reader | undefined {
    if (bytes.length < 4) return undefined;
    const body = bytes.subarray(0, bytes.length - 4);
    const stored = new DataView(bytes.buffer, bytes.byteOffset + body.length, 4).getUint32(0, true);
    return crc32(body) === stored ? new Reader(body) : undefined;
  }

  bytes(length: number): Uint8Array {
    if (this.#at + length > this.#body.length) throw new RangeError("truncated");
    return this.#body.subarray(this.#at, this.#at += length);
  }

  words(count: number): Uint32Array {
    const bytes = this.bytes(count * 4); // (bounds first)
    const out = new Uint32Array(count);
    new Uint8Array(out.buffer).set(bytes); // (a copy: aligned)
    return out;
  }

  text(): string {
    const [length] = this.words(1);
    return decodeName(this.bytes(length));
  }

  /** `count` texts joined by NULs. */
  strings(count: number): string[] {
    const joined = this.text();
    if (count === 0) {
      if (joined !== "") throw new RangeError("malformed");
      return [];
    }
    const texts = joined.split("\0");
    if (texts.length !== count) throw new RangeError("malformed");
    return texts;
  }

  /** Throws unless everything was read. */
  end(): void {
    if (this.#at !== this.#body.length) throw new RangeError("malformed");
  }
}
