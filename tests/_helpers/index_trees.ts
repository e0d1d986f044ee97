// Shared by the tests of the directory store's search index: a tree of small files, and a
// wait until the index has learned what it was given.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { DirectoryStore } from "../../src/disk/directory_store.ts";

/**
 * A new tree of `files` small TypeScript files in seven folders (every fifth holds
 * `createElement("div")`), a binary file, and a hidden file that holds `createElement`.
 */
export function tempTree(files: number): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "linewise-index-")));
  for (let i = 0; i < files; i++) {
    const dir = path.join(root, `d${i % 7}`);
    fs.mkdirSync(dir, { recursive: true });
    const body = i % 5 === 0 ? `const x${i} = createElement("div");\n` : `let y${i} = ${i};\n`;
    fs.writeFileSync(path.join(dir, `f${i}.ts`), `// file ${i}\n${body}export {};\n`);
  }
  fs.writeFileSync(path.join(root, "blob.bin"), new Uint8Array([1, 0, 2, 0, 99]));
  // (Hidden: walked for its type alone, ripgrep's -t.)
  fs.writeFileSync(path.join(root, "d1", ".local.ts"), `createElement("hidden");\n`);
  return root;
}

/** Waits until the index has learned every file it was given (it works in the background). */
export async function indexed(store: DirectoryStore): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const stats = store.searchIndexStats();
    if (stats !== undefined && stats.queued + stats.indexing === 0 && stats.files > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.fail(`the index did not fill: ${JSON.stringify(store.searchIndexStats())}`);
}
