/**
 * Deny rules by identity: the device and inode of every file a deny rule matches by name
 * inside the roots, so that another name of the same file (a hard link: `ln .env notes`)
 * is denied too. Only a file with more than one name can be such a link, so a file with
 * one name costs nothing; for one with several, the roots are scanned for denied files
 * (once, and again when the file's links changed since the scan began, or the scan is
 * older than {@linkcode MAX_SCAN_AGE_MS}).
 *
 * Limits: a directory renamed into a denied name after the last scan is known to hold
 * denied files only from the next scan (at most {@linkcode MAX_SCAN_AGE_MS} later); a denied
 * file in a directory the server may enter but not list, or whose other name lies outside
 * every root, is not known.
 *
 * @module
 */
import { nativePath } from "../io/native_path.ts";
import type { FileStat } from "../io/file_stat.ts";
import type { FileSystem } from "../io/file_system.ts";
import { osErrorCode } from "../files/_os_errors.ts";

/** How old a scan may be before a multiply-linked file asks for a new one. */
export const MAX_SCAN_AGE_MS = 10_000;
/**
 * A link made this shortly before a scan began may not have been seen by it (file times
 * come from a coarse clock): such a file asks for a new scan.
 */
const CLOCK_SLACK_NS = 20_000_000n;
/** Scans made for one file before it is denied to be safe (it keeps being relinked). */
const MAX_SCANS = 3;

/** What the identities are found with. */
export interface IdentityScanOptions {
  /** The file system below the roots. */
  files: FileSystem;
  /** The directories to scan: the original roots, to which deny rules are relative. */
  bases: readonly string[];
  /** Whether an absolute path is denied by name. */
  isDenied: (absolute: string) => boolean;
}

/** The identities of the denied files of the roots, found on demand. */
export class DeniedIdentities {
  readonly #options: IdentityScanOptions;
  #known = new Set<string>();
  /** When the scan behind `#known` began (ns since the epoch), or -1: none yet. */
  #scannedFrom = -1n;
  #scanning: Promise<void> | undefined;
  #scanningFrom = -1n;

  /** @param options the file system, the roots to scan and the deny test */
  constructor(options: IdentityScanOptions) {
    this.#options = options;
  }

  /**
   * Whether a file is another name of a denied file.
   *
   * @param stat the file's stat (of the open file, where it was opened)
   * @returns true when a deny rule matches one of its names inside the roots
   */
  async denies(stat: FileStat): Promise<boolean> {
    if (stat.kind !== "file" || stat.nlink <= 1) return false;
    for (let scans = 0; !this.#covers(stat); scans++) {
      if (scans === MAX_SCANS) return true;
      await this.#scan(stat.ctimeNs);
    }
    return this.#known.has(identityOf(stat));
  }

  /** Whether the last scan began after the file's links last changed, and is recent. */
  #covers(stat: FileStat): boolean {
    return this.#scannedFrom >= 0n && stat.ctimeNs + CLOCK_SLACK_NS < this.#scannedFrom &&
      nowNs() - this.#scannedFrom < BigInt(MAX_SCAN_AGE_MS) * 1_000_000n;
  }

  /** A scan that began after `since` (one under way, if it did; else a new one). */
  async #scan(since: bigint): Promise<void> {
    while (this.#scanning !== undefined) {
      const scanning = this.#scanning;
      if (this.#scanningFrom > since + CLOCK_SLACK_NS) return await scanning;
      await scanning;
    }
    // (Let the clock pass the file's change, so this scan covers it.)
    while (nowNs() <= since + CLOCK_SLACK_NS) await new Promise((wake) => setTimeout(wake, 5));
    const from = nowNs();
    this.#scanningFrom = from;
    this.#scanning = Promise.resolve().then(() => {
      const found = new Set<string>();
      for (const base of this.#options.bases) this.#collect(base, found);
      this.#known = found;
      this.#scannedFrom = from;
    }).finally(() => {
      this.#scanning = undefined;
    });
    await this.#scanning;
  }

  /** Adds the denied files below a directory (all of them when `denied`); never follows symlinks. */
  #collect(dir: string, found: Set<string>, denied = false): void {
    const { files, isDenied } = this.#options;
    const pending: [string, boolean][] = [[dir, denied]];
    while (pending.length > 0) {
      const [path, all] = pending.pop()!;
      let handle;
      try {
        handle = files.openDir(path);
      } catch (error) {
        if (SKIPPED.has(osErrorCode(error) ?? "")) continue; // unreadable, gone, too deep
        throw error;
      }
      try {
        for (const entry of handle.list()) {
          const child = nativePath.join(path, entry.name);
          const inDenied = all || isDenied(child);
          if (entry.kind === "directory") pending.push([child, inDenied]);
          else if (inDenied && (entry.kind === "file" || entry.kind === undefined)) {
            try {
              const stat = handle.lstat(entry.name);
              if (stat.kind === "file") found.add(identityOf(stat));
              else if (stat.kind === "directory") pending.push([child, true]);
            } catch (error) {
              // Gone since the listing: it has no other name to deny.
              if (!SKIPPED.has(osErrorCode(error) ?? "")) throw error;
            }
          }
        }
      } catch (error) {
        if (!SKIPPED.has(osErrorCode(error) ?? "")) throw error;
      } finally {
        handle.close();
      }
    }
  }
}

/** What a scan steps over: a directory it may not list, one that went, one too deep. */
const SKIPPED = new Set(["EACCES", "EPERM", "ENOENT", "ENOTDIR", "ELOOP", "ENAMETOOLONG"]);

/** A file's identity as a key. */
function identityOf(stat: FileStat): string {
  return `${stat.dev}:${stat.ino}`;
}

function nowNs(): bigint {
  return BigInt(Date.now()) * 1_000_000n;
}
