/**
 * The WebAssembly modules that go through bytes sixteen at a time (`_count_lf.wat`,
 * `search/_caseless_scan.wat`): a thread instantiates each once, over one memory of
 * {@linkcode CHUNK_BYTES} that they share, into which the bytes are copied a chunk at a time
 * (each use is done with the memory before the next starts: nothing here awaits).
 *
 * @module
 */
import { Buffer } from "node:buffer";

/** The size of the memory, and so of the chunks the bytes are copied in. */
export const CHUNK_BYTES = 1024 * 1024;

/** This thread's memory, once a module needed it. */
let memory: WebAssembly.Memory | undefined;

/**
 * A module instantiated over this thread's memory.
 *
 * @param base64 the module's bytes (see scripts/assemble_wasm.ts)
 * @returns its exports and a view of the memory, or null where the runtime cannot run it
 *   (no WebAssembly, or not its vector instructions)
 */
export function instantiateOverChunks<T>(
  base64: string,
): { memory: Uint8Array; exports: T } | null {
  const bytes = Buffer.from(base64, "base64");
  if (typeof WebAssembly === "undefined" || !WebAssembly.validate(bytes)) return null;
  const pages = CHUNK_BYTES / 65536;
  memory ??= new WebAssembly.Memory({ initial: pages, maximum: pages });
  const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes), { env: { memory } });
  return { memory: new Uint8Array(memory.buffer), exports: instance.exports as T };
}
