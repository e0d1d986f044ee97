// The directory store in-process, in each handle-relative way it reaches files, while
// another process swaps a directory inside the root with a symlink to outside it: reads,
// writes, deletes, listings and searches either work inside or are refused, never reach
// outside. (The binary's own race test drives the default way through MCP, 5,000 times.)
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { literalMatcher } from "../../src/core/mod.ts";
import { DirectoryStore } from "../../src/disk/directory_store.ts";
import { StoreError } from "../../src/store/errors.ts";
import type { FileSystemOptions } from "../../src/io/file_system.ts";
import { tempRoot } from "../_helpers/binary.ts";
import { startSwapping } from "../_helpers/swapper.ts";

const TRIES = 1000;
const SECRET = "OUTSIDE-SECRET";

/** Runs `work`, taking a refusal (a StoreError) as a fine answer. */
async function orRefused<T>(work: () => Promise<T>): Promise<T | undefined> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof StoreError) return undefined;
    throw error;
  }
}

const ways: [string, FileSystemOptions][] = [
  ["openat2 beneath the root", {}],
  ["one openat per component (kernels without openat2)", { openat2: false }],
];

describe("the directory store while a directory is being swapped with a symlink", () => {
  for (const [way, fileSystem] of ways) {
    test(`${way}: nothing outside is read, written, deleted or listed`, {
      timeout: 120_000,
    }, async () => {
      const base = tempRoot();
      const root = join(realpathSync(base.dir), "root");
      const outside = join(realpathSync(base.dir), "outside");
      mkdirSync(join(root, "d"), { recursive: true });
      mkdirSync(outside);
      writeFileSync(join(root, "d", "f.txt"), "inside\n");
      for (let i = 0; i < TRIES; i++) {
        writeFileSync(join(root, "d", `x${i}.txt`), "inside\n");
        writeFileSync(join(outside, `x${i}.txt`), `${SECRET}\n`);
      }
      writeFileSync(join(outside, "f.txt"), `${SECRET}\n`);
      writeFileSync(join(outside, "only-outside.txt"), `${SECRET}\n`);
      symlinkSync(outside, join(root, "dlink"));
      // (One thread: what is tested here is how files are reached, not the worker.)
      const store = await DirectoryStore.create({
        roots: [root],
        fileSystem,
        parallelSearchFrom: Number.MAX_SAFE_INTEGER,
      });
      assert.equal(store.sandbox.raceFree, true);
      const swapper = startSwapping(join(root, "d"), join(root, "dlink"));
      let worked = 0;
      try {
        for (let i = 0; i < TRIES; i++) {
          const read = await orRefused(() => store.readText("d/f.txt"));
          assert.ok(!read?.text.includes(SECRET), `read ${i}`);
          if (read) worked++;
          await orRefused(() => store.write(`d/w${i}.txt`, "new\n"));
          await orRefused(() => store.write("d/f.txt", `inside ${i}\n`, { overwrite: true }));
          await orRefused(() => store.delete(`d/x${i}.txt`));
          if (i % 25 === 0) {
            const listed = await orRefused(() => store.list(".", { depth: 3 })) ?? [];
            assert.ok(!listed.some((entry) => entry.path.includes("only-outside")), `list ${i}`);
            const found = await orRefused(() => store.search({ matcher: literalMatcher(SECRET) }));
            assert.equal(found?.files.length ?? 0, 0, `search ${i}`);
          }
        }
      } finally {
        await swapper.stop();
      }
      assert.ok(worked > 0, "some reads got through the race");
      const names = readdirSync(outside).sort();
      assert.equal(names.length, TRIES + 2, "nothing was created or deleted outside");
      for (const name of names) {
        assert.equal(readFileSync(join(outside, name), "utf8"), `${SECRET}\n`, name);
      }
      base.remove();
    });
  }
});
