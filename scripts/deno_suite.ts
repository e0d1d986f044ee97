// Writes the Deno suite's test modules into .deno-suite/: one for each folder of tests/ (but
// tests/e2e, which the Bun suite runs), importing that folder's test files. Deno starts each
// test module in an isolate of its own, about 0.26 CPU-s apiece (30 empty test files took
// 7.9 CPU-s): the suite's 103 files took 180 CPU-s and 86-93 s on 2 cores, its 16 folders
// 116-125 CPU-s and 54-65 s. A test file still runs alone with `deno test FILE`.
//
//   deno run --allow-read --allow-write scripts/deno_suite.ts   (deno task test runs it)
import * as fs from "node:fs";
import * as path from "node:path";
import { REPO } from "./_project.ts";

/** Where the modules are written (made afresh each time, so no folder is left out or stale). */
const SUITE = path.join(REPO, ".deno-suite");

/** The test files below tests/ that Deno runs, by folder (relative to the project). */
function testFolders(): Map<string, string[]> {
  const folders = new Map<string, string[]>();
  const names = fs.readdirSync(path.join(REPO, "tests"), { recursive: true }) as string[];
  for (const name of names.sort()) {
    if (!name.endsWith("_test.ts") || name.startsWith(`e2e${path.sep}`)) continue;
    const folder = path.dirname(name);
    folders.set(folder, [...folders.get(folder) ?? [], `tests/${name}`]);
  }
  return folders;
}

fs.rmSync(SUITE, { recursive: true, force: true });
fs.mkdirSync(SUITE);
const folders = testFolders();
for (const [folder, files] of folders) {
  const imports = files.map((file) => `import "../${file}";\n`).join("");
  fs.writeFileSync(path.join(SUITE, `${folder.replaceAll(path.sep, "_")}_test.ts`), imports);
}
const count = [...folders.values()].reduce((sum, files) => sum + files.length, 0);
console.error(`.deno-suite/: ${folders.size} modules importing ${count} test files`);
