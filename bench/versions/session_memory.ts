// The memory a session holds after 1,000 numbered edits: 20 files of about 50 KB, each edit
// a read of 20 lines and a one-line replace_lines, through the tools over a memory store.
//
//   deno run -A --v8-flags=--expose-gc bench/versions/session_memory.ts
//
// sessionBytes is what the session counts against its budget (two bytes per UTF-16 unit of
// each distinct text); heapGrowth what the heap grew by, after a collection, over the run.
import { MemoryStore } from "../../src/store/mod.ts";
import { Session } from "../../src/tools/_session.ts";
import { readTool } from "../../src/tools/read/read_tool.ts";
import { replaceLinesTool } from "../../src/tools/edit/edit_tools.ts";
import { settings } from "../../src/tools/options.ts";
import process from "node:process";

const FILES = 20;
const EDITS = 1000;
const files: Record<string, string> = {};
for (let f = 0; f < FILES; f++) {
  files[`f${f}.ts`] = Array.from(
    { length: 1000 },
    (_, i) => `export const v${i} = ${i * f}; // ${"x".repeat(30)}\n`,
  )
    .join("");
}
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const heap = () => (gc(), process.memoryUsage().heapUsed);
const store = new MemoryStore(files);
const heapBefore = heap();
const s = settings({});
const session = new Session(s.sessionBytes);
const read = readTool(store, s, session);
const edit = replaceLinesTool({ store, settings: s, session });
let peak = 0;
const started = performance.now();
for (let i = 0; i < EDITS; i++) {
  const path = `f${i % FILES}.ts`;
  const line = 1 + (i * 37) % 980;
  await read.call({ path, start_line: line, end_line: line + 19 });
  const result = await edit.call({ path, edits: [{ start_line: line, new_text: `// edit ${i}` }] });
  if (result.isError) throw new Error(result.content[0].text);
  peak = Math.max(peak, session.bytes);
}
const ms = performance.now() - started;
const heapGrowth = heap() - heapBefore;
const text = Object.values(files).reduce((n, t) => n + t.length, 0);
console.log(JSON.stringify({
  files: FILES,
  textBytes: text,
  edits: EDITS,
  sessionBytes: session.bytes,
  peakSessionBytes: peak,
  heapGrowth,
  budget: session.budget,
  msPerEdit: +(ms / EDITS).toFixed(3),
}));
