/**
 * What a stat says, the same from `statx` through FFI and from `node:fs`.
 *
 * @module
 */
import type { BigIntStats } from "node:fs";

/** What a path names (a symlink is itself: stats here never follow one). */
export type StatKind = "file" | "directory" | "symlink" | "fifo" | "socket" | "device";

/** A stat of one file system object. */
export interface FileStat {
  /** What it is. */
  kind: StatKind;
  /** Permission bits, setuid, setgid and sticky included (`st_mode & 0o7777`). */
  mode: number;
  /** Size in bytes. */
  size: number;
  /** Device (with the inode, the object's identity). */
  dev: bigint;
  /** Inode number. */
  ino: bigint;
  /** How many names it has. */
  nlink: number;
  /** Owner. */
  uid: number;
  /** Group. */
  gid: number;
  /** Modification time in milliseconds since the epoch. */
  mtimeMs: number;
  /** Modification time in nanoseconds since the epoch. */
  mtimeNs: bigint;
  /** Status-change time (links, owner, mode, content), in nanoseconds since the epoch. */
  ctimeNs: bigint;
}

const S_IFMT = 0o170000;
const KINDS: Record<number, StatKind> = {
  0o100000: "file",
  0o040000: "directory",
  0o120000: "symlink",
  0o010000: "fifo",
  0o140000: "socket",
  0o020000: "device",
  0o060000: "device",
};

/**
 * The kind of an `st_mode`.
 *
 * @param mode the full mode
 * @returns the kind ("device" for anything unknown, so it is never opened as a file)
 */
export function kindOfMode(mode: number): StatKind {
  return KINDS[mode & S_IFMT] ?? "device";
}

/** Size of `struct statx`. */
export const STATX_BYTES = 256;
/** The fields {@linkcode parseStatx} reads (STATX_BASIC_STATS). */
export const STATX_BASIC_STATS = 0x7ff;

/**
 * Reads a `struct statx` (one layout on every Linux architecture).
 *
 * @param buffer the bytes the call filled
 * @returns the stat
 */
export function parseStatx(buffer: Uint8Array): FileStat {
  const view = new DataView(buffer.buffer, buffer.byteOffset, STATX_BYTES);
  const mode = view.getUint16(28, true);
  const time = (at: number) =>
    view.getBigInt64(at, true) * 1_000_000_000n + BigInt(view.getUint32(at + 8, true));
  const mtimeNs = time(112);
  return {
    kind: kindOfMode(mode),
    mode: mode & 0o7777,
    size: Number(view.getBigUint64(40, true)),
    dev: makedev(view.getUint32(136, true), view.getUint32(140, true)),
    ino: view.getBigUint64(32, true),
    nlink: view.getUint32(16, true),
    uid: view.getUint32(20, true),
    gid: view.getUint32(24, true),
    mtimeMs: Number(mtimeNs / 1000n) / 1000,
    mtimeNs,
    ctimeNs: time(96),
  };
}

/** glibc's makedev, so a device number reads as `stat` reports it. */
function makedev(major: number, minor: number): bigint {
  const ma = BigInt(major);
  const mi = BigInt(minor);
  return ((ma & 0xfffff000n) << 32n) | ((ma & 0xfffn) << 8n) | ((mi & 0xffffff00n) << 12n) |
    (mi & 0xffn);
}

/**
 * The stat of `node:fs` (asked for with `bigint: true`) in this shape.
 *
 * @param stat what node gave
 * @returns the stat
 */
export function fromNodeStat(stat: BigIntStats): FileStat {
  const mode = Number(stat.mode);
  return {
    kind: kindOfMode(mode),
    mode: mode & 0o7777,
    size: Number(stat.size),
    dev: stat.dev,
    ino: stat.ino,
    nlink: Number(stat.nlink),
    uid: Number(stat.uid),
    gid: Number(stat.gid),
    mtimeMs: Number(stat.mtimeNs / 1000n) / 1000,
    mtimeNs: stat.mtimeNs,
    ctimeNs: stat.ctimeNs,
  };
}

/**
 * A phrase for what a non-file is, for refusals.
 *
 * @param kind the kind
 * @returns e.g. "a FIFO (named pipe)"
 */
export function describeKind(kind: StatKind): string {
  switch (kind) {
    case "directory":
      return "a directory";
    case "fifo":
      return "a FIFO (named pipe)";
    case "socket":
      return "a socket";
    case "device":
      return "a device";
    case "symlink":
      return "a symlink";
    default:
      return "not a regular file";
  }
}
