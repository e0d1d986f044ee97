/**
 * The C library through the runtime's FFI: the system calls `node:fs` lacks (`openat2`,
 * `statx`, `getdents64`, the `*at` family, `flock`), for file access that cannot be raced.
 * This is the one module that knows how Bun (`bun:ffi`) and Deno (`Deno.dlopen`, which
 * needs `--allow-ffi`) call native code; everything above it sees plain functions.
 *
 * Only Linux on x86-64 and arm64 is bound (the system call numbers and flag values below
 * are Linux's); elsewhere {@linkcode loadLibc} says why there is none and callers fall back
 * to `node:fs`.
 *
 * @module
 */
import process from "node:process";
import * as fs from "node:fs";
import { RUNTIME } from "./runtime.ts";

/** Raw system calls: each returns what the C function returns (-1 on failure, see `errno`). */
export interface Libc {
  /** The calling thread's `errno`, read right after a failed call. */
  errno(): number;
  openat2(dirfd: number, path: Uint8Array, how: Uint8Array): number;
  openat(dirfd: number, path: Uint8Array, flags: number, mode: number): number;
  statx(dirfd: number, path: Uint8Array, flags: number, mask: number, out: Uint8Array): number;
  readlinkat(dirfd: number, path: Uint8Array, out: Uint8Array, size: number): number;
  getdents64(fd: number, out: Uint8Array, size: number): number;
  lseek(fd: number, offset: number, whence: number): number;
  mkdirat(dirfd: number, path: Uint8Array, mode: number): number;
  renameat(fromDir: number, from: Uint8Array, toDir: number, to: Uint8Array): number;
  renameat2(
    fromDir: number,
    from: Uint8Array,
    toDir: number,
    to: Uint8Array,
    flags: number,
  ): number;
  linkat(fromDir: number, from: Uint8Array, toDir: number, to: Uint8Array, flags: number): number;
  unlinkat(dirfd: number, path: Uint8Array, flags: number): number;
  fchown(fd: number, uid: number, gid: number): number;
  fchmod(fd: number, mode: number): number;
  flock(fd: number, operation: number): number;
  close(fd: number): number;
  /** `prctl` with one argument (the calls used here take no more). */
  prctl(option: number, arg: number): number;
  setpriority(which: number, who: number, priority: number): number;
  sched_yield(): number;
  /** `ioctl` with a buffer for its answer (`FIONREAD`: an int). */
  ioctl(fd: number, request: number, out: Uint8Array): number;
  madvise(address: number, length: number, advice: number): number;
  /** Where a buffer's bytes lie in memory (for `madvise`). */
  addressOf(bytes: Uint8Array): number;
  pread(fd: number, out: Uint8Array, size: number, offset: number): number;
  /**
   * `pread` of what the page cache holds alone (`preadv2` with `RWF_NOWAIT`): it never waits
   * for the disk, and fails with `EAGAIN` when none of the bytes asked for are in memory.
   */
  preadCached(fd: number, out: Uint8Array, size: number, offset: number): number;
  pwrite(fd: number, bytes: Uint8Array, size: number, offset: number): number;
  fsync(fd: number): number;
  /** `pread` off the calling thread (a large read must not hold up the event loop). */
  preadAsync(fd: number, out: Uint8Array, size: number, offset: number): Promise<number>;
  /** `pwrite` off the calling thread. */
  pwriteAsync(fd: number, bytes: Uint8Array, size: number, offset: number): Promise<number>;
  /** `fsync` off the calling thread. */
  fsyncAsync(fd: number): Promise<number>;
}

/** Linux system call numbers for the calls glibc may not wrap (old versions, musl). */
const SYSCALLS: Record<
  string,
  { openat2: number; statx: number; getdents64: number; renameat2: number }
> = {
  x64: { openat2: 437, statx: 332, getdents64: 217, renameat2: 316 },
  arm64: { openat2: 437, statx: 291, getdents64: 61, renameat2: 276 },
};

type Signature = { args: string[]; returns: string; syscall?: keyof typeof SYSCALLS.x64 };

// One signature per call, in a neutral notation both FFIs are mapped from. `size` is a
// 64-bit integer (size_t, off_t, ssize_t, long); `fd` a 32-bit one; `ptr` a byte buffer.
const SIGNATURES: Record<string, Signature> = {
  openat2: { syscall: "openat2", args: ["fd", "ptr", "ptr", "size"], returns: "size" },
  statx: { syscall: "statx", args: ["fd", "ptr", "fd", "fd", "ptr"], returns: "size" },
  getdents64: { syscall: "getdents64", args: ["fd", "ptr", "size"], returns: "size" },
  openat: { args: ["fd", "ptr", "fd", "fd"], returns: "fd" },
  readlinkat: { args: ["fd", "ptr", "ptr", "size"], returns: "size" },
  lseek: { args: ["fd", "size", "fd"], returns: "size" },
  mkdirat: { args: ["fd", "ptr", "fd"], returns: "fd" },
  renameat: { args: ["fd", "ptr", "fd", "ptr"], returns: "fd" },
  renameat2: { syscall: "renameat2", args: ["fd", "ptr", "fd", "ptr", "fd"], returns: "size" },
  linkat: { args: ["fd", "ptr", "fd", "ptr", "fd"], returns: "fd" },
  unlinkat: { args: ["fd", "ptr", "fd"], returns: "fd" },
  fchown: { args: ["fd", "fd", "fd"], returns: "fd" },
  fchmod: { args: ["fd", "fd"], returns: "fd" },
  flock: { args: ["fd", "fd"], returns: "fd" },
  close: { args: ["fd"], returns: "fd" },
  pread: { args: ["fd", "ptr", "size", "size"], returns: "size" },
  preadv2: { args: ["fd", "ptr", "fd", "size", "fd"], returns: "size" },
  pwrite: { args: ["fd", "ptr", "size", "size"], returns: "size" },
  fsync: { args: ["fd"], returns: "fd" },
  prctl: { args: ["fd", "size"], returns: "fd" },
  setpriority: { args: ["fd", "fd", "fd"], returns: "fd" },
  sched_yield: { args: [], returns: "fd" },
  ioctl: { args: ["fd", "size", "ptr"], returns: "fd" },
  madvise: { args: ["size", "size", "fd"], returns: "fd" },
};

/** The C library, or the reason there is none here. */
export type LibcOrReason = { libc: Libc } | { reason: string };

let loaded: LibcOrReason | undefined;

/**
 * Binds the C library once per thread (a worker binds its own).
 *
 * @returns the bound library, or why it cannot be bound here
 * @example
 * ```ts
 * import { loadLibc } from "./libc.ts";
 * const found = loadLibc();
 * console.log("libc" in found ? "system calls available" : found.reason);
 * ```
 */
export function loadLibc(): LibcOrReason {
  return loaded ??= bind();
}

function bind(): LibcOrReason {
  if (process.platform !== "linux") return { reason: `this platform (${process.platform})` };
  const numbers = SYSCALLS[process.arch];
  if (numbers === undefined) return { reason: `this processor (${process.arch})` };
  try {
    if (RUNTIME === "bun") return { libc: bindBun(numbers) };
    if (RUNTIME === "deno") {
      if (Deno.permissions.querySync({ name: "ffi" }).state !== "granted") {
        return { reason: "Deno without --allow-ffi" };
      }
      return { libc: bindDeno(numbers) };
    }
    return { reason: "Node, which has no FFI" };
  } catch (error) {
    return { reason: `the C library could not be loaded (${(error as Error).message})` };
  }
}

/** Where glibc and musl keep the C library. */
const LIBRARY_NAMES = [
  "libc.so.6",
  `libc.musl-${process.arch === "x64" ? "x86_64" : "aarch64"}.so.1`,
];

// --- Bun --------------------------------------------------------------------------------

interface BunFfi {
  dlopen(name: string, symbols: Record<string, unknown>): {
    symbols: Record<string, ((...args: unknown[]) => unknown) & { ptr: number }>;
  };
  linkSymbols(symbols: Record<string, unknown>): {
    symbols: Record<string, (...args: unknown[]) => number>;
  };
  read: { i32(pointer: number, offset: number): number };
  ptr(view: ArrayBufferView): number;
  FFIType: Record<string, number>;
}

function bindBun(numbers: typeof SYSCALLS.x64): Libc {
  const ffi = (process as { getBuiltinModule?: (id: string) => unknown })
    .getBuiltinModule?.("bun:ffi") as BunFfi | undefined;
  if (ffi === undefined) throw new Error("bun:ffi is missing");
  const { FFIType } = ffi;
  const type = (t: string) =>
    t === "ptr" ? FFIType.ptr : t === "size" ? FFIType.i64_fast : FFIType.i32;
  const names = Object.entries(SIGNATURES).filter(([, s]) => s.syscall === undefined)
    .map(([name]) => name).concat("syscall", "__errno_location");
  const probe = Object.fromEntries(names.map((n) => [n, { args: [], returns: FFIType.void }]));
  const library = openFirst((name) => ffi.dlopen(name, probe));
  const linked: Record<string, unknown> = {};
  for (const [name, signature] of Object.entries(SIGNATURES)) {
    const args = signature.args.map(type);
    linked[name] = {
      ptr: library.symbols[signature.syscall ? "syscall" : name].ptr,
      args: signature.syscall ? [FFIType.i64_fast, ...args] : args,
      returns: type(signature.returns),
    };
  }
  linked.errnoLocation = {
    ptr: library.symbols.__errno_location.ptr,
    args: [],
    returns: FFIType.ptr,
  };
  const c = ffi.linkSymbols(linked).symbols;
  const errnoAt = c.errnoLocation(); // (per thread, and fixed for the thread's life)
  const { read } = ffi;
  return {
    ...direct(c, numbers),
    errno: () => read.i32(errnoAt, 0),
    addressOf: (bytes) => ffi.ptr(bytes),
    preadCached: cachedReads(c.preadv2, (bytes) => ffi.ptr(bytes)),
    // Bun's FFI has no calls off the thread; its node:fs runs them on the thread pool and
    // takes the raw descriptors the system calls return.
    preadAsync: (fd, out, size, offset) =>
      new Promise((resolve) => {
        fs.read(fd, out, 0, size, offset, (error, bytes) => {
          resolve(error ? -failWith(error) : bytes);
        });
      }),
    pwriteAsync: (fd, bytes, size, offset) =>
      new Promise((resolve) => {
        fs.write(fd, bytes, 0, size, offset, (error, written) => {
          resolve(error ? -failWith(error) : written);
        });
      }),
    fsyncAsync: (fd) =>
      new Promise((resolve) => fs.fsync(fd, (error) => resolve(error ? -failWith(error) : 0))),
  };
}

/** An async call's failure, carried as a negative errno (the thread's errno is not it). */
function failWith(error: NodeJS.ErrnoException): number {
  return Math.abs(error.errno ?? 5);
}

// --- Deno -------------------------------------------------------------------------------

function bindDeno(numbers: typeof SYSCALLS.x64): Libc {
  const type = (t: string) => (t === "ptr" ? "buffer" : t === "size" ? "i64" : "i32");
  const symbols: Record<string, Deno.ForeignFunction> = {};
  for (const [name, signature] of Object.entries(SIGNATURES)) {
    const parameters = signature.args.map(type) as Deno.NativeType[];
    symbols[name] = {
      name: signature.syscall ? "syscall" : name,
      parameters: signature.syscall ? ["i64", ...parameters] : parameters,
      result: type(signature.returns) as Deno.NativeResultType,
    };
  }
  symbols.preadAsync = { ...symbols.pread, name: "pread", nonblocking: true };
  symbols.pwriteAsync = { ...symbols.pwrite, name: "pwrite", nonblocking: true };
  symbols.fsyncAsync = { ...symbols.fsync, name: "fsync", nonblocking: true };
  symbols.errnoLocation = { name: "__errno_location", parameters: [], result: "pointer" };
  const library = openFirst((name) => Deno.dlopen(name, symbols));
  const c = library.symbols as unknown as Record<string, (...args: unknown[]) => unknown>;
  const errnoAt = new Deno.UnsafePointerView(c.errnoLocation() as Deno.PointerObject);
  const numeric = Object.fromEntries(
    Object.keys(SIGNATURES).map((name) => [name, (...args: unknown[]) => Number(c[name](...args))]),
  );
  const addressOf = (bytes: Uint8Array) =>
    Number(Deno.UnsafePointer.value(Deno.UnsafePointer.of(bytes)));
  // A nonblocking call runs on another thread: its errno is that thread's, lost here, so
  // a failure is reported as EIO (these calls fail only on a broken disk).
  const later = (call: Promise<unknown>) => call.then((n) => (Number(n) < 0 ? -5 : Number(n)));
  return {
    ...direct(numeric, numbers),
    errno: () => errnoAt.getInt32(),
    addressOf,
    preadCached: cachedReads(numeric.preadv2, addressOf),
    preadAsync: (fd, out, size, offset) =>
      later(c.preadAsync(fd, out, size, offset) as Promise<unknown>),
    pwriteAsync: (fd, bytes, size, offset) =>
      later(c.pwriteAsync(fd, bytes, size, offset) as Promise<unknown>),
    fsyncAsync: (fd) => later(c.fsyncAsync(fd) as Promise<unknown>),
  };
}

// --- Both -------------------------------------------------------------------------------

/** The calls that map one to one, given the bound functions (system calls take their number). */
function direct(
  c: Record<string, (...args: unknown[]) => number>,
  n: typeof SYSCALLS.x64,
): Omit<Libc, "errno" | "addressOf" | "preadCached" | "preadAsync" | "pwriteAsync" | "fsyncAsync"> {
  return {
    openat2: (dirfd, path, how) => c.openat2(n.openat2, dirfd, path, how, how.length),
    statx: (dirfd, path, flags, mask, out) => c.statx(n.statx, dirfd, path, flags, mask, out),
    getdents64: (fd, out, size) => c.getdents64(n.getdents64, fd, out, size),
    openat: (dirfd, path, flags, mode) => c.openat(dirfd, path, flags, mode),
    readlinkat: (dirfd, path, out, size) => c.readlinkat(dirfd, path, out, size),
    lseek: (fd, offset, whence) => c.lseek(fd, offset, whence),
    mkdirat: (dirfd, path, mode) => c.mkdirat(dirfd, path, mode),
    renameat: (fromDir, from, toDir, to) => c.renameat(fromDir, from, toDir, to),
    renameat2: (fromDir, from, toDir, to, flags) =>
      c.renameat2(n.renameat2, fromDir, from, toDir, to, flags),
    linkat: (fromDir, from, toDir, to, flags) => c.linkat(fromDir, from, toDir, to, flags),
    unlinkat: (dirfd, path, flags) => c.unlinkat(dirfd, path, flags),
    fchown: (fd, uid, gid) => c.fchown(fd, uid, gid),
    fchmod: (fd, mode) => c.fchmod(fd, mode),
    flock: (fd, operation) => c.flock(fd, operation),
    close: (fd) => c.close(fd),
    pread: (fd, out, size, offset) => c.pread(fd, out, size, offset),
    pwrite: (fd, bytes, size, offset) => c.pwrite(fd, bytes, size, offset),
    fsync: (fd) => c.fsync(fd),
    prctl: (option, arg) => c.prctl(option, arg),
    setpriority: (which, who, priority) => c.setpriority(which, who, priority),
    sched_yield: () => c.sched_yield(),
    ioctl: (fd, request, out) => c.ioctl(fd, request, out),
    madvise: (address, length, advice) => c.madvise(address, length, advice),
  };
}

/** `preadv2` flag: read only what is in the page cache, never waiting for the disk. */
const RWF_NOWAIT = 8;

/**
 * `preadCached` over a bound `preadv2`: one `iovec` (the buffer's address and length),
 * written into this thread's 16 bytes before each call.
 */
function cachedReads(
  preadv2: (...args: unknown[]) => number,
  addressOf: (bytes: Uint8Array) => number,
): Libc["preadCached"] {
  const iov = new BigUint64Array(2);
  const iovBytes = new Uint8Array(iov.buffer);
  return (fd, out, size, offset) => {
    iov[0] = BigInt(addressOf(out));
    iov[1] = BigInt(size);
    return preadv2(fd, iovBytes, 1, offset, RWF_NOWAIT);
  };
}

function openFirst<T>(open: (name: string) => T): T {
  let first: unknown;
  for (const name of LIBRARY_NAMES) {
    try {
      return open(name);
    } catch (error) {
      first ??= error;
    }
  }
  throw first;
}

const MADV_HUGEPAGE = 14;
const HUGE_PAGE = 2 * 1024 * 1024;

/**
 * Asks the kernel to back a large buffer not touched yet with huge pages (where transparent
 * huge pages are left to `madvise`, as Debian's kernel leaves them): filling it then takes
 * a page fault per 2 MiB instead of per 4 KiB. In a virtual machine a fault can cost 10 µs
 * or more, and a buffer of 100 MB took a third of a second to fill.
 *
 * @param bytes the buffer (only the 2 MiB pages wholly inside it are advised)
 * @returns true when the advice was taken; false where it cannot be (no FFI, too small)
 */
export function adviseHugePages(bytes: Uint8Array): boolean {
  const found = loadLibc();
  if (!("libc" in found)) return false;
  const start = found.libc.addressOf(bytes);
  const first = Math.ceil(start / HUGE_PAGE) * HUGE_PAGE;
  const length = Math.floor((start + bytes.length - first) / HUGE_PAGE) * HUGE_PAGE;
  return length > 0 && found.libc.madvise(first, length, MADV_HUGEPAGE) === 0;
}

/** `prctl` option: the signal this process gets when the thread that started it ends. */
const PR_SET_PDEATHSIG = 1;
const SIGKILL = 9;

/**
 * Has the kernel kill this process when the thread that started it ends, or the process
 * that thread belongs to (Linux's `PR_SET_PDEATHSIG`): for a helper that may be stuck in a
 * computation, and so never sees its stdin end, when its parent is killed.
 *
 * @returns true when it is set; false where it cannot be (not Linux, no FFI)
 */
export function killWithParent(): boolean {
  const found = loadLibc();
  return "libc" in found && found.libc.prctl(PR_SET_PDEATHSIG, SIGKILL) === 0;
}
