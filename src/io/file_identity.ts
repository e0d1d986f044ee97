/**
 * A file's or a directory's identity as a few 32-bit words, compared without parsing a whole
 * stat: what a cache of what was learned from a tree checks, for every file and directory of
 * it, before trusting it. The same words come from a raw `struct statx` and from a {@linkcode FileStat}.
 *
 * @module
 */
import type { FileStat } from "./file_stat.ts";

/**
 * Words of an identity: inode (low, high), size (low, high), mtime and ctime (seconds low,
 * high, then nanoseconds), device (major, minor).
 */
export const IDENTITY_WORDS = 12;

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const TWO_32 = 2 ** 32;

/** What an identity is of: a regular file with one name, or a directory. */
export type IdentityKind = "file" | "directory";

/**
 * The identity of a regular file with one name or of a directory, from the words of a
 * `struct statx` (STATX_BASIC_STATS; one layout on every Linux architecture).
 *
 * @param statx the call's output as u32 words
 * @param out where the identity goes
 * @param at its first word in `out`
 * @returns what it is of; undefined, with nothing written, for anything else
 */
export function identityOfStatx(
  statx: Uint32Array,
  out: Uint32Array,
  at: number,
): IdentityKind | undefined {
  // nlink at byte 16, mode (u16) at 28, ino 32, size 40, ctime 96, mtime 112, dev 136.
  const type = statx[7] & S_IFMT;
  const kind = type === S_IFDIR
    ? "directory"
    : type === S_IFREG && statx[4] === 1
    ? "file"
    : undefined;
  if (kind === undefined) return undefined;
  out[at] = statx[8];
  out[at + 1] = statx[9];
  out[at + 2] = statx[10];
  out[at + 3] = statx[11];
  out[at + 4] = statx[28];
  out[at + 5] = statx[29];
  out[at + 6] = statx[30];
  out[at + 7] = statx[24];
  out[at + 8] = statx[25];
  out[at + 9] = statx[26];
  out[at + 10] = statx[34];
  out[at + 11] = statx[35];
  return kind;
}

/**
 * {@linkcode identityOfStatx} from a parsed stat (the same words for the same file).
 *
 * @param stat the stat
 * @param out where the identity goes
 * @param at its first word in `out`
 * @returns what it is of; undefined, with nothing written, for anything else, or for a stat
 *   without a ctime
 */
export function identityOfStat(
  stat: FileStat,
  out: Uint32Array,
  at: number,
): IdentityKind | undefined {
  const kind = stat.kind === "directory"
    ? "directory"
    : stat.kind === "file" && stat.nlink === 1
    ? "file"
    : undefined;
  // (A stat without a ctime, as Deno's node:fs gives, cannot tell a change.)
  if (kind === undefined || stat.ctimeNs === 0n) return undefined;
  setInode(stat, out, at);
  out[at + 2] = stat.size % TWO_32;
  out[at + 3] = Math.floor(stat.size / TWO_32);
  setTime(stat.mtimeNs, out, at + 4);
  setTime(stat.ctimeNs, out, at + 7);
  return kind;
}

/** The inode and device words of an identity, from a stat. */
function setInode(stat: FileStat, out: Uint32Array, at: number): void {
  out[at] = Number(stat.ino & 0xffffffffn);
  out[at + 1] = Number((stat.ino >> 32n) & 0xffffffffn);
  // (glibc's makedev undone: the major and minor numbers statx reports.)
  const dev = stat.dev;
  out[at + 10] = Number(((dev >> 8n) & 0xfffn) | ((dev >> 32n) & 0xfffff000n));
  out[at + 11] = Number((dev & 0xffn) | ((dev >> 12n) & 0xffffff00n));
}

/**
 * The file an identity is of, whatever its name: inode and device, as text.
 *
 * @param words the identity's words
 * @param at its first word
 * @returns the same text for every name of one file
 */
export function inodeOfIdentity(words: Uint32Array, at = 0): string {
  return `${words[at]}:${words[at + 1]}:${words[at + 10]}:${words[at + 11]}`;
}

/**
 * {@linkcode inodeOfIdentity} of a stat.
 *
 * @param stat the stat
 * @returns the text an identity of the same file gives
 * @example
 * ```ts
 * import { identityOfStat, inodeOfIdentity, inodeOfStat } from "./file_identity.ts";
 * import assert from "node:assert/strict";
 * const stat = { kind: "file", nlink: 1, ino: 7n, dev: 2049n, size: 3, mtimeNs: 1n, ctimeNs: 1n } as const;
 * const words = new Uint32Array(12);
 * identityOfStat(stat as never, words, 0);
 * assert.equal(inodeOfStat(stat as never), inodeOfIdentity(words));
 * ```
 */
export function inodeOfStat(stat: FileStat): string {
  const words = new Uint32Array(IDENTITY_WORDS);
  setInode(stat, words, 0);
  return inodeOfIdentity(words);
}

/** A time in ns as statx has it: seconds (signed 64-bit, two words), then nanoseconds. */
function setTime(ns: bigint, out: Uint32Array, at: number): void {
  let seconds = ns / 1_000_000_000n;
  let nanos = ns - seconds * 1_000_000_000n;
  if (nanos < 0n) {
    seconds -= 1n;
    nanos += 1_000_000_000n;
  }
  const unsigned = BigInt.asUintN(64, seconds);
  out[at] = Number(unsigned & 0xffffffffn);
  out[at + 1] = Number(unsigned >> 32n);
  out[at + 2] = Number(nanos);
}

/**
 * Whether two identities are the same.
 *
 * @param a one identity's words
 * @param aAt its first word
 * @param b the other's
 * @param bAt its first word
 * @returns true when every word is equal
 */
export function sameIdentity(a: Uint32Array, aAt: number, b: Uint32Array, bAt: number): boolean {
  for (let i = 0; i < IDENTITY_WORDS; i++) if (a[aAt + i] !== b[bAt + i]) return false;
  return true;
}

/**
 * The ctime of an identity in milliseconds since the epoch.
 *
 * @param words the identity's words
 * @param at its first word
 * @returns the ctime
 */
export function ctimeMsOfIdentity(words: Uint32Array, at: number): number {
  const seconds = (words[at + 8] | 0) * TWO_32 + words[at + 7];
  return seconds * 1000 + words[at + 9] / 1e6;
}

/**
 * What `FileInfo.identity` promises for a file on disk: its device, inode, size and times,
 * once its status has not changed for a second (a write within the timestamp granularity of
 * the last one could keep them all).
 *
 * @param stat the file's stat
 * @param asOf the time the second is counted back from, in milliseconds since the epoch:
 *   now, or for a stat taken after the bytes it vouches for were read, when the read began
 * @returns the identity as text, or undefined (not a regular file, no ctime, or changed just
 *   before `asOf` or since)
 */
export function identityText(stat: FileStat, asOf: number = Date.now()): string | undefined {
  const ctimeMs = Number(stat.ctimeNs / 1_000_000n);
  if (stat.kind !== "file" || stat.ctimeNs === 0n || asOf - ctimeMs < 1000) {
    return undefined;
  }
  return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
}

/**
 * The size an {@linkcode identityText} names.
 *
 * @param identity the identity's text
 * @returns the file's size then, in bytes
 */
export function sizeOfIdentityText(identity: string): number {
  return Number(identity.split(":")[2]);
}
