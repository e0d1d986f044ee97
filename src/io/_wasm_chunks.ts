/**
 * The WebAssembly modules that go through bytes sixteen at a time (`_count_lf.wat`,
 * `search/_caseless_scan.wat`): a thread instantiates each once, over one memory that they
 * share. Its first {@linkcode CHUNK_BYTES} are where bytes from elsewhere are copied a chunk
 * at a time (each use is done with them before the next starts: nothing here awaits). After
 * them lies the thread's read region ({@linkcode readRegion}): a file reader that reads there
 * has its bytes gone through where they are, without the copy.
 *
 * @module
 */
import { Buffer } from "node:buffer";

/** The size of the chunks bytes from elsewhere are copied in, at the memory's start. */
export const CHUNK_BYTES = 1024 * 1024;

/**
 * The size of the read region, after the chunk: the files a search reads whole up to this size
 * are read there (84 of the Linux kernel's 78,613 files are larger). Its pages stay the
 * thread's once a read filled them, and a memory's size costs the runtime even where its pages
 * are not touched (docs/decisions.md).
 */
export const READ_REGION_BYTES = 1024 * 1024;

/** This thread's memory, once a module or a reader needed it. */
let memory: WebAssembly.Memory | undefined;

function threadMemory(): WebAssembly.Memory {
  const pages = (CHUNK_BYTES + READ_REGION_BYTES) / 65536;
  return memory ??= new WebAssembly.Memory({ initial: pages, maximum: pages });
}

/**
 * A module instantiated over this thread's memory.
 *
 * @param base64 the module's bytes (see scripts/assemble_wasm.ts)
 * @returns its exports and a view of the memory's chunk (bytes anywhere in the memory are
 *   those whose `buffer` is this view's), or null where the runtime cannot run it (no
 *   WebAssembly, or not its vector instructions)
 */
export function instantiateOverChunks<T>(
  base64: string,
): { memory: Uint8Array; exports: T } | null {
  const bytes = Buffer.from(base64, "base64");
  if (typeof WebAssembly === "undefined" || !WebAssembly.validate(bytes)) return null;
  const shared = threadMemory();
  const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes), {
    env: { memory: shared },
  });
  return { memory: new Uint8Array(shared.buffer, 0, CHUNK_BYTES), exports: instance.exports as T };
}

/**
 * This thread's read region, {@linkcode READ_REGION_BYTES} of the memory after the chunk: a
 * file reader reads there so that the modules go through its bytes in place. Every reader of
 * the thread shares it, as the bytes a reader returns are valid only until the thread's next
 * read. Nothing but a read writes there.
 *
 * @returns the region, or undefined without WebAssembly
 */
export function readRegion(): Uint8Array | undefined {
  if (typeof WebAssembly === "undefined") return undefined;
  return new Uint8Array(threadMemory().buffer, CHUNK_BYTES, READ_REGION_BYTES);
}

/**
 * Whether bytes lie in this thread's memory (read into its read region, or a deep read's
 * block in its chunk): the modules then go through them where they are.
 *
 * @param bytes the bytes
 * @returns true when their buffer is the memory's
 */
export function inThreadMemory(bytes: Uint8Array): boolean {
  return memory !== undefined && bytes.buffer === memory.buffer;
}
